import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// The tool's help, version, usage errors (status 2, on standard error) and files it cannot
/// open (status 1, one line).
@Suite(.temporaryDirectory, .ownThread) struct CLIUsageTests {
    static let commands = ["schema", "objects", "export", "import", "import-realm", "info", "dump", "verify", "recover", "compact", "demo"]

    @Test func helpForTheToolAndEachCommandGoesToStandardOutput() throws {
        let tool = try CLITool()
        for arguments in [["--help"], ["-h"], ["help"]] {
            let run = try tool.run(arguments)
            #expect(run.status == 0 && run.errors.isEmpty)
            #expect(run.output.hasPrefix("usage: burrow <command> [arguments]"))
            for command in Self.commands { #expect(run.output.contains("\n  \(command) "), "\(command) listed") }
            // The summaries start in one column, after the longest name and two spaces.
            let listed = run.output.split(separator: "\n").filter { line in Self.commands.contains { line.hasPrefix("  \($0) ") } }
            #expect(listed.count == Self.commands.count)
            let columns = Set(
                listed.map { line -> Int in
                    let text = Array(line)
                    var column = 2
                    while column < text.count, text[column] != " " { column += 1 }
                    while column < text.count, text[column] == " " { column += 1 }
                    return column
                })
            #expect(columns.count == 1, "\(listed)")
        }
        for command in Self.commands {
            for arguments in [[command, "--help"], [command, "-h"], ["help", command], [command, "some.burrow", "--help"]] {
                let run = try tool.run(arguments)
                #expect(run.status == 0, "\(arguments): \(run.errors)")
                #expect(run.errors.isEmpty)
                #expect(run.output.hasPrefix("usage: burrow \(command) "), "\(arguments): \(run.output)")
            }
        }
        let objects = try tool.run(["objects", "--help"])
        for option in ["--where QUERY", "--sort KEYPATH", "--limit N", "--format F"] { #expect(objects.output.contains(option)) }
        #expect(try tool.run(["info", "--help"]).output.contains("--raw"))
    }

    @Test func versionNamesTheToolAndTheFileFormat() throws {
        let tool = try CLITool()
        for flag in ["--version", "-V"] {
            let run = try tool.run([flag])
            #expect(run.status == 0 && run.errors.isEmpty)
            #expect(run.output.hasPrefix("burrow ") && run.output.contains("(file format "))
        }
    }

    @Test func usageErrorsExitWithStatusTwoOnStandardError() throws {
        let tool = try CLITool()
        try CLIShop.write(to: tool.path("shop.burrow"))
        let cases: [([String], String)] = [
            ([], "usage: burrow <command>"),
            (["frobnicate"], "burrow: unknown command \"frobnicate\""),
            (["--frobnicate"], "burrow: unknown option --frobnicate"),
            (["info"], "burrow: info: missing operand\nusage: burrow info FILE [--raw]"),
            (["info", "a", "b"], "burrow: info: too many operands (it takes 1)"),
            (["objects", "shop.burrow"], "burrow: objects: missing operand"),
            (["info", "shop.burrow", "--bogus"], "burrow: unknown option --bogus"),
            (["info", "shop.burrow", "--raw=yes"], "burrow: --raw takes no value"),
            (["objects", "shop.burrow", "CLIPet", "--limit"], "burrow: --limit needs a value"),
            (["objects", "shop.burrow", "CLIPet", "--limit", "many"], "burrow: --limit needs a number of objects (0 or more), not \"many\""),
            (["objects", "shop.burrow", "CLIPet", "--format", "xml"], "burrow: --format must be one of table, json, csv, not \"xml\""),
            (["objects", "shop.burrow", "CLIPet", "--where", "weight >"], "burrow: --where: Syntax error in query at position"),
            (["objects", "shop.burrow", "CLIPet", "--where", "colour == 'red'"], "burrow: --where: "),
            (["objects", "shop.burrow", "CLIPet", "--where", "weight == 'heavy'"], "burrow: --where: "),
            (["objects", "shop.burrow", "CLIPet", "--sort", "colour"], "burrow: --sort: Invalid key path 'colour'"),
            (["objects", "shop.burrow", "CLIPet", "--sort", "badges"], "burrow: --sort: "),
            (["objects", "shop.burrow", "CLIPet", "--sort", "name) LIMIT(1"], "burrow: --sort takes KEYPATH or KEYPATH,desc"),
            (["objects", "shop.burrow", "CLIPet", "--sort", "name,sideways"], "burrow: --sort takes KEYPATH or KEYPATH,desc"),
            (
                ["objects", "shop.burrow", "CLIDog"],
                "burrow: shop.burrow stores no class CLIDog; its classes are: CLIAddress, CLIBadge, CLIOwner, CLIPet, CLIValues"
            ),
            (["objects", "shop.burrow", "CLIAddress"], "burrow: CLIAddress is an embedded class"),
            (["export", "shop.burrow", "--format", "csv"], "burrow: --format must be one of json"),
            (["help", "frobnicate"], "burrow: unknown command \"frobnicate\""),
        ]
        for (arguments, message) in cases {
            let run = try tool.run(arguments)
            #expect(run.status == 2, "\(arguments): \(run.status) \(run.errors)")
            #expect(run.output.isEmpty, "\(arguments)")
            #expect(run.errors.hasPrefix(message), "\(arguments): \(run.errors)")
        }
    }

    @Test func filesTheToolCannotOpenGiveOneLineAndStatusOne() throws {
        let tool = try CLITool()
        try CLIShop.write(to: tool.path("shop.burrow"))
        try "not a database".write(toFile: tool.path("notes.txt"), atomically: true, encoding: .utf8)
        _ = FileManager.default.createFile(atPath: tool.path("empty.burrow"), contents: Data())
        // A damaged copy: one byte changed in every page after the meta pages.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: tool.path("shop.burrow")))
        for page in stride(from: 2 * 4096 + 100, to: bytes.count, by: 4096) { bytes[page] ^= 0x5a }
        try bytes.write(to: URL(fileURLWithPath: tool.path("damaged.burrow")))
        let truncated = try Data(contentsOf: URL(fileURLWithPath: tool.path("shop.burrow"))).prefix(5000)
        try truncated.write(to: URL(fileURLWithPath: tool.path("truncated.burrow")))

        let expectations: [(String, String)] = [
            ("missing.burrow", "burrow: missing.burrow: no such file"),
            ("notes.txt", "is not a Burrow database"),
            ("empty.burrow", "is not a Burrow database"),
            ("damaged.burrow", "is damaged: page "),
            ("truncated.burrow", "is truncated"),
        ]
        for (file, message) in expectations {
            for command in [["schema"], ["info"], ["dump"], ["verify"], ["export"], ["objects", "CLIPet"], ["compact"], ["recover", "out.burrow"]] {
                // `verify` lists a damaged file's problems, and `recover` copies out what it can
                // (CLIRecoverTests).
                if file == "damaged.burrow", command[0] == "verify" || command[0] == "recover" { continue }
                let arguments = [command[0], file] + command.dropFirst()
                let run = try tool.run(arguments)
                #expect(run.status == 1, "\(arguments): \(run.status) \(run.errors)")
                #expect(run.errors.contains(message), "\(arguments): \(run.errors)")
                #expect(run.errors.hasPrefix("burrow: ") && run.errors.split(separator: "\n").count == 1, "\(arguments): \(run.errors)")
            }
        }
        let directory = try tool.run(["schema", tool.directory.path])
        #expect(directory.status == 1 && directory.errors.contains("is a directory"))
    }

    @Test func verifyAndCompactReportOnASoundFile() throws {
        let tool = try CLITool()
        try CLIShop.write(to: tool.path("shop.burrow"))
        let verify = try tool.run(["verify", "shop.burrow"])
        #expect(verify.status == 0 && verify.output.hasPrefix("shop.burrow: sound."), "\(verify.errors)")
        let compact = try tool.run(["compact", "shop.burrow"])
        #expect(compact.status == 0 && compact.output.contains("compacted from"), "\(compact.errors)")
        #expect(try tool.run(["objects", "shop.burrow", "CLIPet", "--format", "csv"]).output.components(separatedBy: "\r\n").count == 5)
    }
}
