import Burrow
import BurrowTestTraits
import Foundation
import Testing

/// Projections in the observed wrappers as RealmSwift's `SwiftUITests` have them:
/// `@ObservedResults` and `@ObservedSectionedResults` of a projection class and their quick writes, `$card.delete()` through a
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

    /// `testObservedSectionedResultsWithProjection`: sections of projections by a projected
    /// property, following commits, filtered by the root's properties.
    @Test func observedSectionedResultsOfAProjection() throws {
        let config = observedConfiguration()
        let realm = try Realm(configuration: config)
        @ObservedSectionedResults(ObservedTestModels.DogCard.self, sectionKeyPath: \.label, configuration: config) var cards
        #expect(cards.isEmpty)
        _ = try added(ObservedTestModels.Dog(value: ["name": "abc", "age": 1]), config)
        #expect(cards.count == 1 && cards[0].key == "abc")
        let card: ObservedTestModels.DogCard = cards[0][0]
        #expect(card.years == 1)
        _ = try added(ObservedTestModels.Dog(value: ["name": "def", "age": 1]), config)
        #expect(cards.allKeys == ["abc", "def"])

        @ObservedSectionedResults(ObservedTestModels.DogCard.self, sectionKeyPath: \.label, filter: "name == 'def'", configuration: config)
        var filtered
        #expect(filtered.allKeys == ["def"])
        $cards.filter = "name != 'def'"
        #expect(cards.allKeys == ["abc"])
        #expect($cards.error == nil && $filtered.error == nil)
        #expect(realm.objects(ObservedTestModels.Dog.self).count == 2)
    }

    /// The projection constructors of `testAllObservedSectionedResultsConstructors`.
    @Test func everyProjectionConstructorOfObservedSectionedResults() throws {
        let config = observedConfiguration()
        _ = try added(ObservedTestModels.Dog(value: ["name": "foo"]), config)
        _ = try added(ObservedTestModels.Dog(value: ["name": "bar"]), config)
        typealias Sections = ObservedSectionedResults<String, ObservedTestModels.DogCard>
        func labels(_ sections: Sections) -> [[String]] { sections.wrappedValue.map { $0.map(\.label) } }

        let byLabel = Sections(ObservedTestModels.DogCard.self, sectionKeyPath: \.label, configuration: config)
        #expect(byLabel.wrappedValue.allKeys == ["bar", "foo"] && labels(byLabel) == [["bar"], ["foo"]])
        let descending = Sections(
            ObservedTestModels.DogCard.self, sectionKeyPath: \.label, sortDescriptors: [SortDescriptor(keyPath: "name", ascending: false)],
            configuration: config)
        #expect(descending.wrappedValue.allKeys == ["foo", "bar"] && labels(descending) == [["foo"], ["bar"]])
        let filtered = Sections(
            ObservedTestModels.DogCard.self, sectionKeyPath: \.label, sortDescriptors: [SortDescriptor(keyPath: "name")],
            filter: "name == 'foo'", configuration: config)
        #expect(filtered.wrappedValue.allKeys == ["foo"] && labels(filtered) == [["foo"]])

        let byInitial = Sections(
            ObservedTestModels.DogCard.self, sectionBlock: { $0.label.first.map(String.init) ?? "" },
            sortDescriptors: [SortDescriptor(keyPath: "name")], configuration: config)
        #expect(byInitial.wrappedValue.allKeys == ["b", "f"] && labels(byInitial) == [["bar"], ["foo"]])
        let filteredByInitial = Sections(
            ObservedTestModels.DogCard.self, sectionBlock: { $0.label.first.map(String.init) ?? "" },
            sortDescriptors: [SortDescriptor(keyPath: "name")], filter: "name == 'foo'", configuration: config)
        #expect(filteredByInitial.wrappedValue.allKeys == ["f"] && labels(filteredByInitial) == [["foo"]])

        let wrongPrimary = Sections(
            ObservedTestModels.DogCard.self, sectionKeyPath: \.label, sortDescriptors: [SortDescriptor(keyPath: "age")],
            configuration: config)
        #expect(wrongPrimary.wrappedValue.isEmpty)
        #expect(wrongPrimary.error?.code == .invalidArgument, "a primary sort other than the root property the key path reads")
    }

    @Test func projectionSectionsFollowAnotherActorAndDeleteTheirRoots() async throws {
        let config = observedConfiguration()
        let realm = try Realm(configuration: config)
        for (name, age) in [("Rex", 3), ("Maui", 1), ("Bandido", 3)] {
            _ = try added(ObservedTestModels.Dog(value: ["name": name, "age": age]), config)
        }
        @ObservedSectionedResults(
            ObservedTestModels.DogCard.self, sectionKeyPath: \.years,
            sortDescriptors: [SortDescriptor(keyPath: "age"), SortDescriptor(keyPath: "name")],
            configuration: config) var byAge
        #expect(byAge.allKeys == [1, 3] && byAge[1].map(\.label) == ["Bandido", "Rex"])

        let fired = track { _ = byAge.count }
        let db = try await RealmActor(configuration: config)
        try await db.asyncWrite { realm in try realm.add(ObservedTestModels.Dog(value: ["name": "Spot", "age": 2])) }
        await fired.wait()
        #expect(byAge.allKeys == [1, 2, 3])

        $byAge.remove(atOffsets: [1], section: byAge[2])
        #expect(byAge[2].map(\.label) == ["Bandido"])
        #expect(realm.objects(ObservedTestModels.Dog.self).map(\.name).sorted() == ["Bandido", "Maui", "Spot"])
        $byAge.remove(atOffsets: [5], section: byAge[0])
        #expect($byAge.error?.code == .invalidArgument)
        $byAge.sortDescriptors = [SortDescriptor(keyPath: "age", ascending: false)]
        #expect(byAge.allKeys == [3, 2, 1])
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
