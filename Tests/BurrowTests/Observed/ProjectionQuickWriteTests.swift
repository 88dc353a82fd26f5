import Burrow
import BurrowTestTraits
import Foundation
import Testing

/// Quick writes on projections as RealmSwift has them: `$card.delete()` through a
/// `@StateRealmObject` projection's binding, and `card.bind(\.label)`.
@MainActor
@Suite(.temporaryDirectory) struct ProjectionQuickWriteTests {
    @Test func bindWritesTheRootsPropertyInOneQuickWrite() throws {
        let config = observedConfiguration()
        let realm = try Realm(configuration: config)
        let dog = try added(ObservedTestModels.Dog(value: ["name": "Rex", "age": 3]), config)
        let card = ObservedTestModels.DogCard(projecting: dog)
        let label = card.bind(\.label)
        label.wrappedValue = "Wolfie"
        #expect(dog.name == "Wolfie")
        #expect(label.wrappedValue == "Wolfie")
        #expect(!realm.isInWriteTransaction)
        card.bind(\.years).wrappedValue = 4
        #expect(dog.age == 4)
    }

    @Test func deleteRemovesTheRootObject() throws {
        let config = observedConfiguration()
        let realm = try Realm(configuration: config)
        let dog = try added(ObservedTestModels.Dog(value: ["name": "Rex"]), config)
        @StateRealmObject var card = ObservedTestModels.DogCard(projecting: dog)
        $card.delete()
        #expect(dog.isInvalidated)
        #expect(realm.objects(ObservedTestModels.Dog.self).isEmpty)
        #expect(_card.error == nil)
        $card.delete()
        #expect(_card.error == nil, "deleting what is already deleted does nothing")
    }
}
