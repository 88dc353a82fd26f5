import Burrow
import BurrowTestTraits
import Foundation
import Testing

/// Models of the maps RealmSwift's `MapTests` and primitive-map tests merge, compare, iterate
/// and aggregate.
enum MapFormsModels {
    final class Item: Object {
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted var name = ""
    }

    final class Leaf: EmbeddedObject {
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted var value = 0
    }

    final class Holder: Object {
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted var leaves: Map<String, Leaf?>
        @Persisted var items: Map<String, Item?>
        @Persisted var ints: Map<String, Int>
        @Persisted var optionalDoubles: Map<String, Double?>
        @Persisted var anys: Map<String, AnyRealmValue>
    }

    static let types: [ObjectBase.Type] = [Item.self, Leaf.self, Holder.self]
}

/// `Map` as RealmSwift has it: `merge`, `==` and `isEqual`, iteration as `SingleMapEntry` and
/// `asKeyValueSequence()`, and `min()`/`max()`/`sum()`/`average()` over maps of values. Each
/// runs on an unmanaged map and on a managed one (inside a write), which must agree.
@Suite(.temporaryDirectory) struct MapRealmSwiftFormsTests {
    typealias Holder = MapFormsModels.Holder
    typealias Item = MapFormsModels.Item

    /// Runs `body` on an unmanaged holder, then on a managed one inside a write.
    private func onBothHolders(_ body: (Holder) throws -> Void) throws {
        try body(Holder())
        var configuration = temporaryConfiguration()
        configuration.objectTypes = MapFormsModels.types
        let realm = try Realm(configuration: configuration)
        let holder = Holder()
        try realm.write {
            try realm.add(holder)
            try body(holder)
        }
    }

    @Test func embeddedObjectsJoinTheMapAndKeepOneParent() throws {
        // MapTests.testAppendEmbedded and testSetEmbedded: each assigned object becomes the
        // map's; the one it replaces is deleted; an object the map holds already cannot be
        // assigned again (RealmSwift raises "Cannot add an existing managed embedded object";
        // Burrow records it and the commit throws it, changing nothing).
        var configuration = temporaryConfiguration()
        configuration.objectTypes = MapFormsModels.types
        let realm = try Realm(configuration: configuration)
        let holder = Holder()
        try realm.write { try realm.add(holder) }
        let map = holder.leaves
        let replaced = try realm.write { () -> MapFormsModels.Leaf in
            for i in 0..<10 { map["\(i)"] = MapFormsModels.Leaf(value: [i]) }
            return try #require(map["0"] ?? nil)
        }
        #expect(map.count == 10)
        for entry in map {
            #expect(Int(entry.key) == entry.value?.value)
            #expect(entry.value?.realm != nil)
        }
        let leaf = MapFormsModels.Leaf(value: [42])
        try realm.write { map["0"] = leaf }
        #expect(map["0"]??.isSameObject(as: leaf) == true)
        #expect(leaf.realm != nil && leaf.value == 42)
        #expect(replaced.isInvalidated)

        for reassign in [{ map["unassigned"] = map["1"] ?? nil }, { map["0"] = leaf }] {
            #expect(throws: RealmError.self) { try realm.write { reassign() } }
        }
        do {
            try realm.write { map["other"] = leaf }
            Issue.record("assigning a managed embedded object again did not throw")
        } catch {
            #expect("\(error)".contains("exactly one parent"), "\(error)")
        }
        #expect(map.count == 10 && map["unassigned"] == nil && map["other"] == nil)
    }

