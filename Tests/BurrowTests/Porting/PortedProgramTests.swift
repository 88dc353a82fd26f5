import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

/// realm-swift's example apps, ported as a user would (`Tests/PortedDogs`: the import changed,
/// `try` added), run as a program of their own: its classes have RealmSwift's names, its code
/// calls `Realm()` in one helper after another, and a second launch reopens the file.
@Suite(.temporaryDirectory, .ownThread) struct PortedProgramTests {
    /// Runs the program's launch number `launch` in `directory`; returns its status, the lines
    /// it printed and its standard error.
    private static func run(launch: Int, in directory: String) throws -> (status: Int32, lines: [String], errors: String) {
        let run = try ChildProcess.run(
            ChildProcess.executable("PortedDogs", overriddenBy: "BURROW_PORTED_DOGS"), arguments: [String(launch)],
            directory: directory, label: "launch-\(launch)", workingDirectory: directory)
        return (run.status, run.output.split(separator: "\n").map(String.init), run.errors)
    }

    @Test func testThePortedExampleAppRunsAsUnderRealmSwift() throws {
        let directory = try testDirectory()

        let first = try Self.run(launch: 1, in: directory.path)
        #expect(first.status == 0, "\(first.errors)")
        #expect(
            first.lines == [
                "Name of dog: Rex",
                "Number of dogs: 1",
                "Dogs older than eight: 1",
                "People in this transaction: 3",
                "Fido has 1 owners ([\"John\"])",
                "Rex has 1 owners ([\"Tim\"])",
                "Spot has 1 owners ([\"Mary\"])",
                "Number of dogs 1",
            ])
        #expect(FileManager.default.fileExists(atPath: directory.file("default.burrow")))

        let second = try Self.run(launch: 2, in: directory.path)
        #expect(second.status == 0, "\(second.errors)")
        #expect(
            second.lines == [
                "Tim lives at 1 Main St, Springfield with [\"Rex\"]",
                "Dogs: 3, people: 3",
            ])
    }
}
