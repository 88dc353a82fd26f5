import BurrowStore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Timing on the monotonic clock (`ContinuousClock`), and the medians the report uses.
enum Timing {
    /// Runs `body` once and returns how long it took, in seconds.
    @inline(never)
    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        try body()
        return (clock.now - start).seconds
    }

    /// Runs `body` once and returns its result and how long it took, in seconds.
    @inline(never)
    static func measure<T>(_ body: () throws -> T) rethrows -> (value: T, seconds: Double) {
        let clock = ContinuousClock()
        let start = clock.now
        let value = try body()
        return (value, (clock.now - start).seconds)
    }

    /// Calls `run` `count` times (each call returns the seconds of its timed part, so that setup
    /// and cleanup stay outside the measurement) and returns every result.
    static func runs(_ count: Int, _ run: (_ index: Int) throws -> Double) rethrows -> [Double] {
        var results: [Double] = []
        results.reserveCapacity(count)
        for index in 0..<count { results.append(try run(index)) }
        return results
    }

    static func median(_ values: [Double]) -> Double {
        precondition(!values.isEmpty, "median of nothing")
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}

extension Duration {
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) * 1e-18
    }
}

/// The process's memory figures, from /proc/self/status (Linux only; nil elsewhere).
enum ProcessMemory {
    /// Peak resident set size (VmHWM), in bytes.
    static func peakResident() -> Int? { statusField("VmHWM:") }

    private static func statusField(_ field: String) -> Int? {
        guard let file = fopen("/proc/self/status", "r") else { return nil }
        defer { fclose(file) }
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        while getline(&line, &capacity, file) > 0 {
            guard let line else { break }
            let text = String(cString: line)
            guard text.hasPrefix(field) else { continue }
            // "VmHWM:	   12345 kB"
            let digits = text.dropFirst(field.count).filter { $0.isNumber }
            guard let kilobytes = Int(String(digits)) else { return nil }
            return kilobytes * 1024
        }
        return nil
    }
}

extension Timing {
    /// Runs both engines `count` times, alternating which goes first so that neither always
    /// runs on a warmer (or busier) system, and returns each one's results.
    static func alternating<T>(
        _ count: Int, burrow: (_ run: Int) throws -> T, sqlite: (_ run: Int) throws -> T
    ) rethrows -> (burrow: [T], sqlite: [T]) {
        let results = try interleaved(count, subjects: 2) { subject, run in
            subject == 0 ? try burrow(run) : try sqlite(run)
        }
        return (results[0], results[1])
    }

    /// Runs `subjects` subjects `count` times each, round-robin, starting each round with the
    /// next subject; returns the results per subject.
    static func interleaved<T>(
        _ count: Int, subjects: Int, _ body: (_ subject: Int, _ run: Int) throws -> T
    ) rethrows -> [[T]] {
        var results = [[T]](repeating: [], count: subjects)
        for run in 0..<count {
            for step in 0..<subjects {
                let subject = (run + step) % subjects
                results[subject].append(try body(subject, run))
            }
        }
        return results
    }
}

/// How busy the machine was while we ran: CPU time used by everything (from /proc/stat) minus
/// our own (from getrusage). Benchmarks on a shared 2-core machine are only as steady as this.
struct SystemLoad {
    private let start: (system: Double, own: Double, wall: ContinuousClock.Instant)?

    init() {
        if let system = Self.systemBusySeconds() { start = (system, Self.ownSeconds(), ContinuousClock().now) } else { start = nil }
    }

    /// The average number of cores other processes kept busy since `init`, or nil off Linux.
    func otherProcessesCores() -> Double? {
        guard let start, let system = Self.systemBusySeconds() else { return nil }
        let wall = (ContinuousClock().now - start.wall).seconds
        guard wall > 0 else { return nil }
        let others = (system - start.system) - (Self.ownSeconds() - start.own)
        return max(0, others / wall)
    }

    static var cores: Int { Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) }

    /// user + nice + system + irq + softirq + steal, in seconds, summed over all CPUs.
    private static func systemBusySeconds() -> Double? {
        guard let file = fopen("/proc/stat", "r") else { return nil }
        defer { fclose(file) }
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        guard getline(&line, &capacity, file) > 0, let line else { return nil }
        let fields = String(cString: line).split(separator: " ").dropFirst().compactMap { Double($0) }
        guard fields.count >= 8 else { return nil }
        let busy = fields[0] + fields[1] + fields[2] + fields[5] + fields[6] + fields[7]
        return busy / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    private static func ownSeconds() -> Double {
        var usage = rusage()
        #if os(Linux)
        getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) * 1e-6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
