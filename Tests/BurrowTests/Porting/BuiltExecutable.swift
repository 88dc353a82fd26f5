import Foundation
import Testing

/// Runs one of the package's executables (`swift build` puts every product of the package in
/// one directory, next to the test executable) as a child process, for the tests of the
/// example programs.
enum BuiltExecutable {
    /// Where executable `name` is: the path the environment variable `variable` gives, next to
    /// the test executable, or next to the test bundle.
    static func path(_ name: String, overriddenBy variable: String) throws -> String {
        var candidates: [String] = []
        if let path = ProcessInfo.processInfo.environment[variable] { candidates.append(path) }
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append((exe as NSString).deletingLastPathComponent + "/" + name)
        }
        for bundle in Bundle.allBundles where bundle.bundleURL.pathExtension == "xctest" {
            candidates.append(bundle.bundleURL.deletingLastPathComponent().appendingPathComponent(name).path)
        }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            Issue.record("\(name) not found (looked at \(candidates)); build it with `swift build --build-tests`")
            throw CancellationError()
        }
        return found
    }

    /// Runs `executable` with `arguments` in `directory` (its output goes to files named
    /// `label` there); returns its exit status, the lines it printed and its standard error.
    static func run(
        _ executable: String, arguments: [String], in directory: URL, label: String
    ) throws -> (status: Int32, output: [String], errors: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let output = directory.appendingPathComponent("\(label).out")
        let errors = directory.appendingPathComponent("\(label).err")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        process.waitUntilExit()
        let printed = try String(contentsOf: output, encoding: .utf8).split(separator: "\n").map(String.init)
        return (process.terminationStatus, printed, try String(contentsOf: errors, encoding: .utf8))
    }
}
