import Burrow
import BurrowStore
import Foundation

/// The `queries` group: Burrow's queries (`Results`, RealmSwift's API) against the same queries
/// in SQL on raw SQLite, over the same 100,000 dogs in both (the `objects` group's files: a
/// `Dog` table with an index on `name`).
///
/// Each run makes a new `Results` (a `Results` caches its evaluation until the realm changes)
/// and, on SQLite's side, steps a prepared statement inside one read transaction. Both sides
/// read the values they report as a Swift application would: Burrow through the objects' properties,
/// SQLite through `sqlite3_column_*`, strings made into `String`s.
enum QueryWorkloads {
    static let group = BenchmarkGroup(
        name: "queries",
        summary: "Burrow queries vs SQLite over 100k Dogs: filter, sum, 100 youngest, indexed equality, filtered count",
        run: { try run($0) })

    static var dogs: Int { ObjectWorkloads.dogs }
    /// Lookups of `indexed_equality` per run.
    static let lookups = 10_000

    static let workloads = ["filter_materialised", "sum", "youngest_100", "indexed_equality", "indexed_equality_format", "filtered_count"]

    /// The workloads to run: all of them, or those named (comma-separated) in the environment
    /// variable BURROW_BENCH_QUERIES, e.g. `BURROW_BENCH_QUERIES=sum` to profile one.
    static func selectedWorkloads() throws -> Set<String> {
        try ObjectWorkloads.selected(workloads, variable: "BURROW_BENCH_QUERIES")
    }

    static func run(_ bench: Workbench) throws -> [Measurement] {
        let only = try selectedWorkloads()
        bench.log("generating \(dogs) dogs")
        let data = ObjectDataset(count: dogs)
        let burrowPath = bench.path("queries.burrow")
        let sqlitePath = bench.path("queries.sqlite")
        defer {
            bench.remove("queries.burrow")
            bench.remove("queries.sqlite")
        }
        try data.withBuffers { buffers in
            bench.log("building the files (\(dogs) dogs, one transaction each)")
            _ = try ObjectWorkloads.burrowBulkInsert(burrowPath, data)
            _ = try ObjectWorkloads.sqliteBulkInsert(sqlitePath, data, buffers)
        }
        let realm = try Realm(configuration: ObjectWorkloads.configuration(burrowPath, durability: .full))
        defer { realm.invalidate() }
        let db = try ObjectWorkloads.openSQLite(sqlitePath, synchronous: "NORMAL")
        defer { db.close() }
        let sql = try SQLiteQueries(db)
        var results: [Measurement] = []
        if only.contains("filter_materialised") { results.append(try filterMaterialised(bench, data, realm, sql)) }
        if only.contains("sum") { results.append(try sum(bench, data, realm, sql)) }
        if only.contains("youngest_100") { results.append(try youngest(bench, realm, sql)) }
        if only.contains("indexed_equality") {
            results.append(
                try indexedEquality(bench, "indexed_equality", "where { $0.name == x }.first", data, realm, sql) { realm, name in
                    realm.objects(Dog.self).where({ $0.name == name }).first
                })
        }
        if only.contains("indexed_equality_format") {
            results.append(
                try indexedEquality(bench, "indexed_equality_format", "filter(\"name == %@\", x).first", data, realm, sql) { realm, name in
                    try realm.objects(Dog.self).filter("name == %@", name).first
                })
        }
        if only.contains("filtered_count") { results.append(try filteredCount(bench, data, realm, sql)) }
        return results
    }

    /// The prepared statements of the SQLite side.
    struct SQLiteQueries {
        let begin: SQLiteStatement
        let commit: SQLiteStatement
        let filter: SQLiteStatement
        let sum: SQLiteStatement
        let youngest: SQLiteStatement
        let byName: SQLiteStatement
        let count: SQLiteStatement

        init(_ db: SQLiteDatabase) throws {
            begin = try db.prepare("BEGIN")
            commit = try db.prepare("COMMIT")
            // GLOB, like BEGINSWITH, is case-sensitive, and SQLite may answer it from the index.
            filter = try db.prepare("SELECT name, age FROM dogs WHERE age < 2 AND name GLOB 'R*'")
            sum = try db.prepare("SELECT sum(age) FROM dogs")
            youngest = try db.prepare("SELECT name, age FROM dogs ORDER BY age LIMIT 100")
            byName = try db.prepare("SELECT age FROM dogs WHERE name = ?")
            count = try db.prepare("SELECT count(*) FROM dogs WHERE age < 5")
        }

