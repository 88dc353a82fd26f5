import BurrowStorage
import BurrowStore
import CSQLite
import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `group_commit` workload: 10 concurrent writers, each committing one put at a time,
/// durably. Burrow: 10 tasks, each `beginWrite`, one put, `commitPendingSync`, `await
/// waitUntilDurable`; writers waiting together share a sync. SQLite: 10 threads, each on its own
/// connection to the same WAL file (synchronous=FULL, busy_timeout set), each `BEGIN IMMEDIATE`,
/// `INSERT`, `COMMIT`.
enum StorageGroupCommit {
    static let writers = 10
    /// Commits per writer: `BURROW_GROUP_COMMITS_PER_WRITER`, 100 by default.
    static var commitsPerWriter: Int {
        if let text = getenv("BURROW_GROUP_COMMITS_PER_WRITER").map({ String(cString: $0) }), let n = Int(text), n > 0 { return n }
        return 100
    }

    struct Run {
        var seconds: Double
        var syncs: Int
        /// Bytes of file pages the run made dirty (`write_bytes` of /proc/self/io, counted when a
        /// clean page becomes dirty, so a page rewritten before it is written back counts once):
        /// what the syncs had to write. nil where the kernel does not tell.
        var dirtiedBytes: Int?
    }

    /// The process's `write_bytes` so far (Linux), or nil.
    static func dirtiedBytes() -> Int? {
        guard let file = fopen("/proc/self/io", "r") else { return nil }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 128)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text.hasPrefix("write_bytes: ") {
                return Int(text.dropFirst("write_bytes: ".count).trimmingCharacters(in: .whitespacesAndNewlines))
            }
        }
        return nil
    }

    static func difference(_ before: Int?, _ after: Int?) -> Int? {
        guard let before, let after else { return nil }
        return after - before
    }

    static func measure(_ bench: Workbench, _ buffers: KeyValueBuffers, singleCommitSeconds: Double?) throws -> Measurement {
        let perWriter = commitsPerWriter
        let total = writers * perWriter
        bench.log("group_commit: \(writers) concurrent writers x \(perWriter) durable one-put commits")
        let runs = max(3, bench.runs / 3)
        let (b, s) = try Timing.alternating(runs) { _ in
            defer { bench.remove("group.burrow") }
            return try burrow(bench.path("group.burrow"), buffers, perWriter: perWriter)
        } sqlite: { _ in
            defer { bench.remove("group.sqlite") }
            return try sqlite(bench.path("group.sqlite"), buffers, perWriter: perWriter)
        }
        bench.logRuns([("burrow", b.map(\.seconds)), ("sqlite", s.map(\.seconds))])
        let burrowSeconds = Timing.median(b.map(\.seconds))
        let burrowSyncs = Timing.median(b.map { Double($0.syncs) / Double(total) })
        let sqliteSyncs = Timing.median(s.map { Double($0.syncs) / Double(total) })
        var m = Measurement(
            group: "storage", workload: "group_commit", unit: "commits/s",
            burrow: Double(total) / burrowSeconds, sqlite: Double(total) / Timing.median(s.map(\.seconds)), better: .higher)
        m.extras = [
            .init(key: "commits", value: Double(total), decimals: 0),
            .init(key: "burrow_syncs_per_commit", value: burrowSyncs, decimals: 3),
            .init(key: "sqlite_syncs_per_commit", value: sqliteSyncs, decimals: 3),
        ]
        m.note = "\(writers)x\(perWriter); syncs/commit: burrow \(Format.fixed(burrowSyncs, 3)), sqlite \(Format.fixed(sqliteSyncs, 3))"
        let burrowDirtied = b.compactMap(\.dirtiedBytes)
        let sqliteDirtied = s.compactMap(\.dirtiedBytes)
        if burrowDirtied.count == b.count, sqliteDirtied.count == s.count {
            let burrowKiB = Timing.median(burrowDirtied.map { Double($0) / 1024 / Double(total) })
            let sqliteKiB = Timing.median(sqliteDirtied.map { Double($0) / 1024 / Double(total) })
            m.extras.append(.init(key: "burrow_kib_dirtied_per_commit", value: burrowKiB, decimals: 2))
            m.extras.append(.init(key: "sqlite_kib_dirtied_per_commit", value: sqliteKiB, decimals: 2))
            m.note += "; KiB dirtied/commit: burrow \(Format.fixed(burrowKiB, 2)), sqlite \(Format.fixed(sqliteKiB, 2))"
        }
        if let single = singleCommitSeconds {
            // The brief's yardstick: the group against 1,000 single durable commits.
            let ratio = 1000 * single / burrowSeconds
            m.extras.append(.init(key: "burrow_vs_1000_single_commits", value: ratio, decimals: 2))
            m.note += "; 1,000 single commits / this: \(Format.fixed(ratio, 2))x"
        }
        return m
    }

    /// A fresh file through the sync-counting device; times the writers from start to the last
    /// durable commit.
    static func burrow(_ path: String, _ unsharedBuffers: KeyValueBuffers, perWriter: Int) throws -> Run {
        let buffers = SharedBuffers(unsharedBuffers)
        let device = try CountingDevice(path: path)
        let storage = try Storage(device: device)
        defer { storage.close() }
        let before = device.syncs
        let dirtiedBefore = dirtiedBytes()
        let failure = ErrorSlot()
        let seconds = Timing.seconds {
            let done = DispatchSemaphore(value: 0)
            Task {
                do {
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        for w in 0..<writers {
                            group.addTask {
                                for i in 0..<perWriter {
                                    let key = w * perWriter + i
                                    let transaction = try await storage.beginWrite()
                                    let tree = try transaction.openTree(named: StorageWorkloads.treeName)
                                    try transaction.put(buffers.base.key(key), buffers.base.value(key), in: tree)
                                    let receipt = try transaction.commitPendingSync(durability: .full)
                                    try await storage.waitUntilDurable(receipt)
                                }
                            }
                        }
                        try await group.waitForAll()
                    }
                } catch {
                    failure.set(error)
                }
                done.signal()
            }
            done.wait()
        }
        if let message = failure.message { throw BenchmarkError("Burrow group commit: \(message)") }
        guard storage.version == UInt64(writers * perWriter) else {
            throw BenchmarkError("Burrow group commit ended at version \(storage.version)")
        }
        return Run(seconds: seconds, syncs: device.syncs - before, dirtiedBytes: difference(dirtiedBefore, dirtiedBytes()))
    }

    /// A fresh database through the sync-counting VFS; each writer thread opens its own
    /// connection (untimed), then all start together.
    static func sqlite(_ path: String, _ unsharedBuffers: KeyValueBuffers, perWriter: Int) throws -> Run {
        let buffers = SharedBuffers(unsharedBuffers)
        let setup = try SQLiteDatabase(path: path, vfs: SQLiteSyncCounter.vfsName)
        try StorageWorkloads.configure(setup, synchronous: "FULL")
        try setup.execute(StorageWorkloads.createTable)
        var connections: [SQLiteWriter] = []
        for _ in 0..<writers { connections.append(try SQLiteWriter(path: path)) }
        let before = SQLiteSyncCounter.syncs
        let dirtiedBefore = dirtiedBytes()
        let failure = ErrorSlot()
        let seconds = Timing.seconds {
            let group = DispatchGroup()
            for (w, connection) in connections.enumerated() {
                group.enter()
                let thread = SQLiteWriterThread {
                    defer { group.leave() }
                    do {
                        for i in 0..<perWriter {
                            let key = w * perWriter + i
                            try connection.insert(Int64(key), buffers.base.value(key))
                        }
                    } catch {
                        failure.set(error)
                    }
                }
                thread.start()
            }
            group.wait()
        }
        if let message = failure.message { throw BenchmarkError("SQLite group commit: \(message)") }
        let syncs = SQLiteSyncCounter.syncs - before
        let dirtied = difference(dirtiedBefore, dirtiedBytes())
        let count = try setup.scalar("SELECT count(*) FROM kv")
        guard count == String(writers * perWriter) else { throw BenchmarkError("SQLite group commit stored \(count ?? "?") rows") }
        connections.removeAll()
        setup.close()
        return Run(seconds: seconds, syncs: syncs, dirtiedBytes: dirtied)
    }
}

