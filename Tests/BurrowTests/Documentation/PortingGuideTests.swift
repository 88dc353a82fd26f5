import Burrow
import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

// The samples of Sources/Burrow/Burrow.docc/PortingFromRealmSwift.md, compiled and run as the
// page shows them (DocumentationSamplesTests checks that they are the page's). One test per
// sample, named after the page's section; each holds the sample, then checks what the page says
// about it.
//
// This file imports Burrow without @testable, as an app does: the samples use the public API
// only. Inside the suite, `Dog`, `Person`, … name the page's models below.

/// The page's models, under the page's names.
enum PortingPage {
    final class DogToy: Object {
        override class func shouldIncludeInDefaultSchema() -> Bool { false }  // test only
        @Persisted var name = ""
    }

    final class Dog: Object, ObjectKeyIdentifiable {
        override class func shouldIncludeInDefaultSchema() -> Bool { false }  // test only
        @Persisted(primaryKey: true) var _id: ObjectId
        @Persisted(indexed: true) var name = ""
        @Persisted var age = 0
        @Persisted var currentCity = ""
        @Persisted var favoriteToy: DogToy?
        @Persisted var citiesVisited: MutableSet<String>
        @Persisted var favoriteParksByCity: Map<String, String>
        @Persisted var companion: AnyRealmValue
        @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
    }

    final class Person: Object {
        override class func shouldIncludeInDefaultSchema() -> Bool { false }  // test only
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var dogs: List<Dog>
        @Persisted var address: Address?
    }

    final class Address: EmbeddedObject {
        override class func shouldIncludeInDefaultSchema() -> Bool { false }  // test only
        @Persisted var street: String?
        @Persisted var city: String?
    }

    /// "Models": a model class need not be final.
    class Cat: Object {
        override class func _realmObjectName() -> String? { "PortingCat" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
    }

    /// "Migrations": the class before and after version 2 added `nickname`.
    final class ContactV1: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        override class func _realmObjectName() -> String? { "Contact" }
    }

    final class ContactV2: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var nickname = ""
        override class func _realmObjectName() -> String? { "Contact" }
    }

    /// "Migrations", renaming `name` to `fullName` in two releases: version 3 has both, version 4
    /// only `fullName`.
    final class ContactV3: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var fullName = ""
        override class func _realmObjectName() -> String? { "Contact" }
    }

    final class ContactV4: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var fullName = ""
        @Persisted var initials = ""
        override class func _realmObjectName() -> String? { "Contact" }
    }

    final class Reading: Object {
        override class func shouldIncludeInDefaultSchema() -> Bool { false }  // test only
        @Persisted(primaryKey: true) var id = 0
        @Persisted var celsius = 0.0
        override class func propertiesMapping() -> [String: String] { ["celsius": "temp_c"] }
    }
}

/// The Dog of the "Async writes" extension below, which is declared at file scope: the test
/// program's own Dog, which has the properties the page's Dog has there.
private typealias Dog = CommonModels.Dog

/// "Async writes": a method in an extension of RealmActor runs inside the actor.
extension RealmActor {
    func birthday(of id: ObjectId) async throws {
        try await realm.asyncWrite {
            realm.object(ofType: Dog.self, forPrimaryKey: id)?.age += 1
        }
    }
}

/// "Models": a URL stored as a String.
extension URL: FailableCustomPersistable {
    public typealias PersistedType = String
    public init?(persistedValue: String) { self.init(string: persistedValue) }
    public var persistableValue: String { absoluteString }
}

@Suite(.temporaryDirectory) struct PortingGuideTests {
    /// "Models": `propertiesMapping()` stores `celsius` as `temp_c`; Swift code names it
    /// `celsius`, the file and dynamic objects `temp_c`.
    @Test func aPropertiesMappingStoresPropertiesUnderTheirColumnNames() throws {
        var configuration = temporaryConfiguration()
        configuration.objectTypes = [PortingPage.Reading.self]
        let realm = try Realm(configuration: configuration)
        try realm.write { try realm.add(PortingPage.Reading(value: ["id": 1, "celsius": 21.5] as [String: Any])) }
        #expect(try realm.objects(PortingPage.Reading.self).filter("celsius > 20").first?.celsius == 21.5)
        #expect(realm.schema["Reading"]?["celsius"]?.columnName == "temp_c")
        #expect(realm.dynamicObject(ofType: "Reading", forPrimaryKey: 1)?["temp_c"] as? Double == 21.5)
        #expect(realm.currentFileSchema.classes["Reading"]?.properties.map(\.name) == ["id", "temp_c"])
    }

    typealias DogToy = PortingPage.DogToy
    typealias Dog = PortingPage.Dog
    typealias Person = PortingPage.Person
    typealias Address = PortingPage.Address

    /// "An actor of your own": RealmSwift's documentation declares an actor that holds a realm.
    actor DogStore {
        var realm: Realm!

        init(configuration: Realm.Configuration) async throws {
            realm = try await Realm.open(configuration: configuration)  // RealmSwift: try await Realm(configuration: configuration, actor: self)
        }

        func rename(_ id: ObjectId, to name: String) async throws {
            try await realm.asyncWrite {
                realm.object(ofType: Dog.self, forPrimaryKey: id)?.name = name
            }
        }
    }

    private func configuration() -> Realm.Configuration {
        var config = temporaryConfiguration()
        config.objectTypes = [Dog.self, DogToy.self, Person.self, Address.self]
        return config
    }

    // MARK: What stays the same

    /// "Models": the declarations are RealmSwift's; the schema is read from the classes.
    @Test func testModels() throws {
        let realm = try Realm(configuration: configuration())
        try realm.write {
            try realm.add(
                Person(value: [
                    "id": 1, "name": "Ali", "address": ["city": "Oslo"],
                    "dogs": [["name": "Rex", "age": 1, "favoriteToy": ["name": "Wubba"]]],
                ]))
        }
        let rex = try #require(realm.objects(Dog.self).first)
        #expect(rex.owners.map(\.name) == ["Ali"])
        #expect(rex.favoriteToy?.name == "Wubba")
        #expect(rex.objectSchema.primaryKeyProperty?.name == "_id")
        #expect(rex.objectSchema["name"]?.isIndexed == true)
        #expect(realm.object(ofType: Person.self, forPrimaryKey: 1)?.address?.city == "Oslo")
        #expect(realm.objects(Address.self).count == 1)
        #expect(realm.objects(Dog.self).map(\.id) == [rex.id], "ObjectKeyIdentifiable gives an id")
        var cats = temporaryConfiguration()
        cats.objectTypes = [PortingPage.Cat.self]
        let catRealm = try Realm(configuration: cats)
        try catRealm.write { try catRealm.add(PortingPage.Cat(value: ["id": 1, "name": "Tom"])) }
        #expect(catRealm.object(ofType: PortingPage.Cat.self, forPrimaryKey: 1)?.name == "Tom", "a class that is not final")
    }