        /// Runs `body` in one read transaction and returns its time.
        func timed(_ body: () throws -> Void) throws -> Double {
            try Timing.seconds {
                try begin.run()
                try body()
                try commit.run()
            }
        }
    }

    private static func measurement(
        _ bench: Workbench, _ workload: String, unit: String, operations: Double,
        _ runs: (burrow: [Double], sqlite: [Double]), note: String
    ) -> Measurement {
        bench.logRuns([("burrow", runs.burrow), ("sqlite", runs.sqlite)])
        var m = Measurement(
            group: "queries", workload: workload, unit: unit,
            burrow: operations / Timing.median(runs.burrow), sqlite: operations / Timing.median(runs.sqlite), better: .higher)
        m.note = note
        return m
    }

    // MARK: filter_materialised

    /// `age < 2 AND name BEGINSWITH 'R'`, every match read (name and age).
    static func filterMaterialised(_ bench: Workbench, _ data: ObjectDataset, _ realm: Realm, _ sql: SQLiteQueries) throws -> Measurement {
        bench.log("filter_materialised: age < 2 AND name BEGINSWITH 'R', name and age of every match (\(bench.runs) runs)")
        let expected = zip(data.names, data.ages).filter { $0.1 < 2 && $0.0.hasPrefix("R") }
        let expectedSum = (expected.count, expected.reduce(0) { $0 + $1.1 + $1.0.utf8.count })
        let runs = try Timing.alternating(bench.runs) { _ in
            var found = (0, 0)
            let seconds = try Timing.seconds {
                for dog in try realm.objects(Dog.self).filter("age < 2 AND name BEGINSWITH 'R'") {
                    found.0 += 1
                    found.1 += dog.age + dog.name.utf8.count
                }
            }
            try check("Burrow filter", found, expectedSum)
            return seconds
        } sqlite: { _ in
            var found = (0, 0)
            let seconds = try sql.timed {
                while try sql.filter.step() {
                    found.0 += 1
                    found.1 += Int(sql.filter.int64(1)) + sql.filter.string(0).utf8.count
                }
                sql.filter.reset()
            }
            try check("SQLite filter", found, expectedSum)
            return seconds
        }
        return measurement(
            bench, "filter_materialised", unit: "queries/s", operations: 1, runs,
            note: "\(expected.count) of \(dogs) match; scan vs SQLite's choice (GLOB 'R*')")
    }

    // MARK: sum

    static func sum(_ bench: Workbench, _ data: ObjectDataset, _ realm: Realm, _ sql: SQLiteQueries) throws -> Measurement {
        bench.log("sum: sum(ofProperty: \"age\") over \(dogs) dogs (\(bench.runs) runs)")
        return try integerQuery(
            bench, "sum", expected: data.ages.reduce(0, +), sql, sql.sum, note: "sum of an Int property over every object"
        ) { realm.objects(Dog.self).sum(ofProperty: "age") }
    }

    /// A query whose answer is one integer: `burrow`'s result, and the first column of the one
    /// row `statement` gives.
    private static func integerQuery(
        _ bench: Workbench, _ workload: String, expected: Int, _ sql: SQLiteQueries, _ statement: SQLiteStatement, note: String,
        burrow: () throws -> Int
    ) throws -> Measurement {
        let runs = try Timing.alternating(bench.runs) { _ in
            var answer = 0
            let seconds = try Timing.seconds { answer = try burrow() }
            try check("Burrow \(workload)", (answer, 0), (expected, 0))
            return seconds
        } sqlite: { _ in
            var answer = 0
            let seconds = try sql.timed {
                _ = try statement.step()
                answer = Int(statement.int64(0))
                statement.reset()
            }
            try check("SQLite \(workload)", (answer, 0), (expected, 0))
            return seconds
        }
        return measurement(bench, workload, unit: "queries/s", operations: 1, runs, note: note)
    }

    // MARK: youngest_100

