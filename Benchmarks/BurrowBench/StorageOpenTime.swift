import BurrowStorage
import BurrowStore

/// `open_time`: open an existing file and read one key, on a 1,000,000-key file and on a
/// 10,000-key file, for both engines. The JSON line reports the large file; the table shows both,
/// so that one can see whether opening grows with the file's size.
enum StorageOpenTime {
    static let largeFile = 1_000_000
    static let smallFile = 10_000
    /// Entries per transaction while building the files (keeps the writer's memory bounded).
    static let batch = 100_000

    static func run(_ bench: Workbench) throws -> [Measurement] {
        var results: [(keys: Int, burrow: Double, sqlite: Double, burrowBytes: Int, sqliteBytes: Int)] = []
        for keys in [largeFile, smallFile] {
            bench.log("open_time: building \(keys)-key files")
            let burrowName = "open-\(keys).burrow"
            let sqliteName = "open-\(keys).sqlite"
            try buildBurrow(bench.path(burrowName), keys: keys)
            try buildSQLite(bench.path(sqliteName), keys: keys)

            // A key in the middle, and the first byte of its value, to check the read.
            let probe = keys / 2
            var key = [UInt8](repeating: 0, count: KeyValueDataset.keySize)
            var value = [UInt8](repeating: 0, count: KeyValueDataset.valueSize)
            key.withUnsafeMutableBytes { KeyValueDataset.writeKey(probe, into: $0.baseAddress!) }
            value.withUnsafeMutableBytes { KeyValueDataset.writeValue(probe, into: $0.baseAddress!) }
            let expected = Int(value[0])

            let runs = 5 * bench.runs
            bench.log("open_time: \(runs) opens of each \(keys)-key file (open + read one key)")
            let (b, s) = try Timing.alternating(runs) { _ in
                try burrowOpen(bench.path(burrowName), key: key, expected: expected)
            } sqlite: { _ in
                try sqliteOpen(bench.path(sqliteName), key: Int64(probe), expected: expected)
            }
            bench.logRuns([("burrow", b), ("sqlite", s)])
            results.append((keys, Timing.median(b) * 1e6, Timing.median(s) * 1e6, bench.fileSize(burrowName), bench.fileSize(sqliteName)))
            bench.remove(burrowName)
            bench.remove(sqliteName)
        }

        let large = results[0]
        let small = results[1]
        var big = Measurement(
            group: "storage", workload: "open_time", label: "open_time (1M keys)", unit: "us",
            burrow: large.burrow, sqlite: large.sqlite, better: .lower)
        big.extras = [
            .init(key: "keys", value: Double(large.keys), decimals: 0),
            .init(key: "burrow_file_bytes", value: Double(large.burrowBytes), decimals: 0),
            .init(key: "sqlite_file_bytes", value: Double(large.sqliteBytes), decimals: 0),
            .init(key: "burrow_10k_keys_us", value: small.burrow, decimals: 1),
            .init(key: "sqlite_10k_keys_us", value: small.sqlite, decimals: 1),
            .init(key: "burrow_1m_over_10k", value: large.burrow / small.burrow, decimals: 2),
        ]
        big.note =
            "files: burrow \(Format.bytes(large.burrowBytes)), sqlite \(Format.bytes(large.sqliteBytes)); "
            + "1M/10k: burrow \(Format.fixed(large.burrow / small.burrow, 2))x, sqlite \(Format.fixed(large.sqlite / small.sqlite, 2))x"
        var little = Measurement(
            group: "storage", workload: "open_time_10k", label: "open_time (10k keys)", unit: "us",
            burrow: small.burrow, sqlite: small.sqlite, better: .lower)
        little.note = "files: burrow \(Format.bytes(small.burrowBytes)), sqlite \(Format.bytes(small.sqliteBytes))"
        little.inJSON = false
        return [big, little]
    }

    // MARK: Building the files

