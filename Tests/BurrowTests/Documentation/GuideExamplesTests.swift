import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

// The examples of Sources/Burrow/Burrow.docc/GettingStarted.md and
// Sources/Burrow/Burrow.docc/Concurrency.md, compiled and run. Each test holds one example as the
// guide shows it; keep the two in step.

final class GuideDog: Object {
    // The migration ladder's releases are this test program's Person, Dog and Address.
    override class func shouldIncludeInDefaultSchema() -> Bool { false }
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted(indexed: true) var name = ""
    @Persisted var age = 0
    @Persisted var favoriteToy: DogToy?
    @Persisted var citiesVisited: MutableSet<String>
    @Persisted(originProperty: "dogs") var owners: LinkingObjects<GuidePerson>
    override class func _realmObjectName() -> String? { "Dog" }
}

final class GuidePerson: Object {
    // The migration ladder's releases are this test program's Person, Dog and Address.
    override class func shouldIncludeInDefaultSchema() -> Bool { false }
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var dogs: List<GuideDog>
    @Persisted var address: GuideAddress?
    override class func _realmObjectName() -> String? { "Person" }
}

final class GuideAddress: EmbeddedObject {
    // The migration ladder's releases are this test program's Person, Dog and Address.
    override class func shouldIncludeInDefaultSchema() -> Bool { false }
    @Persisted var street: String?
    @Persisted var city: String?
    override class func _realmObjectName() -> String? { "Address" }
}

/// An actor of the app's own that holds a realm (Concurrency.md).
actor DogStore {
    var realm: Realm!

    init(configuration: Realm.Configuration) async throws {
        realm = try await Realm.open(configuration: configuration)
    }

    func birthday(of id: ObjectId) async throws {
        try await realm.asyncWrite {
            realm.object(ofType: GuideDog.self, forPrimaryKey: id)?.age += 1
        }
    }

    func names() -> [String] {
        realm.objects(GuideDog.self).map(\.name)
    }
}

/// An actor of the app's own on a thread of its own (Concurrency.md).
actor DogKennel {
    let executor = RealmExecutor()
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    var realm: Realm!

    init(configuration: Realm.Configuration) async throws {
        realm = try await Realm.open(configuration: configuration)
    }

    func add(_ name: String) async throws {
        try await realm.asyncWrite { try realm.add(GuideDog(value: ["name": name])) }
    }

    func names() -> [String] {
        realm.objects(GuideDog.self).map(\.name)
    }
}

/// A function that runs inside a RealmActor (Concurrency.md).
func adopt(in db: isolated RealmActor) async throws {
    let realm = db.realm
    try await realm.asyncWrite {
        let person = GuidePerson(value: ["id": 1, "name": "Ali"])
        try realm.add(person)
        let puppies = realm.objects(GuideDog.self).filter { $0.age < 2 }
        person.setValue(puppies, forKey: "dogs")
    }
}

// Concurrency.md: "One realm per isolation domain" (the guide's `Realm()`, with a configuration).
@MainActor private func addDog(named name: String, _ config: Realm.Configuration) throws {
    let realm = try Realm(configuration: config)  // the same realm as the caller's
    try realm.add(GuideDog(value: ["name": name]))
}

@MainActor private func adoptTwo(_ config: Realm.Configuration) throws {
    let realm = try Realm(configuration: config)
    try realm.write {
        try addDog(named: "Rex", config)  // inside this write transaction
        try addDog(named: "Fido", config)
    }
}

@Suite(.temporaryDirectory) struct GuideExamplesTests {
    @MainActor
    @Test func testConcurrencyOneRealmPerDomain() throws {
        let config = configuration()
        try adoptTwo(config)
        let realm = try Realm(configuration: config)
        #expect(realm.objects(GuideDog.self).map(\.name).sorted() == ["Fido", "Rex"])
        #expect(!realm.isInWriteTransaction)
    }

    private func configuration() -> Realm.Configuration {
        var config = temporaryConfiguration()
        config.objectTypes = [GuideDog.self, DogToy.self, GuidePerson.self, GuideAddress.self]
        return config
    }

    @Test func testGettingStartedOpenWriteRead() throws {
        let config = configuration()
        // GettingStarted.md: "Writing"
        let realm = try Realm(configuration: config)
        let rex = GuideDog(value: ["name": "Rex", "age": 1])
        try realm.write {
            try realm.add(rex)
            rex.favoriteToy = DogToy(value: ["name": "Wubba"])  // added with Rex
            rex.citiesVisited.insert("Toronto")
        }
        try realm.write {
            rex.age += 1
        }
        // GettingStarted.md: "Reading"
        let dogs = realm.objects(GuideDog.self)
        print(dogs.count, dogs.first?.name ?? "none")
        let same = realm.object(ofType: GuideDog.self, forPrimaryKey: rex._id)
        #expect(dogs.count == 1)
        #expect(same?.age == 2)
        #expect(same?.favoriteToy?.name == "Wubba")
        // GettingStarted.md: "Upserts and partial updates"
        try realm.write {
            try realm.add(GuidePerson(value: ["id": 1234, "name": "Jones"]), update: .modified)
            try realm.add(GuidePerson(value: ["id": 1234, "name": "Bowie"]), update: .modified)
            try realm.create(GuidePerson.self, value: ["id": 1234, "dogs": [["name": "Buster", "age": 5]]], update: .modified)
        }
        let bowie = realm.object(ofType: GuidePerson.self, forPrimaryKey: 1234)!
        #expect(bowie.name == "Bowie")
        #expect(bowie.dogs.first?.owners.first?.name == "Bowie")
        // GettingStarted.md: "Deleting"
        try realm.write {
            try realm.delete(bowie.dogs.first!)
        }
        #expect(bowie.dogs.isEmpty)
    }

