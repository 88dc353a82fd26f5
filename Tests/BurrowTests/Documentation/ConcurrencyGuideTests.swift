import Burrow
import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

// The samples of Sources/Burrow/Burrow.docc/Concurrency.md, compiled and run as the page shows
// them (DocumentationSamplesTests checks that they are the page's), each followed by checks of
// what the page says about it. The page's models are GettingStarted.md's.

/// The page's actors, under the page's names.
enum ConcurrencyPage {
    typealias Dog = GettingStartedPage.Dog

    actor DogStore {
        var realm: Realm!

        init(configuration: Realm.Configuration) async throws {
            realm = try await Realm.open(configuration: configuration)
        }

        func birthday(of id: ObjectId) async throws {
            try await realm.asyncWrite {
                realm.object(ofType: Dog.self, forPrimaryKey: id)?.age += 1
            }
        }
    }

    actor DogKennel {
        let executor = RealmExecutor()
        nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
        var realm: Realm!

        init(configuration: Realm.Configuration) async throws {
            realm = try await Realm.open(configuration: configuration)
        }
    }
}

extension ConcurrencyPage.DogStore {
    func names() -> [String] {
        realm.objects(ConcurrencyPage.Dog.self).map(\.name)
    }
}

extension ConcurrencyPage.DogKennel {
    func add(_ name: String) async throws {
        try await realm.asyncWrite { try realm.add(ConcurrencyPage.Dog(value: ["name": name])) }
    }

    func names() -> [String] {
        realm.objects(ConcurrencyPage.Dog.self).map(\.name)
    }
}

@Suite(.temporaryDirectory) struct ConcurrencyGuideTests {
    typealias Dog = GettingStartedPage.Dog
    typealias Person = GettingStartedPage.Person
    typealias DogStore = ConcurrencyPage.DogStore
    typealias DogKennel = ConcurrencyPage.DogKennel

    private func configuration() -> Realm.Configuration {
        var config = temporaryConfiguration()
        config.objectTypes = GettingStartedPage.objectTypes
        return config
    }

    // "One realm per isolation domain"

    @MainActor func addDog(named name: String) throws {
        let realm = try Realm()  // the same realm as the caller's
        try realm.add(Dog(value: ["name": name]))
    }

    @MainActor func adoptTwo() throws {
        let realm = try Realm()
        try realm.write {
            try addDog(named: "Rex")  // inside this write transaction
            try addDog(named: "Fido")
        }
    }

    @MainActor
    @Test func testOneRealmPerIsolationDomain() throws {
        let config = configuration()
        let names = try withDefaultConfiguration(config) {
            try adoptTwo()
            return try Realm().objects(Dog.self).map(\.name)
        }
        #expect(names.sorted() == ["Fido", "Rex"])
        #expect(try !Realm(configuration: config).isInWriteTransaction)
    }

    // "Functions isolated to the actor"

    func adopt(in db: isolated RealmActor) async throws {
        let realm = db.realm
        try await realm.asyncWrite {
            let person = Person(value: ["id": 1, "name": "Ali"])
            try realm.add(person)
            let puppies = realm.objects(Dog.self).filter { $0.age < 2 }
            person.setValue(puppies, forKey: "dogs")
        }
    }

    @Test func testRealmActor() async throws {
        let config = configuration()
        // "RealmActor"
        let db = try await RealmActor(configuration: config)
        try await db.asyncWrite { realm in
            try realm.add(Dog(value: ["name": "Wolfie", "age": 1]))
        }
        let wolfie: Frozen<Dog>? = try await db.objects(Dog.self).first { $0.name == "Wolfie" }
        print(wolfie?.name ?? "none")  // any task, any thread
        let id = wolfie!._id
        try await db.asyncWrite { realm in
            guard let dog = realm.object(ofType: Dog.self, forPrimaryKey: id) else { return }
            dog.age += 1
        }
        #expect(try await db.object(ofType: Dog.self, forPrimaryKey: id)?.age == 2)
        #expect(wolfie?.age == 1, "a frozen value keeps its version")

        try await db.asyncWrite { realm in try realm.add(Dog(value: ["name": "Ace", "age": 0])) }
        try await adopt(in: db)
        let ali = try await db.object(ofType: Person.self, forPrimaryKey: 1)
        #expect(ali?.dogs.map(\.name) == ["Ace"], "Wolfie is 2 now: Ace is the one puppy")
    }

