import Burrow
import BurrowStorage
import BurrowStore
import Foundation

/// `burrow demo`: the DoggoDB story of the RealmSwift documents, on a real file. The first run
/// adopts dogs, upserts people, fills a map, a set and an embedded address; every run then has a
/// birthday written through a `RealmActor` while a change stream watches, reads frozen results
/// on another task, and checks the file.
enum Demo {
    /// Runs the story on `path`, created if there is no file. A file that is there but cannot
    /// be opened with the demo's models (another program's file, a Burrow file of a newer
    /// format, a damaged one, or one with other classes) is refused and left exactly as it is,
    /// whether the user named it or it is the default file. Throws `ToolError`.
    static func run(path: String) async throws {
        var configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: path))
        configuration.objectTypes = [Dog.self, DogToy.self, Person.self, Address.self, DemoRun.self]
        let realm: Realm
        do {
            if FileManager.default.fileExists(atPath: path) { try DatabaseFile.checkPagesBeforeWriting(path) }
            realm = try Realm(configuration: configuration)
        } catch {
            let reason = (error as? ToolError)?.message ?? DatabaseFile.explain(error, path).message
            // A file that is not there (in a directory that is not there) has nothing to leave.
            guard FileManager.default.fileExists(atPath: path) else { throw ToolError(message: reason) }
            let sentence = reason.hasSuffix(".") ? reason : reason + "."
            throw ToolError(
                message: "\(sentence) The demo leaves the file as it is: name another file (`burrow demo other.burrow`), or move this one away."
            )
        }
        if let recovery = realm.recovery { throw DatabaseFile.notWhole(path, recovery.description, "The demo writes, which") }
        print("Opened \(path) at version \(realm.version).")

        try adoptDogs(in: realm)
        let run = try realm.write {
            let run = try realm.create(DemoRun.self, value: ["id": 1], update: .modified)
            run.count += 1
            return run.count
        }
        print("Demo run \(run) on this file.")

        // Watch the brown dogs (Wolfie is one): a change stream of frozen results, consumed on
        // another task.
        let brown = realm.objects(Dog.self).where { $0.color == "brown" }.sorted(byKeyPath: "name")
        let changes = brown.changes().makeAsyncIterator()
        let watcher = Task {
            var changes = changes
            var lines: [String] = []
            while lines.count < 2, let change = await changes.next() {
                switch change {
                case .initial(let dogs): lines.append("brown dogs: \(dogs.map { "\($0.name) (\($0.age))" }.joined(separator: ", "))")
                case .update(let dogs, let deletions, let insertions, let modifications):
                    lines.append(
                        "after the birthday: \(dogs.map { "\($0.name) (\($0.age))" }.joined(separator: ", ")) (deleted at \(deletions), inserted at \(insertions), modified at \(modifications))"
                    )
                case .error(let error): lines.append("stream failed: \(error)")
                }
            }
            return lines
        }

        // Another isolation domain: the actor owns its realm; only frozen values come back out.
        let db = try await RealmActor(configuration: configuration)
        let wolfie = try await db.asyncWrite { realm -> ObjectId? in
            guard let wolfie = realm.objects(Dog.self).where({ $0.name == "Wolfie" }).first else { return nil }
            wolfie.age += 1
            return wolfie._id
        }
        if wolfie == nil { watcher.cancel() }  // no birthday, no change to wait for
        for line in await watcher.value { print("Change stream, \(line).") }
        let dogs: FrozenResults<Dog> = try await db.objects(Dog.self)
        let summary = await Task.detached {
            dogs.map { "\($0.name) (\($0.age))" }.joined(separator: ", ")
        }.value
        print("Dogs, read from a frozen snapshot on a detached task: \(summary).")

        realm.refresh()
        if let id = wolfie, let live = realm.object(ofType: Dog.self, forPrimaryKey: id) {
            print(
                "Wolfie is \(live.age) now; owners: \(live.owners.map(\.name).joined(separator: ", ")); parks: \(live.favoriteParksByCity.map { "\($0.key): \($0.value)" }.joined(separator: ", "))."
            )
        }
        if let ali = realm.object(ofType: Person.self, forPrimaryKey: 1) {
            print(
                "Ali has \(ali.dogs.count) dogs: \(ali.dogs.map(\.name).joined(separator: ", ")); lives at \(ali.address?.street ?? "?"), \(ali.address?.city ?? "?")."
            )
        }
        await db.close()

        // The realms of this run may still hold the file's handle: verify through it.
        let report = try (Storage.openHandle(path: path) ?? Storage.open(path: path, options: StorageOptions(sharing: .shared))).snapshot().verify()
        print(
            "verify: \(counted(report.trees, "tree")), \(counted(report.entries, "entry")), \(counted(report.reachablePages, "page")) in use, \(report.freePages) free — sound."
        )
    }

    /// The first run: the examples of the CRUD documents, in order. A file that has people
    /// already is left to the runs that follow; that is decided inside the write, so that of
    /// two first runs at once (two processes) only one adopts the dogs.
    private static func adoptDogs(in realm: Realm) throws {
        let adopting = try realm.write { () throws -> Bool in
            guard realm.objects(Person.self).isEmpty else { return false }
            // Create a person to take care of some dogs, and some dogs.
            let ali = Person(value: ["id": 1, "name": "Ali"])
            try realm.add(ali)
            for (name, age) in [("Rex", 1), ("Wolfie", 1), ("Maui", 3), ("Buster", 5)] {
                try realm.add(Dog(value: ["name": name, "age": age, "color": "brown", "currentCity": "New York"]))
            }
            // Give all puppies to Ali.
            let puppies = try realm.objects(Dog.self).filter("age < 2")
            ali.setValue(puppies, forKey: "dogs")
            ali.address = Address(value: ["street": "123 Main Street", "city": "New York", "country": "USA"])

            // Upsert: Jones, then Bowie under the same key.
            try realm.add(Person(value: ["id": 1234, "name": "Jones"]), update: .modified)
            try realm.add(Person(value: ["id": 1234, "name": "Bowie"]), update: .modified)
            // A partial update by primary key: the name stays.
            try realm.create(Person.self, value: ["id": 123, "name": "Sam"], update: .modified)
            try realm.create(Person.self, value: ["id": 123, "dogs": [["name": "Spot", "age": 4]]], update: .modified)
            return true
        }
        guard adopting else { return }
        try realm.write {
            let wolfie = realm.objects(Dog.self).where { $0.name == "Wolfie" }.first!
            wolfie.favoriteParksByCity["New York"] = "Domino Park"
            wolfie.favoriteParksByCity.updateValue("A Street Park", forKey: "Boston")
            wolfie.favoriteToy = DogToy(value: ["name": "Wubba"])
            let maui = realm.objects(Dog.self).where { $0.name == "Maui" }.first!
            maui.citiesVisited.insert(maui.currentCity)
            maui.currentCity = "Toronto"
            maui.citiesVisited.insert(maui.currentCity)
            let rex = realm.objects(Dog.self).where { $0.name == "Rex" }.first!
            rex.companion = .object(Dog(value: ["name": "Regina"]))
            // Move the dogs to Toronto for vacation, in bulk.
            realm.objects(Dog.self).setValue("Toronto", forKey: "currentCity")
        }
        print("Adopted \(realm.objects(Dog.self).count) dogs for \(realm.objects(Person.self).count) people.")
    }
}
