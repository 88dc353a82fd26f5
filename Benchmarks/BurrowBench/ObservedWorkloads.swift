import Burrow
import BurrowStore
import Foundation
import Observation
import Synchronization

/// The `observed` group: how long a commit made by a `RealmActor` takes to reach the
/// Observation `onChange` of `@ObservedResults` wrappers on the main actor. Burrow only (SQLite
/// has no change notifications).
///
/// The main actor holds `observers` (1, 10, 100) `ObservedResults(Dog.self)`, each over the
/// same 1,000 dogs, each read inside `withObservationTracking`. A `RealmActor` then changes one
/// dog's age in a write transaction (durability `.normal`, so no sync is waited for). Each
/// commit's latency runs from the instant just before the writer's `realm.write` begins to the
/// `onChange` of the first and of the last of the observers; the rows report the last one
/// (the whole screen up to date), with the first one and the commit's own time in the notes.
enum ObservedWorkloads {
    static let group = BenchmarkGroup(
        name: "observed",
        summary: "Burrow only: commit on a RealmActor to @ObservedResults onChange on the main actor (1, 10, 100 observers)",
        onMainActor: { try await run($0) })

    /// Objects every observed results shows.
    static let objects = 1_000
    /// Observer counts to measure: 1, 10 and 100, or those `BURROW_BENCH_OBSERVERS` lists
    /// (comma-separated), e.g. `BURROW_BENCH_OBSERVERS=100` to profile one.
    static let observerCounts = BenchEnvironment.counts("BURROW_BENCH_OBSERVERS", default: [1, 10, 100])
    /// Timed commits per observer count: 200, or `BURROW_BENCH_OBSERVED_COMMITS`.
    static let commits = BenchEnvironment.count("BURROW_BENCH_OBSERVED_COMMITS", default: 200)
    /// Untimed commits first, so that every stream is past its first element and warm.
    static let warmUp = 20

    @MainActor
    static func run(_ bench: Workbench) async throws -> [Measurement] {
        var results: [Measurement] = []
        for count in observerCounts {
            results.append(try await latency(bench, observers: count))
        }
        return results
    }

    /// The instants one commit's latency is taken between.
    struct CommitTimes: Sendable {
        var begins: ContinuousClock.Instant
        var returned: ContinuousClock.Instant
    }

    @MainActor
    static func latency(_ bench: Workbench, observers count: Int) async throws -> Measurement {
        let name = "observed-\(count).burrow"
        defer { bench.remove(name) }
        let configuration = ObjectWorkloads.configuration(bench.path(name), durability: .normal)
        bench.log("onchange_latency (\(count) observer\(count == 1 ? "" : "s")): \(commits) commits of one changed Dog among \(objects)")
        let data = ObjectDataset(count: objects)
        let writer = try await RealmActor(configuration: configuration)
        try await fill(writer, data)

        var observers: [ObservedResults<Dog>] = []
        for _ in 0..<count {
            let observed = ObservedResults(Dog.self, configuration: configuration)
            guard observed.wrappedValue.count == objects else {
                throw BenchmarkError("observed results show \(observed.wrappedValue.count) dogs, expected \(objects)")
            }
            observers.append(observed)
        }

        var first: [Double] = []
        var last: [Double] = []
        var commitTimes: [Double] = []
        for round in 0..<(warmUp + commits) {
            let signal = RoundSignal(observers: count)
            for observed in observers {
                withObservationTracking {
                    _ = observed.wrappedValue
                } onChange: {
                    signal.fire()
                }
            }
            let times = try await commit(in: writer, dog: round % objects)
            let fired = await signal.allFired()
            guard round >= warmUp else { continue }
            first.append((fired.first - times.begins).seconds * 1e6)
            last.append((fired.last - times.begins).seconds * 1e6)
            commitTimes.append((times.returned - times.begins).seconds * 1e6)
        }
        guard observers.allSatisfy({ $0.error == nil }) else { throw BenchmarkError("an observed results reports an error") }
        observers.removeAll()
        await writer.close()

        let lastMedian = Timing.median(last)
        bench.log(
            "    last onChange: median \(Format.fixed(lastMedian, 1)) µs, p99 \(Format.fixed(percentile(last, 0.99), 1)) µs; first: median \(Format.fixed(Timing.median(first), 1)) µs; commit: median \(Format.fixed(Timing.median(commitTimes), 1)) µs (n=\(last.count))"
        )
        var m = Measurement(
            group: "observed", workload: "onchange_latency_\(count)", unit: "µs",
            burrow: lastMedian, sqlite: .nan, better: .lower)
        m.extras = [
            .init(key: "burrow_p99", value: percentile(last, 0.99), decimals: 1),
            .init(key: "burrow_first_median", value: Timing.median(first), decimals: 1),
            .init(key: "burrow_first_p99", value: percentile(first, 0.99), decimals: 1),
            .init(key: "burrow_commit_median", value: Timing.median(commitTimes), decimals: 1),
        ]
        m.note =
            "median to the last of \(count) onChange; p99 \(Format.human(percentile(last, 0.99))); first onChange: median \(Format.human(Timing.median(first))), p99 \(Format.human(percentile(first, 0.99))); from before realm.write (commit alone: \(Format.human(Timing.median(commitTimes))))"
        return m
    }

