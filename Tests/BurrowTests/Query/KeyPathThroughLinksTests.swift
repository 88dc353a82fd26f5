import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// A projection reading a property through a link, for `KeyPathThroughLinksTests`.
final class DogToyCard: Projection<CommonModels.Dog> {
    @Projected(\CommonModels.Dog.name) var title
    @Projected(\CommonModels.Dog.favoriteToy?.name) var toyName
}

/// Key paths through single links (`\Dog.favoriteToy?.name`) in `sorted(by:)`,
/// `SortDescriptor(keyPath:)` and `sectioned(by:)`, as RealmSwift names them: the dotted path
/// `"favoriteToy.name"`, for objects and for a projection's projected property.
@Suite(.temporaryDirectory) struct KeyPathThroughLinksTests {
    private typealias Dog = CommonModels.Dog

    private func realm() throws -> Realm {
        var config = temporaryConfiguration()
        config.objectTypes = [Dog.self, CommonModels.DogToy.self, CommonModels.Person.self, CommonModels.Address.self]
        let realm = try Realm(configuration: config)
        try realm.write {
            try realm.add(Dog(value: ["name": "Rex", "favoriteToy": ["name": "yak"]]))
            try realm.add(Dog(value: ["name": "Spot", "favoriteToy": ["name": "ball"]]))
            try realm.add(Dog(value: ["name": "Maui"]))
            try realm.add(CommonModels.Person(value: ["id": 1, "name": "Ali", "address": ["city": "Oslo"]]))
            try realm.add(CommonModels.Person(value: ["id": 2, "name": "Bo", "address": ["city": "Lima"]]))
        }
        return realm
    }

    @Test func sortingFollowsTheLink() throws {
        let realm = try realm()
        let dogs = realm.objects(Dog.self)
        #expect(dogs.sorted(by: \.favoriteToy?.name).map(\.name) == ["Maui", "Spot", "Rex"], "no toy (nil) sorts first")
        #expect(dogs.sorted(by: \.favoriteToy?.name, ascending: false).map(\.name) == ["Rex", "Spot", "Maui"])
        #expect(SortDescriptor(keyPath: \Dog.favoriteToy?.name).keyPath == "favoriteToy.name")
        #expect(SortDescriptor(keyPath: \Dog.name).keyPath == "name")
        try realm.write { try realm.add(Dog(value: ["name": "Ace", "favoriteToy": ["name": "yak"]])) }
        #expect(dogs.distinct(by: [\Dog.favoriteToy?.name]).count == 3, "one dog per toy name, nil included")
        let people = realm.objects(CommonModels.Person.self)
        #expect(people.sorted(by: \.address?.city).map(\.name) == ["Bo", "Ali"], "through an embedded object")
    }

    @Test func sectioningFollowsTheLink() throws {
        let realm = try realm()
        let byToy = realm.objects(Dog.self).sectioned(by: \.favoriteToy?.name)
        #expect(byToy.allKeys == [nil, "ball", "yak"])
        #expect(byToy.map { $0.map(\.name) } == [["Maui"], ["Spot"], ["Rex"]])
        let sorted = realm.objects(Dog.self).sectioned(
            by: \.favoriteToy?.name, sortDescriptors: [SortDescriptor(keyPath: "favoriteToy.name", ascending: false)])
        #expect(sorted.allKeys == ["yak", "ball", nil])
    }

    @Test func aProjectedPropertyThroughALinkSortsAndSections() throws {
        let realm = try realm()
        let cards = realm.objects(DogToyCard.self)
        #expect(cards.sorted(by: \.toyName).map(\.title) == ["Maui", "Spot", "Rex"])
        let byToy = cards.sectioned(by: \.toyName, ascending: false)
        #expect(byToy.allKeys == ["yak", "ball", nil])
        #expect(byToy[1].map(\.title) == ["Spot"])
    }
}
