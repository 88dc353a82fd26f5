#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How the worker executables the tests start (`ChildProcess`) report: every line written
/// straight to its descriptor before the worker goes on, so that a SIGKILL loses nothing it said.
public enum WorkerOutput {
    /// Writes `line` and a newline to standard output; exits with status 3 if it cannot.
    public static func say(_ line: String) {
        write(line + "\n", to: 1, exitOnFailure: true)
    }

    /// Writes `text` to standard error as it is, as far as it can.
    public static func complain(_ text: String) {
        write(text, to: 2, exitOnFailure: false)
    }

    private static func write(_ text: String, to descriptor: Int32, exitOnFailure: Bool) {
        let bytes = Array(text.utf8)
        bytes.withUnsafeBytes { buffer in
            var done = 0
            while done < buffer.count {
                #if canImport(Glibc)
                let n = Glibc.write(descriptor, buffer.baseAddress! + done, buffer.count - done)
                #else
                let n = Darwin.write(descriptor, buffer.baseAddress! + done, buffer.count - done)
                #endif
                if n < 0 {
                    if errno == EINTR { continue }
                    if exitOnFailure { exit(3) }
                    return
                }
                done += n
            }
        }
    }
}
