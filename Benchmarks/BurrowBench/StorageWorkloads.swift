import BurrowStorage
import BurrowStore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `storage` group: BurrowStorage against raw SQLite (WAL mode), same data, same order,
/// same process. Each workload's Burrow and SQLite halves sit next to each other below.
enum StorageWorkloads {
    static let group = BenchmarkGroup(
        name: "storage",
        summary: "BurrowStorage vs SQLite: bulk insert, commits, group commit, point reads, ordered scan, open time",
        run: { try run($0) })

    static let treeName = "kv"
    /// Entries of the bulk insert, point reads and ordered scan.
    static let entries = 100_000
    /// Transactions of each commit workload.
    static let commits = 1_000

    static func run(_ bench: Workbench) throws -> [Measurement] {
        guard SQLiteSyncCounter.register() else { throw BenchmarkError("cannot register the counting SQLite VFS") }
        bench.log("generating \(entries) entries (8-byte keys, \(KeyValueDataset.valueSize)-byte values)")
        let data = KeyValueDataset(count: entries)
        var results: [Measurement] = []
        try data.withBuffers { buffers in
            if selected("bulk_insert") { results.append(try bulkInsert(bench, data, buffers)) }
            if selected("commit_normal") { results.append(try commitWorkload(bench, data, buffers, durability: .normal)) }
            var single: Double?
            if selected("commit_full") {
                let full = try commitWorkload(bench, data, buffers, durability: .full)
                single = 1 / full.burrow
                results.append(full)
            }
            if selected("group_commit") { results.append(try StorageGroupCommit.measure(bench, buffers, singleCommitSeconds: single)) }
            guard selected("point_reads") || selected("ordered_scan") else { return }

            bench.log("building the read files (\(entries) entries, insert order)")
            let burrowPath = bench.path("reads.burrow")
            let sqlitePath = bench.path("reads.sqlite")
            _ = try burrowBulkInsert(burrowPath, buffers, order: data.insertOrder)
            _ = try sqliteBulkInsert(sqlitePath, buffers, order: data.insertOrder)
            if selected("point_reads") { results.append(try pointReads(bench, data, buffers, burrowPath: burrowPath, sqlitePath: sqlitePath)) }
            if selected("ordered_scan") { results.append(try orderedScan(bench, data, burrowPath: burrowPath, sqlitePath: sqlitePath)) }
        }
        if selected("open_time") { results += try StorageOpenTime.run(bench) }
        return results
    }

    /// Whether `workload` runs: all do unless `BURROW_BENCH_WORKLOADS` names some (comma-separated).
    static func selected(_ workload: String) -> Bool {
        guard let text = getenv("BURROW_BENCH_WORKLOADS").map({ String(cString: $0) }), !text.isEmpty else { return true }
        return text.split(separator: ",").contains { $0 == workload }
    }

    // MARK: SQLite set-up shared by the workloads

    /// WAL mode, the given `synchronous` level, and a page cache large enough (64 MiB) for the
    /// 100,000-entry table, so SQLite, like Burrow's mapping, serves hot reads from memory.
    static func configure(_ db: SQLiteDatabase, synchronous: String) throws {
        let mode = try db.scalar("PRAGMA journal_mode=WAL")
        guard mode == "wal" else { throw BenchmarkError("SQLite refused WAL mode (journal_mode=\(mode ?? "?"))") }
        try db.execute("PRAGMA synchronous=\(synchronous); PRAGMA cache_size=-65536")
    }

    static let createTable = "CREATE TABLE kv(k INTEGER PRIMARY KEY, v BLOB)"

    // MARK: bulk_insert

