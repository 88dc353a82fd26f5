import Burrow
import BurrowSync
import BurrowTestSupport
import Foundation
import Synchronization

/// The `sync` group: BurrowSync against a PostgreSQL server of the group's own on this machine
/// (a new cluster, on a Unix socket, `fsync` off, as the sync tests run it).
///
/// - `upload`: one client uploads 10,000 new objects committed in one local write, from the
///   commit's return to `waitForUpload()`'s (no other client runs meanwhile).
/// - `download`: the same 10,000 rows written by one SQL statement, from its commit to
///   `waitForDownload()`'s return on an idle client.
/// - Both beside the floor (the second column): the same rows inserted through libpq directly,
///   500 to a multi-row `INSERT` and each in a transaction of its own (sync's upload batch), into
///   a table of the same columns without sync's triggers.
/// - `latency`: one object committed on one client (`asyncWrite` returning) to the element of a
///   results change stream on another; median and p99 of 100 commits. Burrow only.
///
/// Each run uses a new database and new files; runs of Burrow and of the floor alternate.
enum SyncWorkloads {
    static let group = BenchmarkGroup(
        name: "sync",
        summary: "BurrowSync with PostgreSQL: upload and download of 10,000 objects beside libpq's batched INSERTs; commit → other client's stream",
        run: { try run($0) })

    /// Objects per upload and download: 10,000, or `BURROW_BENCH_SYNC_OBJECTS`.
    static let objects = BenchEnvironment.count("BURROW_BENCH_SYNC_OBJECTS", default: 10_000)
    /// Timed commits of the latency workload: 100, or `BURROW_BENCH_SYNC_COMMITS`.
    static let commits = BenchEnvironment.count("BURROW_BENCH_SYNC_COMMITS", default: 100)
    static let batch = 500

