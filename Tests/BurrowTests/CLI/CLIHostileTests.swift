import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The tool against what a careless or hostile user hands it: an output that is the file being
/// read, a FIFO where a file should be, a symbolic link to the file, a file in a directory that
/// does not exist.
@Suite(.temporaryDirectory, .ownThread) struct CLIHostileTests {
    /// A sound file of the demo's classes, `demo.burrow`, and nothing else in the directory.
    static func demoFile(_ tool: CLITool) throws -> Data {
        #expect(try tool.run(["demo", "demo.burrow"]).status == 0)
        for name in try FileManager.default.contentsOfDirectory(atPath: tool.directory.path) where name != "demo.burrow" {
            try FileManager.default.removeItem(atPath: tool.path(name))
        }
        return try Data(contentsOf: URL(fileURLWithPath: tool.path("demo.burrow")))
    }

    @Test(arguments: ["same name", "symbolic link", "hard link"], [false, true])
    func exportRefusesAnOutputThatIsTheFileBeingRead(output kind: String, salvage: Bool) throws {
        let tool = try CLITool()
        let before = try Self.demoFile(tool)
        let output: String
        switch kind {
        case "same name": output = "demo.burrow"
        case "symbolic link":
            output = "link.json"
            try FileManager.default.createSymbolicLink(atPath: tool.path(output), withDestinationPath: "demo.burrow")
        default:
            output = "hard.json"
            try FileManager.default.linkItem(atPath: tool.path("demo.burrow"), toPath: tool.path(output))
        }

        let run = try tool.run(["export", "demo.burrow", "--output", output] + (salvage ? ["--salvage"] : []))
        #expect(run.status == 1)
        #expect(
            run.errors == "burrow: \(output) names the file being read (demo.burrow): writing the output there would destroy it. Name another file.\n"
        )
        #expect(try Data(contentsOf: URL(fileURLWithPath: tool.path("demo.burrow"))) == before)
        #expect(try tool.run(["verify", "demo.burrow"]).status == 0)
        // Another output is written as before.
        #expect(try tool.run(["export", "demo.burrow", "--output", "copy.json"]).status == 0)
        #expect(try tool.run(["import", "copy.burrow", "copy.json"]).status == 0)
    }

    @Test(arguments: [
        ["info"], ["verify"], ["schema"], ["dump"], ["export"], ["compact"], ["import", "x.json"], ["demo"], ["recover", "out.burrow"],
    ])
    func aFIFOIsRefusedWithoutWaitingForAWriter(command: [String]) throws {
        let tool = try CLITool()
        try "{\"burrowExport\": 1, \"objects\": {}}".write(toFile: tool.path("x.json"), atomically: true, encoding: .utf8)
        #expect(mkfifo(tool.path("pipe.burrow"), 0o600) == 0)
        let arguments =
            command.count == 1
            ? [command[0], "pipe.burrow"] : command[0] == "import" ? ["import", "pipe.burrow", command[1]] : [command[0], "pipe.burrow", command[1]]

        let child = try tool.start(arguments)
        let status = child.waitForExit(timeout: 60)
        #expect(status == 1, "burrow \(arguments.joined(separator: " ")) did not refuse the FIFO (killed after 60 s if nil)")
        let errors = try String(contentsOfFile: child.errorPath, encoding: .utf8)
        #expect(errors.hasPrefix("burrow: pipe.burrow: is a FIFO (named pipe), not a Burrow file"), "\(errors)")
        #expect(errors.split(separator: "\n").count == 1)
        try? FileManager.default.removeItem(atPath: child.outputPath)
        try? FileManager.default.removeItem(atPath: child.errorPath)
        // Nothing was made beside it.
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: tool.directory.path)) == ["pipe.burrow", "x.json"])
    }

    @Test func compactThroughASymbolicLinkCompactsTheFileAndKeepsTheLink() throws {
        let tool = try CLITool()
        _ = try Self.demoFile(tool)
        try FileManager.default.createSymbolicLink(atPath: tool.path("link.burrow"), withDestinationPath: "demo.burrow")
        let before = try tool.run(["export", "demo.burrow"]).output

        let run = try tool.run(["compact", "link.burrow"])
        #expect(run.status == 0, "\(run.errors)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: tool.path("link.burrow")) == "demo.burrow")
        #expect(try tool.run(["export", "link.burrow"]).output == before)
        #expect(try tool.run(["verify", "demo.burrow"]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: tool.path("demo.burrow.compacting")))
    }

    @Test(arguments: [
        ["import", "missing/new.burrow", "x.json"], ["demo", "missing/new.burrow"], ["recover", "demo.burrow", "missing/new.burrow"],
    ])
    func aFileInADirectoryThatIsNotThereSaysSo(arguments: [String]) throws {
        let tool = try CLITool()
        _ = try Self.demoFile(tool)
        try "{\"burrowExport\": 1, \"objects\": {}}".write(toFile: tool.path("x.json"), atomically: true, encoding: .utf8)

        let run = try tool.run(arguments)
        #expect(run.status == 1)
        #expect(run.errors == "burrow: missing/new.burrow: no such file, and it cannot be created: there is no directory missing\n")
    }

    @Test func recoverIntoADanglingLinkNamesWhereItPoints() throws {
        let tool = try CLITool()
        _ = try Self.demoFile(tool)
        try FileManager.default.createSymbolicLink(atPath: tool.path("out.burrow"), withDestinationPath: "gone/out.burrow")

        let run = try tool.run(["recover", "demo.burrow", "out.burrow"])
        #expect(run.status == 1)
        #expect(
            run.errors
                == "burrow: out.burrow: no such file, and it cannot be created: there is no directory gone (the symbolic link out.burrow points to gone/out.burrow)\n"
        )
    }
}