    static func bulkInsert(_ bench: Workbench, _ data: KeyValueDataset, _ buffers: KeyValueBuffers) throws -> Measurement {
        bench.log("bulk_insert: \(entries) puts in one transaction, shuffled keys, durable commit")
        let files = ["bulk.burrow", "bulk.sqlite", "bulk-nockpt.sqlite"]
        let results = try Timing.interleaved(bench.runs, subjects: 3) { subject, _ in
            let path = bench.path(files[subject])
            defer { bench.remove(files[subject]) }
            switch subject {
            case 0: return try burrowBulkInsert(path, buffers, order: data.insertOrder)
            case 1: return try sqliteBulkInsert(path, buffers, order: data.insertOrder)
            default: return try sqliteBulkInsert(path, buffers, order: data.insertOrder, autocheckpoint: false)
            }
        }
        let (b, s, n) = (results[0], results[1], results[2])
        bench.logRuns([("burrow", b), ("sqlite", s), ("sqlite without autocheckpoint", n)])
        var m = Measurement(
            group: "storage", workload: "bulk_insert", unit: "ops/s",
            burrow: Double(entries) / Timing.median(b), sqlite: Double(entries) / Timing.median(s), better: .higher)
        // SQLite's default automatic checkpoint runs inside this COMMIT (the WAL passes 1,000
        // pages), copying the data into the database file. Without it SQLite defers that work to
        // a later checkpoint; both figures are reported.
        let noCheckpoint = Double(entries) / Timing.median(n)
        m.extras = [
            .init(key: "sqlite_no_autocheckpoint", value: noCheckpoint, decimals: 1),
            .init(key: "speedup_vs_no_autocheckpoint", value: m.burrow / noCheckpoint, decimals: 2),
        ]
        m.note = "1 txn, .full vs FULL; sqlite w/o autocheckpoint: \(Format.human(noCheckpoint)) (\(Format.fixed(m.burrow / noCheckpoint, 2))x)"
        return m
    }

    /// Creates the file, then times: begin, `entries` puts (raw-buffer overload), commit(.full).
    static func burrowBulkInsert(_ path: String, _ buffers: KeyValueBuffers, order: [Int]) throws -> Double {
        let storage = try Storage.open(path: path)
        defer { storage.close() }
        return try Timing.seconds {
            let transaction = try storage.beginWriteBlocking()
            let tree = try transaction.openTree(named: treeName)
            for i in order {
                try transaction.put(buffers.key(i), buffers.value(i), in: tree)
            }
            try transaction.commit(durability: .full)
        }
    }

    /// Creates the table, then times: BEGIN, `entries` bind/step/reset of a prepared INSERT, COMMIT.
    /// With `autocheckpoint: false`, the COMMIT leaves the data in the WAL (checkpointed at close,
    /// untimed).
    static func sqliteBulkInsert(
        _ path: String, _ buffers: KeyValueBuffers, order: [Int], autocheckpoint: Bool = true
    ) throws -> Double {
        let db = try SQLiteDatabase(path: path)
        defer { db.close() }
        try configure(db, synchronous: "FULL")
        if !autocheckpoint { try db.execute("PRAGMA wal_autocheckpoint=0") }
        try db.execute(createTable)
        let begin = try db.prepare("BEGIN")
        let commit = try db.prepare("COMMIT")
        let insert = try db.prepare("INSERT INTO kv(k, v) VALUES (?, ?)")
        return try Timing.seconds {
            try begin.run()
            for i in order {
                insert.bind(1, Int64(i))
                insert.bind(2, blob: buffers.value(i))
                _ = try insert.step()
                insert.reset()
            }
            try commit.run()
        }
    }

    // MARK: commit_normal, commit_full

    static func commitWorkload(
        _ bench: Workbench, _ data: KeyValueDataset, _ buffers: KeyValueBuffers, durability: Durability
    ) throws -> Measurement {
        let full = durability == .full
        let workload = full ? "commit_full" : "commit_normal"
        let synchronous = full ? "FULL" : "NORMAL"
        bench.log(
            "\(workload): \(commits) transactions of one put each, Burrow .\(full ? "full" : "normal") vs SQLite WAL synchronous=\(synchronous)")
        let keys = data.insertOrder.prefix(commits)
        // A run of .normal commits takes milliseconds: take more of them.
        let runs = full ? bench.runs : 3 * bench.runs
        let (b, s) = try Timing.alternating(runs) { _ in
            defer { bench.remove("commits.burrow") }
            return try burrowCommits(bench.path("commits.burrow"), buffers, keys: keys, durability: durability)
        } sqlite: { _ in
            defer { bench.remove("commits.sqlite") }
            return try sqliteCommits(bench.path("commits.sqlite"), buffers, keys: keys, synchronous: synchronous)
        }
        bench.logRuns([("burrow", b.map(\.seconds)), ("sqlite", s.map(\.seconds))])
        let burrowSyncs = Timing.median(b.map(\.syncsPerCommit))
        let sqliteSyncs = Timing.median(s.map(\.syncsPerCommit))
        var m = Measurement(
            group: "storage", workload: workload, unit: "commits/s",
            burrow: Double(commits) / Timing.median(b.map(\.seconds)),
            sqlite: Double(commits) / Timing.median(s.map(\.seconds)), better: .higher)
        m.extras = [
            .init(key: "burrow_syncs_per_commit", value: burrowSyncs, decimals: 3),
            .init(key: "sqlite_syncs_per_commit", value: sqliteSyncs, decimals: 3),
        ]
        m.note = "syncs/commit (measured): burrow \(Format.fixed(burrowSyncs, 3)), sqlite \(Format.fixed(sqliteSyncs, 3))"
        return m
    }

