import Burrow
import BurrowTestTraits
import Foundation
import Testing

/// Models of RealmSwift's `testAddObjectCycle`: objects that link to each other.
enum AddReleaseModels {
    final class Circle: Object {
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted var name = ""
        @Persisted var next: Circle?
        @Persisted var ring: List<Circle>
        @Persisted var byName: Map<String, Circle?>
        @Persisted var members: MutableSet<Circle>
        @Persisted var any: AnyRealmValue
    }
}

/// After `add`, the managed objects hold nothing of the unmanaged graph they were added from,
/// as RealmSwift's `ObjectCreationTests.testAddObjectCycle` asserts: once the caller lets go of
/// them, the objects of a graph with cycles are freed.
@Suite(.temporaryDirectory) struct AddReleaseTests {
    typealias Circle = AddReleaseModels.Circle

    private func realm() throws -> Realm {
        var configuration = temporaryConfiguration()
        configuration.objectTypes = [Circle.self]
        return try Realm(configuration: configuration)
    }

    /// Two objects linking to each other through every kind of property.
    private func cycle() -> (Circle, Circle) {
        let first = Circle(value: ["name": "first"])
        let second = Circle(value: ["name": "second", "next": first])
        first.next = second
        first.ring.append(second)
        second.ring.append(first)
        first.byName["second"] = second
        second.members.insert(first)
        first.any = .object(second)
        return (first, second)
    }

    @Test func anAddedCycleIsFreedOnceTheCallerLetsGo() throws {
        let realm = try realm()
        weak var weakFirst: Circle?
        weak var weakSecond: Circle?
        do {
            let (first, second) = cycle()
            weakFirst = first
            weakSecond = second
            try realm.write { try realm.add(first) }
            #expect(first.realm != nil && second.realm != nil)
            #expect(first.next?.name == "second" && second.next?.name == "first")
        }
        #expect(weakFirst == nil)
        #expect(weakSecond == nil)
        let stored = realm.objects(Circle.self).sorted(byKeyPath: "name")
        #expect(stored.map(\.name) == ["first", "second"])
        #expect(stored[0].ring.first?.name == "second" && stored[1].members.first?.name == "first")
    }

    /// The added object reads its links from the realm: it keeps none of the instances it was
    /// given alive.
    @Test func theAddedObjectDoesNotKeepTheObjectsItLinkedToAlive() throws {
        let realm = try realm()
        weak var weakSecond: Circle?
        weak var weakToy: Circle?
        let first: Circle
        do {
            let pair = cycle()
            first = pair.0
            weakSecond = pair.1
            let toy = Circle(value: ["name": "toy"])
            weakToy = toy
            first.byName["toy"] = toy
            try realm.write { try realm.add(first) }
        }
        #expect(weakSecond == nil)
        #expect(weakToy == nil)
        #expect(first.next?.name == "second" && first.byName["toy"]??.name == "toy")
    }

    /// A cancelled add leaves the graph as it was: unmanaged, its links the instances given.
    @Test func aCancelledAddLeavesTheCycleUnmanaged() throws {
        let realm = try realm()
        let (first, second) = cycle()
        try realm.beginWrite()
        try realm.add(first)
        try realm.cancelWrite()
        #expect(first.realm == nil && second.realm == nil)
        #expect(first.next === second && second.next === first)
        #expect(first.ring.first === second && second.ring.first === first)
        #expect(first.byName["second"]! === second && second.members.first === first)
        #expect(realm.objects(Circle.self).isEmpty)
    }
}
