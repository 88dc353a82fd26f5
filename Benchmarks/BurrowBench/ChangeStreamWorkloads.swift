import Burrow
import BurrowStore
import Foundation
import Synchronization

/// The `changes` group: how long a commit takes to reach the consumers of results change
/// streams. Burrow only (SQLite has no change notifications).
///
/// `streams` (1, 100, 1,000) change streams watch the same results of 1,000 dogs, each consumed
/// by a task of its own. A `RealmActor` changes one dog's age with `realm.asyncWrite`
/// (durability `.normal`, so no sync is waited for), and waits until every consumer has the
/// update before the next commit. The rows report the time from `asyncWrite` returning to the
/// last consumer's element (every stream up to date); the notes add the first consumer's, and
/// the times from before the write began. A consumer may have its element before the writer's
/// `asyncWrite` has returned to it: those times are negative.
enum ChangeStreamWorkloads {
    static let group = BenchmarkGroup(
        name: "changes",
        summary: "Burrow only: asyncWrite returning to the element of results change streams (1, 100, 1,000 streams)",
        run: { try run($0) })

    /// Objects the observed results hold.
    static let objects = 1_000
    /// Stream counts to measure: 1, 100 and 1,000, or those `BURROW_BENCH_STREAMS` lists
    /// (comma-separated).
    static let streamCounts = BenchEnvironment.counts("BURROW_BENCH_STREAMS", default: [1, 100, 1_000])
    /// Timed commits per stream count: 200, or `BURROW_BENCH_STREAM_COMMITS`.
    static let commits = BenchEnvironment.count("BURROW_BENCH_STREAM_COMMITS", default: 200)
    /// Untimed commits first, so that every stream is past its first element and warm.
    static let warmUp = 10

    static func run(_ bench: Workbench) throws -> [Measurement] {
        try streamCounts.map { try latency(bench, streams: $0) }
    }

    /// The round every consumer reports its element to: set before each commit.
    private final class Rounds: Sendable {
        let current = Mutex<RoundSignal?>(nil)
        func fire() { current.withLock { $0 }?.fire() }
    }

    static func latency(_ bench: Workbench, streams count: Int) throws -> Measurement {
        let name = "changes-\(count).burrow"
        defer { bench.remove(name) }
        let configuration = ObjectWorkloads.configuration(bench.path(name), durability: .normal)
        bench.log("change_latency (\(count) stream\(count == 1 ? "" : "s")): \(commits) asyncWrites of one changed Dog among \(objects)")
        let data = ObjectDataset(count: objects)
        let rounds = commits
        let samples = try AsyncBridge.run { () async throws -> [(first: Double, last: Double, fromBegin: Double)] in
            let writer = try await RealmActor(configuration: configuration)
            try await ObservedWorkloads.fill(writer, data)
            let streams = try await makeStreams(in: writer, count: count)
            let signals = Rounds()
            // Every consumer first reports its initial element.
            let initial = RoundSignal(observers: count)
            signals.current.withLock { $0 = initial }
            let consumers = streams.map { stream in
                Task.detached {
                    for await change in stream {
                        if case .error = change { return }
                        signals.fire()
                    }
                }
            }
            defer { for consumer in consumers { consumer.cancel() } }
            _ = await initial.allFired()
            var samples: [(first: Double, last: Double, fromBegin: Double)] = []
            for round in 0..<(warmUp + rounds) {
                let signal = RoundSignal(observers: count)
                signals.current.withLock { $0 = signal }
                let times = try await commit(in: writer, dog: round % objects)
                let fired = await signal.allFired()
                guard round >= warmUp else { continue }
                samples.append(
                    (
                        (fired.first - times.returned).seconds * 1e6, (fired.last - times.returned).seconds * 1e6,
                        (fired.last - times.begins).seconds * 1e6
                    ))
            }
            await writer.close()
            return samples
        }
        let last = samples.map(\.last)
        let first = samples.map(\.first)
        let fromBegin = samples.map(\.fromBegin)
        let median = Timing.median(last)
        let p99 = ObservedWorkloads.percentile(last, 0.99)
        bench.log(
            "    last element: median \(Format.fixed(median, 1)) µs, p99 \(Format.fixed(p99, 1)) µs; first: median \(Format.fixed(Timing.median(first), 1)) µs; last from before the write: median \(Format.fixed(Timing.median(fromBegin), 1)) µs (n=\(last.count))"
        )
        var m = Measurement(group: "changes", workload: "change_latency_\(count)", unit: "µs", burrow: median, sqlite: .nan, better: .lower)
        m.extras = [
            .init(key: "burrow_p99", value: p99, decimals: 1),
            .init(key: "burrow_first_median", value: Timing.median(first), decimals: 1),
            .init(key: "burrow_first_p99", value: ObservedWorkloads.percentile(first, 0.99), decimals: 1),
            .init(key: "burrow_from_begin_median", value: Timing.median(fromBegin), decimals: 1),
        ]
        m.note =
            "asyncWrite returning to the last of \(count) streams' element: median; p99 \(Format.human(p99)); first stream: median \(Format.human(Timing.median(first))); from before the write: median \(Format.human(Timing.median(fromBegin)))"
        return m
    }

    /// `count` change streams over all the dogs, made in the writer's realm.
    static func makeStreams(
        in db: isolated RealmActor, count: Int
    ) throws -> [ChangeStream<RealmCollectionChange<FrozenResults<Dog>>>] {
        let results = db.realm.objects(Dog.self)
        return (0..<count).map { _ in results.changes() }
    }

    /// Changes one dog's age with `realm.asyncWrite` in the actor, and returns the instants just
    /// before the write began and just after it returned.
    static func commit(in db: isolated RealmActor, dog index: Int) async throws -> ObservedWorkloads.CommitTimes {
        let realm = db.realm
        let dog = realm.objects(Dog.self)[index]
        let clock = ContinuousClock()
        let begins = clock.now
        try await realm.asyncWrite { dog.age += 1 }
        return ObservedWorkloads.CommitTimes(begins: begins, returned: clock.now)
    }
}