    static func youngest(_ bench: Workbench, _ realm: Realm, _ sql: SQLiteQueries) throws -> Measurement {
        bench.log("youngest_100: sorted(byKeyPath: \"age\"), the first 100 read (\(bench.runs) runs)")
        let runs = try Timing.alternating(bench.runs) { _ in
            var ages: [Int] = []
            let seconds = Timing.seconds {
                let sorted = realm.objects(Dog.self).sorted(byKeyPath: "age")
                for dog in sorted.prefix(100) {
                    ages.append(dog.age)
                    _ = dog.name
                }
            }
            try checkYoungest("Burrow", ages)
            return seconds
        } sqlite: { _ in
            var ages: [Int] = []
            let seconds = try sql.timed {
                while try sql.youngest.step() {
                    _ = sql.youngest.string(0)
                    ages.append(Int(sql.youngest.int64(1)))
                }
                sql.youngest.reset()
            }
            try checkYoungest("SQLite", ages)
            return seconds
        }
        return measurement(
            bench, "youngest_100", unit: "queries/s", operations: 1, runs, note: "sorted(byKeyPath:).prefix(100) vs ORDER BY age LIMIT 100")
    }

    private static func checkYoungest(_ what: String, _ ages: [Int]) throws {
        guard ages.count == 100, ages == ages.sorted(), ages.last == 0 else {
            throw BenchmarkError("\(what) youngest: \(ages.count) ages, sorted \(ages == ages.sorted()), last \(ages.last ?? -1)")
        }
    }

    // MARK: indexed_equality

    /// `lookups` × `first(realm, name)` (the RealmSwift call shape `shape` names) and the dog's
    /// `age`, against the prepared `SELECT age FROM dogs WHERE name = ?`.
    static func indexedEquality(
        _ bench: Workbench, _ workload: String, _ shape: String, _ data: ObjectDataset, _ realm: Realm, _ sql: SQLiteQueries,
        _ first: (Realm, String) throws -> Dog?
    ) throws -> Measurement {
        bench.log("\(workload): \(lookups) × \(shape) on the indexed name, the match's age (\(bench.runs) runs)")
        let picks = data.readOrder.prefix(lookups).map { data.names[$0] }
        // Every name picked is some dog's; where several dogs share it, both sides find the
        // first inserted (the lowest object key, the lowest rowid).
        var firstWithName: [String: Int] = [:]
        for (i, name) in data.names.enumerated() where firstWithName[name] == nil { firstWithName[name] = i }
        let expected = (picks.count, picks.reduce(0) { $0 + data.ages[firstWithName[$1]!] })
        let runs = try Timing.alternating(bench.runs) { _ in
            var found = 0
            var ages = 0
            let seconds = try Timing.seconds {
                for name in picks {
                    if let dog = try first(realm, name) {
                        found += 1
                        ages += dog.age
                    }
                }
            }
            try check("Burrow indexed equality", (found, ages), expected)
            return seconds
        } sqlite: { _ in
            var found = 0
            var ages = 0
            let seconds = try sql.timed {
                for var name in picks {
                    name.withUTF8 { sql.byName.bind(1, text: UnsafeRawBufferPointer($0)) }
                    if try sql.byName.step() {
                        found += 1
                        ages += Int(sql.byName.int64(0))
                    }
                    sql.byName.reset()
                }
            }
            try check("SQLite indexed equality", (found, ages), expected)
            return seconds
        }
        return measurement(
            bench, workload, unit: "queries/s", operations: Double(lookups), runs,
            note: "\(shape)?.age vs SELECT age FROM dogs WHERE name = ?")
    }

    // MARK: filtered_count

    static func filteredCount(_ bench: Workbench, _ data: ObjectDataset, _ realm: Realm, _ sql: SQLiteQueries) throws -> Measurement {
        bench.log("filtered_count: filter(\"age < 5\").count (\(bench.runs) runs)")
        let expected = data.ages.filter { $0 < 5 }.count
        return try integerQuery(bench, "filtered_count", expected: expected, sql, sql.count, note: "\(expected) of \(dogs) match") {
            try realm.objects(Dog.self).filter("age < 5").count
        }
    }

    private static func check(_ what: String, _ found: (Int, Int), _ expected: (Int, Int)) throws {
        guard found == expected else { throw BenchmarkError("\(what): got \(found), expected \(expected)") }
    }
}