    /// "Models": a `Codable` model decodes into an unmanaged object, added as any other.
    @Test func testModelsCodable() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        // The guide's example:
        final class DogToy: Object, Codable {
            @Persisted var name = ""
        }

        let toy = try JSONDecoder().decode(DogToy.self, from: Data(#"{"name": "ball"}"#.utf8))
        try realm.write { try realm.add(toy) }
        // What it claims:
        #expect(realm.objects(DogToy.self).map(\.name) == ["ball"])
        #expect(try JSONDecoder().decode(DogToy.self, from: Data("{}".utf8)).name == "", "a missing key gives the default")
        #expect(throws: EncodingError.self) { try JSONEncoder().encode(toy) }
        #expect(String(decoding: try JSONEncoder().encode(DogToy(value: ["name": "rope"])), as: UTF8.self) == #"{"name":"rope"}"#)
    }

    /// "Models": a custom persistable type is stored as its persisted type.
    @Test func testModelsCustomPersistable() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        // The guide's example:
        final class Bookmark: Object {
            @Persisted var url: URL?
        }
        // What it claims:
        let link = try #require(URL(string: "https://example.com"))
        try realm.write { try realm.add(Bookmark(value: ["url": link])) }
        #expect(realm.objects(Bookmark.self).first?.url == link)
        #expect(try realm.objects(Bookmark.self).filter("url == %@", link).count == 1)
        #expect(try realm.objects(Bookmark.self).filter("url == 'https://example.com'").count == 1)
    }

    /// "Writes": RealmSwift's write code, with `try` on the calls that throw in Burrow.
    @Test func testWrites() throws {
        let config = configuration()
        // The guide's example:
        let realm = try Realm(configuration: config)
        let rex = Dog(value: ["name": "Rex", "age": 1])
        try realm.write {
            try realm.add(rex)
            rex.favoriteParksByCity["Toronto"] = "High Park"
            rex.citiesVisited.insert("Toronto")
        }
        try realm.write {
            rex.age += 1
            realm.objects(Dog.self).setValue("Toronto", forKey: "currentCity")
            try realm.add(Person(value: ["id": 1, "name": "Ali"]), update: .modified)
            try realm.create(Person.self, value: ["id": 1, "dogs": [rex]], update: .modified)
        }
        try realm.write {
            try realm.delete(realm.objects(Person.self))
        }
        // What it claims:
        #expect(rex.age == 2 && rex.currentCity == "Toronto")
        #expect(rex.favoriteParksByCity["Toronto"] == "High Park" && rex.citiesVisited.contains("Toronto"))
        #expect(realm.objects(Person.self).isEmpty)
        #expect(rex.owners.isEmpty && !rex.isInvalidated, "deleting Ali leaves Rex")
        let reopened = try Realm(configuration: config)
        #expect(reopened.objects(Dog.self).first?.age == 2)
    }

    /// "Dynamic objects": a file read and written by class and property name.
    @Test func testDynamicObjects() throws {
        let url = configuration().fileURL!
        do {
            let typed = try Realm(configuration: Realm.Configuration(fileURL: url))
            try typed.write {
                try typed.add(Person(value: ["id": 1, "name": "Ali", "dogs": [["name": "Fido", "age": 7, "favoriteToy": ["name": "rope"]]]]))
            }
        }
        let realm = try Realm(configuration: Realm.Configuration(fileURL: url))
        for person in realm.dynamicObjects("Person").sorted(byKeyPath: "name") {
            let dogs = person["dogs"] as! List<DynamicObject>
            print(person["name"] as! String, dogs.map { $0["name"] as! String })
        }
        try realm.write {
            let rex = try realm.dynamicCreate("Dog", value: ["name": "Rex", "age": 3, "favoriteToy": ["name": "ball"]])
            rex.age = 4
        }
        let ali = realm.dynamicObject(ofType: "Person", forPrimaryKey: 1)

        #expect((ali?["dogs"] as? List<DynamicObject>)?.map { $0["name"] as? String } == ["Fido"])
        let rex = try #require(realm.objects(Dog.self).first { $0.name == "Rex" })
        #expect(rex.age == 4 && rex.favoriteToy?.name == "ball", "a dynamic object is the typed object's row")
        #expect(realm.schema["Dog"]?.properties.contains { $0.name == "favoriteToy" } == true)
    }

    /// "Queries and Results": the same typed queries, query strings, sorting and aggregates.
    @Test func testQueriesAndResults() throws {
        let realm = try Realm(configuration: configuration())
        try realm.write {
            try realm.add(Person(value: ["id": 1, "name": "Ali", "dogs": [["name": "Rex", "age": 1], ["name": "Fido", "age": 7]]]))
        }
        // The guide's example:
        let puppies = realm.objects(Dog.self).where { $0.age < 2 }
        let rNames = try realm.objects(Dog.self).filter("name BEGINSWITH[c] %@", "r")
        let oldestFirst = realm.objects(Dog.self).sorted(byKeyPath: "age", ascending: false)
        let owners = realm.objects(Person.self).where { $0.dogs.age > 5 }
        let totalAge: Int = realm.objects(Dog.self).sum(ofProperty: "age")
        try realm.write { try realm.add(Dog(value: ["name": "Ace", "age": 0])) }
        print(puppies.count)  // 2: results are live, and see Ace
        // What it claims:
        #expect(puppies.count == 2)
        #expect(rNames.map(\.name) == ["Rex"])
        #expect(oldestFirst.first?.name == "Fido")
        #expect(owners.map(\.name) == ["Ali"])
        #expect(totalAge == 8)
    }

    // MARK: What changes

