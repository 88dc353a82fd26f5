import Burrow
import BurrowStore
import Foundation

/// The `objects` group: Burrow's object layer (`import Burrow`, RealmSwift's API) against raw
/// SQLite (WAL mode, prepared statements), same dogs, same order, same process.
///
/// The SQLite table mirrors what Burrow stores for a `Dog`: Burrow keeps the rows by object key
/// (a 64-bit integer it assigns), a primary-key tree (the id → the object key) and an index
/// tree on `name` (name + object key). SQLite's rowid table with a UNIQUE `_id` (its automatic
/// index maps the id to the rowid) and an index on `name` (name + rowid) is the same three
/// B-trees, so an insert updates three trees and a lookup by id walks two, on both sides.
enum ObjectWorkloads {
    static let group = BenchmarkGroup(
        name: "objects",
        summary: "Burrow objects (Dog) vs SQLite: bulk insert, commits, pk lookup, KVC updates, concurrent writes",
        run: { try run($0) })

    /// Dogs of the bulk insert, the lookups and the KVC update.
    static let dogs = 100_000
    /// Transactions of each commit workload: 1,000, or `BURROW_BENCH_COMMITS` for profiling (the
    /// difference between two counts under callgrind is the cost of that many commits, without
    /// opening and closing the realm).
    static let commits = BenchEnvironment.count("BURROW_BENCH_COMMITS", default: 1_000)
    /// Tasks (threads) of `concurrent_writes`, each doing `commits` transactions.
    static let writers = 10

    static let workloads = [
        "bulk_insert", "pk_lookup", "kvc_update", "kvc_update_filtered", "kvc_update_list", "commit_normal", "commit_full",
        "concurrent_writes",
    ]

    static func run(_ bench: Workbench) throws -> [Measurement] {
        let only = try selectedWorkloads()
        func wanted(_ workload: String) -> Bool { only.contains(workload) }
        bench.log("generating \(dogs) dogs")
        let data = ObjectDataset(count: dogs)
        var results: [Measurement] = []
        try data.withBuffers { buffers in
            if wanted("bulk_insert") { results.append(try bulkInsert(bench, data, buffers)) }

            if wanted("pk_lookup") || wanted("kvc_update") || wanted("kvc_update_filtered") {
                bench.log("building the lookup files (\(dogs) dogs, one transaction each)")
                let burrowPath = bench.path("dogs.burrow")
                let sqlitePath = bench.path("dogs.sqlite")
                _ = try burrowBulkInsert(burrowPath, data)
                _ = try sqliteBulkInsert(sqlitePath, data, buffers)
                if wanted("pk_lookup") { results.append(try pkLookup(bench, data, buffers, burrowPath: burrowPath, sqlitePath: sqlitePath)) }
                if wanted("kvc_update") { results.append(try kvcUpdate(bench, data, burrowPath: burrowPath, sqlitePath: sqlitePath)) }
                if wanted("kvc_update_filtered") {
                    results.append(try kvcUpdateFiltered(bench, data, burrowPath: burrowPath, sqlitePath: sqlitePath))
                }
                bench.remove("dogs.burrow")
                bench.remove("dogs.sqlite")
            }

            if wanted("kvc_update_list") {
                bench.log("building the list files (\(dogs) dogs, an owner listing \(listedDogs) of them)")
                let burrowPath = bench.path("list.burrow")
                let sqlitePath = bench.path("list.sqlite")
                try buildListFiles(data, buffers, burrowPath: burrowPath, sqlitePath: sqlitePath)
                results.append(try kvcUpdateList(bench, data, burrowPath: burrowPath, sqlitePath: sqlitePath))
                bench.remove("list.burrow")
                bench.remove("list.sqlite")
            }

            if wanted("commit_normal") {
                results.append(try ObjectCommits.commitWorkload(bench, data, buffers, durability: .normal).measurement)
            }
            // concurrent_writes compares itself with commit_full's sequential commits.
            if wanted("commit_full") || wanted("concurrent_writes") {
                let full = try ObjectCommits.commitWorkload(bench, data, buffers, durability: .full)
                if wanted("commit_full") { results.append(full.measurement) }
                if wanted("concurrent_writes") {
                    results.append(try ObjectCommits.concurrentWrites(bench, data, buffers, singleFull: full))
                }
            }
        }
        return results
    }

    /// The workloads to run: all of them, or those named (comma-separated) in the environment
    /// variable BURROW_BENCH_OBJECTS, e.g. `BURROW_BENCH_OBJECTS=pk_lookup` to profile one.
    static func selectedWorkloads() throws -> Set<String> {
        try selected(workloads, variable: "BURROW_BENCH_OBJECTS")
    }

