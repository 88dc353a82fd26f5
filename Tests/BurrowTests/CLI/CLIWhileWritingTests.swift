import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

/// The tool on a file another process is writing (`SharedRealmWorker add`, one item per write
/// transaction): each command reads one consistent version, so the items it shows are exactly
/// the first k the writer added, for some k.
@Suite(.temporaryDirectory, .ownThread) struct CLIWhileWritingTests {
    /// The indices of the items in `objects --format json` output, in order.
    private func indices(_ output: String) throws -> [Int] {
        let items = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]])
        return items.compactMap { $0["index"] as? Int }
    }

    @Test func readingCommandsSeeWholeVersionsWhileAnotherProcessWrites() throws {
        let tool = try CLITool()
        let file = tool.path("shared.burrow")
        let total = 300
        let writer = try sharedRealmWorker(["add", file, "\(total)", "writer"], in: tool.directory.path, label: "writer")
        // Wait for the file's first class, then read while the writer adds.
        var reads = 0
        var counts: [Int] = []
        while writer.isRunning || reads == 0 {
            let run = try tool.run(["objects", file, "SharedItem", "--format", "json"])
            reads += 1
            // The writer has not made the file, or has not stored the class, yet.
            if run.status == 1, counts.isEmpty, run.errors.contains("no such file") { continue }
            if run.status == 2, run.errors.contains("SharedItem") { continue }
            #expect(run.status == 0, "\(run.errors)")
            guard run.status == 0 else { break }
            let seen = try indices(run.output)
            #expect(seen == Array(0..<seen.count), "a read saw a partial version: \(seen)")
            counts.append(seen.count)
            let schema = try tool.run(["schema", file])
            #expect(schema.status == 0 && schema.output.contains("SharedItem"), "\(schema.errors)")
        }
        try writer.expectSuccess()
        #expect(counts == counts.sorted(), "versions read went back: \(counts)")
        let last = try tool.run(["objects", file, "SharedItem", "--format", "json"])
        #expect(try indices(last.output) == Array(0..<total))
        let export = try tool.run(["export", file, "--output", tool.path("shared.json")])
        #expect(export.status == 0, "\(export.errors)")
    }
}
