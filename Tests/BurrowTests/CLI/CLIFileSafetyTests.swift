import BurrowTestTraits
import Foundation
import Testing

@testable import BurrowStorage

/// The tool never deletes, truncates or rewrites a file it did not create or could not open
/// whole: `demo` refuses a default file it cannot open, and the commands that write (`demo`,
/// `import`, `compact`) leave a file that fell back past its newest commit as it is.
@Suite(.temporaryDirectory, .ownThread) struct CLIFileSafetyTests {
    /// Every file in the test's directory, with its bytes.
    static func contents(of directory: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            files[name] = try Data(contentsOf: directory.appendingPathComponent(name))
        }
        return files
    }

    /// A Burrow file whose meta pages both say it was written in a newer file format.
    static func newerFormatFile(_ tool: CLITool, at name: String) throws {
        #expect(try tool.run(["demo", name]).status == 0)
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: tool.path(name))))
        let pageSize = 4096
        bytes.withUnsafeMutableBytes { file in
            for slot in 0..<2 {
                let page = file.baseAddress! + slot * pageSize
                page.setU32(16, Meta.formatVersion + 1)
                page.setU64(0, Checksum.page(UnsafeRawPointer(page), length: pageSize, pageNumber: UInt32(slot)))
            }
        }
        try Data(bytes).write(to: URL(fileURLWithPath: tool.path(name)))
        for leftover in try FileManager.default.contentsOfDirectory(atPath: tool.directory.path) where leftover != name {
            try FileManager.default.removeItem(atPath: tool.path(leftover))
        }
    }

    @Test(arguments: ["foreign", "short", "newer format", "other classes"])
    func demoLeavesADefaultFileItCannotOpenAsItIs(kind: String) throws {
        let tool = try CLITool()
        let path = tool.path("default.burrow")
        switch kind {
        case "foreign": try Data("name,age\nRex,3\n".utf8).write(to: URL(fileURLWithPath: path))
        case "short": try Data((0..<100).map { UInt8($0) }).write(to: URL(fileURLWithPath: path))
        case "newer format": try Self.newerFormatFile(tool, at: "default.burrow")
        default:
            // A Burrow file with a class Dog that is not the demo's Dog.
            let export = """
                {"burrowExport": 1, "classes": [{"name": "Dog", "embedded": false, "properties": [
                    {"name": "name", "type": "string", "primaryKey": true, "indexed": true}]}],
                 "objects": {"Dog": [{"name": "Rex"}]}}
                """
            try export.write(toFile: tool.path("dog.json"), atomically: true, encoding: .utf8)
            #expect(try tool.run(["import", "default.burrow", "dog.json"]).status == 0)
            try FileManager.default.removeItem(atPath: tool.path("dog.json"))
        }
        let before = try Self.contents(of: tool.directory)

        let run = try tool.run(["demo"])
        #expect(run.status == 1)
        #expect(run.output.isEmpty, "nothing happened, so nothing is reported done: \(run.output)")
        #expect(run.errors.split(separator: "\n").count == 1, "one line: \(run.errors)")
        #expect(run.errors.hasPrefix("burrow: ") && run.errors.contains("default.burrow"), "\(run.errors)")
        #expect(run.errors.contains("The demo leaves the file as it is"), "\(run.errors)")
        #expect(try Self.contents(of: tool.directory) == before, "the file, and the directory, are as they were")
    }

    @Test func demoCreatesTheDefaultFileAndRunsAgainOnIt() throws {
        let tool = try CLITool()
        // An empty file holds nothing to lose: the demo makes it a new database, as a realm
        // opened on an empty file does.
        try Data().write(to: URL(fileURLWithPath: tool.path("default.burrow")))
        let first = try tool.run(["demo"])
        #expect(first.status == 0, "\(first.errors)")
        #expect(first.lines.contains("Demo run 1 on this file."))
        let second = try tool.run(["demo"])
        #expect(second.status == 0, "\(second.errors)")
        #expect(second.lines.contains("Demo run 2 on this file."))
        #expect(try tool.run(["verify", "default.burrow"]).status == 0)
    }

    /// A file of the demo's classes with 300 more dogs, one page of which is damaged.
    static func damagedDemoFile(_ tool: CLITool, at name: String) throws {
        #expect(try tool.run(["demo", name]).status == 0)
        let dogs = (0..<300).map { #"{"_id": "\#(String(format: "%024x", $0 + 1))", "name": "Dog \#($0)", "age": \#($0 % 15)}"# }
        // The file has the classes: the import need not describe them.
        let export = #"{"burrowExport": 1, "objects": {"Dog": [\#(dogs.joined(separator: ",\n"))]}}"#
        try export.write(toFile: tool.path("dogs.json"), atomically: true, encoding: .utf8)
        let imported = try tool.run(["import", name, "dogs.json"])
        #expect(imported.status == 0, "\(imported.errors)")
        #expect(imported.output == "Imported 300 objects into \(name): 300 created.\n")
        let url = URL(fileURLWithPath: tool.path(name))
        var bytes = try Data(contentsOf: url)
        bytes[bytes.count - 100] ^= 0x20
        try bytes.write(to: url)
    }

    @Test func writingCommandsLeaveADamagedFileAsItIs() throws {
        let tool = try CLITool()
        try Self.damagedDemoFile(tool, at: "dogs.burrow")
        let before = try Self.contents(of: tool.directory)
        for arguments in [["demo", "dogs.burrow"], ["import", "dogs.burrow", "dogs.json"], ["compact", "dogs.burrow"]] {
            let run = try tool.run(arguments)
            #expect(run.status == 1, "\(arguments)")
            #expect(run.output.isEmpty, "\(arguments): \(run.output)")
            #expect(run.errors.contains("dogs.burrow is damaged: page"), "\(arguments): \(run.errors)")
            #expect(run.errors.split(separator: "\n").count == 1, "\(arguments): one line: \(run.errors)")
            #expect(try Self.contents(of: tool.directory) == before, "\(arguments) changed a file")
        }
    }

    @Test func writingCommandsLeaveAFileThatDidNotOpenWholeAsItIs() throws {
        let tool = try CLITool()
        // A realm whose newest commit, of 300 people, has a byte flipped: it opens at the
        // version before, with a report.
        let (url, size, _) = try FileRecoveryTests.fileWithNewestCommitOf300People()
        var bytes = try Data(contentsOf: url)
        bytes[size - 100] ^= 0x20
        try bytes.write(to: URL(fileURLWithPath: tool.path("people.burrow")))
        try FileManager.default.removeItem(at: url.deletingLastPathComponent())
        let info = try tool.run(["info", "people.burrow"])
        #expect(info.status == 1, "reading commands report the fallback")
        #expect(info.errors.contains("did not open whole"), "\(info.errors)")
        try #"{"burrowExport": 1, "objects": {}}"#.write(toFile: tool.path("none.json"), atomically: true, encoding: .utf8)
        let before = try Self.contents(of: tool.directory)

        for arguments in [["import", "people.burrow", "none.json"], ["compact", "people.burrow"]] {
            let run = try tool.run(arguments)
            #expect(run.status == 1, "\(arguments)")
            #expect(run.output.isEmpty, "\(arguments): \(run.output)")
            #expect(run.errors.contains("people.burrow did not open whole"), "\(arguments): \(run.errors)")
            #expect(run.errors.contains("so the file is left as it is"), "\(arguments): \(run.errors)")
            #expect(try Self.contents(of: tool.directory) == before, "\(arguments) changed a file")
        }
    }

    @Test func exportNeverWritesOverADatabase() throws {
        let tool = try CLITool()
        #expect(try tool.run(["demo", "dogs.burrow"]).status == 0)
        #expect(try tool.run(["demo", "other.burrow"]).status == 0)
        let before = try Self.contents(of: tool.directory)
        for arguments in [
            ["export", "dogs.burrow", "--output", "other.burrow"], ["export", "dogs.burrow", "--salvage", "--output", "other.burrow"],
        ] {
            let run = try tool.run(arguments)
            #expect(run.status == 1, "\(arguments)")
            #expect(run.errors == "burrow: other.burrow is a Burrow database: writing the output there would destroy it. Name another file.\n")
            #expect(try Self.contents(of: tool.directory) == before, "\(arguments) changed a file")
        }
        // An older export is replaced, as a file named for the output is.
        try Data("old export".utf8).write(to: URL(fileURLWithPath: tool.path("dogs.json")))
        #expect(try tool.run(["export", "dogs.burrow", "--output", "dogs.json"]).status == 0)
        #expect(try String(contentsOfFile: tool.path("dogs.json"), encoding: .utf8).hasPrefix("{\n  \"burrowExport\": 1,"))
    }

    @Test func compactNeverRemovesAFileInTheWayOfItsCopy() throws {
        let tool = try CLITool()
        #expect(try tool.run(["demo", "dogs.burrow"]).status == 0)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: tool.path("dogs.burrow.compacting")))
        let run = try tool.run(["compact", "dogs.burrow"])
        #expect(run.status == 1)
        #expect(run.errors.contains("dogs.burrow.compacting is in the way"), "\(run.errors)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: tool.path("dogs.burrow.compacting"))) == Data("mine".utf8))
        try FileManager.default.removeItem(atPath: tool.path("dogs.burrow.compacting"))
        #expect(try tool.run(["compact", "dogs.burrow"]).status == 0)
        #expect(try tool.run(["verify", "dogs.burrow"]).status == 0)
    }
}
