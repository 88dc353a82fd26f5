import Burrow
import BurrowTestTraits
import Foundation
import Testing

/// Projections in the observed wrappers as RealmSwift's `SwiftUITests` have them:
/// `@ObservedResults` of a projection class and its quick writes, `$card.delete()` through a
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

    /// `testResultsAppendProjection`, `testResultsRemoveProjection`: the wrapper shows the
    /// projections of the root class's objects, and follows commits.
    @Test func observedResultsOfAProjectionFollowTheRootObjects() throws {
        let config = observedConfiguration()
        let realm = try Realm(configuration: config)
        @ObservedResults(ObservedTestModels.DogCard.self, configuration: config) var cards
        #expect(cards.isEmpty)
        let rex = try added(ObservedTestModels.Dog(value: ["name": "Rex", "age": 3]), config)
        #expect(cards.count == 1)
        let card: ObservedTestModels.DogCard = try #require(cards.first)
        #expect(card.label == "Rex" && card.years == 3)
        #expect(card.rootObject.isSameObject(as: rex))
        try realm.write { try realm.delete(rex) }
        #expect(cards.isEmpty)
    }

    @Test func observedResultsOfAProjectionFilterAndSortByTheRootsProperties() throws {
        let config = observedConfiguration()
        for (name, age) in [("Rex", 3), ("Maui", 1), ("Bandido", 7)] {
            _ = try added(ObservedTestModels.Dog(value: ["name": name, "age": age]), config)
        }
        @ObservedResults(
            ObservedTestModels.DogCard.self, configuration: config, filter: "age > 2",
            sortDescriptor: SortDescriptor(keyPath: "age", ascending: false))
        var cards
        #expect(cards.map(\.label) == ["Bandido", "Rex"])
        $cards.filter = "name BEGINSWITH 'M'"
        #expect(cards.map(\.label) == ["Maui"])
        $cards.filter = "label == 'Maui'"
        #expect(cards.isEmpty)
        #expect($cards.error != nil, "a filter names the root's properties, not the projection's")
    }

    /// `testProjectionDelete`: a `@StateRealmObject` projection of an unmanaged object is
    /// appended through the results' wrapper, then deleted through its own.
    @Test func appendAndRemoveProjectionsThroughTheResultsWrapper() throws {
        let config = observedConfiguration()
        let realm = try Realm(configuration: config)
        @ObservedResults(ObservedTestModels.DogCard.self, configuration: config) var cards
        @StateRealmObject var card = ObservedTestModels.DogCard(projecting: ObservedTestModels.Dog(value: ["name": "Rex"]))
        $card.delete()
        #expect(cards.isEmpty, "deleting an unmanaged projection's object does nothing")
        $cards.append(card)
        #expect(cards.count == 1 && card.realm != nil)
        #expect($cards.error == nil)
        $cards.append(card)
        #expect(cards.count == 1, "appending an object already added adds nothing")
        let maui = ObservedTestModels.DogCard(projecting: ObservedTestModels.Dog(value: ["name": "Maui"]))
        $cards.append(maui)
        #expect(cards.map(\.label).sorted() == ["Maui", "Rex"])
        $cards.remove(maui)
        #expect(cards.map(\.label) == ["Rex"])
        $cards.remove(atOffsets: IndexSet([0]))
        #expect(cards.isEmpty && realm.objects(ObservedTestModels.Dog.self).isEmpty)
        $cards.remove(ObservedTestModels.DogCard(projecting: ObservedTestModels.Dog()))
        #expect($cards.error?.code == .invalidObject)
    }

    /// `realm.objects(_:)` of a projection class is `Results` of projections.
    @Test func resultsOfProjections() throws {
        let config = observedConfiguration()
        let realm = try Realm(configuration: config)
        _ = try added(ObservedTestModels.Dog(value: ["name": "Jason", "age": 3]), config)
        let cards: Results<ObservedTestModels.DogCard> = realm.objects(ObservedTestModels.DogCard.self)
        let jason = try #require(cards.first(where: { $0.label == "Jason" }))
        try realm.write { jason.label = "David" }
        #expect(realm.objects(ObservedTestModels.Dog.self).first?.name == "David")
        #expect(try cards.filter("name == 'David'").first == jason)
        #expect(cards.sorted(byKeyPath: "age").map(\.years) == [3])
        #expect(Set(cards).count == 1, "projections of one object are equal, and hash alike")
    }

    /// A projection is no property type: declaring one is a schema error.
    @Test func aProjectionPropertyIsASchemaError() throws {
        var config = temporaryConfiguration()
        config.objectTypes = [ObservedTestModels.Dog.self, ProjectionHolder.self]
        let error = #expect(throws: RealmError.self) { try Realm(configuration: config) }
        #expect(error?.description.contains("Property 'card' is a Projection") == true, "\(error?.description ?? "")")
    }
}

/// A class declaring a projection as a property, which cannot be stored.
final class ProjectionHolder: Object {
    override class func shouldIncludeInDefaultSchema() -> Bool { false }
    @Persisted var card: ObservedTestModels.DogCard?
}
