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

    @Test func importIntoADanglingLinkNamesWhereItPoints() throws {
        let tool = try CLITool()
        try "{\"burrowExport\": 1, \"objects\": {}}".write(toFile: tool.path("x.json"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: tool.path("out.burrow"), withDestinationPath: "gone/out.burrow")

        let run = try tool.run(["import", "out.burrow", "x.json"])
        #expect(run.status == 1)
        #expect(
            run.errors
                == "burrow: out.burrow: no such file, and it cannot be created: there is no directory gone (the symbolic link out.burrow points to gone/out.burrow)\n"
        )
        // recover takes a link there, dangling or not, for a file in the way of a new one.
        #expect(try tool.run(["recover", "x.json", "out.burrow"]).errors.hasPrefix("burrow: out.burrow exists already"))
    }
}

/// An export whose object names a member twice is refused: which of the two counts would be a
/// guess, and the other would be dropped without a word.
@Suite(.temporaryDirectory, .ownThread) struct CLIDuplicateMemberTests {
    @Test(arguments: [
        (#""objects": {"Item": [{"id": 1}]}, "objects": {"Item": [{"id": 2}]}"#, "line 4, column 36", "objects"),
        (#""objects": {"Item": [{"id": 1, "name": "a", "name": "b"}]}"#, "line 4, column 46", "name"),
        (#""objects": {"Item": [{"id": 1}], "Item": [{"id": 2}]}"#, "line 4, column 35", "Item"),
    ])
    func importRefusesAMemberNamedTwice(objects: String, place: String, name: String) throws {
        let tool = try CLITool()
        let export = """
            {"burrowExport": 1, "classes": [{"name": "Item", "embedded": false, "properties": [
                {"name": "id", "type": "int", "primaryKey": true, "indexed": true},
                {"name": "name", "type": "string", "optional": true}]}],
             \(objects)}
            """
        try export.write(toFile: tool.path("twice.json"), atomically: true, encoding: .utf8)

        let run = try tool.run(["import", "items.burrow", "twice.json"])
        #expect(run.status == 1)
        #expect(
            run.errors
                == "burrow: twice.json is not valid JSON: \(place): a second member named \"\(name)\" in one object; give each member its own name\n")
        #expect(!FileManager.default.fileExists(atPath: tool.path("items.burrow")))
    }
}

/// A `--where` key path of any length is an answer or an error, never a crash: following one
/// takes a stack frame per step, so a path may take at most 200.
@Suite(.temporaryDirectory, .ownThread) struct CLILongKeyPathTests {
    @Test func aKeyPathOfThousandsOfStepsIsAUsageError() throws {
        let tool = try CLITool()
        let export = """
            {"burrowExport": 1, "classes": [{"name": "Node", "embedded": false, "properties": [
                {"name": "id", "type": "int", "primaryKey": true, "indexed": true},
                {"name": "next", "type": "object", "objectClass": "Node", "optional": true}]}],
             "objects": {"Node": [{"id": 1, "next": 2}, {"id": 2, "next": 1}]}}
            """
        try export.write(toFile: tool.path("nodes.json"), atomically: true, encoding: .utf8)
        #expect(try tool.run(["import", "nodes.burrow", "nodes.json"]).status == 0)

        // 199 links and the id: found, the chain going round.
        let longest = try tool.run([
            "objects", "nodes.burrow", "Node", "--where", String(repeating: "next.", count: 199) + "id == 2", "--format", "json",
        ])
        #expect(longest.status == 0, "\(longest.errors)")
        #expect(try CLITool.json(longest.output) as? [[String: Int]] == [["id": 1, "next": 2]])

        for steps in [201, 5_000] {
            let run = try tool.run(["objects", "nodes.burrow", "Node", "--where", String(repeating: "next.", count: steps - 1) + "id == 2"])
            #expect(run.status == 2)
            #expect(
                run.errors.hasPrefix(
                    "burrow: --where: Invalid key path 'next.next.next…': it has \(steps) steps; at most 200 are allowed.\n"))
        }
    }
}

/// Two first runs of `demo` at once on a new file: one adopts the dogs, both finish.
@Suite(.temporaryDirectory, .ownThread) struct CLIDemoTwiceTests {
    @Test func twoDemosAtOnceOnANewFileBothSucceed() throws {
        let tool = try CLITool()
        for round in 0..<3 {
            let name = "round\(round).burrow"
            let children = try [tool.start(["demo", name]), tool.start(["demo", name])]
            let statuses = children.map { $0.waitForExit(timeout: 120) }
            let errors = children.map(\.errorOutput)
            let adopting = children.filter { $0.output.contains("Adopted") }.count
            for child in children {
                try? FileManager.default.removeItem(atPath: child.outputPath)
                try? FileManager.default.removeItem(atPath: child.errorPath)
            }
            #expect(statuses == [0, 0], "\(errors)")
            #expect(adopting == 1)
            #expect(try tool.run(["objects", name, "Person", "--format", "json"]).output.split(separator: "\n").count == 5)
            #expect(try tool.run(["verify", name]).status == 0)
        }
    }
}

/// `recover` builds its copy under names of its own and gives it OUTPUT's name only when it is
/// whole: a recover killed part-way, or another one into the same OUTPUT, leaves no OUTPUT that
/// looks whole but holds less than it should.
@Suite(.temporaryDirectory, .ownThread) struct CLIRecoverOutputTests {
    /// A file of `count` objects, `many.burrow`.
    static func manyObjects(_ tool: CLITool, count: Int) throws {
        let objects = (0..<count).map { "{\"id\": \($0), \"name\": \"object \($0)\"}" }.joined(separator: ",\n")
        let export = """
            {"burrowExport": 1, "classes": [{"name": "Item", "embedded": false, "properties": [
                {"name": "id", "type": "int", "primaryKey": true, "indexed": true},
                {"name": "name", "type": "string"}]}],
             "objects": {"Item": [\(objects)]}}
            """
        try export.write(toFile: tool.path("many.json"), atomically: true, encoding: .utf8)
        #expect(try tool.run(["import", "many.burrow", "many.json"]).status == 0)
        try FileManager.default.removeItem(atPath: tool.path("many.json"))
    }