    /// Adds the dogs in one transaction (untimed).
    static func fill(_ db: isolated RealmActor, _ data: ObjectDataset) throws {
        let realm = db.realm
        try realm.write {
            for i in 0..<objects { try realm.add(data.makeDog(i)) }
        }
    }

    /// Changes one dog's age in a write transaction of the actor's realm, and returns the
    /// instants just before the write began and just after it returned.
    static func commit(in db: isolated RealmActor, dog index: Int) throws -> CommitTimes {
        let realm = db.realm
        let dog = realm.objects(Dog.self)[index]
        let clock = ContinuousClock()
        let begins = clock.now
        try realm.write { dog.age += 1 }
        return CommitTimes(begins: begins, returned: clock.now)
    }

    /// The value below which a fraction `p` of `values` lie (nearest rank).
    static func percentile(_ values: [Double], _ p: Double) -> Double {
        let sorted = values.sorted()
        let rank = Int((p * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }
}

/// Counts the notifications of one commit (`onChange` calls, stream elements) and wakes the
/// waiting task when every observer has had its own, with the instants of the first and the last.
final class RoundSignal: Sendable {
    private struct State {
        var fired = 0
        var first: ContinuousClock.Instant?
        var last: ContinuousClock.Instant?
        var waiter: CheckedContinuation<(first: ContinuousClock.Instant, last: ContinuousClock.Instant), Never>?
    }

    private let observers: Int
    private let state = Mutex(State())

    init(observers: Int) { self.observers = observers }

    func fire() {
        let now = ContinuousClock.now
        let done = state.withLock {
            state -> (
                CheckedContinuation<(first: ContinuousClock.Instant, last: ContinuousClock.Instant), Never>, ContinuousClock.Instant,
                ContinuousClock.Instant
            )? in
            state.fired += 1
            if state.first == nil { state.first = now }
            state.last = now
            guard state.fired == observers, let waiter = state.waiter else { return nil }
            state.waiter = nil
            return (waiter, state.first!, now)
        }
        if let (waiter, first, last) = done { waiter.resume(returning: (first, last)) }
    }

    func allFired() async -> (first: ContinuousClock.Instant, last: ContinuousClock.Instant) {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> (ContinuousClock.Instant, ContinuousClock.Instant)? in
                if state.fired >= observers, let first = state.first, let last = state.last { return (first, last) }
                state.waiter = continuation
                return nil
            }
            if let (first, last) = ready { continuation.resume(returning: (first, last)) }
        }
    }
}