    /// "try and await": the calls that gained `try`.
    @Test func testTryAndAwait() async throws {
        let config = configuration()
        let realm = try Realm(configuration: config)
        let dog = Dog(value: ["name": "Rex", "age": 1])
        // The guide's example:
        try realm.write {
            try realm.add(dog)  // RealmSwift: realm.add(dog)
        }
        let frozen = try dog.freeze()  // RealmSwift: dog.freeze()
        let young = try realm.objects(Dog.self).filter("age < 2")  // RealmSwift: ….filter("age < 2")
        let db = try await RealmActor(configuration: config)
        let count = try await db.objects(Dog.self).count  // an actor's method, from outside it
        // What it claims:
        #expect(frozen.name == "Rex" && young.count == 1 && count == 1)
        // Every call listed as throwing in the guide's table throws; the list stays right only
        // if this compiles without warnings ("no calls to throwing functions occur within 'try'").
        try realm.write {
            let ali = try realm.create(Person.self, value: ["id": 1])
            try realm.delete(ali)
            try realm.deleteAll()
        }
        try realm.beginWrite()
        try realm.cancelWrite()
        _ = try realm.objects(Dog.self).filter(#Predicate<Dog> { $0.age < 2 })
        _ = try realm.objects(Dog.self).freeze()
        _ = try realm.freeze().thaw()
        _ = try frozen.thaw()
        let person = Person(value: ["id": 2, "dogs": [["name": "Ace"]]])
        try realm.write { try realm.add(person) }
        _ = try person.dogs.freeze().thaw()
        _ = try person.dogs[0].citiesVisited.freeze().thaw()
        _ = try person.dogs[0].favoriteParksByCity.freeze().thaw()
        _ = try person.dogs[0].owners.freeze().thaw()
    }

    /// "Opening a realm": the three ways, and the default file.
    @MainActor @Test func testOpeningARealm() async throws {
        let url = temporaryConfiguration().fileURL!
        // The guide's example:
        var config = Realm.Configuration(fileURL: url)
        config.schemaVersion = 1
        config.objectTypes = [Dog.self, DogToy.self, Person.self, Address.self]

        let realm = try Realm(configuration: config)  // now, for this thread or actor
        let mainRealm = try await Realm.open(configuration: config)  // isolated to the caller: here, the main actor
        let db = try await RealmActor(configuration: config)  // an actor that owns its realm
        // What it claims:
        #expect(realm.configuration.fileURL == url && realm.configuration.schemaVersion == 1)
        try mainRealm.write { try mainRealm.add(Dog(value: ["name": "Rex"])) }
        #expect(try await db.objects(Dog.self).count == 1)
        realm.refresh()
        #expect(realm.objects(Dog.self).count == 1)
        // The initializer takes RealmSwift's arguments in RealmSwift's order; `durability` last.
        let ported = Realm.Configuration(schemaVersion: 1, migrationBlock: nil, objectTypes: [Dog.self])
        #expect(ported.schemaVersion == 1 && ported.migrationBlock == nil && ported.objectTypes?.count == 1)
        let readOnly = Realm.Configuration(fileURL: url, readOnly: true, schemaVersion: 1)
        #expect(readOnly.readOnly && readOnly.schemaVersion == 1)
        let all = Realm.Configuration(
            fileURL: url, inMemoryIdentifier: nil, readOnly: false, schemaVersion: 1, migrationBlock: nil,
            deleteRealmIfMigrationNeeded: false, objectTypes: config.objectTypes, durability: .normal)
        #expect(all.durability == .normal && all.objectTypes?.count == 4)
        #expect(Realm.Configuration().fileURL?.lastPathComponent == "default.burrow")
        #expect(
            Realm.Configuration().fileURL?.deletingLastPathComponent().path
                == URL(fileURLWithPath: FileManager.default.currentDirectoryPath).path)
    }

    /// "An actor of your own": RealmSwift's actor pattern, with `Realm.open`.
    @Test func testAnActorOfYourOwn() async throws {
        let config = configuration()
        let realm = try Realm(configuration: config)
        let rex = Dog(value: ["name": "Rex"])
        try realm.write { try realm.add(rex) }
        // The guide's example (the actor is above):
        let store = try await DogStore(configuration: config)
        try await store.rename(rex._id, to: "Rex II")
        // What it claims:
        realm.refresh()
        #expect(rex.name == "Rex II")
    }

    /// "Crossing isolation boundaries": a frozen value instead of a ThreadSafeReference.
    @Test func testCrossingIsolationBoundaries() async throws {
        let config = configuration()
        let realm = try Realm(configuration: config)
        let rex = Dog(value: ["name": "Rex", "age": 3])
        try realm.write { try realm.add(rex) }
        // The guide's example:
        let db = try await RealmActor(configuration: config)
        let frozenRex: Frozen<Dog> = try rex.freeze()  // RealmSwift: ThreadSafeReference(to: rex)
        let age = await Task.detached { frozenRex.age }.value  // read it on any thread
        try await db.asyncWrite { realm in
            realm.thaw(frozenRex)?.age += 1  // RealmSwift: realm.resolve(reference)
        }
        let id = rex._id  // or pass the primary key
        let older = try await db.object(ofType: Dog.self, forPrimaryKey: id)
        // What it claims:
        #expect(age == 3)
        #expect(older?.age == 4)
        #expect(frozenRex.age == 3, "a frozen value keeps its version")
        realm.refresh()
        #expect(rex.age == 4)
    }

    /// "A realm moves to new versions only when told": no autorefresh.
    @Test func testARealmMovesOnlyWhenTold() async throws {
        let config = configuration()
        let printed = SampleLog()
        // The guide's example:
        let realm = try Realm(configuration: config)
        let dogs = realm.objects(Dog.self)
        let db = try await RealmActor(configuration: config)
        try await db.asyncWrite { realm in try realm.add(Dog(value: ["name": "Rex"])) }
        print(dogs.count)  // 0: this realm still reads the version it had
        printed.appendLine("\(dogs.count)")  // test only
        realm.refresh()
        print(dogs.count)  // 1
        printed.appendLine("\(dogs.count)")  // test only
        // What it claims:
        #expect(printed.lines == ["0", "1"])
    }

