import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One of the package's executables run as a child process by a test: its standard output and
/// error go to files (so it never blocks on a full pipe), its standard input is a pipe the test
/// closes to ask it to finish, and it is killed and reaped when the object goes, however the
/// test ends.
///
/// The tests that need another process (a crash worker killed mid-commit, processes sharing a
/// file, the command-line tool, the example programs) all start them through this type.
public final class ChildProcess {
    /// A name for messages, and the stem of the output files.
    public let label: String
    /// The process, for its identifier, status and termination reason.
    public let process = Process()
    /// Where its standard output goes.
    public let outputPath: String
    /// Where its standard error goes.
    public let errorPath: String
    private let input = Pipe()
    private let outputDescriptor: Int32
    private var readOffset = 0
    private var pendingText = ""
    /// Every complete line read so far (see ``poll()``).
    public private(set) var lines: [String] = []

    /// Where the package's executable `name` is: the path the environment variable `variable`
    /// gives, otherwise next to the test executable (`swift build` puts every product of the
    /// package in one directory) or its bundle.
    public static func executable(_ name: String, overriddenBy variable: String? = nil) throws -> String {
        var candidates: [String] = []
        if let variable, let path = ProcessInfo.processInfo.environment[variable] { candidates.append(path) }
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append((exe as NSString).deletingLastPathComponent + "/" + name)
        }
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent(name).path)
        candidates.append(Bundle.main.bundleURL.appendingPathComponent(name).path)
        for bundle in Bundle.allBundles where bundle.bundleURL.pathExtension == "xctest" {
            candidates.append(bundle.bundleURL.deletingLastPathComponent().appendingPathComponent(name).path)
        }
        if let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) { return found }
        let override = variable.map { " or set \($0)" } ?? ""
        throw ChildProcessError("\(name) not found (looked at \(candidates)); build it with `swift build --build-tests`\(override)")
    }

    /// Starts `executable` with `arguments`, its output in `<directory>/<label>.out` and `.err`.
    /// `environment` is added to this process's; `workingDirectory` is the child's current
    /// directory (this process's if nil); `inputFile`, if given, is read as standard input instead
    /// of the pipe.
    public init(
        _ executable: String, arguments: [String], directory: String, label: String,
        environment: [String: String] = [:], workingDirectory: String? = nil, inputFile: String? = nil
    ) throws {
        self.label = label
        outputPath = (directory as NSString).appendingPathComponent("\(label).out")
        errorPath = (directory as NSString).appendingPathComponent("\(label).err")
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        guard let output = FileHandle(forWritingAtPath: outputPath), let error = FileHandle(forWritingAtPath: errorPath) else {
            throw ChildProcessError("cannot open \(outputPath) for \(label)'s output")
        }
        defer {
            try? output.close()
            try? error.close()
        }
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        if let workingDirectory { process.currentDirectoryURL = URL(fileURLWithPath: workingDirectory, isDirectory: true) }
        if let inputFile {
            guard let handle = FileHandle(forReadingAtPath: inputFile) else {
                throw ChildProcessError("cannot open \(inputFile) as \(label)'s input")
            }
            process.standardInput = handle
        } else {
            process.standardInput = input
        }
        process.standardOutput = output
        process.standardError = error
        outputDescriptor = open(outputPath, O_RDONLY | O_CLOEXEC)
        try process.run()
    }

    deinit {
        kill()
        if outputDescriptor >= 0 { _ = close(outputDescriptor) }
    }

    /// The child's process identifier.
    public var pid: Int32 { process.processIdentifier }

    /// The child's end as this type saw it when it reaped the child itself: its exit status
    /// (or the signal that ended it), and whether a signal ended it. Foundation's `Process` on
    /// Linux can miss the end of a child (one that exits at once, while many processes come
    /// and go), and then reports it running forever; so every wait here also asks the kernel
    /// (`waitpid` with `WNOHANG`), and never waits without a limit.
    private var reaped: (status: Int32, signaled: Bool)?

    /// Whether the child still runs.
    public var isRunning: Bool {
        if reaped != nil || !process.isRunning { return false }
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        guard result == pid else { return process.isRunning }
        let signal = status & 0x7f
        reaped = signal == 0 ? ((status >> 8) & 0xff, false) : (signal, true)
        return false
    }

    /// The child's exit status, or the number of the signal that ended it; read once it ended.
    public var exitStatus: Int32 { reaped?.status ?? process.terminationStatus }

    /// Whether a signal ended the child; read once it ended.
    public var endedBySignal: Bool { reaped?.signaled ?? (process.terminationReason == .uncaughtSignal) }

    /// Reads whatever the child has written since the last call; returns the new complete lines.
    @discardableResult
    public func poll() -> [String] {
        guard outputDescriptor >= 0 else { return [] }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { pread(outputDescriptor, $0.baseAddress!, $0.count, off_t(readOffset)) }
            if n <= 0 { break }
            readOffset += n
            pendingText += String(decoding: buffer[..<n], as: UTF8.self)
        }
        var complete: [String] = []
        while let newline = pendingText.firstIndex(of: "\n") {
            complete.append(String(pendingText[..<newline]))
            pendingText = String(pendingText[pendingText.index(after: newline)...])
        }
        lines += complete
        return complete
    }

    /// Polls until a line the child printed (any since it started, the earliest first)
    /// satisfies `condition`, the child exits, or `timeout` seconds pass; returns that line, or
    /// nil.
    public func wait(timeout: Double, until condition: (String) -> Bool) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        var checked = 0
        while true {
            let running = isRunning
            poll()
            while checked < lines.count {
                if condition(lines[checked]) { return lines[checked] }
                checked += 1
            }
            if !running || Date() > deadline { return nil }
            usleep(500)
        }
    }

    /// Waits for a line starting with `prefix`; throws, with what the child said, if none comes.
    @discardableResult
    public func expectLine(_ prefix: String, timeout: Double = 60) throws -> String {
        if let line = wait(timeout: timeout, until: { $0.hasPrefix(prefix) }) { return line }
        throw ChildProcessError("\(label) printed no \"\(prefix)\" line within \(timeout) s: \(summary)")
    }

    /// Closes the child's standard input, which asks the long-running workers to finish.
    public func closeInput() {
        try? input.fileHandleForWriting.close()
    }

    /// Waits up to `timeout` seconds for the child to exit; returns its status, or nil if it was
    /// still running (then it is killed).
    public func waitForExit(timeout: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while isRunning {
            if Date() > deadline {
                kill()
                return nil
            }
            usleep(1_000)
        }
        poll()
        return exitStatus
    }

    /// Closes standard input and waits for a clean exit (status 0); throws with what the child
    /// said otherwise.
    public func expectSuccess(timeout: Double = 120) throws {
        closeInput()
        guard let status = waitForExit(timeout: timeout) else {
            throw ChildProcessError("\(label) did not finish within \(timeout) s and was killed: \(summary)")
        }
        if status != 0 || endedBySignal {
            let how = endedBySignal ? "signal" : "exit"
            throw ChildProcessError("\(label) exited with status \(status) (\(how)): \(summary)")
        }
    }

    /// Sends SIGKILL if the child still runs, reaps it (waiting a minute at most), and reads
    /// what it wrote last.
    public func kill() {
        if isRunning { sendKill(pid) }
        let deadline = Date().addingTimeInterval(60)
        while isRunning && Date() < deadline { usleep(1_000) }
        closeInput()
        poll()
    }

    /// What the child printed on standard output, whole.
    public var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }

    /// What the child printed on standard error.
    public var errorOutput: String { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }

    /// What the child said: its last lines and its standard error, for failure messages.
    public var summary: String {
        poll()
        let error = errorOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        return "last lines \(lines.suffix(3))" + (error.isEmpty ? "" : ", stderr: \(error.prefix(600))")
    }

    /// Runs `executable` to its end and returns its status with what it printed.
    public static func run(
        _ executable: String, arguments: [String], directory: String, label: String,
        environment: [String: String] = [:], workingDirectory: String? = nil, inputFile: String? = nil,
        timeout: Double = 300
    ) throws -> (status: Int32, output: String, errors: String) {
        let child = try ChildProcess(
            executable, arguments: arguments, directory: directory, label: label, environment: environment,
            workingDirectory: workingDirectory, inputFile: inputFile)
        child.closeInput()
        guard let status = child.waitForExit(timeout: timeout) else {
            throw ChildProcessError("\(label) did not finish within \(timeout) s and was killed: \(child.summary)")
        }
        return (status, child.output, child.errorOutput)
    }
}

/// A child process could not be found, started, or did not do what the test waited for.
public struct ChildProcessError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// SIGKILL to `pid` (a free function, since `ChildProcess.kill()` hides the C one).
private func sendKill(_ pid: Int32) {
    _ = kill(pid, SIGKILL)
}
