import Burrow
import BurrowStorage
import BurrowStore
import Dispatch
import Foundation
import Synchronization

/// The commit workloads of the `objects` group: `commit_normal`, `commit_full` (1,000
/// single-object `asyncWrite`s in a row) and `concurrent_writes` (10 tasks × 1,000 at once).
///
/// Every commit upserts one new Dog: `realm.add(dog, update: .modified)` on Burrow's side,
/// `INSERT … ON CONFLICT(_id) DO UPDATE` on SQLite's, each in a transaction of its own
/// (`BEGIN IMMEDIATE`, so that SQLite's concurrent writers wait in the busy handler instead of
/// failing to upgrade a read transaction).
enum ObjectCommits {
    static var commits: Int { ObjectWorkloads.commits }
    static var writers: Int { ObjectWorkloads.writers }

    static let upsertSQL = """
        INSERT INTO dogs(_id, name, age, color, currentCity) VALUES (?, ?, ?, ?, ?) \
        ON CONFLICT(_id) DO UPDATE SET name = excluded.name, age = excluded.age, \
        color = excluded.color, currentCity = excluded.currentCity
        """

    /// A commit workload's result, and the median time of Burrow's 1,000 commits (in seconds),
    /// which `concurrent_writes` compares itself with.
    struct CommitResult {
        var measurement: Measurement
        var burrowSeconds: Double
        var sqliteSeconds: Double
    }

    // MARK: commit_normal, commit_full

    static func commitWorkload(
        _ bench: Workbench, _ data: ObjectDataset, _ buffers: ObjectBuffers, durability: Realm.Durability
    ) throws -> CommitResult {
        let full = durability == .full
        let workload = full ? "commit_full" : "commit_normal"
        let synchronous = full ? "FULL" : "NORMAL"
        // A run of .normal commits takes milliseconds: take more of them.
        let runs = full ? bench.runs : 3 * bench.runs
        bench.log(
            "\(workload): \(commits) asyncWrites of one Dog each, .\(full ? "full" : "normal") vs SQLite WAL synchronous=\(synchronous) (\(runs) runs)"
        )
        let files = ["commits.burrow", "commits.sqlite", "commits-actor.burrow", "commits-sync.burrow", "commits-floor.page"]
        // With .full, a fifth subject times the physical floor: one page overwritten and
        // fdatasync'd per commit, on the same disk.
        let results = try Timing.interleaved(runs, subjects: full ? 5 : 4) { subject, _ in
            let path = bench.path(files[subject])
            defer { bench.remove(files[subject]) }
            switch subject {
            case 0: return try burrowCommits(path, data, durability: durability, .inActor)
            case 1: return try sqliteCommits(path, data, buffers, synchronous: synchronous)
            case 2: return try burrowCommits(path, data, durability: durability, .viaActor)
            case 3: return try burrowSynchronousCommits(path, data, durability: durability)
            default: return try pageSyncs(path, count: commits)
            }
        }
        let (b, s, a, w) = (results[0], results[1], results[2], results[3])
        bench.logRuns([("burrow", b), ("sqlite", s), ("burrow via RealmActor.asyncWrite", a), ("burrow realm.write on a thread", w)])
        let burrowSeconds = Timing.median(b)
        let sqliteSeconds = Timing.median(s)
        let viaActor = Double(commits) / Timing.median(a)
        let onThread = Double(commits) / Timing.median(w)
        var m = Measurement(
            group: "objects", workload: workload, unit: "commits/s",
            burrow: Double(commits) / burrowSeconds, sqlite: Double(commits) / sqliteSeconds, better: .higher)
        m.extras = [
            .init(key: "burrow_via_actor", value: viaActor, decimals: 1),
            .init(key: "speedup_via_actor", value: viaActor / m.sqlite, decimals: 2),
            .init(key: "burrow_sync_write", value: onThread, decimals: 1),
            .init(key: "speedup_sync_write", value: onThread / m.sqlite, decimals: 2),
        ]
        m.note =
            "realm.asyncWrite in the actor; via RealmActor.asyncWrite from a task: \(Format.human(viaActor)) (\(Format.fixed(viaActor / m.sqlite, 2))x); realm.write on a thread: \(Format.human(onThread)) (\(Format.fixed(onThread / m.sqlite, 2))x)"
        if full {
            let floor = Timing.median(results[4]) / Double(commits) * 1e6
            let commit = burrowSeconds / Double(commits) * 1e6
            m.extras += [
                .init(key: "burrow_commit_us", value: commit, decimals: 1),
                .init(key: "sqlite_commit_us", value: sqliteSeconds / Double(commits) * 1e6, decimals: 1),
                .init(key: "page_fdatasync_us", value: floor, decimals: 1),
            ]
            m.note +=
                "; one commit \(Format.fixed(commit, 1)) µs, SQLite's \(Format.fixed(sqliteSeconds / Double(commits) * 1e6, 1)) µs, one page overwritten and fdatasync'd \(Format.fixed(floor, 1)) µs (the floor)"
        }
        return CommitResult(measurement: m, burrowSeconds: burrowSeconds, sqliteSeconds: sqliteSeconds)
    }

