import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// Foundation's `#Predicate` runs as the same query its query-string twin does; constructs
/// Burrow cannot translate are thrown errors that name them.
@Suite(.temporaryDirectory) struct QueryFoundationPredicateTests {
    private func realm() throws -> Realm {
        let realm = try Realm(configuration: temporaryInMemoryConfiguration())
        try realm.write {
            try realm.add(CommonModels.Dog(value: ["name": "Rex", "age": 1, "favoriteToy": CommonModels.DogToy(value: ["name": "ball"])]))
            try realm.add(CommonModels.Dog(value: ["name": "Rover", "age": 4]))
            try realm.add(CommonModels.Dog(value: ["name": "Fido", "age": 7, "favoriteToy": CommonModels.DogToy(value: ["name": "rope"])]))
            try realm.add(CommonModels.Person(value: ["id": 1, "name": "Ali", "dogs": [CommonModels.Dog(value: ["name": "Ace", "age": 2])]]))
        }
        return realm
    }

    @Test func testPredicatesMatchTheirQueryStrings() throws {
        let realm = try realm()
        let dogs = realm.objects(CommonModels.Dog.self)
        func same(_ predicate: Predicate<CommonModels.Dog>, _ query: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            #expect(try dogs.filter(predicate).map(\.name) == dogs.filter(query).map(\.name), "\(query)", sourceLocation: sourceLocation)
        }
        let limit = 3
        try same(#Predicate<CommonModels.Dog> { $0.age < 2 }, "age < 2")
        try same(#Predicate<CommonModels.Dog> { $0.age >= limit && $0.name.starts(with: "R") }, "age >= 3 AND name BEGINSWITH 'R'")
        try same(#Predicate<CommonModels.Dog> { $0.age > 5 || !($0.name != "Rex") }, "age > 5 OR NOT name != 'Rex'")
        try same(#Predicate<CommonModels.Dog> { ["Rex", "Fido"].contains($0.name) }, "name IN {'Rex', 'Fido'}")
        try same(#Predicate<CommonModels.Dog> { $0.name.contains("ov") }, "name CONTAINS 'ov'")
        try same(#Predicate<CommonModels.Dog> { $0.favoriteToy?.name == "ball" }, "favoriteToy.name == 'ball'")
        try same(#Predicate<CommonModels.Dog> { $0.favoriteToy!.name == "rope" }, "favoriteToy.name == 'rope'")
        try same(#Predicate<CommonModels.Dog> { $0.age <= 4 && $0.age != 1 }, "age <= 4 AND age != 1")
        #expect(try dogs.filter(#Predicate<CommonModels.Dog> { $0.age < 5 }).sorted(byKeyPath: "age", ascending: false).first?.name == "Rover")
        let frozen = try dogs.freeze()
        #expect(try frozen.filter(#Predicate<CommonModels.Dog> { $0.age > 3 }).count == 2)
    }

    @Test func testUntranslatableConstructsAreNamed() throws {
        let realm = try realm()
        let dogs = realm.objects(CommonModels.Dog.self)
        let cases: [(Predicate<CommonModels.Dog>, String)] = [
            (#Predicate<CommonModels.Dog> { $0.age % 2 == 0 }, "IntRemainder"),
            (#Predicate<CommonModels.Dog> { $0.name.count > 3 }, "String"),
            (#Predicate<CommonModels.Dog> { $0.age + 1 > 3 }, "Arithmetic"),
            (#Predicate<CommonModels.Dog> { $0.favoriteToy?.name.count == 3 }, "String"),
        ]
        for (predicate, fragment) in cases {
            do {
                _ = try dogs.filter(predicate)
                Issue.record("\(fragment) did not throw")
            } catch {
                #expect(error.code == .invalidArgument)
                #expect(error.description.contains(fragment), "\(error.description)")
            }
        }
    }
}

@Suite(.temporaryDirectory) struct KeyPathNameTests {
    @Test func testKeyPathsNameOnePersistedProperty() throws {
        #expect(try KeyPathName.resolve(\CommonModels.Dog.name) == "name")
        #expect(try KeyPathName.resolve(\CommonModels.Dog.favoriteToy) == "favoriteToy")
        #expect(try KeyPathName.resolve(\CommonModels.Person.dogs) == "dogs")
        #expect(try KeyPathName.resolve(\CommonModels.Dog.owners) == "owners")
        for (keyPath, fragment) in [(\CommonModels.Dog.favoriteToy?.name, "reads more than"), (\CommonModels.Dog.name.count, "reads more than")]
            as [(AnyKeyPath, String)]
        {
            do {
                switch keyPath {
                case let k as KeyPath<CommonModels.Dog, String?>: _ = try KeyPathName.resolve(k)
                case let k as KeyPath<CommonModels.Dog, Int>: _ = try KeyPathName.resolve(k)
                default: Issue.record("unexpected key path type")
                }
                Issue.record("\(keyPath) did not throw")
            } catch {
                #expect(error.description.contains(fragment), "\(error.description)")
            }
        }
        do {
            _ = try KeyPathName.resolve(\CommonModels.Dog.description)
            Issue.record("a computed property did not throw")
        } catch {
            #expect(error.description.contains("does not name one @Persisted property"), "\(error.description)")
        }
    }
}