    /// The class the group syncs.
    final class SyncBenchTodo: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var title = ""
        @Persisted var priority = 0
        @Persisted var done = false
        @Persisted var score = 0.0
    }

    static func run(_ bench: Workbench) throws -> [Measurement] {
        let cluster = try PostgresCluster()
        defer { cluster.stop() }
        let admin = try PostgresConnection(cluster.connectionString)
        var databases = 0
        func newDatabase() throws -> String {
            databases += 1
            try admin.execute("CREATE DATABASE bench_\(databases)")
            return cluster.connectionString(database: "bench_\(databases)")
        }
        let runs = max(1, min(bench.runs, 5))
        var floor: [Double] = []
        var upload: [Double] = []
        var download: [Double] = []
        for run in 0..<runs {
            bench.log("sync run \(run + 1) of \(runs): \(objects) objects")
            floor.append(try floorSeconds(database: try newDatabase()))
            let times = try burrowSeconds(bench, database: try newDatabase(), run: run)
            upload.append(times.upload)
            download.append(times.download)
        }
        bench.logRuns([("floor", floor), ("upload", upload), ("download", download)])
        let floorRate = Double(objects) / Timing.median(floor)
        var uploadRow = Measurement(
            group: "sync", workload: "upload", unit: "objects/s", burrow: Double(objects) / Timing.median(upload), sqlite: floorRate,
            better: .higher)
        uploadRow.note = "second column: libpq's batched INSERTs of the same rows (the floor)"
        var downloadRow = Measurement(
            group: "sync", workload: "download", unit: "objects/s", burrow: Double(objects) / Timing.median(download), sqlite: floorRate,
            better: .higher)
        downloadRow.note = "second column: the same floor"
        return [uploadRow, downloadRow, try latency(bench, database: try newDatabase())]
    }

    /// The floor: the rows inserted through libpq, `batch` to a statement, a transaction each.
    static func floorSeconds(database: String) throws -> Double {
        let connection = try PostgresConnection(database)
        try connection.execute(
            "CREATE TABLE floor_todo (id bigint PRIMARY KEY, title text, priority bigint, done boolean, score double precision)")
        var statements: [(sql: String, parameters: [String?])] = []
        for first in stride(from: 0, to: objects, by: batch) {
            let ids = first..<min(first + batch, objects)
            var placeholders: [String] = []
            var parameters: [String?] = []
            for id in ids {
                let base = parameters.count
                placeholders.append(
                    "($\(base + 1)::bigint, $\(base + 2)::text, $\(base + 3)::bigint, $\(base + 4)::boolean, $\(base + 5)::double precision)")
                parameters += [String(id), "todo \(id)", String(id % 10), id % 2 == 0 ? "true" : "false", String(Double(id) / 4)]
            }
            statements.append(("INSERT INTO floor_todo VALUES " + placeholders.joined(separator: ", "), parameters))
        }
        return try Timing.seconds {
            for statement in statements {
                try connection.execute("BEGIN")
                try connection.execute(statement.sql, statement.parameters)
                try connection.execute("COMMIT")
            }
        }
    }

    /// Burrow's upload and download of the rows, on two clients of `database`.
    static func burrowSeconds(_ bench: Workbench, database: String, run: Int) throws -> (upload: Double, download: Double) {
        let (writerConfig, readerConfig) = configurations(bench, "sync-\(run)")
        defer { removeFiles(bench, "sync-\(run)") }
        let server = PostgresServer(database)
        let count = objects
        return try AsyncBridge.run {
            let writer = try await SyncClient(configuration: writerConfig, server: server, classes: [SyncBenchTodo.self])
            let reader = try await SyncClient(configuration: readerConfig, server: server, classes: [SyncBenchTodo.self])
            try await writer.start()
            let writerRealm = try await RealmActor(configuration: writerConfig)
            try await writerRealm.asyncWrite { realm in
                for id in 0..<count {
                    let todo = SyncBenchTodo()
                    todo.id = id
                    todo.title = "todo \(id)"
                    todo.priority = id % 10
                    todo.done = id % 2 == 0
                    todo.score = Double(id) / 4
                    try realm.add(todo)
                }
            }
            let clock = ContinuousClock()
            let uploadStart = clock.now
            try await writer.waitForUpload()
            let upload = (clock.now - uploadStart).seconds
            // The reader starts once they are in (so that it does not share the machine with the
            // upload) and downloads them; a SQL statement then changes them all for the timed
            // download.
            try await reader.start()
            let sql = try PostgresConnection(server.connectionString)
            try sql.execute("UPDATE \"SyncBenchTodo\" SET title = title || ' (changed)'")
            let downloadStart = clock.now
            try await reader.waitForDownload()
            let download = (clock.now - downloadStart).seconds
            let readerRealm = try await RealmActor(configuration: readerConfig)
            let changed = try await readerRealm.read { realm in
                try realm.objects(SyncBenchTodo.self).filter("title ENDSWITH ' (changed)'").count
            }
            guard changed == count else { throw BenchmarkError("the reader holds \(changed) changed objects, not \(count)") }
            await writer.stop()
            await reader.stop()
            await writerRealm.close()
            await readerRealm.close()
            return (upload, download)
        }
    }

    /// One object committed on a client to the element of a results stream on another.
    static func latency(_ bench: Workbench, database: String) throws -> Measurement {
        let (writerConfig, readerConfig) = configurations(bench, "sync-latency")
        defer { removeFiles(bench, "sync-latency") }
        let server = PostgresServer(database)
        let rounds = commits
        bench.log("sync latency: \(rounds) commits of one object on one client, to a results stream's element on another")
        let samples = try AsyncBridge.run { () async throws -> [Double] in
            let writer = try await SyncClient(configuration: writerConfig, server: server, classes: [SyncBenchTodo.self])
            let reader = try await SyncClient(configuration: readerConfig, server: server, classes: [SyncBenchTodo.self])
            try await writer.start()
            try await reader.start()
            let writerRealm = try await RealmActor(configuration: writerConfig)
            let readerRealm = try await RealmActor(configuration: readerConfig)
            let stream = try await makeStream(in: readerRealm)
            let current = Mutex<RoundSignal?>(nil)
            let initial = RoundSignal(observers: 1)
            current.withLock { $0 = initial }
            let consumer = Task.detached {
                for await change in stream {
                    if case .error = change { return }
                    current.withLock { $0 }?.fire()
                }
            }
            defer { consumer.cancel() }
            _ = await initial.allFired()
            var samples: [Double] = []
            let clock = ContinuousClock()
            for round in 0..<(rounds + 5) {
                let signal = RoundSignal(observers: 1)
                current.withLock { $0 = signal }
                try await writerRealm.asyncWrite { realm in
                    let todo = SyncBenchTodo()
                    todo.id = round
                    todo.title = "latency \(round)"
                    try realm.add(todo)
                }
                let returned = clock.now
                let fired = await signal.allFired()
                if round >= 5 { samples.append((fired.last - returned).seconds * 1000) }
            }
            await writer.stop()
            await reader.stop()
            await writerRealm.close()
            await readerRealm.close()
            return samples
        }
        let median = Timing.median(samples)
        let p99 = ObservedWorkloads.percentile(samples, 0.99)
        bench.log("    median \(Format.fixed(median, 2)) ms, p99 \(Format.fixed(p99, 2)) ms (n=\(samples.count))")
        var m = Measurement(group: "sync", workload: "latency", unit: "ms", burrow: median, sqlite: .nan, better: .lower)
        m.extras = [.init(key: "burrow_p99", value: p99, decimals: 2)]
        m.note = "commit on one client to a results stream's element on another: median; p99 \(Format.fixed(p99, 2)) ms"
        return m
    }

    static func makeStream(in db: isolated RealmActor) throws -> ChangeStream<RealmCollectionChange<FrozenResults<SyncBenchTodo>>> {
        db.realm.objects(SyncBenchTodo.self).changes()
    }

    /// The writer's and the reader's files named after `stem`.
    static func configurations(_ bench: Workbench, _ stem: String) -> (writer: Realm.Configuration, reader: Realm.Configuration) {
        (configuration(bench.path(stem + "-writer.burrow")), configuration(bench.path(stem + "-reader.burrow")))
    }

    static func removeFiles(_ bench: Workbench, _ stem: String) {
        bench.remove(stem + "-writer.burrow")
        bench.remove(stem + "-reader.burrow")
    }

    static func configuration(_ path: String) -> Realm.Configuration {
        var configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [SyncBenchTodo.self])
        configuration.durability = .normal
        return configuration
    }
}