    struct CommitRun {
        var seconds: Double
        var syncsPerCommit: Double
    }

    /// Times `keys.count` transactions (begin, openTree, one put, commit) on a fresh file opened
    /// through a sync-counting device.
    static func burrowCommits(
        _ path: String, _ buffers: KeyValueBuffers, keys: ArraySlice<Int>, durability: Durability
    ) throws -> CommitRun {
        let device = try CountingDevice(path: path)
        let storage = try Storage(device: device)
        defer { storage.close() }
        let before = device.syncs
        let seconds = try Timing.seconds {
            for i in keys {
                let transaction = try storage.beginWriteBlocking()
                let tree = try transaction.openTree(named: treeName)
                try transaction.put(buffers.key(i), buffers.value(i), in: tree)
                try transaction.commit(durability: durability)
            }
        }
        return CommitRun(seconds: seconds, syncsPerCommit: Double(device.syncs - before) / Double(keys.count))
    }

    /// Times `keys.count` transactions (prepared BEGIN, INSERT, COMMIT) on a fresh database
    /// opened through the sync-counting VFS.
    static func sqliteCommits(
        _ path: String, _ buffers: KeyValueBuffers, keys: ArraySlice<Int>, synchronous: String
    ) throws -> CommitRun {
        let db = try SQLiteDatabase(path: path, vfs: SQLiteSyncCounter.vfsName)
        defer { db.close() }
        try configure(db, synchronous: synchronous)
        try db.execute(createTable)
        let begin = try db.prepare("BEGIN")
        let commit = try db.prepare("COMMIT")
        let insert = try db.prepare("INSERT INTO kv(k, v) VALUES (?, ?)")
        let before = SQLiteSyncCounter.syncs
        let seconds = try Timing.seconds {
            for i in keys {
                try begin.run()
                insert.bind(1, Int64(i))
                insert.bind(2, blob: buffers.value(i))
                try insert.run()
                try commit.run()
            }
        }
        return CommitRun(seconds: seconds, syncsPerCommit: Double(SQLiteSyncCounter.syncs - before) / Double(keys.count))
    }

    /// The benchmark's tree, as of a fresh snapshot of `storage` (which the tree keeps alive).
    static func benchmarkTree(in storage: Storage) throws -> Tree {
        guard let tree = try storage.snapshot().tree(named: treeName) else { throw BenchmarkError("Burrow: no tree \(treeName)") }
        return tree
    }

    // MARK: point_reads

    static func pointReads(
        _ bench: Workbench, _ data: KeyValueDataset, _ buffers: KeyValueBuffers, burrowPath: String, sqlitePath: String
    ) throws -> Measurement {
        bench.log("point_reads: \(entries) random lookups (one snapshot / one read transaction per run)")
        let expected = data.readOrder.reduce(0) { $0 &+ Int(data.values[$1 * KeyValueDataset.valueSize]) }

        let storage = try Storage.open(path: burrowPath)
        defer { storage.close() }
        let db = try SQLiteDatabase(path: sqlitePath)
        defer { db.close() }
        try configure(db, synchronous: "NORMAL")
        let begin = try db.prepare("BEGIN")
        let commit = try db.prepare("COMMIT")
        let select = try db.prepare("SELECT v FROM kv WHERE k=?")

        func burrowRun(_ run: Int) throws -> Double {
            var found = 0
            var checksum = 0
            let seconds = try Timing.seconds {
                let tree = try benchmarkTree(in: storage)
                for i in data.readOrder {
                    if let first = try tree.withValue(forKey: buffers.key(i), { Int($0[0]) }) {
                        checksum &+= first
                        found += 1
                    }
                }
            }
            try check("Burrow point reads", found: found, of: entries, checksum: checksum, expected: expected)
            return seconds
        }
        func sqliteRun(_ run: Int) throws -> Double {
            var found = 0
            var checksum = 0
            let seconds = try Timing.seconds {
                try begin.run()
                for i in data.readOrder {
                    select.bind(1, Int64(i))
                    if try select.step() {
                        checksum &+= Int(select.blob(0).load(as: UInt8.self))
                        found += 1
                    }
                    select.reset()
                }
                try commit.run()
            }
            try check("SQLite point reads", found: found, of: entries, checksum: checksum, expected: expected)
            return seconds
        }

        // The first pass is untimed in the median: it faults the pages in (and Burrow checks each
        // page's checksum on first use); it is reported separately.
        let burrowFirst = try burrowRun(-1)
        let sqliteFirst = try sqliteRun(-1)
        let (b, s) = try Timing.alternating(bench.runs, burrow: burrowRun, sqlite: sqliteRun)
        bench.logRuns([("burrow", b), ("sqlite", s)])
        var m = Measurement(
            group: "storage", workload: "point_reads", unit: "ops/s",
            burrow: Double(entries) / Timing.median(b), sqlite: Double(entries) / Timing.median(s), better: .higher)
        m.extras = [
            .init(key: "burrow_first_pass", value: Double(entries) / burrowFirst, decimals: 1),
            .init(key: "sqlite_first_pass", value: Double(entries) / sqliteFirst, decimals: 1),
        ]
        m.note = "warm; first pass: burrow \(Format.human(Double(entries) / burrowFirst)), sqlite \(Format.human(Double(entries) / sqliteFirst))"
        return m
    }