    /// The names of `workloads` to run: all, or those named (comma-separated) in the
    /// environment variable `variable`. Throws for a name that is not a workload.
    static func selected(_ workloads: [String], variable: String) throws -> Set<String> {
        guard let value = ProcessInfo.processInfo.environment[variable], !value.isEmpty else {
            return Set(workloads)
        }
        let names = value.split(separator: ",").map { String($0) }
        if let unknown = names.first(where: { !workloads.contains($0) }) {
            throw BenchmarkError("\(variable): unknown workload \"\(unknown)\" (workloads: \(workloads.joined(separator: ", ")))")
        }
        return Set(names)
    }

    /// Fewer timed runs for workloads that take a second or more per run: about half of
    /// `--runs`, odd so the median is one run.
    static func longRuns(_ bench: Workbench) -> Int { max(1, (bench.runs + 1) / 2) | 1 }

    // MARK: Set-up shared by the workloads

    static func configuration(_ path: String, durability: Realm.Durability) -> Realm.Configuration {
        Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [Dog.self], durability: durability)
    }

    static let createTable = """
        CREATE TABLE dogs(_id BLOB NOT NULL UNIQUE, name TEXT NOT NULL, age INTEGER NOT NULL, \
        color TEXT NOT NULL, currentCity TEXT NOT NULL);
        CREATE INDEX dogs_name ON dogs(name);
        """
    static let insertSQL = "INSERT INTO dogs(_id, name, age, color, currentCity) VALUES (?, ?, ?, ?, ?)"

    /// Opens (creating if needed) a SQLite database in WAL mode at `synchronous`, with the
    /// `dogs` table.
    static func openSQLite(_ path: String, synchronous: String, vfs: String? = nil) throws -> SQLiteDatabase {
        let db = try SQLiteDatabase(path: path, vfs: vfs)
        try StorageWorkloads.configure(db, synchronous: synchronous)
        if try db.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'dogs'") == "0" {
            try db.execute(createTable)
        }
        return db
    }

    // MARK: bulk_insert

    static func bulkInsert(_ bench: Workbench, _ data: ObjectDataset, _ buffers: ObjectBuffers) throws -> Measurement {
        let runs = longRuns(bench)
        bench.log("bulk_insert: \(dogs) Dogs in one write transaction, durable commit (\(runs) runs)")
        let (b, s) = try Timing.alternating(runs) { _ in
            defer { bench.remove("bulk.burrow") }
            return try burrowBulkInsert(bench.path("bulk.burrow"), data)
        } sqlite: { _ in
            defer { bench.remove("bulk.sqlite") }
            return try sqliteBulkInsert(bench.path("bulk.sqlite"), data, buffers)
        }
        bench.logRuns([("burrow", b), ("sqlite", s)])
        var m = Measurement(
            group: "objects", workload: "bulk_insert", unit: "rows/s",
            burrow: Double(dogs) / Timing.median(b), sqlite: Double(dogs) / Timing.median(s), better: .higher)
        m.note = "1 txn, .full vs FULL; Dog() + 5 properties + add; 3 trees/indexes each side"
        return m
    }

    /// Opens a new realm (untimed), then times `realm.write { for i { realm.add(Dog(...)) } }`,
    /// commit at `.full` included. Checks the count afterwards (untimed).
    static func burrowBulkInsert(_ path: String, _ data: ObjectDataset, configuration: Realm.Configuration? = nil) throws -> Double {
        let realm = try Realm(configuration: configuration ?? Self.configuration(path, durability: .full))
        defer { realm.invalidate() }
        let seconds = try Timing.seconds {
            try realm.write {
                for i in 0..<data.count {
                    try realm.add(data.makeDog(i))
                }
            }
        }
        let stored = realm.objects(Dog.self).count
        guard stored == data.count else { throw BenchmarkError("Burrow bulk insert: \(stored) dogs stored, expected \(data.count)") }
        return seconds
    }

    /// Creates the table (untimed), then times BEGIN, one bind/step/reset of a prepared
    /// INSERT, COMMIT, at synchronous=FULL.
    static func sqliteBulkInsert(_ path: String, _ data: ObjectDataset, _ buffers: ObjectBuffers) throws -> Double {
        let db = try openSQLite(path, synchronous: "FULL")
        defer { db.close() }
        let begin = try db.prepare("BEGIN")
        let commit = try db.prepare("COMMIT")
        let insert = try db.prepare(insertSQL)
        let seconds = try Timing.seconds {
            try begin.run()
            for i in 0..<data.count {
                buffers.bindDog(i, age: Int64(data.ages[i]), to: insert)
                _ = try insert.step()
                insert.reset()
            }
            try commit.run()
        }
        let stored = try db.scalar("SELECT count(*) FROM dogs")
        guard stored == String(data.count) else { throw BenchmarkError("SQLite bulk insert: \(stored ?? "?") rows stored, expected \(data.count)") }
        return seconds
    }

    // MARK: pk_lookup

    static func pkLookup(
        _ bench: Workbench, _ data: ObjectDataset, _ buffers: ObjectBuffers, burrowPath: String, sqlitePath: String
    ) throws -> Measurement {
        bench.log("pk_lookup: \(dogs) random lookups by _id reading name and age (one snapshot / read transaction per run)")
        let expected = data.expectedChecksum
        let realm = try Realm(configuration: configuration(burrowPath, durability: .full))
        defer { realm.invalidate() }
        let db = try openSQLite(sqlitePath, synchronous: "NORMAL")
        defer { db.close() }
        let begin = try db.prepare("BEGIN")
        let commit = try db.prepare("COMMIT")
        let select = try db.prepare("SELECT name, age FROM dogs WHERE _id = ?")

        func burrowRun(_ run: Int) throws -> Double {
            var found = 0
            var ages = 0
            var nameBytes = 0
            let seconds = Timing.seconds {
                for i in data.readOrder {
                    if let dog = realm.object(ofType: Dog.self, forPrimaryKey: data.ids[i]) {
                        let name = dog.name
                        ages &+= dog.age
                        nameBytes &+= name.utf8.count
                        found += 1
                    }
                }
            }
            try check("Burrow pk lookup", found: found, ages: ages, nameBytes: nameBytes, expected: expected)
            return seconds
        }
        func sqliteRun(_ run: Int) throws -> Double {
            var found = 0
            var ages = 0
            var nameBytes = 0
            let seconds = try Timing.seconds {
                try begin.run()
                for i in data.readOrder {
                    select.bind(1, blob: buffers.id(i))
                    if try select.step() {
                        let name = select.string(0)
                        ages &+= Int(select.int64(1))
                        nameBytes &+= name.utf8.count
                        found += 1
                    }
                    select.reset()
                }
                try commit.run()
            }
            try check("SQLite pk lookup", found: found, ages: ages, nameBytes: nameBytes, expected: expected)
            return seconds
        }

        // One untimed pass each first: it faults the pages in (reported as first_pass).
        let burrowFirst = try burrowRun(-1)
        let sqliteFirst = try sqliteRun(-1)
        let (b, s) = try Timing.alternating(bench.runs, burrow: burrowRun, sqlite: sqliteRun)
        bench.logRuns([("burrow", b), ("sqlite", s)])
        var m = Measurement(
            group: "objects", workload: "pk_lookup", unit: "ops/s",
            burrow: Double(dogs) / Timing.median(b), sqlite: Double(dogs) / Timing.median(s), better: .higher)
        m.extras = [
            .init(key: "burrow_first_pass", value: Double(dogs) / burrowFirst, decimals: 1),
            .init(key: "sqlite_first_pass", value: Double(dogs) / sqliteFirst, decimals: 1),
        ]
        m.note =
            "warm; name (String) + age; first pass: burrow \(Format.human(Double(dogs) / burrowFirst)), sqlite \(Format.human(Double(dogs) / sqliteFirst))"
        return m
    }

    static func check(_ what: String, found: Int, ages: Int, nameBytes: Int, expected: (ages: Int, nameBytes: Int)) throws {
        guard found == dogs, ages == expected.ages, nameBytes == expected.nameBytes else {
            throw BenchmarkError(
                "\(what) found \(found) of \(dogs) dogs, ages \(ages) (expected \(expected.ages)), name bytes \(nameBytes) (expected \(expected.nameBytes))"
            )
        }
    }

    // MARK: kvc_update

    static func kvcUpdate(_ bench: Workbench, _ data: ObjectDataset, burrowPath: String, sqlitePath: String) throws -> Measurement {
        bench.log("kvc_update: currentCity of all \(dogs) Dogs in one write transaction, durable commit")
        return try kvcWorkload(
            bench, workload: "kvc_update", rows: dogs, files: (configuration(burrowPath, durability: .full), sqlitePath),
            update: "UPDATE dogs SET currentCity = ?", count: "SELECT count(*) FROM dogs WHERE currentCity = ?",
            note: "objects(Dog.self).setValue(_:forKey:) vs one UPDATE; 1 txn, .full vs FULL"
        ) { realm, city in
            try realm.write {
                realm.objects(Dog.self).setValue(city, forKey: "currentCity")
            }
        } burrowCount: { realm, city in
            var changed = 0
            for dog in realm.objects(Dog.self) where dog.currentCity == city { changed += 1 }
            return changed
        }
    }
}
