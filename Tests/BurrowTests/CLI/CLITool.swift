import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

/// Runs the built `burrow` tool as a child process (`ChildProcess`), in the running test's
/// temporary directory, for the tests of its commands.
struct CLITool {
    /// What one run printed and how it ended.
    struct Run {
        let status: Int32
        let output: String
        let errors: String

        /// The lines printed on standard output.
        var lines: [String] { output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { !$0.isEmpty } }
    }

    /// The test's directory (the `.temporaryDirectory` trait's), where the tool runs and the
    /// test's files go; it goes when the test ends.
    private let files: TemporaryDirectory
    private let executable: String

    init() throws {
        executable = try ChildProcess.executable("burrow", overriddenBy: "BURROW_TOOL")
        files = try testDirectory()
    }

    /// The test's directory.
    var directory: URL { files.url }

    /// The path of file `name` in the test's directory.
    func path(_ name: String) -> String { files.file(name) }

    /// Runs `burrow` with `arguments` in the test's directory, with `environment` added to
    /// this process's (`BURROW_PROGRESS` is set to 0 unless given, so that a terminal running
    /// the tests does not add progress lines), reading the file `input` names on standard
    /// input (nothing if nil).
    @discardableResult
    func run(_ arguments: [String], environment: [String: String] = [:], input: String? = nil) throws -> Run {
        let label = "burrow-run-\(UUID().uuidString)"
        // The output files go once read, so that they never show among the test's files.
        defer {
            try? FileManager.default.removeItem(atPath: path("\(label).out"))
            try? FileManager.default.removeItem(atPath: path("\(label).err"))
        }
        let run = try ChildProcess.run(
            executable, arguments: arguments, directory: files.path, label: label,
            environment: ["BURROW_PROGRESS": "0"].merging(environment) { _, given in given },
            workingDirectory: files.path, inputFile: input.map(path))
        return Run(status: run.status, output: run.output, errors: run.errors)
    }

    /// Starts `burrow` with `arguments` in the test's directory and returns at once, for a test
    /// that must not wait forever on a run that might hang (it waits with `waitForExit`).
    func start(_ arguments: [String]) throws -> ChildProcess {
        try ChildProcess(
            executable, arguments: arguments, directory: files.path, label: "burrow-start-\(UUID().uuidString)",
            environment: ["BURROW_PROGRESS": "0"], workingDirectory: files.path)
    }

    /// Parses JSON text printed by the tool.
    static func json(_ text: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
    }
}