    /// "Frozen objects": frozen lists, sets, maps and linking objects.
    @MainActor
    @Test func testFrozenCollections() async throws {
        let realm = try Realm(configuration: configuration())
        let rex = Dog(value: ["name": "Rex", "age": 1, "citiesVisited": ["Toronto"], "favoriteParksByCity": ["Toronto": "High Park"]])
        let person = Person(value: ["id": 1, "name": "Ali", "dogs": [rex, ["name": "Fido", "age": 7]]])
        try realm.write { try realm.add(person) }
        // The guide's example:
        let dogs: FrozenList<Dog> = try person.dogs.freeze()  // RealmSwift: a List<Dog>
        let cities: FrozenMutableSet<String> = try rex.citiesVisited.freeze()
        let parks: FrozenMap<String, String> = try rex.favoriteParksByCity.freeze()
        let owners: FrozenLinkingObjects<Person> = try rex.owners.freeze()
        let names = await Task.detached { dogs.map(\.name) }.value  // read it on any thread
        let puppies: FrozenResults<Dog> = dogs.where { $0.age < 2 }  // queried in its version
        let liveDogs: List<Dog>? = try dogs.thaw()  // or realm.thaw(dogs)
        // What it claims:
        #expect(names == ["Rex", "Fido"])
        try realm.write {
            person.dogs.swapAt(0, 1)
            person.dogs.append(Dog(value: ["name": "Ace"]))
            rex.citiesVisited.insert("Oslo")
            rex.favoriteParksByCity["Oslo"] = "Frogner"
            try realm.add(Person(value: ["id": 2, "name": "Bo", "dogs": [rex]]))
        }
        #expect(dogs.map(\.name) == ["Rex", "Fido"], "later writes do not change it, nor its order")
        #expect(Array(cities) == ["Toronto"] && cities.contains("Toronto") && !cities.contains("Oslo"))
        #expect(parks["Toronto"] == "High Park" && parks["Oslo"] == nil && parks.keys == ["Toronto"])
        #expect(owners.map(\.name) == ["Ali"])
        #expect(dogs.isFrozen && cities.isFrozen && parks.isFrozen && owners.isFrozen)
        #expect(dogs[0].isFrozen, "elements are frozen objects")
        let first: Frozen<Dog> = try dogs[0].freeze()
        #expect(first.name == "Rex" && first.versionNumber == dogs.versionNumber)
        #expect(liveDogs?.isFrozen == false && liveDogs?.realm === realm, "a live list, in this isolation domain's one realm of the file")
        #expect(liveDogs?.count == 3, "that realm wrote since the freeze")
        #expect(realm.thaw(dogs)?.map(\.name) == ["Fido", "Rex", "Ace"], "the live list in the realm that wrote")
        #expect(puppies.map(\.name) == ["Rex"], "queried in the frozen version: Ace came later")
        #expect(try dogs.filter("age > 5").map(\.name) == ["Fido"] && dogs.sum(ofProperty: "age") as Int == 8)
        try realm.write { try realm.delete(person) }
        #expect(realm.thaw(dogs) == nil, "nil once the list's object is deleted")
    }

    /// "Frozen objects": `Frozen<T>` and `FrozenResults<T>`, and thawing them.
    @Test func testFrozenObjects() async throws {
        let realm = try Realm(configuration: configuration())
        try realm.write {
            try realm.add(Dog(value: ["name": "Rex", "age": 1, "favoriteToy": ["name": "Wubba"]]))
            try realm.add(Dog(value: ["name": "Fido", "age": 7]))
        }
        let rex = realm.objects(Dog.self).where { $0.name == "Rex" }.first!
        // The guide's example:
        let frozen: Frozen<Dog> = try rex.freeze()
        print(frozen.name, frozen.favoriteToy?.name ?? "no toy")  // properties as on the object
        let dog: Dog = frozen.frozenObject  // the frozen Dog itself, for code that takes a Dog
        let all: FrozenResults<Dog> = try realm.objects(Dog.self).freeze()
        let old = all.where { $0.age > 5 }  // queries work on frozen results
        let live: Dog? = try frozen.thaw()  // RealmSwift: frozen.thaw()
        let same: Dog? = realm.thaw(frozen)  // into a realm you choose
        // What it claims:
        #expect(frozen.name == "Rex" && frozen.favoriteToy?.name == "Wubba")
        #expect(dog.isFrozen && dog.name == "Rex" && frozen.isFrozen)
        #expect(old.map(\.name) == ["Fido"])
        // A frozen ObjectKeyIdentifiable object is Identifiable, with an id kept across versions.
        func ids<C: Collection>(_ items: C) -> [C.Element.ID] where C.Element: Identifiable { items.map(\.id) }
        #expect(ids(all) == realm.objects(Dog.self).map(\.id))
        try realm.write { rex.age = 2 }
        #expect(ids(try realm.objects(Dog.self).freeze()) == ids(all))
        #expect(frozen.id == rex.id)
        #expect(live?.isFrozen == false && live?.name == "Rex" && frozen.age == 1)
        #expect(same?.realm === realm && same?.isFrozen == false)
        let crossed = await Task.detached { all.map(\.name).sorted() }.value
        #expect(crossed == ["Fido", "Rex"])
        try realm.write { try realm.delete(rex) }
        #expect(realm.thaw(frozen) == nil, "thaw gives nil once the object is deleted")
        #expect(frozen.name == "Rex", "the frozen value still reads its version")
    }

    /// "Notifications": change streams instead of `observe` and tokens.
    @Test func testNotifications() async throws {
        let realm = try Realm(configuration: configuration())
        let rex = Dog(value: ["name": "Rex", "age": 1])
        try realm.write { try realm.add(rex) }
        let seen = SampleLog()
        // The guide's example:
        let puppies = realm.objects(Dog.self).where { $0.age < 2 }
        let stream = puppies.changes()  // RealmSwift: let token = puppies.observe { change in … }
        let watcher = Task {
            for await change in stream {
                switch change {
                case .initial(let dogs): print("\(dogs.count) puppies")
                case .update(let dogs, let deletions, let insertions, let modifications):
                    print(dogs.count, deletions, insertions, modifications)
                case .error(let error): print(error)
                }
                seen.append(change)  // test only
            }
        }
        try realm.write(withoutNotifying: [stream.token]) {  // this stream hears nothing of this write
            try realm.add(Dog(value: ["name": "Ace", "age": 0]))
        }
        try realm.write {  // …but hears of this one
            rex.age = 2
        }
        try await waitUntil("the watcher saw two changes") { seen.count >= 2 }  // test only
        watcher.cancel()  // RealmSwift: token.invalidate()
        // What it claims:
        _ = await watcher.value
        #expect(seen.lines == ["initial 1", "update 1 [0] [] []"], "Ace's silent insertion is no news; Rex leaving is")
    }