    /// Inside the actor: one `realm.asyncWrite` per dog of `range`, each adding (upserting) it.
    static func commitLoop(in db: isolated RealmActor, _ data: ObjectDataset, _ range: Range<Int>) async throws {
        let realm = db.realm
        for i in range {
            try await realm.asyncWrite {
                try realm.add(data.makeDog(i), update: .modified)
            }
        }
    }

    /// How a commit workload's Burrow side writes.
    enum CommitCaller {
        /// The realm's own `asyncWrite`, inside the `RealmActor`.
        case inActor
        /// `RealmActor.asyncWrite` called from a task outside it: an actor hop per commit.
        case viaActor
    }

    /// Opens a `RealmActor` on a new file (untimed), then times `commits` single-Dog writes
    /// made as `caller` says.
    static func burrowCommits(_ path: String, _ data: ObjectDataset, durability: Realm.Durability, _ caller: CommitCaller) throws -> Double {
        let configuration = ObjectWorkloads.configuration(path, durability: durability)
        let count = commits
        let (seconds, stored) = try AsyncBridge.run {
            let db = try await RealmActor(configuration: configuration)
            let clock = ContinuousClock()
            let start = clock.now
            if caller == .viaActor {
                for i in 0..<count {
                    try await db.asyncWrite { realm in try realm.add(data.makeDog(i), update: .modified) }
                }
            } else {
                try await commitLoop(in: db, data, 0..<count)
            }
            let seconds = (clock.now - start).seconds
            let stored = try await db.objects(Dog.self).count
            await db.close()
            return (seconds, stored)
        }
        guard stored == count else { throw BenchmarkError("Burrow commits: \(stored) dogs stored, expected \(count)") }
        return seconds
    }

    /// Opens a realm on this thread (untimed), then times `commits` single-Dog synchronous
    /// `realm.write`s: as SQLite's side runs, on a plain thread that blocks for each sync.
    static func burrowSynchronousCommits(_ path: String, _ data: ObjectDataset, durability: Realm.Durability) throws -> Double {
        let realm = try Realm(configuration: ObjectWorkloads.configuration(path, durability: durability))
        let seconds = try Timing.seconds {
            for i in 0..<commits {
                try realm.write { try realm.add(data.makeDog(i), update: .modified) }
            }
        }
        let stored = realm.objects(Dog.self).count
        guard stored == commits else { throw BenchmarkError("Burrow synchronous commits: \(stored) dogs stored, expected \(commits)") }
        return seconds
    }

    /// One SQLite connection and its prepared statements, used by one thread at a time.
    final class SQLiteWriter: @unchecked Sendable {
        let db: SQLiteDatabase
        let begin: SQLiteStatement
        let commit: SQLiteStatement
        let upsert: SQLiteStatement

        init(_ path: String, synchronous: String) throws {
            db = try ObjectWorkloads.openSQLite(path, synchronous: synchronous)
            try db.execute("PRAGMA busy_timeout=60000")
            begin = try db.prepare("BEGIN IMMEDIATE")
            commit = try db.prepare("COMMIT")
            upsert = try db.prepare(upsertSQL)
        }

        /// One transaction per dog of `range`.
        func commitEach(_ range: Range<Int>, _ data: ObjectDataset, _ buffers: ObjectBuffers) throws {
            for i in range {
                try begin.run()
                buffers.bindDog(i, age: Int64(data.ages[i]), to: upsert)
                try upsert.run()
                try commit.run()
            }
        }

        func close() {
            begin.finalize()
            commit.finalize()
            upsert.finalize()
            db.close()
        }
    }

