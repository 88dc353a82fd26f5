import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// Files Burrow refuses to open, one of each kind, made in a directory beside a real database
/// they are cut or changed from.
enum RefusedFiles {
    /// Makes them in `directory` from the database at `database`; returns their names.
    static func make(in directory: String, from database: String) throws -> [String] {
        let original = try Data(contentsOf: URL(fileURLWithPath: database))
        let pageSize = Int(original[20]) | Int(original[21]) << 8 | Int(original[22]) << 16
        var newer = original
        // The format version, a 32-bit word at byte 16 of both meta pages.
        for meta in [0, pageSize] { newer.replaceSubrange((meta + 16)..<(meta + 20), with: [99, 0, 0, 0]) }
        let files: [(String, Data)] = [
            ("empty.burrow", Data()),
            ("short.burrow", Data(repeating: 0xA5, count: 100)),
            ("text.burrow", Data("name,age\nRex,3\n".utf8)),
            ("zeros.burrow", Data(repeating: 0, count: 8192)),
            ("truncated.burrow", original.prefix(5000)),
            ("newer.burrow", newer),
        ]
        for (name, contents) in files {
            try contents.write(to: URL(fileURLWithPath: directory).appendingPathComponent(name))
        }
        try FileManager.default.createDirectory(
            atPath: (directory as NSString).appendingPathComponent("folder.burrow"), withIntermediateDirectories: false)
        return files.map(\.0) + ["folder.burrow"]
    }

    /// Every name in `directory` with its size, so that a file made, removed or changed in size
    /// shows.
    static func listing(_ directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).sorted().map { name in
            let attributes = try FileManager.default.attributesOfItem(atPath: (directory as NSString).appendingPathComponent(name))
            let isDirectory = attributes[.type] as? FileAttributeType == .typeDirectory
            return isDirectory ? "\(name)/" : "\(name) \(attributes[.size] as? Int ?? -1)"
        }
    }
}

/// Every command that opens a file, on a file it refuses (empty, cut short, not Burrow's, of a
/// newer format, a directory), fails with status 1 and one line saying why, and leaves the
/// directory as it was: no lock file, slots file or other file beside it, the file itself
/// unchanged. So does `import` into a new file it cannot create.
@Suite(.temporaryDirectory, .ownThread) struct CLILockFileTests {
    @Test func commandsLeaveNothingBesideAFileTheyRefuse() throws {
        let tool = try CLITool()
        try CLIShop.write(to: tool.path("shop.burrow"))
        #expect(try tool.run(["export", "shop.burrow", "--output", "shop.json"]).status == 0)
        let refused = try RefusedFiles.make(in: tool.directory.path, from: tool.path("shop.burrow"))
        for name in refused {
            let commands = [
                ["info", name], ["schema", name], ["objects", name, "CLIOwner"], ["dump", name], ["verify", name], ["export", name],
                ["compact", name], ["import", name, "shop.json"],
            ]
            for command in commands {
                let before = try RefusedFiles.listing(tool.directory.path)
                let run = try tool.run(command)
                let said = run.errors.split(separator: "\n")
                #expect(run.status == 1, "burrow \(command.joined(separator: " ")) exited with \(run.status): \(run.errors)")
                #expect(
                    said.count == 1 && said[0].hasPrefix("burrow: ") && said[0].contains(name),
                    "burrow \(command.joined(separator: " ")) said: \(run.errors)")
                #expect(
                    try RefusedFiles.listing(tool.directory.path) == before,
                    "burrow \(command.joined(separator: " ")) changed the directory")
            }
        }
    }

    @Test func importIntoANewFileWhoseLockFileCannotBeUsedLeavesNoFile() throws {
        let tool = try CLITool()
        try CLIShop.write(to: tool.path("shop.burrow"))
        #expect(try tool.run(["export", "shop.burrow", "--output", "shop.json"]).status == 0)
        // A directory where the lock file goes, and a lock file of a format this Burrow does
        // not know.
        try FileManager.default.createDirectory(atPath: tool.path("blocked.burrow.lock"), withIntermediateDirectories: false)
        var foreignLock = Data("BURROWLK".utf8)
        foreignLock.append(contentsOf: [7, 0, 0, 0, 0, 0, 0, 0] + [UInt8](repeating: 0, count: 4080))
        try foreignLock.write(to: tool.directory.appendingPathComponent("future.burrow.lock"))
        for name in ["blocked.burrow", "future.burrow"] {
            let before = try RefusedFiles.listing(tool.directory.path)
            let run = try tool.run(["import", name, "shop.json"])
            #expect(run.status == 1, "burrow import \(name) exited with \(run.status): \(run.errors)")
            #expect(run.errors.split(separator: "\n").count == 1, "burrow import \(name) said: \(run.errors)")
            #expect(try RefusedFiles.listing(tool.directory.path) == before, "burrow import \(name) changed the directory")
            if name == "future.burrow" { #expect(run.errors.contains("lock file of format 7"), "\(run.errors)") }
        }
    }
}