    /// "Notifications": an object's stream.
    @Test func testNotificationsOfAnObject() async throws {
        let realm = try Realm(configuration: configuration())
        let rex = Dog(value: ["name": "Rex", "age": 1])
        try realm.write { try realm.add(rex) }
        let printed = SampleLog()
        // The guide's example:
        let changes = rex.changes(keyPaths: ["age"])  // RealmSwift: rex.observe(keyPaths: ["age"]) { change in … }
        try realm.write { rex.age += 1 }
        var iterator = changes.makeAsyncIterator()
        if case .change(let dog, let properties) = await iterator.next() {
            print(dog.age, properties.map(\.name))  // 2 ["age"]; dog is a Frozen<Dog>
            printed.appendLine("\(dog.age) \(properties.map(\.name))")  // test only
        }
        try realm.write { try realm.delete(rex) }
        if case .deleted = await iterator.next() {
            print("deleted")  // the stream's last element
            printed.appendLine("deleted")  // test only
        }
        // What it claims:
        #expect(printed.lines == ["2 [\"age\"]", "deleted"])
        #expect(await iterator.next() == nil, "the stream ends after .deleted")
        let fresh = Dog(value: ["name": "Fido", "age": 1])
        try realm.write { try realm.add(fresh) }
        let stream = fresh.changes(keyPaths: ["age"])
        try realm.write { fresh.name = "Fido II" }  // not in keyPaths: no element
        try realm.write { fresh.age = 2 }
        var check = stream.makeAsyncIterator()
        guard case .change(let dog, let properties) = await check.next() else {
            Issue.record("expected a change")
            return
        }
        #expect(dog.age == 2 && properties.map(\.name) == ["age"])
        #expect(properties.first?.oldValue as? Int == 1 && properties.first?.newValue as? Int == 2)
        try realm.write { try realm.delete(fresh) }
        guard case .deleted = await check.next() else {
            Issue.record("expected .deleted")
            return
        }
        #expect(await check.next() == nil, "the stream ends after .deleted")
    }

    /// "Notifications": streams of a list, a map and the realm.
    @Test func testNotificationsOfCollectionsAndTheRealm() async throws {
        let realm = try Realm(configuration: configuration())
        let person = Person(value: ["id": 1, "name": "Ali"])
        let rex = Dog(value: ["name": "Rex", "age": 1])
        try realm.write {
            try realm.add(person)
            try realm.add(rex)
        }
        let printed = SampleLog()
        // The guide's example:
        let dogs = person.dogs.changes()  // RealmSwift: person.dogs.observe { change in … }
        let parks = rex.favoriteParksByCity.changes()  // a RealmMapChange: keys, not indices
        let commits = realm.changes()  // RealmSwift: realm.observe { notification, realm in … }
        try realm.write {
            person.dogs.append(rex)
            rex.favoriteParksByCity["Oslo"] = "Frogner Park"
        }
        var dogChanges = dogs.makeAsyncIterator()
        _ = await dogChanges.next()  // .initial(FrozenList<Dog>)
        if case .update(let list, _, let insertions, _) = await dogChanges.next() {
            print(list.count, insertions)  // 1 [0]
            printed.appendLine("\(list.count) \(insertions)")  // test only
        }
        var parkChanges = parks.makeAsyncIterator()
        _ = await parkChanges.next()  // .initial(FrozenMap<String, String>)
        if case .update(_, _, let insertions, _) = await parkChanges.next() {
            print(insertions)  // ["Oslo"]
            printed.appendLine("\(insertions)")  // test only
        }
        var realmChanges = commits.makeAsyncIterator()
        _ = await realmChanges.next()  // .initial(versionNumber:)
        if case .update(let version, let classNames) = await realmChanges.next() {
            print(version, classNames ?? [])  // the new version; ["Dog", "Person"]
            printed.appendLine("\(version == realm.version) \((classNames ?? []).sorted())")  // test only
        }
        // What it claims:
        #expect(printed.lines == ["1 [0]", "[\"Oslo\"]", "true [\"Dog\", \"Person\"]"])
        try realm.write { try realm.delete(person) }
        guard case .update(let empty, let deletions, _, _) = await dogChanges.next() else {
            Issue.record("expected an update")
            return
        }
        #expect(empty.isEmpty && deletions == [0], "deleting the owner deletes every element")
        #expect(await dogChanges.next() == nil, "and ends the stream")
    }

    /// "Notifications": streams of results of a collection, and streams made inside a write.
    @Test func testNotificationsOfCollectionResultsAndInAWrite() async throws {
        let realm = try Realm(configuration: configuration())
        let ali = Person(value: ["id": 1, "name": "Ali", "dogs": [["name": "Rex", "age": 1]]])
        try realm.write { try realm.add(ali) }
        var ofACollection = ali.dogs.where { $0.age > 2 }.changes().makeAsyncIterator()
        guard case .initial(let none) = await ofACollection.next() else {
            Issue.record("expected .initial")
            return
        }
        #expect(none.isEmpty)
        try realm.write {
            ali.dogs.append(Dog(value: ["name": "Buster", "age": 5]))
            ali.dogs.append(Dog(value: ["name": "Spot", "age": 1]))
        }
        guard case .update(let old, _, let insertions, _) = await ofACollection.next() else {
            Issue.record("expected .update")
            return
        }
        #expect(old.map(\.name) == ["Buster"] && insertions == [0])
        try realm.beginWrite()
        var inAWrite = realm.objects(Dog.self).changes().makeAsyncIterator()
        var objectInAWrite = ali.changes().makeAsyncIterator()
        try realm.cancelWrite()
        guard case .error = await inAWrite.next(), case .error = await objectInAWrite.next() else {
            Issue.record("expected .error")
            return
        }
        #expect(await inAWrite.next() == nil)
        #expect(await objectInAWrite.next() == nil)
    }

    /// "Async writes": `asyncWrite` inside the actor, from a method of an extension.
    @Test func testAsyncWrites() async throws {
        // The extension's Dog is the test program's (see the extension).
        typealias Dog = CommonModels.Dog
        var config = temporaryConfiguration()
        config.objectTypes = [Dog.self, CommonModels.DogToy.self, CommonModels.Person.self, CommonModels.Address.self]
        let db = try await RealmActor(configuration: config)
        let rex = try await db.create(Dog.self, value: ["name": "Rex", "age": 1])
        // The guide's example (the extension is above):
        try await db.birthday(of: rex._id)
        let names = try await db.asyncWrite { realm in
            try realm.add(Dog(value: ["name": "Fido"]))
            return realm.objects(Dog.self).map(\.name)  // a Sendable result: [String]
        }
        // What it claims:
        #expect(try await db.object(ofType: Dog.self, forPrimaryKey: rex._id)?.age == 2)
        #expect(names.sorted() == ["Fido", "Rex"])
    }