    /// Keys 0..<keys in order, in transactions of `batch` puts.
    static func buildBurrow(_ path: String, keys: Int) throws {
        let storage = try Storage.open(path: path)
        defer { storage.close() }
        try withEntryBuffers { key, value in
            var next = 0
            while next < keys {
                let end = min(keys, next + batch)
                let transaction = try storage.beginWriteBlocking()
                let tree = try transaction.openTree(named: StorageWorkloads.treeName)
                for i in next..<end {
                    KeyValueDataset.writeKey(i, into: UnsafeMutableRawPointer(mutating: key.baseAddress!))
                    KeyValueDataset.writeValue(i, into: UnsafeMutableRawPointer(mutating: value.baseAddress!))
                    try transaction.put(key, value, in: tree)
                }
                try transaction.commit(durability: .full)
                next = end
            }
        }
    }

    static func buildSQLite(_ path: String, keys: Int) throws {
        let db = try SQLiteDatabase(path: path)
        defer { db.close() }
        try StorageWorkloads.configure(db, synchronous: "NORMAL")
        try db.execute(StorageWorkloads.createTable)
        let begin = try db.prepare("BEGIN")
        let commit = try db.prepare("COMMIT")
        let insert = try db.prepare("INSERT INTO kv(k, v) VALUES (?, ?)")
        try withEntryBuffers { _, value in
            var next = 0
            while next < keys {
                let end = min(keys, next + batch)
                try begin.run()
                for i in next..<end {
                    KeyValueDataset.writeValue(i, into: UnsafeMutableRawPointer(mutating: value.baseAddress!))
                    insert.bind(1, Int64(i))
                    insert.bind(2, blob: value)
                    try insert.run()
                }
                try commit.run()
                next = end
            }
        }
        // Move everything into the database file, so each open finds an empty WAL.
        _ = try db.scalar("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    private static func withEntryBuffers(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Void) rethrows {
        let key = UnsafeMutableRawBufferPointer.allocate(byteCount: KeyValueDataset.keySize, alignment: 8)
        let value = UnsafeMutableRawBufferPointer.allocate(byteCount: KeyValueDataset.valueSize, alignment: 8)
        defer {
            key.deallocate()
            value.deallocate()
        }
        try body(UnsafeRawBufferPointer(key), UnsafeRawBufferPointer(value))
    }

    // MARK: One open

    /// Times `Storage.open`, a snapshot, the tree lookup and one `withValue`; then closes the
    /// handle and makes sure it is gone, so that the next call opens the file for real (the
    /// process shares one handle per file while any reference to it is alive).
    static func burrowOpen(_ path: String, key: [UInt8], expected: Int) throws -> Double {
        var storage: Storage?
        var first: Int?
        let seconds = try Timing.seconds {
            let opened = try Storage.open(path: path)
            storage = opened
            let snapshot = try opened.snapshot()
            guard let tree = try snapshot.tree(named: StorageWorkloads.treeName) else { throw BenchmarkError("Burrow: no tree") }
            first = try key.withUnsafeBytes { k in try tree.withValue(forKey: k) { Int($0[0]) } }
        }
        storage?.close()
        weak let released = storage
        storage = nil
        guard released == nil else { throw BenchmarkError("a Burrow handle outlived its last reference, so the next open would not be real") }
        guard first == expected else { throw BenchmarkError("Burrow open: read \(first.map(String.init) ?? "nothing"), expected \(expected)") }
        return seconds
    }

    /// Times `sqlite3_open_v2`, preparing the SELECT (which reads the schema) and one step; then
    /// finalizes and closes.
    static func sqliteOpen(_ path: String, key: Int64, expected: Int) throws -> Double {
        var first: Int?
        let ((db, statement), seconds) = try Timing.measure { () throws -> (SQLiteDatabase, SQLiteStatement) in
            let db = try SQLiteDatabase(path: path, create: false)
            let statement = try db.prepare("SELECT v FROM kv WHERE k=?")
            statement.bind(1, key)
            if try statement.step() { first = Int(statement.blob(0).load(as: UInt8.self)) }
            return (db, statement)
        }
        statement.finalize()
        db.close()
        guard first == expected else { throw BenchmarkError("SQLite open: read \(first.map(String.init) ?? "nothing"), expected \(expected)") }
        return seconds
    }
}