    @MainActor
    @Test func testAnActorOfYourOwnAndFrozenSnapshots() async throws {
        let config = configuration()
        // "An actor of your own"
        let store = try await DogStore(configuration: config)
        let realm = try Realm(configuration: config)
        let rex = Dog(value: ["name": "Rex", "age": 3])
        try realm.write { try realm.add(rex) }
        try await store.birthday(of: rex._id)
        #expect(await store.names() == ["Rex"])
        let kennel = try await DogKennel(configuration: config)
        try await kennel.add("Fido")
        #expect(await kennel.names().sorted() == ["Fido", "Rex"])

        // "Frozen snapshots"
        realm.refresh()
        let frozen: Frozen<Dog> = try rex.freeze()
        let age = await Task.detached { frozen.age }.value  // read on another thread, no lock
        let results: FrozenResults<Dog> = try realm.objects(Dog.self).freeze()
        let thawed = realm.thaw(frozen)  // live again, in this realm
        let mine = try frozen.thaw()  // the same: this domain has one realm of the file
        #expect(age == 4 && results.count == 2)
        #expect(thawed?.realm === realm && mine?.realm === realm, "the main actor has one realm of the file")
        #expect(thawed == rex && mine == rex)
        #expect(try frozen.realm!.thaw() === realm)
        try realm.write { rex.age += 1 }
        #expect(realm.pinnedVersionCount >= 2, "the realm's new version, and the old one the frozen values hold")
        #expect(frozen.age == 4 && results.first { $0.name == "Rex" }?.age == 4)
    }

    @Test func testObservingChanges() async throws {
        let realm = try Realm(configuration: configuration())
        let rex = Dog(value: ["name": "Rex", "age": 3])
        try realm.write { try realm.add(rex) }
        let seen = SampleLog()
        // "Observing changes"
        let dogs = realm.objects(Dog.self)
        let stream = dogs.changes()  // ChangeStream: Sendable, AsyncSequence
        let watcher = Task {
            for await change in stream {  // elements are frozen: read them anywhere
                switch change {
                case .initial(let dogs): print("\(dogs.count) dogs")
                case .update(let dogs, let deletions, let insertions, let modifications):
                    print(dogs.count, deletions, insertions, modifications)
                case .error(let error): print(error)
                }
                seen.append(change)  // test only
            }
        }
        try realm.write(withoutNotifying: [stream.token]) {  // this stream stays silent
            try realm.add(Dog(value: ["name": "Wolfie"]))
        }
        let updates = rex.changes(keyPaths: ["age"])  // ObjectChange<Frozen<Dog>>: .change, .deleted
        let ageChanges = updates.makeAsyncIterator()  // test only
        try realm.write {  // test only
            rex.name = "Rex II"  // test only
            rex.age = 4  // test only
        }  // test only
        let ageChange = await next(ageChanges)  // test only
        try await waitUntil("the watcher saw two changes") { seen.count >= 2 }  // test only
        watcher.cancel()  // ends the iteration and frees the stream
        _ = await watcher.value
        guard case .change(let frozenRex, let properties) = ageChange else {
            Issue.record("expected a change")
            return
        }
        #expect(frozenRex.age == 4 && properties.map(\.name) == ["age"], "the name is not in keyPaths")
        #expect(seen.lines == ["initial 1", "update 2 [] [] [0]"], "the silent write's Wolfie is baseline; Rex's change shows")
    }
}
