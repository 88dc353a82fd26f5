import Burrow
import BurrowTestTraits
import Foundation
import Testing

// The samples of Sources/Burrow/Burrow.docc/GettingStarted.md, compiled and run as the page shows
// them (DocumentationSamplesTests checks that they are the page's), each followed by checks of
// what the page says about it.

/// The page's models, under the page's names. Concurrency.md and Queries.md use them too.
enum GettingStartedPage {
    final class DogToy: Object {
        override class func shouldIncludeInDefaultSchema() -> Bool { false }  // test only
        @Persisted var name = ""
    }

    final class Dog: Object {
        override class func shouldIncludeInDefaultSchema() -> Bool { false }  // test only
        @Persisted(primaryKey: true) var _id: ObjectId  // unique; a new id by default
        @Persisted(indexed: true) var name = ""
        @Persisted var age = 0
        @Persisted var favoriteToy: DogToy?  // a link: optional
        @Persisted var citiesVisited: MutableSet<String>
        @Persisted var companion: AnyRealmValue  // a value of any type, or none
        @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
    }

    final class Person: Object {
        override class func shouldIncludeInDefaultSchema() -> Bool { false }  // test only
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var dogs: List<Dog>  // links, in order
        @Persisted var address: Address?  // embedded: lives inside the person
    }

    final class Address: EmbeddedObject {
        override class func shouldIncludeInDefaultSchema() -> Bool { false }  // test only
        @Persisted var street: String?
        @Persisted var city: String?
    }

    /// The page's classes, for `objectTypes`.
    static let objectTypes: [ObjectBase.Type] = [Dog.self, DogToy.self, Person.self, Address.self]
}

@Suite(.temporaryDirectory) struct GettingStartedGuideTests {
    typealias Dog = GettingStartedPage.Dog
    typealias DogToy = GettingStartedPage.DogToy
    typealias Person = GettingStartedPage.Person
    typealias Address = GettingStartedPage.Address

    @Test func testOpenWriteReadDelete() throws {
        let url = try #require(temporaryConfiguration().fileURL)
        // "Opening"
        var config = Realm.Configuration(fileURL: url)  // or Realm.Configuration(inMemoryIdentifier: "cache")
        config.objectTypes = [Dog.self, DogToy.self, Person.self, Address.self]
        let realm = try Realm(configuration: config)

        // "Writing"
        let rex = Dog(value: ["name": "Rex", "age": 1])
        try realm.write {
            try realm.add(rex)
            rex.favoriteToy = DogToy(value: ["name": "Wubba"])  // added with Rex
            rex.citiesVisited.insert("Toronto")
        }
        try realm.write {
            rex.age += 1
        }
        #expect(rex.realm === realm && rex.age == 2)
        #expect(realm.objects(DogToy.self).map(\.name) == ["Wubba"])

        // "Upserts and partial updates"
        try realm.write {
            try realm.add(Person(value: ["id": 1234, "name": "Jones"]), update: .modified)
            try realm.add(Person(value: ["id": 1234, "name": "Bowie"]), update: .modified)
            try realm.create(Person.self, value: ["id": 1234, "dogs": [["name": "Buster", "age": 5]]], update: .modified)
        }
        let bowie = try #require(realm.object(ofType: Person.self, forPrimaryKey: 1234))
        #expect(bowie.name == "Bowie", "create changes only the keys its dictionary has")
        #expect(bowie.dogs.map(\.name) == ["Buster"] && bowie.dogs.first?.owners.first?.name == "Bowie")
        #expect(realm.objects(Person.self).count == 1)

        // "Key-value coding"
        try realm.write {
            rex.setValue("Rex II", forKey: "name")
            realm.objects(Dog.self).setValue(3, forKey: "age")  // every dog is 3 now
        }
        print(rex.value(forKey: "name") ?? "none")  // Rex II
        #expect(rex.value(forKey: "name") as? String == "Rex II")
        #expect(realm.objects(Dog.self).map(\.age) == [3, 3])

        // "Values of any type"
        try realm.write {
            rex.companion = .fromDictionary(["toys": .fromArray([.string("ball")]), "naps": .int(3)])
        }
        try realm.write {
            rex.companion.dictionaryValue?["toys"]?.listValue?.append(.string("rope"))
        }
        print(rex.companion.dictionaryValue?["toys"]?.listValue?.count ?? 0)  // 2
        #expect(rex.companion.dictionaryValue?["toys"]?.listValue.map(Array.init) == [.string("ball"), .string("rope")])
        #expect(rex.companion.dictionaryValue?["naps"] == .int(3))

        // "Reading"
        let dogs = realm.objects(Dog.self)  // lazy and live
        print(dogs.count, dogs.first?.name ?? "none")
        let same = realm.object(ofType: Dog.self, forPrimaryKey: rex._id)
        #expect(dogs.count == 2)
        #expect(same == rex && same?.favoriteToy?.name == "Wubba")

        try realm.write {
            try realm.add([Dog(value: ["name": "Old", "age": 11]), Dog(value: ["name": "Older", "age": 12])])
        }
        try realm.write {
            for dog in realm.objects(Dog.self).where({ $0.age > 10 }) {
                try realm.delete(dog)  // visits every old dog, and deletes each
            }
        }
        #expect(dogs.map(\.name).sorted() == ["Buster", "Rex II"])

        // "Deleting"
        let buster = try #require(bowie.dogs.first)
        try realm.write {
            try realm.delete(bowie.dogs.first!)
        }
        #expect(bowie.dogs.isEmpty && buster.isInvalidated)
        #expect(dogs.map(\.name) == ["Rex II"])
    }

    @Test func testAWriteThatThrowsKeepsNothing() throws {
        struct Oops: Error {}
        var config = temporaryConfiguration()
        config.objectTypes = GettingStartedPage.objectTypes
        let realm = try Realm(configuration: config)
        let dog = Dog(value: ["name": "Maui"])
        // "A write that throws keeps nothing"
        do {
            try realm.write {
                try realm.add(dog)
                throw Oops()
            }
        } catch {
            print(dog.realm == nil)  // true: Maui is unmanaged again
        }
        #expect(dog.realm == nil)
        #expect(realm.objects(Dog.self).isEmpty)
    }

    @Test func testCompacting() throws {
        var config = Realm.Configuration(fileURL: try testDirectory().url.appendingPathComponent("compact.burrow"))
        config.objectTypes = GettingStartedPage.objectTypes
        try {
            let realm = try Realm(configuration: config)
            try realm.write { for i in 0..<2000 { try realm.add(Dog(value: ["name": "Dog \(i) " + String(repeating: "x", count: 200)])) } }
            try realm.write { try realm.delete(realm.objects(Dog.self).where { $0.name != "Dog 7 " + String(repeating: "x", count: 200) }) }
        }()
        let sizeBefore = try FileManager.default.attributesOfItem(atPath: config.fileURL!.path)[.size] as! Int
        let result = try Realm.compact(configuration: config)
        print("\(result.fileSizeBefore) → \(result.fileSizeAfter) bytes")
        #expect(result.fileSizeBefore == sizeBefore && result.fileSizeAfter < sizeBefore)

        config.shouldCompactOnLaunch = { totalBytes, usedBytes in
            // Over 100 MB, and less than half of it in use.
            totalBytes > 100 * 1024 * 1024 && Double(usedBytes) / Double(totalBytes) < 0.5
        }
        let realm = try Realm(configuration: config)
        #expect(realm.objects(Dog.self).count == 1)
        #expect(try FileManager.default.attributesOfItem(atPath: config.fileURL!.path)[.size] as! Int == result.fileSizeAfter)
    }
}
