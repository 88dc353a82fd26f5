import Burrow
import BurrowStore
import Foundation

/// A dog owner holding many of the `objects` group's dogs in a list, for `kvc_update_list`.
final class DogOwner: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var dogs: List<Dog>
}

/// The `objects` group's key-value coding updates of part of the dogs: those a filter
/// matches, and those of a list.
extension ObjectWorkloads {
    /// `kvc_update_filtered` changes the dogs younger than this (a quarter of them: ages are
    /// 0–19).
    static let filteredAge = 5
    /// Dogs in the owner's list of `kvc_update_list`, in the shuffled order of `readOrder`.
    static let listedDogs = 10_000

    /// The configuration of `kvc_update_list`'s file: dogs and their owner.
    static func listConfiguration(_ path: String) -> Realm.Configuration {
        Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [Dog.self, DogOwner.self], durability: .full)
    }

    // MARK: kvc_update_filtered

    static func kvcUpdateFiltered(_ bench: Workbench, _ data: ObjectDataset, burrowPath: String, sqlitePath: String) throws -> Measurement {
        let matching = data.ages.filter { $0 < filteredAge }.count
        bench.log("kvc_update_filtered: currentCity of the \(matching) Dogs younger than \(filteredAge), one write transaction each run")
        return try kvcWorkload(
            bench, workload: "kvc_update_filtered", rows: matching,
            files: (configuration(burrowPath, durability: .full), sqlitePath),
            update: "UPDATE dogs SET currentCity = ? WHERE age < 5",
            count: "SELECT count(*) FROM dogs WHERE age < 5 AND currentCity = ?",
            note: "filter(\"age < 5\").setValue(_:forKey:) vs UPDATE … WHERE age < 5 (no index on age either side); 1 txn, .full vs FULL"
        ) { realm, city in
            try realm.write {
                try realm.objects(Dog.self).filter("age < 5").setValue(city, forKey: "currentCity")
            }
        } burrowCount: { realm, city in
            var changed = 0
            for dog in realm.objects(Dog.self) where dog.age < filteredAge && dog.currentCity == city { changed += 1 }
            return changed
        }
    }

    // MARK: kvc_update_list

    /// Builds the files of `kvc_update_list` (untimed): the dogs by bulk insert on both sides,
    /// then an owner whose list holds `listedDogs` of them, and on SQLite's side the same list
    /// as rows of a link table.
    static func buildListFiles(_ data: ObjectDataset, _ buffers: ObjectBuffers, burrowPath: String, sqlitePath: String) throws {
        _ = try burrowBulkInsert(burrowPath, data, configuration: listConfiguration(burrowPath))
        let realm = try Realm(configuration: listConfiguration(burrowPath))
        defer { realm.invalidate() }
        try realm.write {
            let owner = DogOwner()
            owner.id = 1
            for i in data.readOrder.prefix(listedDogs) {
                guard let dog = realm.object(ofType: Dog.self, forPrimaryKey: data.ids[i]) else {
                    throw BenchmarkError("kvc_update_list: dog \(i) not found")
                }
                owner.dogs.append(dog)
            }
            try realm.add(owner)
        }
        _ = try sqliteBulkInsert(sqlitePath, data, buffers)
        let db = try openSQLite(sqlitePath, synchronous: "FULL")
        defer { db.close() }
        try db.execute(
            """
            CREATE TABLE owner_dogs(owner INTEGER NOT NULL, position INTEGER NOT NULL, dog INTEGER NOT NULL, \
            PRIMARY KEY(owner, position)) WITHOUT ROWID;
            BEGIN;
            """)
        let insert = try db.prepare("INSERT INTO owner_dogs(owner, position, dog) VALUES (1, ?, ?)")
        for (position, i) in data.readOrder.prefix(listedDogs).enumerated() {
            // The dogs were inserted in order into a new table: dog i has rowid i + 1.
            insert.bind(1, Int64(position))
            insert.bind(2, Int64(i + 1))
            try insert.run()
        }
        try db.execute("COMMIT")
    }

    static func kvcUpdateList(_ bench: Workbench, _ data: ObjectDataset, burrowPath: String, sqlitePath: String) throws -> Measurement {
        bench.log("kvc_update_list: currentCity of the \(listedDogs) Dogs of one owner's list, one write transaction each run")
        var owner: DogOwner?
        return try kvcWorkload(
            bench, workload: "kvc_update_list", rows: listedDogs, files: (listConfiguration(burrowPath), sqlitePath),
            update: "UPDATE dogs SET currentCity = ? WHERE rowid IN (SELECT dog FROM owner_dogs WHERE owner = 1)",
            count: "SELECT count(*) FROM dogs WHERE currentCity = ? AND rowid IN (SELECT dog FROM owner_dogs WHERE owner = 1)",
            note: "owner.dogs.setValue(_:forKey:) (List<Dog>) vs UPDATE … WHERE rowid IN (link table); 1 txn, .full vs FULL"
        ) { realm, city in
            // The owner is read (and its list checked) once, in the first run: a lookup of
            // about a microsecond against the update's milliseconds.
            if owner == nil {
                owner = realm.object(ofType: DogOwner.self, forPrimaryKey: 1)
                guard owner?.dogs.count == listedDogs else { throw BenchmarkError("kvc_update_list: the owner's list is not there") }
            }
            try realm.write {
                owner!.dogs.setValue(city, forKey: "currentCity")
            }
        } burrowCount: { _, city in
            owner?.dogs.filter { $0.currentCity == city }.count ?? 0
        }
    }

    // MARK: Shared

    /// Opens `files` (a realm's configuration and an SQLite file at `FULL`) and times
    /// `burrow(realm, city)` against SQLite's `update` (its one parameter the city, between
    /// `BEGIN` and `COMMIT`), runs alternating between two cities so that every run changes
    /// every row it should; after each run (untimed) both sides must count `rows` dogs
    /// changed (`burrowCount`, `count`).
    static func kvcWorkload(
        _ bench: Workbench, workload: String, rows: Int, files: (realm: Realm.Configuration, sqlite: String), update updateSQL: String,
        count countSQL: String, note: String, burrow: (Realm, String) throws -> Void, burrowCount: (Realm, String) -> Int
    ) throws -> Measurement {
        let realm = try Realm(configuration: files.realm)
        defer { realm.invalidate() }
        let db = try openSQLite(files.sqlite, synchronous: "FULL")
        defer { db.close() }
        let runs = longRuns(bench)
        let begin = try db.prepare("BEGIN")
        let commit = try db.prepare("COMMIT")
        let update = try db.prepare(updateSQL)
        let count = try db.prepare(countSQL)
        let cities = ["Toronto", "Vancouver"]
        let (b, s) = try Timing.alternating(runs) { run in
            let city = cities[run % 2]
            let seconds = try Timing.seconds { try burrow(realm, city) }
            let changed = burrowCount(realm, city)
            guard changed == rows else { throw BenchmarkError("Burrow \(workload): \(changed) of \(rows) dogs in \(city)") }
            return seconds
        } sqlite: { run in
            let city = cities[run % 2]
            var utf8 = city
            return try utf8.withUTF8 { text in
                let seconds = try Timing.seconds {
                    try begin.run()
                    update.bind(1, text: UnsafeRawBufferPointer(text))
                    try update.run()
                    try commit.run()
                }
                count.bind(1, text: UnsafeRawBufferPointer(text))
                _ = try count.step()
                let changed = Int(count.int64(0))
                count.reset()
                guard changed == rows else { throw BenchmarkError("SQLite \(workload): \(changed) of \(rows) dogs in \(city)") }
                return seconds
            }
        }
        bench.logRuns([("burrow", b), ("sqlite", s)])
        var m = Measurement(
            group: "objects", workload: workload, unit: "rows/s",
            burrow: Double(rows) / Timing.median(b), sqlite: Double(rows) / Timing.median(s), better: .higher)
        m.note = note
        return m
    }
}
