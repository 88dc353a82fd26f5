import Foundation
import Testing

/// Runs the built `burrow` tool as a child process, for the tests of its commands.
struct CLITool {
    /// What one run printed and how it ended.
    struct Run {
        let status: Int32
        let output: String
        let errors: String

        /// The lines printed on standard output.
        var lines: [String] { output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { !$0.isEmpty } }
    }

    /// A new directory for one test's files, removed by `remove()`.
    let directory: URL
    private let executable: String

    init() throws {
        executable = try BuiltExecutable.path("burrow", overriddenBy: "BURROW_TOOL")
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("burrow-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }

    /// The path of file `name` in the test's directory.
    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// Runs `burrow` with `arguments` in the test's directory, with `environment` added to
    /// this process's (`BURROW_PROGRESS` is set to 0 unless given, so that a terminal running
    /// the tests does not add progress lines), reading the file `input` names on standard
    /// input (nothing if nil).
    @discardableResult
    func run(_ arguments: [String], environment: [String: String] = [:], input: String? = nil) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        var merged = ProcessInfo.processInfo.environment
        merged["BURROW_PROGRESS"] = "0"
        for (key, value) in environment { merged[key] = value }
        process.environment = merged
        let label = UUID().uuidString
        let output = directory.appendingPathComponent("\(label).out")
        let errors = directory.appendingPathComponent("\(label).err")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        let outputHandle = try FileHandle(forWritingTo: output)
        let errorHandle = try FileHandle(forWritingTo: errors)
        process.standardOutput = outputHandle
        process.standardError = errorHandle
        process.standardInput = try input.map { try FileHandle(forReadingFrom: URL(fileURLWithPath: path($0))) } ?? FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try outputHandle.close()
        try errorHandle.close()
        defer {
            try? FileManager.default.removeItem(at: output)
            try? FileManager.default.removeItem(at: errors)
        }
        return Run(
            status: process.terminationStatus, output: try String(contentsOf: output, encoding: .utf8),
            errors: try String(contentsOf: errors, encoding: .utf8))
    }

    /// Parses JSON text printed by the tool.
    static func json(_ text: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
    }
}