    @Test func mergeKeepsWhatTheCombiningClosureReturns() throws {
        try onBothHolders { holder in
            let map = holder.ints
            map.merge(["a": 1, "b": 2]) { old, _ in old }
            map.merge([(key: "b", value: 20), (key: "c", value: 30)]) { old, new in old + new }
            #expect(Array(map.asKeyValueSequence().map(\.key)) == ["a", "b", "c"])
            #expect(map["a"] == 1 && map["b"] == 22 && map["c"] == 30)
            let other = Map<String, Int>()
            other["c"] = 3
            other["d"] = 4
            map.merge(other) { _, new in new }
            #expect(map["c"] == 3 && map["d"] == 4 && map.count == 4)
            #expect(map.contains { key, value in key == "d" && value == 4 })
            #expect(!map.contains { _, value in value > 100 })

            // Objects merge too; a new unmanaged one is added with its map.
            let rex = Item(value: ["name": "Rex"])
            holder.items.merge(["best": rex, "none": nil]) { old, _ in old }
            holder.items.merge(["best": Item(value: ["name": "Fido"])]) { old, _ in old }
            #expect(holder.items["best"]??.name == "Rex" && holder.items.keys == ["best", "none"])
            if let realm = holder.realm { #expect(rex.realm === realm) }
        }
    }

    @Test func iterationYieldsEntriesAndKeyValueTuples() throws {
        try onBothHolders { holder in
            holder.ints["b"] = 2
            holder.ints["a"] = 1
            var seen: [String] = []
            for entry in holder.ints { seen.append("\(entry.key)=\(entry.value)") }
            #expect(seen == ["a=1", "b=2"])
            seen = []
            for (key, value) in holder.ints.asKeyValueSequence() { seen.append("\(key)=\(value)") }
            #expect(seen == ["a=1", "b=2"])
            // Entries compare by value and hash by key, as RealmSwift's.
            let entries = Array(holder.ints)
            #expect(entries[0] == SingleMapEntry(key: "x", value: 1) && entries[0] != entries[1])
            #expect(Set(entries).count == 2)
        }
    }

    @Test func mapsAreEqualWhenTheSameManagedMapOrEqualUnmanagedOnes() throws {
        let first = Map<String, Int>()
        let second = Map<String, Int>()
        #expect(first == second, "empty maps are equal")
        first.merge(["a": 1, "b": 2]) { old, _ in old }
        second.merge(["b": 2, "a": 1]) { old, _ in old }
        let third = Map<String, Int>()
        third["a"] = 1
        #expect(first !== second && first == second && first.isEqual(second))
        #expect(first != third && !first.isEqual(third) && !first.isEqual(["a": 1]))
        third["b"] = 2
        #expect(first == third)
        third["b"] = 3
        #expect(first != third, "the same keys, another value")

        var configuration = temporaryConfiguration()
        configuration.objectTypes = MapFormsModels.types
        let realm = try Realm(configuration: configuration)
        let holder = Holder()
        let other = Holder()
        try realm.write { try realm.add([holder, other]) }
        let again = try #require(realm.objects(Holder.self).first { $0 == holder })
        #expect(holder.ints == again.ints && holder.ints.isEqual(again.ints))
        #expect(holder.ints != other.ints, "two managed maps, both empty, are not the same map")
        #expect(holder.ints != Map<String, Int>())
    }

    @Test func valuesAggregateThemselves() throws {
        try onBothHolders { holder in
            #expect(holder.ints.min() == nil && holder.ints.max() == nil && holder.ints.sum() == 0)
            #expect(holder.ints.average() as Double? == nil)
            holder.ints.merge(["a": 3, "b": 1, "c": 2]) { old, _ in old }
            holder.optionalDoubles.merge(["a": 1.5, "b": nil, "c": 2.5]) { old, _ in old }
            holder.anys.merge(["a": .string("not a number"), "b": .int(4), "c": .decimal128(Decimal128(2))]) { old, _ in old }
            #expect(holder.ints.min() == 1 && holder.ints.max() == 3 && holder.ints.sum() == 6)
            #expect(holder.ints.average() as Double? == 2)
            #expect(holder.optionalDoubles.sum() == .some(4) && holder.optionalDoubles.max() == .some(2.5))
            #expect(holder.optionalDoubles.average() as Double? == 2)
            #expect(holder.anys.min() == .decimal128(Decimal128(2)) && holder.anys.max() == .int(4))
        }
    }
}