/// The first error a writer hit.
final class ErrorSlot: Sendable {
    private let value = Mutex<String?>(nil)
    func set(_ error: any Error) { value.withLock { if $0 == nil { $0 = "\(error)" } } }
    var message: String? { value.withLock { $0 } }
}

/// The dataset's buffers, read (never written) by every writer while the workload runs.
struct SharedBuffers: @unchecked Sendable {
    // The pointers stay valid for the whole workload (inside `withBuffers`), and nobody writes
    // through them.
    let base: KeyValueBuffers
    init(_ base: KeyValueBuffers) { self.base = base }
}

/// One SQLite connection with its prepared statements, used by one thread at a time.
final class SQLiteWriter: @unchecked Sendable {
    // Used by one writer thread only, after being built on the main thread (the thread start
    // orders the two).
    let db: SQLiteDatabase
    let begin: SQLiteStatement
    let commit: SQLiteStatement
    let insertStatement: SQLiteStatement

    init(path: String) throws {
        db = try SQLiteDatabase(path: path, vfs: SQLiteSyncCounter.vfsName)
        try StorageWorkloads.configure(db, synchronous: "FULL")
        try db.execute("PRAGMA busy_timeout=10000")
        begin = try db.prepare("BEGIN IMMEDIATE")
        commit = try db.prepare("COMMIT")
        insertStatement = try db.prepare("INSERT INTO kv(k, v) VALUES (?, ?)")
    }

    func insert(_ key: Int64, _ value: UnsafeRawBufferPointer) throws {
        try begin.run()
        insertStatement.bind(1, key)
        insertStatement.bind(2, blob: value)
        try insertStatement.run()
        try commit.run()
    }
}

/// A plain pthread running `body` (the writers must really run at once; a dispatch queue would
/// cap them at the number of cores).
final class SQLiteWriterThread: @unchecked Sendable {
    // Set once in init, read by the new thread only.
    private let body: () -> Void

    init(_ body: @escaping () -> Void) { self.body = body }

    func start() {
        var thread = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let created = pthread_create(
            &thread, nil,
            { context in
                let writer = Unmanaged<SQLiteWriterThread>.fromOpaque(context!).takeRetainedValue()
                writer.body()
                return nil
            }, context)
        precondition(created == 0, "pthread_create failed")
        pthread_detach(thread)
    }
}
