import Burrow
import BurrowStore
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `processes` group: how long a commit made in one process takes to reach a change stream
/// in another process sharing the file. Burrow only (SQLite has no change notifications).
///
/// The benchmark process opens a file with one dog and iterates a change stream over the dogs
/// on the main actor. It starts itself again as a child (`--process-child`), which opens the
/// same file. For each round the parent writes one byte to the child's standard input; the
/// child reads the monotonic clock (shared by every process of the machine), stores the
/// reading in the dog's age and commits (durability `.normal`, so no sync is waited for). The
/// latency runs from that reading, just before the child's `realm.write` begins, to the
/// parent's stream element that shows it.
enum ProcessWorkloads {
    static let group = BenchmarkGroup(
        name: "processes",
        summary: "Burrow only: a commit in one process reaching a change stream in another (median, p99)",
        onMainActor: { try await run($0) })

    /// Timed commits: 200, or `BURROW_BENCH_PROCESS_COMMITS`.
    static let commits = BenchEnvironment.count("BURROW_BENCH_PROCESS_COMMITS", default: 200)
    /// Untimed commits first, so that both processes are warm.
    static let warmUp = 20

    /// The monotonic clock in nanoseconds, the same in every process of the machine.
    static func now() -> Int {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return time.tv_sec * 1_000_000_000 + time.tv_nsec
    }

    @MainActor
    static func run(_ bench: Workbench) async throws -> [Measurement] {
        let name = "processes.burrow"
        defer { bench.remove(name) }
        let path = bench.path(name)
        let configuration = ObjectWorkloads.configuration(path, durability: .normal)
        bench.log("change_stream_latency: \(commits) commits in a child process, each seen by a change stream here")
        let realm = try Realm(configuration: configuration)
        try realm.write { try realm.add(Dog(value: ["name": "Rex", "age": 0])) }

        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        child.arguments = ["--process-child", path]
        let input = Pipe()
        child.standardInput = input
        try child.run()
        defer {
            try? input.fileHandleForWriting.close()
            child.waitUntilExit()
        }

        var latencies: [Double] = []
        var round = 0
        func go() { input.fileHandleForWriting.write(Data([1])) }
        rounds: for await change in realm.objects(Dog.self).changes() {
            switch change {
            case .initial:
                go()
            case .update(let dogs, _, _, _):
                let arrived = now()
                guard let sent = dogs.first?.age, sent > 0 else { continue }
                if round >= warmUp { latencies.append(Double(arrived - sent) / 1_000) }
                round += 1
                if round >= warmUp + commits { break rounds }
                go()
            case .error(let error):
                throw BenchmarkError("the change stream failed: \(error)")
            }
        }
        guard latencies.count == commits else { throw BenchmarkError("saw \(latencies.count) of \(commits) commits") }
        let median = Timing.median(latencies)
        let p99 = ObservedWorkloads.percentile(latencies, 0.99)
        bench.log("    median \(Format.fixed(median, 1)) µs, p99 \(Format.fixed(p99, 1)) µs (n=\(latencies.count))")
        var m = Measurement(group: "processes", workload: "change_stream_latency", unit: "µs", burrow: median, sqlite: .nan, better: .lower)
        m.extras = [.init(key: "burrow_p99", value: p99, decimals: 1)]
        m.note = "median from before the child's realm.write to this process's stream element; p99 \(Format.human(p99)); target under 1 ms"
        return [m]
    }

    /// The child: for each byte on standard input, one commit that stores the clock's reading.
    static func child(path: String) -> Never {
        do {
            let realm = try Realm(configuration: ObjectWorkloads.configuration(path, durability: .normal))
            var byte: UInt8 = 0
            while read(0, &byte, 1) == 1 {
                guard let dog = realm.objects(Dog.self).first else { throw BenchmarkError("no dog in \(path)") }
                let sent = now()
                try realm.write { dog.age = sent }
            }
            exit(0)
        } catch {
            printError("burrow-bench --process-child: \(error)")
            exit(1)
        }
    }
}
