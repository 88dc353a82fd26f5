import Burrow
import BurrowTestTraits
import Foundation
import Testing

// The `RealmCollection` example of Sources/Burrow/Burrow.docc/PortingFromRealmSwift.md ("Queries
// and Results"), compiled and run as the guide shows it. Keep the two in step. `Dog` and `Person`
// name the models of RealmCollectionTests, so that the example reads as in the guide.

@Suite(.temporaryDirectory) struct PortingGuideCollectionTests {
    typealias Dog = RealmCollectionModels.RCDog

    @Test func testQueriesAndResultsRealmCollection() throws {
        var config = temporaryConfiguration()
        config.objectTypes = [RealmCollectionModels.RCDog.self, RealmCollectionModels.RCOwner.self, RealmCollectionModels.RCKennel.self]
        let realm = try Realm(configuration: config)
        let person = RealmCollectionModels.RCKennel(value: ["id": 1])
        try realm.write {
            try realm.add(person)
            for (name, age) in [("Rex", 4), ("Ace", 0), ("Bo", 2)] { person.dogs.append(Dog(value: ["name": name, "age": age])) }
        }

        func names<C: RealmCollection>(of dogs: C) throws -> [String] where C.Element == Dog {
            try dogs.filter("age > %@", 1).sorted(byKeyPath: "name").map(\.name)
        }
        let everyDog = AnyRealmCollection(realm.objects(Dog.self))
        let maxAge = person.dogs.value(forKeyPath: "@max.age") as? Int

        #expect(try names(of: everyDog) == ["Bo", "Rex"])
        #expect(try names(of: person.dogs) == ["Bo", "Rex"])
        #expect(maxAge == 4)
        #expect(try person.dogs.index(matching: "age > 1") == 0)
        #expect(!everyDog.isFrozen && !realm.objects(Dog.self).isFrozen)

        let id = ObjectId("6154e59c5e31b1a2c3d4e5f6")
        #expect(id == (try ObjectId(string: "6154e59c5e31b1a2c3d4e5f6")))
        #expect(everyDog[0].isSameObject(as: person.dogs[0]))
    }
}
