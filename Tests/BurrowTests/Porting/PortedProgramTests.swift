import BurrowTestTraits
import Foundation
import Testing

/// realm-swift's example apps, ported as a user would (`Tests/PortedDogs`: the import changed,
/// `try` added), run as a program of their own: its classes have RealmSwift's names, its code
/// calls `Realm()` in one helper after another, and a second launch reopens the file.
@Suite(.temporaryDirectory) struct PortedProgramTests {
    /// Runs the program's launch number `launch` in `directory`.
    private static func run(launch: Int, in directory: URL) throws -> (status: Int32, output: [String], errors: String) {
        try BuiltExecutable.run(
            try BuiltExecutable.path("PortedDogs", overriddenBy: "BURROW_PORTED_DOGS"), arguments: [String(launch)],
            in: directory, label: "launch-\(launch)")
    }

    @Test func testThePortedExampleAppRunsAsUnderRealmSwift() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("burrow-ported-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let first = try Self.run(launch: 1, in: directory)
        #expect(first.status == 0, "\(first.errors)")
        #expect(
            first.output == [
                "Name of dog: Rex",
                "Number of dogs: 1",
                "Dogs older than eight: 1",
                "People in this transaction: 3",
                "Fido has 1 owners ([\"John\"])",
                "Rex has 1 owners ([\"Tim\"])",
                "Spot has 1 owners ([\"Mary\"])",
                "Number of dogs 1",
            ])
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("default.burrow").path))

        let second = try Self.run(launch: 2, in: directory)
        #expect(second.status == 0, "\(second.errors)")
        #expect(
            second.output == [
                "Tim lives at 1 Main St, Springfield with [\"Rex\"]",
                "Dogs: 3, people: 3",
            ])
    }
}