    // MARK: ordered_scan

    static func orderedScan(_ bench: Workbench, _ data: KeyValueDataset, burrowPath: String, sqlitePath: String) throws -> Measurement {
        bench.log("ordered_scan: all \(entries) entries in key order, reading key and value")
        var expected = 0
        for i in 0..<entries { expected &+= Int(UInt8(truncatingIfNeeded: i)) &+ Int(data.values[i * KeyValueDataset.valueSize]) }

        let storage = try Storage.open(path: burrowPath)
        defer { storage.close() }
        let db = try SQLiteDatabase(path: sqlitePath)
        defer { db.close() }
        try configure(db, synchronous: "NORMAL")
        let scan = try db.prepare("SELECT k, v FROM kv ORDER BY k")

        func burrowRun(_ run: Int) throws -> Double {
            var rows = 0
            var checksum = 0
            let seconds = try Timing.seconds {
                let tree = try benchmarkTree(in: storage)
                var cursor = tree.makeCursor()
                var more = try cursor.first()
                while more {
                    let key = cursor.key
                    let value = try cursor.value()
                    checksum &+= Int(key[key.count - 1]) &+ Int(value[0])
                    rows += 1
                    more = try cursor.next()
                }
            }
            try check("Burrow ordered scan", found: rows, of: entries, checksum: checksum, expected: expected)
            return seconds
        }
        func sqliteRun(_ run: Int) throws -> Double {
            var rows = 0
            var checksum = 0
            let seconds = try Timing.seconds {
                while try scan.step() {
                    let key = scan.int64(0)
                    let value = scan.blob(1)
                    checksum &+= Int(UInt8(truncatingIfNeeded: key)) &+ Int(value.load(as: UInt8.self))
                    rows += 1
                }
                scan.reset()
            }
            try check("SQLite ordered scan", found: rows, of: entries, checksum: checksum, expected: expected)
            return seconds
        }

        _ = try burrowRun(-1)
        _ = try sqliteRun(-1)
        // A scan takes milliseconds: take more of them.
        let runs = 3 * bench.runs
        let (b, s) = try Timing.alternating(runs, burrow: burrowRun, sqlite: sqliteRun)
        bench.logRuns([("burrow", b), ("sqlite", s)])
        // The best run, not the median: a scan takes milliseconds, and on a shared machine its
        // times fall into a fast and a slow band (SQLite's especially); the median then depends
        // on which band most runs happened to land in. The medians are reported too.
        var m = Measurement(
            group: "storage", workload: "ordered_scan", unit: "rows/s",
            burrow: Double(entries) / b.min()!, sqlite: Double(entries) / s.min()!, better: .higher)
        let burrowMedian = Double(entries) / Timing.median(b)
        let sqliteMedian = Double(entries) / Timing.median(s)
        m.extras = [
            .init(key: "burrow_median", value: burrowMedian, decimals: 1),
            .init(key: "sqlite_median", value: sqliteMedian, decimals: 1),
        ]
        m.note = "warm, best of \(runs) scans; medians: burrow \(Format.human(burrowMedian)), sqlite \(Format.human(sqliteMedian))"
        return m
    }

    /// Both engines must find every key and read the same bytes, or the comparison is void.
    static func check(_ what: String, found: Int, of count: Int, checksum: Int, expected: Int) throws {
        guard found == count, checksum == expected else {
            throw BenchmarkError("\(what) found \(found) of \(count) entries, checksum \(checksum) (expected \(expected))")
        }
    }
}
