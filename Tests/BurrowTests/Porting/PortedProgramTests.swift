import Foundation
import Testing

/// realm-swift's example apps, ported as a user would (`Tests/PortedDogs`: the import changed,
/// `try` added), run as a program of their own: its classes have RealmSwift's names, its code
/// calls `Realm()` in one helper after another, and a second launch reopens the file.
@Suite struct PortedProgramTests {
    /// Where the program is: next to the test executable (`swift build` puts every product of
    /// the package in one directory), or `BURROW_PORTED_DOGS`.
    private static func executablePath() throws -> String {
        var candidates: [String] = []
        if let path = ProcessInfo.processInfo.environment["BURROW_PORTED_DOGS"] { candidates.append(path) }
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append((exe as NSString).deletingLastPathComponent + "/PortedDogs")
        }
        for bundle in Bundle.allBundles where bundle.bundleURL.pathExtension == "xctest" {
            candidates.append(bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("PortedDogs").path)
        }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            Issue.record("PortedDogs not found (looked at \(candidates)); build it with `swift build --build-tests`")
            throw CancellationError()
        }
        return found
    }

    /// Runs the program's launch number `launch` in `directory`; returns its exit status and
    /// what it printed.
    private static func run(launch: Int, in directory: URL) throws -> (status: Int32, output: [String], errors: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try executablePath())
        process.arguments = [String(launch)]
        process.currentDirectoryURL = directory
        let output = directory.appendingPathComponent("launch-\(launch).out")
        let errors = directory.appendingPathComponent("launch-\(launch).err")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        process.waitUntilExit()
        let printed = try String(contentsOf: output, encoding: .utf8).split(separator: "\n").map(String.init)
        return (process.terminationStatus, printed, try String(contentsOf: errors, encoding: .utf8))
    }

    @Test func testThePortedExampleAppRunsAsUnderRealmSwift() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("burrow-ported-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let first = try Self.run(launch: 1, in: directory)
        #expect(first.status == 0, "\(first.errors)")
        #expect(first.output == [
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
        #expect(second.output == [
            "Tim lives at 1 Main St, Springfield with [\"Rex\"]",
            "Dogs: 3, people: 3",
        ])
    }
}