    @Test func testGettingStartedRollback() throws {
        struct Oops: Error {}
        let realm = try Realm(configuration: configuration())
        // GettingStarted.md: "A write that throws keeps nothing"
        let dog = GuideDog(value: ["name": "Maui"])
        do {
            try realm.write {
                try realm.add(dog)
                throw Oops()
            }
        } catch {
            print(dog.realm == nil)  // true: Maui is unmanaged again
        }
        #expect(dog.realm == nil)
        #expect(realm.objects(GuideDog.self).isEmpty)
    }

    @Test func testConcurrencyRealmActor() async throws {
        let config = configuration()
        // Concurrency.md: "RealmActor"
        let db = try await RealmActor(configuration: config)
        try await db.asyncWrite { realm in
            try realm.add(GuideDog(value: ["name": "Wolfie", "age": 1]))
        }
        let wolfie: Frozen<GuideDog>? = try await db.objects(GuideDog.self).first { $0.name == "Wolfie" }
        print(wolfie?.name ?? "none")  // any task, any thread
        let id = wolfie!._id
        try await db.asyncWrite { realm in
            guard let dog = realm.object(ofType: GuideDog.self, forPrimaryKey: id) else { return }
            dog.age += 1
        }
        #expect(try await db.object(ofType: GuideDog.self, forPrimaryKey: id)?.age == 2)
        // Concurrency.md: "Functions isolated to the actor"
        try await adopt(in: db)
        let ali = try await db.object(ofType: GuidePerson.self, forPrimaryKey: 1)
        #expect(ali?.dogs.count == 0)  // Wolfie is 2 now, so no puppies
    }

    @MainActor
    @Test func testConcurrencyOwnActorAndFrozen() async throws {
        let config = configuration()
        // Concurrency.md: "An actor of your own"
        let store = try await DogStore(configuration: config)
        let realm = try Realm(configuration: config)
        let rex = GuideDog(value: ["name": "Rex", "age": 3])
        try realm.write { try realm.add(rex) }
        try await store.birthday(of: rex._id)
        #expect(await store.names() == ["Rex"])
        // Concurrency.md: "Frozen snapshots"
        realm.refresh()
        let frozen: Frozen<GuideDog> = try rex.freeze()
        let age = await Task.detached { frozen.age }.value  // read on another thread, no lock
        let results: FrozenResults<GuideDog> = try realm.objects(GuideDog.self).freeze()
        let thawed = realm.thaw(frozen)  // live again, in this realm
        let mine = try frozen.thaw()  // the same: this domain has one realm of the file
        #expect(age == 4)
        let thawedRealm = try frozen.realm!.thaw()
        #expect(mine?.name == "Rex" && mine?.realm === realm && thawedRealm === realm)
        #expect(results.count == 1)
        try realm.write { rex.age += 1 }
        #expect(realm.pinnedVersionCount >= 2, "the realm's new version, and the old one the frozen values hold")
        #expect(frozen.age == 4 && results.first?.age == 4)
        #expect(thawed?.name == "Rex")
        // Concurrency.md: "An actor of your own", on a thread of its own
        let kennel = try await DogKennel(configuration: config)
        try await kennel.add("Fido")
        #expect(await kennel.names().sorted() == ["Fido", "Rex"])
    }

    @Test func testConcurrencyObservingChanges() async throws {
        let realm = try Realm(configuration: configuration())
        let rex = GuideDog(value: ["name": "Rex", "age": 3])
        try realm.write { try realm.add(rex) }
        let seen = LockedBox<[String]>([])
        // Concurrency.md: "Observing changes"
        let dogs = realm.objects(GuideDog.self)
        let stream = dogs.changes()  // ChangeStream: Sendable, AsyncSequence
        let watcher = Task {
            for await change in stream {  // elements are frozen: read them anywhere
                switch change {
                case .initial(let dogs): seen.withLock { $0.append("\(dogs.count) dogs") }
                case .update(let dogs, let deletions, let insertions, let modifications):
                    seen.withLock { $0.append("\(dogs.count) \(deletions) \(insertions) \(modifications)") }
                case .error(let error): seen.withLock { $0.append("\(error)") }
                }
            }
        }
        try realm.write(withoutNotifying: [stream.token]) {  // this stream stays silent
            try realm.add(GuideDog(value: ["name": "Wolfie"]))
        }
        let updates = rex.changes(keyPaths: ["age"])  // ObjectChange<Frozen<Dog>>: .change, .deleted
        // (The guide stops here; the test checks what the stream and the watcher saw.)
        let ageChanges = updates.makeAsyncIterator()
        try realm.write {
            rex.name = "Rex II"  // not in keyPaths: no element
            rex.age = 4
        }
        guard case .change(let frozenRex, let properties) = await next(ageChanges) else {
            Issue.record("expected a change")
            return
        }
        #expect(frozenRex.age == 4 && properties.map(\.name) == ["age"])
        try await waitUntil("the watcher saw two changes") { seen.withLock { $0.count } >= 2 }
        watcher.cancel()  // ends the iteration and frees the stream
        _ = await watcher.value
        #expect(seen.withLock { $0 } == ["1 dogs", "2 [] [] [0]"], "the silent write's Wolfie is baseline; Rex's change shows")
    }
}