    /// "Async writes": a write cancelled while it waits for the lock changes nothing.
    @Test func testACancelledAsyncWriteChangesNothing() async throws {
        let config = configuration()
        let realm = try Realm(configuration: config)
        let db = try await RealmActor(configuration: config)
        try realm.beginWrite()  // holds the file's write lock
        let waiting = Task { try await db.asyncWrite { realm in try realm.add(Dog(value: ["name": "Ghost"])) } }
        try await waitUntil("the write queued for the lock") { realm.writeLockWaiterCount == 1 }
        waiting.cancel()
        let outcome = await waiting.result
        try realm.cancelWrite()
        #expect(throws: CancellationError.self) { try outcome.get() }
        #expect(try await db.objects(Dog.self).isEmpty)
    }

    /// "Durability".
    @Test func testDurability() throws {
        let url = temporaryConfiguration().fileURL!
        // The guide's example:
        var config = Realm.Configuration(fileURL: url)
        config.durability = .normal  // survives a crash of the process, not of the machine
        // What it claims: the default is .full, and .normal commits are there after reopening.
        #expect(Realm.Configuration(fileURL: url).durability == .full)
        config.objectTypes = [Dog.self, DogToy.self, Person.self, Address.self]
        do {
            let realm = try Realm(configuration: config)
            try realm.write { try realm.add(Dog(value: ["name": "Rex"])) }
        }
        #expect(try Realm(configuration: config).objects(Dog.self).map(\.name) == ["Rex"])
    }

    /// "Memory of a large write".
    @Test func testMemoryOfALargeWrite() throws {
        let url = temporaryConfiguration().fileURL!
        // The guide's example:
        var config = Realm.Configuration(fileURL: url)
        config.writeMemoryLimit = 16 << 20  // bytes of changed pages a write keeps in memory (64 MiB by default)
        // What it claims: 64 MiB by default; a write past the limit keeps every object, and a
        // cancelled one leaves the last commit.
        #expect(Realm.Configuration(fileURL: url).writeMemoryLimit == 64 << 20)
        config.writeMemoryLimit = 4 * 4_096
        config.objectTypes = [Dog.self, DogToy.self, Person.self, Address.self]
        let realm = try Realm(configuration: config)
        try realm.write {
            for i in 0..<2_000 { try realm.add(Dog(value: ["name": "Dog \(i)", "age": i % 15])) }
        }
        try realm.beginWrite()
        for i in 0..<2_000 { try realm.add(Dog(value: ["name": "Pup \(i)"])) }
        try realm.cancelWrite()
        #expect(realm.objects(Dog.self).count == 2_000)
        #expect(realm.objects(Dog.self).where { $0.name == "Dog 1234" }.first?.age == 1_234 % 15)
    }

