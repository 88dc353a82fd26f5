import BurrowStore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What every benchmark group gets: a private temporary directory (removed at the end), the
/// number of timed runs to take the median of, and a progress log on standard error (standard
/// output is kept for the table and the JSON lines).
///
/// The directory is made in `/tmp`, or in the directory the environment variable
/// `BURROW_BENCH_DIR` names: on another disk, or in memory (`/dev/shm`), where a sync costs
/// almost nothing and a durable commit shows its own work.
final class Workbench {
    let directory: String
    let runs: Int

    init(runs: Int = 5) throws {
        let parent = getenv("BURROW_BENCH_DIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array((parent + "/burrow-bench-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard made != nil else { throw BenchmarkError("cannot create a temporary directory in \(parent) (errno \(errno))") }
        directory = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        self.runs = runs
    }

    /// A path inside the temporary directory.
    func path(_ name: String) -> String { directory + "/" + name }

    /// Removes `name` and the side files SQLite may leave next to it.
    func remove(_ name: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path(name) + suffix) }
    }

    func fileSize(_ name: String) -> Int {
        var info = stat()
        return stat(path(name), &info) == 0 ? Int(info.st_size) : 0
    }

    func log(_ message: String) {
        printError("  " + message)
    }

    /// Logs the spread of each engine's timed runs (seconds), so a noisy machine shows.
    func logRuns(_ runs: [(name: String, seconds: [Double])]) {
        let parts = runs.map { run -> String in
            let sorted = run.seconds.sorted()
            func ms(_ x: Double) -> String { Format.fixed(x * 1000, 3) }
            return "\(run.name) \(ms(Timing.median(sorted))) ms (min \(ms(sorted.first!)), max \(ms(sorted.last!)), n=\(sorted.count))"
        }
        log("    " + parts.joined(separator: "; "))
    }

    /// Removes the directory and everything in it (it holds only plain files).
    func cleanUp() {
        if let dir = opendir(directory) {
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
                }
                if name != "." && name != ".." { unlink(path(name)) }
            }
            closedir(dir)
        }
        rmdir(directory)
    }
}

struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Writes `text` and a newline to standard error (progress and errors; standard output carries
/// only the report).
func printError(_ text: String) {
    var line = text + "\n"
    line.withUTF8 { bytes in _ = write(2, bytes.baseAddress, bytes.count) }
}