    /// Creates the table (untimed), then times `commits` transactions of one upsert each.
    static func sqliteCommits(_ path: String, _ data: ObjectDataset, _ buffers: ObjectBuffers, synchronous: String) throws -> Double {
        let writer = try SQLiteWriter(path, synchronous: synchronous)
        defer { writer.close() }
        let seconds = try Timing.seconds { try writer.commitEach(0..<commits, data, buffers) }
        let stored = try writer.db.scalar("SELECT count(*) FROM dogs")
        guard stored == String(commits) else { throw BenchmarkError("SQLite commits: \(stored ?? "?") rows stored, expected \(commits)") }
        return seconds
    }

    // MARK: concurrent_writes

    static func concurrentWrites(
        _ bench: Workbench, _ data: ObjectDataset, _ buffers: ObjectBuffers, singleFull: CommitResult
    ) throws -> Measurement {
        let total = writers * commits
        let runs = max(1, bench.runs / 3) | 1
        bench.log("concurrent_writes: \(writers) tasks/threads × \(commits) single-Dog commits at .full / FULL, one file (\(runs) runs)")
        var rounds = SyncRoundCounts()
        var dirtiedBytes: Int? = 0
        let (b, s) = try Timing.alternating(runs) { _ in
            defer { bench.remove("concurrent.burrow") }
            let (seconds, counts, dirtied) = try burrowConcurrent(bench.path("concurrent.burrow"), data)
            rounds.rounds += counts.rounds
            rounds.versionsMadeDurable += counts.versionsMadeDurable
            rounds.pagesReusedWithinRounds += counts.pagesReusedWithinRounds
            dirtiedBytes = dirtied.map { $0 + (dirtiedBytes ?? 0) }
            return seconds
        } sqlite: { _ in
            defer { bench.remove("concurrent.sqlite") }
            return try sqliteConcurrent(bench.path("concurrent.sqlite"), data, buffers)
        }
        bench.logRuns([("burrow", b), ("sqlite", s)])
        let burrowSeconds = Timing.median(b)
        let sqliteSeconds = Timing.median(s)
        // The issue's "group commit at work" criterion: the 10,000 concurrent commits take less
        // time than 1,000 sequential ones (commit_full's median run).
        let ratio = burrowSeconds / singleFull.burrowSeconds
        let met = burrowSeconds < singleFull.burrowSeconds
        var m = Measurement(
            group: "objects", workload: "concurrent_writes", unit: "commits/s",
            burrow: Double(total) / burrowSeconds, sqlite: Double(total) / sqliteSeconds, better: .higher)
        m.extras = [
            .init(key: "burrow_seconds", value: burrowSeconds, decimals: 3),
            .init(key: "burrow_1000_sequential_full_seconds", value: singleFull.burrowSeconds, decimals: 3),
            .init(key: "burrow_over_1000_sequential", value: ratio, decimals: 2),
            .init(key: "group_commit", value: met ? 1 : 0, decimals: 0),
            .init(key: "sqlite_over_1000_sequential", value: sqliteSeconds / singleFull.sqliteSeconds, decimals: 2),
            // How well the rounds group, over all runs: commits a sync round covered, and rounds
            // (syncs) per second of writing.
            .init(key: "burrow_commits_per_round", value: Double(rounds.versionsMadeDurable) / Double(max(1, rounds.rounds)), decimals: 2),
            .init(key: "burrow_rounds_per_second", value: Double(rounds.rounds) / b.reduce(0, +), decimals: 0),
        ]
        // File pages the commits made dirty (a page rewritten before the kernel wrote it back
        // counts once): what the syncs had to write, per commit.
        m.extras.append(
            .init(
                key: "burrow_pages_reused_within_rounds_per_commit", value: Double(rounds.pagesReusedWithinRounds) / Double(total * runs), decimals: 2
            ))
        if let dirtiedBytes {
            m.extras.append(.init(key: "burrow_dirtied_pages_per_commit", value: Double(dirtiedBytes) / 4096 / Double(total * runs), decimals: 2))
        }
        m.note =
            "\(writers)×\(commits) at .full/FULL; total \(Format.fixed(ratio, 2))× 1,000 sequential .full commits: group commit \(met ? "yes" : "no")"
        return m
    }