    /// "Errors": a duplicate primary key and a bad query string are thrown, not fatal.
    @Test func testErrors() throws {
        let realm = try Realm(configuration: configuration())
        var codes: [RealmError.Code] = []
        var config = temporaryConfiguration()
        config.readOnly = true
        // The guide's examples:
        do {
            let realm = try Realm(configuration: config)  // config.readOnly, and no file there
            print(realm.isEmpty)
        } catch Realm.Error.fileNotFound {
            print("no file yet")
            codes.append(.fileNotFound)  // test only
        } catch let error as Realm.Error where error.code == .schemaMismatch {
            print(error)
        }
        do {
            try realm.write {
                try realm.add(Person(value: ["id": 1, "name": "Ali"]))
                try realm.add(Person(value: ["id": 1, "name": "Bo"]))  // the same primary key
            }
        } catch let error as RealmError where error.code == .primaryKeyExists {
            print(error)  // "A Person with primary key 1 already exists. …"
            codes.append(error.code)  // test only
        }
        do {
            _ = try realm.objects(Dog.self).filter("agee < 2")
        } catch {
            print(error.code, error)  // filter throws RealmError: .invalidArgument, naming 'agee'
            codes.append(error.code)  // test only
        }
        // What it claims:
        #expect(codes == [.fileNotFound, .primaryKeyExists, .invalidArgument])
        #expect(realm.objects(Person.self).isEmpty, "the failed write kept nothing, not even Ali")
        let unknown = #expect(throws: RealmError.self) { _ = try realm.objects(Dog.self).filter("agee < 2") }
        #expect(unknown?.description.contains("agee") == true)
        let duplicate = #expect(throws: RealmError.self) {
            try realm.write {
                try realm.add(Person(value: ["id": 1, "name": "Ali"]))
                try realm.add(Person(value: ["id": 1, "name": "Bo"]))
            }
        }
        #expect(duplicate?.description.hasPrefix("A Person with primary key 1 already exists.") == true)
        // A failure before anything changed leaves the transaction usable.
        try realm.write {
            try realm.add(Person(value: ["id": 2, "name": "Cy"]))
            do {
                try realm.add(Person(value: ["id": 2, "name": "Di"]))
            } catch let error as RealmError where error.code == .primaryKeyExists {
                try realm.add(Person(value: ["id": 3, "name": "Di"]))
            }
        }
        #expect(realm.objects(Person.self).map(\.name) == ["Cy", "Di"])
    }

    /// "Foundation's #Predicate".
    @Test func testFoundationPredicate() throws {
        let realm = try Realm(configuration: configuration())
        try realm.write {
            try realm.add(Dog(value: ["name": "Rex", "age": 1]))
            try realm.add(Dog(value: ["name": "Fido", "age": 7]))
        }
        // The guide's example:
        let limit = 2
        let puppies = try realm.objects(Dog.self).filter(#Predicate<Dog> { $0.age < limit })
        let same = try realm.objects(Dog.self).filter("age < %@", limit)  // RealmSwift's NSPredicate format, as a string
        // What it claims:
        #expect(puppies.map(\.name) == ["Rex"])
        #expect(same.map(\.name) == ["Rex"])
        let unsupported = #expect(throws: RealmError.self) {
            _ = try realm.objects(Dog.self).filter(#Predicate<Dog> { $0.age + 1 < limit })
        }
        #expect(unsupported?.code == .invalidArgument)
    }

    /// A new file as release 1 of the guide's migrations wrote it: one `PortingPage.ContactV1` (id 1,
    /// named `contact`) at `schemaVersion`.
    private func releaseOneFile(contact: String, schemaVersion: UInt64 = 1) throws -> URL {
        var v1 = temporaryConfiguration()
        v1.objectTypes = [PortingPage.ContactV1.self]
        v1.schemaVersion = schemaVersion
        let realm = try Realm(configuration: v1)
        try realm.write { try realm.add(PortingPage.ContactV1(value: ["id": 1, "name": contact])) }
        return v1.fileURL!
    }

    /// "Migrations": a new property filled in by `migrationBlock`.
    @Test func testMigrations() throws {
        let url = try releaseOneFile(contact: "Alice")
        typealias Contact = PortingPage.ContactV2
        // The guide's example:
        var config = Realm.Configuration(fileURL: url)
        config.objectTypes = [Contact.self]
        config.schemaVersion = 2
        config.migrationBlock = { migration, oldSchemaVersion in
            if oldSchemaVersion < 2 {
                for contact in migration.realm.objects(Contact.self) {
                    contact.nickname = contact.name
                }
            }
        }
        let realm = try Realm(configuration: config)
        // What it claims:
        #expect(realm.objects(Contact.self).map(\.nickname) == ["Alice"])
        // The block does not run for a new file, which gets the classes at schemaVersion.
        let ran = SampleLog()
        var fresh = config
        fresh.fileURL = temporaryConfiguration().fileURL!
        fresh.migrationBlock = { _, oldSchemaVersion in ran.appendLine("\(oldSchemaVersion)") }
        _ = try Realm(configuration: fresh)
        #expect(ran.lines.isEmpty)
        var freshLower = fresh
        freshLower.schemaVersion = 1
        #expect(throws: RealmError.self, "the new file has version 2") { _ = try Realm(configuration: freshLower) }
        // Without raising schemaVersion, the changed class is an error, and the file is untouched.
        var unchanged = config
        unchanged.schemaVersion = 1
        unchanged.fileURL = try releaseOneFile(contact: "Bob")
        let mismatch = #expect(throws: RealmError.self) { _ = try Realm(configuration: unchanged) }
        #expect(mismatch?.code == .schemaMismatch)
        // A schemaVersion lower than the file's throws too.
        var lower = config
        lower.schemaVersion = 1
        let older = #expect(throws: RealmError.self) { _ = try Realm(configuration: lower) }
        #expect(older?.code == .schemaMismatch)
    }

    /// "Migrations": without `objectTypes`, the block runs, and a class the program keeps two
    /// versions of is migrated when first used.
    @Test func testMigrationsWithoutObjectTypes() throws {
        let url = temporaryConfiguration().fileURL!
        do {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: url))
            try realm.write { try realm.add(PortingPage.ContactV1(value: ["id": 1, "name": "Alice"])) }
        }
        let ran = SampleLog()
        var config = Realm.Configuration(fileURL: url)
        config.schemaVersion = 1
        config.migrationBlock = { _, _ in ran.appendLine("ran") }
        let realm = try Realm(configuration: config)
        #expect(realm.objects(PortingPage.ContactV2.self).map(\.name) == ["Alice"], "migrated on first use")
        #expect(realm.objects(PortingPage.ContactV2.self).map(\.nickname) == [""])
        #expect(ran.lines == ["ran"], "the migration block runs without objectTypes too")
    }

    /// "Migrations": RealmSwift's migration API, from release 1 to release 4 in one step.
    @Test func testMigrationsWithTheMigrationAPI() throws {
        let url = try releaseOneFile(contact: "Alice")
        typealias Contact = PortingPage.ContactV4
        var config = Realm.Configuration(fileURL: url)
        config.objectTypes = [Contact.self]
        // The guide's example:
        config.schemaVersion = 4
        config.migrationBlock = { migration, oldSchemaVersion in
            if oldSchemaVersion < 4 {
                // Version 4 renamed `name` to `fullName`: the values go with it.
                migration.renameProperty(onType: Contact.className(), from: "name", to: "fullName")
                migration.enumerateObjects(ofType: Contact.className()) { oldObject, newObject in
                    let name = oldObject!["name"] as! String
                    newObject!["initials"] = String(name.prefix(1))
                }
            }
        }
        let realm = try Realm(configuration: config)
        // What it claims:
        #expect(realm.objects(Contact.self).map(\.fullName) == ["Alice"])
        #expect(realm.objects(Contact.self).map(\.initials) == ["A"])
        #expect(Contact.className() == "Contact")
    }

    /// "Migrations": renaming a property in two releases keeps its values.
    @Test func testMigrationsRenamingAProperty() throws {
        let url = try releaseOneFile(contact: "Alice")
        // Release 3: both properties; the block copies.
        do {
            var config = Realm.Configuration(fileURL: url)
            config.objectTypes = [PortingPage.ContactV3.self]
            config.schemaVersion = 3
            config.migrationBlock = { migration, oldSchemaVersion in
                if oldSchemaVersion < 3 {
                    for contact in migration.realm.objects(PortingPage.ContactV3.self) { contact.fullName = contact.name }
                }
            }
            let realm = try Realm(configuration: config)
            #expect(realm.objects(PortingPage.ContactV3.self).map(\.fullName) == ["Alice"])
        }
        // Release 4: `name` goes; `fullName` keeps its values.
        var config = Realm.Configuration(fileURL: url)
        config.objectTypes = [PortingPage.ContactV4.self]
        config.schemaVersion = 4
        let realm = try Realm(configuration: config)
        #expect(realm.objects(PortingPage.ContactV4.self).map(\.fullName) == ["Alice"])
        // In one step, the old values are gone before the block runs: a renamed property
        // starts from its default.
        let oneStep = try releaseOneFile(contact: "Alice", schemaVersion: 0)
        var direct = Realm.Configuration(fileURL: oneStep)
        direct.objectTypes = [PortingPage.ContactV4.self]
        direct.schemaVersion = 1
        #expect(try Realm(configuration: direct).objects(PortingPage.ContactV4.self).map(\.fullName) == [""])
    }

    /// "Moving your data": a .realm file does not open; data comes over as dictionaries.
    @Test func testMovingYourData() throws {
        // A .realm file is not a Burrow database.
        let realmFile = temporaryConfiguration().fileURL!.deletingLastPathComponent().appendingPathComponent("default.realm")
        var header = Data(count: 12_288)
        header.replaceSubrange(16..<20, with: Array("T-DB".utf8))
        try header.write(to: realmFile)
        let notBurrow = #expect(throws: RealmError.self) { _ = try Realm(configuration: Realm.Configuration(fileURL: realmFile)) }
        #expect(notBurrow?.code == .invalidFile)

        let realm = try Realm(configuration: configuration())
        // The guide's example:
        let json = #"[{"id": 1, "name": "Ali", "dogs": [{"name": "Rex", "age": 3}]}]"#
        let people = try JSONSerialization.jsonObject(with: Data(json.utf8)) as! [[String: Any]]
        try realm.write {
            for person in people {
                try realm.create(Person.self, value: person, update: .modified)
            }
        }
        // What it claims:
        let ali = try #require(realm.object(ofType: Person.self, forPrimaryKey: 1))
        #expect(ali.name == "Ali" && ali.dogs.map(\.name) == ["Rex"] && ali.dogs.first?.age == 3)
        // A string is not converted to an ObjectId (nor to a Date, Data, UUID or Decimal128).
        let notAnId = #expect(throws: RealmError.self) {
            try realm.write { try realm.create(Dog.self, value: ["_id": "6553f100a1b2c3d4e5f60718", "name": "Fido"]) }
        }
        #expect(notAnId?.code == .invalidArgument)
        try realm.write {
            try realm.create(Dog.self, value: ["_id": try ObjectId(string: "6553f100a1b2c3d4e5f60718"), "name": "Fido"])
        }
        #expect(realm.objects(Dog.self).where { $0.name == "Fido" }.first?._id.stringValue == "6553f100a1b2c3d4e5f60718")
    }

    /// "Moving your data": processes share a file, unless one asks for exclusive access.
    @Test func testProcessesShareAFileUnlessOneAsksForExclusiveAccess() async throws {
        let config = configuration()
        let realm = try Realm(configuration: config)
        try realm.write { try realm.add(Dog(value: ["name": "Rex"])) }
        let path = config.fileURL!.path
        await #expect(processExitsWith: .success) { [path = path as String] in
            let shared = try Realm(
                configuration: Realm.Configuration(
                    fileURL: URL(fileURLWithPath: path), objectTypes: [Dog.self, DogToy.self, Person.self, Address.self]))
            exit(shared.objects(Dog.self).map(\.name) == ["Rex"] ? 0 : 3)
        }
        await #expect(processExitsWith: .success) { [path = path as String] in
            do {
                var other = Realm.Configuration(fileURL: URL(fileURLWithPath: path))
                other.exclusiveAccess = true
                _ = try Realm(configuration: other)
                exit(2)
            } catch let error as RealmError where error.code == .fileLocked {
                exit(0)
            }
        }
        #expect(realm.objects(Dog.self).count == 1)
    }

    // MARK: Side by side

    /// "Side by side": `try Realm()` opens `default.burrow` in the current directory. In a child
    /// process, so that changing the directory touches no other test.
    @Test func testTheDefaultFile() async throws {
        // The child process runs outside the test; the test's directory outlives it.
        let directory = try testDirectory().path
        await #expect(processExitsWith: .success) { [directory = directory as String] in
            guard FileManager.default.changeCurrentDirectoryPath(directory) else { exit(2) }
            let realm = try Realm()
            try realm.write { try realm.add(DogToy(value: ["name": "Wubba"])) }
            guard FileManager.default.fileExists(atPath: (directory as NSString).appendingPathComponent("default.burrow")) else { exit(3) }
        }
    }

    /// "Side by side": reading the actor's realm through an `isolated` parameter.
    static func names(in db: isolated RealmActor) -> [String] {
        db.realm.objects(Dog.self).map(\.name)
    }

    /// "Side by side": each Burrow form in the table.
    @Test func testSideBySide() async throws {
        let config = configuration()
        let realm = try Realm(configuration: config)
        let dog = Dog(value: ["name": "Rex", "age": 1])
        let person = Person(value: ["id": 1, "name": "Ali"])
        try realm.write { try realm.add(dog) }
        try realm.write { try realm.add(person, update: .modified) }
        try realm.write { try realm.create(Person.self, value: ["id": 1, "name": "Bo"], update: .modified) }
        #expect(person.name == "Bo")
        try realm.write { rexAge(dog) }
        try await realm.asyncWrite { dog.age += 1 }
        try realm.beginWrite()
        dog.age += 1
        try realm.commitWrite()
        #expect(dog.age == 4)
        try realm.beginWrite()
        dog.age = 0
        try realm.cancelWrite()
        #expect(dog.age == 4)
        let results = realm.objects(Dog.self)
        #expect(realm.object(ofType: Dog.self, forPrimaryKey: dog._id) == dog)
        #expect(results.where { $0.age > 2 }.count == 1)
        #expect(try results.filter("age > %@", 2).count == 1)
        #expect(try results.filter(#Predicate<Dog> { $0.age > 2 }).count == 1)
        #expect(results.sorted(byKeyPath: "age").count == 1)
        let stream = results.changes()
        try realm.write(withoutNotifying: [stream.token]) { dog.age += 1 }
        var iterator = stream.makeAsyncIterator()
        if case .initial(let dogs) = await iterator.next() { #expect(dogs.count == 1) } else { Issue.record("no initial") }
        let objectStream = dog.changes(keyPaths: ["age"])
        _ = objectStream
        let frozen = try dog.freeze()
        #expect(frozen.isFrozen)
        #expect(try frozen.thaw() != nil)
        #expect(realm.thaw(frozen) == dog)
        let frozenResults = try results.freeze()
        #expect(frozenResults.count == 1)
        let frozenRealm = try realm.freeze()
        let thawedRealm = try frozenRealm.thaw()
        #expect(frozenRealm.isFrozen && !thawedRealm.isFrozen)
        let frozenDogs = try person.dogs.freeze()
        #expect(frozenDogs.isFrozen && frozenDogs.isEmpty)
        #expect(try frozenDogs.thaw()?.isFrozen == false)
        let ported = Realm.Configuration(schemaVersion: 1, objectTypes: [Dog.self])
        #expect(ported.schemaVersion == 1)
        let copy = config.fileURL!.deletingLastPathComponent().appendingPathComponent("copy.burrow")
        try realm.writeCopy(toFile: copy)
        #expect(try Realm(configuration: Realm.Configuration(fileURL: copy, objectTypes: config.objectTypes)).objects(Dog.self).count == 1)
        let db = try await RealmActor(configuration: config)
        let fromActor = try await db.objects(Dog.self, where: { $0.name == "Rex" })
        #expect(fromActor.count == 1)
        #expect(await Self.names(in: db) == ["Rex"])
        let opened = try await Realm.open(configuration: config)
        #expect(opened.objects(Dog.self).count == 1)
        try realm.write {
            try realm.delete(dog)
            try realm.deleteAll()
        }
        #expect(realm.isEmpty)
        await db.close()
        let inMemory = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "porting-side-by-side-\(UUID())"))
        #expect(inMemory.isEmpty)
    }

    private func rexAge(_ dog: Dog) { dog.age += 1 }
}
