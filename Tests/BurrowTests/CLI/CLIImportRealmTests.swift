import BurrowTestTraits
import Foundation
import Testing

/// `burrow import-realm`: realm-core's files (the reader's fixtures) converted by the tool, its
/// report, and its refusals, which leave no output behind and never touch the `.realm` file.
@Suite(.temporaryDirectory, .ownThread) struct CLIImportRealmTests {
    /// A fixture of the `.realm` reader's tests.
    static func fixture(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("BurrowRealmFileTests/Fixtures/\(name)").path
    }

    @Test func aRealmFileBecomesABurrowFileTheOtherCommandsRead() throws {
        let tool = try CLITool()
        let source = Self.fixture("client_schema_version_011.realm")
        let before = try Data(contentsOf: URL(fileURLWithPath: source))
        let run = try tool.run(["import-realm", source, "converted.burrow"], environment: ["BURROW_PROGRESS": "1"])
        #expect(run.status == 0)
        #expect(
            run.lines.first?.hasPrefix("Imported 3 objects of 1 classes from \(source) (realm-core file format 22) into converted.burrow:") == true)
        #expect(run.lines.contains("  Table: 3"))
        // The progress line was drawn on standard error, and erased.
        #expect(run.errors.hasPrefix("\rreading \(source)"))
        #expect(run.errors.hasSuffix("\r\u{1B}[K"))
        let objects = try tool.run(["objects", "converted.burrow", "Table", "--sort", "value", "--format", "json"])
        #expect(objects.lines.filter { $0.contains("\"label\"") }.count == 3)
        #expect(objects.output.contains("\"Hausdorff\""))
        #expect(try Data(contentsOf: URL(fileURLWithPath: source)) == before)
    }

    @Test func refusalsSayWhyAndLeaveNothing() throws {
        let tool = try CLITool()
        let cases: [(arguments: [String], status: Int32, message: String)] = [
            (["import-realm", Self.fixture("test_upgrade_database_11.realm"), "out.burrow"], 1, "file format 11"),
            (["import-realm", Self.fixture("test_shared_decrypt_4k_page.realm"), "out.burrow"], 1, "64-byte key"),
            (["import-realm", Self.fixture("test_shared_decrypt_4k_page.realm"), "out.burrow", "--key", "abc"], 2, "128 hexadecimal digits"),
            (
                ["import-realm", Self.fixture("test_shared_decrypt_4k_page.realm"), "out.burrow", "--key", String(repeating: "0f", count: 64)], 1,
                "key"
            ),
            (["import-realm", "missing.realm", "out.burrow"], 1, "no such file"),
        ]
        for (arguments, status, message) in cases {
            let run = try tool.run(arguments)
            #expect(run.status == status, "\(arguments)")
            #expect(run.errors.contains(message), "\(arguments): \(run.errors)")
            #expect(!FileManager.default.fileExists(atPath: tool.path("out.burrow")), "\(arguments)")
        }
        // An existing output is refused and left as it was.
        #expect(try tool.run(["demo", "existing.burrow"]).status == 0)
        let existing = try Data(contentsOf: URL(fileURLWithPath: tool.path("existing.burrow")))
        let run = try tool.run(["import-realm", Self.fixture("client_schema_version_011.realm"), "existing.burrow"])
        #expect(run.status == 1)
        #expect(run.errors.contains("exists already"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: tool.path("existing.burrow"))) == existing)
    }
}