    @Test func aRecoverKilledPartWayLeavesNoOutput() throws {
        let tool = try CLITool()
        try Self.manyObjects(tool, count: 20_000)
        for delay in [0.2, 0.5, 0.8, 1.1, 1.4, 1.7, 2.0] {
            let child = try tool.start(["recover", "many.burrow", "out.burrow"])
            usleep(useconds_t(delay * 1_000_000))
            child.kill()
            let status = child.waitForExit(timeout: 60)
            try? FileManager.default.removeItem(atPath: child.outputPath)
            try? FileManager.default.removeItem(atPath: child.errorPath)
            if FileManager.default.fileExists(atPath: tool.path("out.burrow")) {
                // Only a recover that finished names the copy OUTPUT, and then it holds everything.
                #expect(status == 0, "killed after \(delay) s, it left out.burrow")
                #expect(try tool.run(["info", "out.burrow"]).output.contains("class Item: 20000 objects"))
            }
            for name in try FileManager.default.contentsOfDirectory(atPath: tool.directory.path) where name.hasPrefix("out.burrow") {
                try FileManager.default.removeItem(atPath: tool.path(name))
            }
        }
        #expect(try tool.run(["verify", "many.burrow"]).status == 0)
    }

    @Test func whatAStoppedRecoverLeftIsNamedAndKeepsOutputFromBeingMade() throws {
        let tool = try CLITool()
        try Self.manyObjects(tool, count: 3)
        for leftover in ["out.burrow.recovering", "out.burrow.recovering.json"] {
            try Data("left by a recover that was stopped".utf8).write(to: URL(fileURLWithPath: tool.path(leftover)))
            let run = try tool.run(["recover", "many.burrow", "out.burrow"])
            #expect(run.status == 1)
            #expect(
                run.errors
                    == "burrow: \(leftover) is in the way: recover builds the copy for out.burrow in out.burrow.recovering, from out.burrow.recovering.json. Another recover into out.burrow may be under way; if none is, one that stopped left them: remove both and run recover again.\n"
            )
            #expect(!FileManager.default.fileExists(atPath: tool.path("out.burrow")))
            // The file in the way is not this recover's to remove.
            #expect(try Data(contentsOf: URL(fileURLWithPath: tool.path(leftover))) == Data("left by a recover that was stopped".utf8))
            try FileManager.default.removeItem(atPath: tool.path(leftover))
        }

        let run = try tool.run(["recover", "many.burrow", "out.burrow"])
        #expect(run.status == 0, "\(run.errors)")
        // Only OUTPUT is left of what recover made.
        #expect(
            Set(try FileManager.default.contentsOfDirectory(atPath: tool.directory.path)).subtracting(["many.burrow", "many.burrow.lock"]) == [
                "out.burrow"
            ])
        #expect(try tool.run(["verify", "out.burrow"]).status == 0)
    }

    @Test func twoRecoversIntoOneOutputMakeItOnce() throws {
        let tool = try CLITool()
        try Self.manyObjects(tool, count: 2_000)
        let first = try tool.start(["recover", "many.burrow", "out.burrow"])
        let second = try tool.start(["recover", "many.burrow", "out.burrow"])
        let statuses = [first.waitForExit(timeout: 120), second.waitForExit(timeout: 120)]
        for child in [first, second] {
            try? FileManager.default.removeItem(atPath: child.outputPath)
            try? FileManager.default.removeItem(atPath: child.errorPath)
        }
        #expect(statuses.contains(0))
        #expect(try tool.run(["info", "out.burrow"]).output.contains("class Item: 2000 objects"))
        #expect(try tool.run(["verify", "out.burrow"]).status == 0)
        #expect(!(try FileManager.default.contentsOfDirectory(atPath: tool.directory.path)).contains { $0.contains(".recovering") })
    }
}