    /// Opens `writers` RealmActors on one new file (untimed), then times them each doing
    /// `commits` single-Dog `asyncWrite`s at once, in a task group. Returns the time and the sync
    /// rounds run meanwhile.
    static func burrowConcurrent(_ path: String, _ data: ObjectDataset) throws -> (seconds: Double, rounds: SyncRoundCounts, dirtiedBytes: Int?) {
        let configuration = ObjectWorkloads.configuration(path, durability: .full)
        let (writers, commits) = (self.writers, self.commits)
        let (seconds, stored, rounds, dirtied) = try AsyncBridge.run {
            var actors: [RealmActor] = []
            for _ in 0..<writers { actors.append(try await RealmActor(configuration: configuration)) }
            let roundsBefore = await syncRoundCounts(of: actors[0])
            let dirtiedBefore = StorageGroupCommit.dirtiedBytes()
            let clock = ContinuousClock()
            let start = clock.now
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (k, db) in actors.enumerated() {
                    group.addTask { try await commitLoop(in: db, data, k * commits..<(k + 1) * commits) }
                }
                try await group.waitForAll()
            }
            let seconds = (clock.now - start).seconds
            let dirtied = StorageGroupCommit.difference(dirtiedBefore, StorageGroupCommit.dirtiedBytes())
            let rounds = await syncRoundCounts(of: actors[0]).since(roundsBefore)
            let stored = try await actors[0].objects(Dog.self).count
            for db in actors { await db.close() }
            return (seconds, stored, rounds, dirtied)
        }
        guard stored == writers * commits else {
            throw BenchmarkError("Burrow concurrent writes: \(stored) dogs stored, expected \(writers * commits)")
        }
        return (seconds, rounds, dirtied)
    }

    /// The sync rounds run on the actor's file so far (every realm of the file shares them).
    static func syncRoundCounts(of db: isolated RealmActor) -> SyncRoundCounts {
        db.realm.syncRoundCounts
    }

    /// Opens `writers` connections to one new database (untimed, each with a busy timeout),
    /// starts one thread per connection, then times them each doing `commits` single-row
    /// transactions at once.
    static func sqliteConcurrent(_ path: String, _ data: ObjectDataset, _ buffers: ObjectBuffers) throws -> Double {
        var connections: [SQLiteWriter] = []
        for _ in 0..<writers { connections.append(try SQLiteWriter(path, synchronous: "FULL")) }
        defer { for c in connections { c.close() } }
        let start = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let failures = Mutex<[String]>([])
        let commits = self.commits
        for (k, writer) in connections.enumerated() {
            let thread = Thread {
                start.wait()
                do {
                    try writer.commitEach(k * commits..<(k + 1) * commits, data, buffers)
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
                done.signal()
            }
            thread.start()
        }
        let seconds = Timing.seconds {
            for _ in connections { start.signal() }
            for _ in connections { done.wait() }
        }
        if let failure = failures.withLock({ $0.first }) { throw BenchmarkError("SQLite concurrent writes: \(failure)") }
        let stored = try connections[0].db.scalar("SELECT count(*) FROM dogs")
        guard stored == String(writers * commits) else {
            throw BenchmarkError("SQLite concurrent writes: \(stored ?? "?") rows stored, expected \(writers * commits)")
        }
        return seconds
    }
}

/// Runs async benchmark code from the synchronous harness: starts a task and blocks the calling
/// thread (not one of the concurrency pool's) until it finishes.
enum AsyncBridge {
    private final class Outcome<T: Sendable>: Sendable {
        let value = Mutex<Result<T, any Error>?>(nil)
    }

    static func run<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let outcome = Outcome<T>()
        let finished = DispatchSemaphore(value: 0)
        Task {
            let result: Result<T, any Error>
            do {
                result = .success(try await body())
            } catch {
                result = .failure(error)
            }
            outcome.value.withLock { $0 = result }
            finished.signal()
        }
        finished.wait()
        return try outcome.value.withLock { $0! }.get()
    }
}

extension ObjectCommits {
    /// Times `count` overwrites of one page of a file, each followed by `fdatasync`: the least a
    /// durable commit can cost on this disk. The page is written and synced once before timing,
    /// so that every timed sync flushes one overwritten page and no change of the file's size.
    static func pageSyncs(_ path: String, count: Int) throws -> Double {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw BenchmarkError("cannot open \(path): errno \(errno)") }
        defer { close(fd) }
        var page = [UInt8](repeating: 0x5A, count: 4096)
        func overwrite(_ stamp: Int) throws {
            page[0] = UInt8(truncatingIfNeeded: stamp)
            let written = page.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
            guard written == page.count, fdatasync(fd) == 0 else { throw BenchmarkError("overwriting a page of \(path) failed: errno \(errno)") }
        }
        try overwrite(0)
        return try Timing.seconds {
            for i in 1...count { try overwrite(i) }
        }
    }
}
