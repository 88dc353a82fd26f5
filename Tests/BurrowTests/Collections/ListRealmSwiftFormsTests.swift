import Burrow
import BurrowTestTraits
import Foundation
import Testing

/// Models of the lists RealmSwift's `ListTests` and primitive-list tests change and aggregate.
enum ListFormsModels {
    final class Item: Object {
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted var name = ""
    }

    final class Holder: Object {
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted var items: List<Item>
        @Persisted var ints: List<Int>
        @Persisted var optionalInts: List<Int?>
        @Persisted var doubles: List<Double>
        @Persisted var decimals: List<Decimal128>
        @Persisted var dates: List<Date>
        @Persisted var anys: List<AnyRealmValue>
        @Persisted var intSet: MutableSet<Int>
    }

    static let types: [ObjectBase.Type] = [Item.self, Holder.self]
}

/// `List` as RealmSwift has it: the range-replacing and offset forms of its changes, `==` and
/// `isEqual`, and `min()`/`max()`/`sum()`/`average()` over lists of values. Each runs on an
/// unmanaged list and on a managed one (inside a write), which must agree.
@Suite(.temporaryDirectory) struct ListRealmSwiftFormsTests {
    typealias Holder = ListFormsModels.Holder
    typealias Item = ListFormsModels.Item

    /// A realm of a new file with the suite's classes.
    private func makeRealm() throws -> Realm {
        var configuration = temporaryConfiguration()
        configuration.objectTypes = ListFormsModels.types
        return try Realm(configuration: configuration)
    }

    /// Runs `body` on the ints of an unmanaged holder, then of a managed one inside a write.
    private func onBothLists(_ body: (List<Int>) throws -> Void) throws {
        try body(Holder().ints)
        let realm = try makeRealm()
        let holder = Holder()
        try realm.write {
            try realm.add(holder)
            try body(holder.ints)
        }
    }

    @Test func replaceSubrangeReplacesRemovesAndInserts() throws {
        try onBothLists { list in
            list.append(objectsIn: [1, 1])
            list.replaceSubrange(0..<1, with: [2])
            #expect(Array(list) == [2, 1])
            list.replaceSubrange(1..<2, with: [2])
            #expect(Array(list) == [2, 2])
            list.replaceSubrange(0..<0, with: [3])
            #expect(Array(list) == [3, 2, 2])
            list.replaceSubrange(1..., with: [4, 5, 6, 7])
            #expect(Array(list) == [3, 4, 5, 6, 7])
            list.replaceSubrange(..<4, with: [])
            #expect(Array(list) == [7])
            // The new elements may come from the list itself.
            list.append(objectsIn: [8, 9])
            list.replaceSubrange(0..<1, with: list[1...])
            #expect(Array(list) == [8, 9, 8, 9])
            list.replaceSubrange(list.indices, with: [1, 2, 3])
            #expect(Array(list) == [1, 2, 3])
        }
    }

    @Test func replaceSubrangeWritesValuesSwiftCallsEqual() throws {
        let realm = try makeRealm()
        let holder = Holder()
        try realm.write {
            try realm.add(holder)
            holder.doubles.append(0.0)
            holder.doubles.replaceSubrange(0..<1, with: [-0.0])
        }
        #expect(holder.doubles[0].sign == .minus, "-0.0 == 0.0 in Swift, and is written all the same")
    }

    @Test func removeSubrangeInsertContentsAndRemoveFirstOrLast() throws {
        try onBothLists { list in
            list.append(objectsIn: 0..<10)
            list.removeSubrange(2..<4)
            #expect(Array(list) == [0, 1, 4, 5, 6, 7, 8, 9])
            list.insert(contentsOf: [2, 3], at: 2)
            #expect(Array(list) == Array(0..<10))
            list.removeFirst()
            list.removeFirst(2)
            #expect(Array(list) == Array(3..<10))
            list.removeLast()
            list.removeLast(3)
            #expect(Array(list) == [3, 4, 5])
            list.removeFirst(0)
            list.removeLast(3)
            #expect(list.isEmpty)
            list.removeSubrange(0..<0)
        }
    }

    /// RealmSwift's `testRemoveAtOffsets` and `testMoveFromOffsets`, on three elements.
    @Test func offsetsRemoveAndMoveAsSwiftUIAsks() throws {
        try onBothLists { list in
            list.append(objectsIn: [1, 2, 1])
            list.remove(atOffsets: [0, 2])
            #expect(Array(list) == [2])
            list.remove(atOffsets: [])
            #expect(Array(list) == [2])

            list.removeAll()
            list.append(objectsIn: [1, 2, 3])
            list.move(fromOffsets: [1], toOffset: 0)
            #expect(Array(list) == [2, 1, 3])
            list.move(fromOffsets: [0], toOffset: 3)
            #expect(Array(list) == [1, 3, 2])
            list.move(fromOffsets: [0], toOffset: 1)
            #expect(Array(list) == [1, 3, 2])
            list.move(fromOffsets: [2], toOffset: 1)
            #expect(Array(list) == [1, 2, 3])
            list.move(fromOffsets: [], toOffset: 1)
            #expect(Array(list) == [1, 2, 3])
            list.move(fromOffsets: [0, 2], toOffset: 1)
            #expect(Array(list) == [1, 3, 2])
        }
        // Whatever the offsets, a list moves as SwiftUI moves an array.
        var random = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let count = Int.random(in: 1...8, using: &random)
            var array = Array(0..<count)
            let list = List<Int>()
            list.append(objectsIn: array)
            let offsets = IndexSet((0..<count).filter { _ in Bool.random(using: &random) })
            let destination = Int.random(in: 0...count, using: &random)
            // SwiftUI's `Array.move`: the moved elements, in order, land where `destination`
            // was among the others.
            let moving = offsets.map { array[$0] }
            let others = array.indices.filter { !offsets.contains($0) }.map { array[$0] }
            let landing = destination - offsets.filter { $0 < destination }.count
            array = Array(others[..<landing]) + moving + Array(others[landing...])
            list.move(fromOffsets: offsets, toOffset: destination)
            #expect(Array(list) == array, "moving \(Array(offsets)) to \(destination)")
        }
    }

    @Test func listsAreEqualWhenTheSameManagedListOrEqualUnmanagedOnes() throws {
        let items = [Item(value: ["name": "a"]), Item(value: ["name": "b"]), Item(value: ["name": "c"])]
        let first = List<Item>()
        let second = List<Item>()
        #expect(first == second, "empty lists are equal")
        first.append(objectsIn: items)
        second.append(objectsIn: items)
        let third = List<Item>()
        third.append(objectsIn: items.prefix(2))
        #expect(first !== second && first == second && first.isEqual(second))
        #expect(first != third && !first.isEqual(third) && !first.isEqual("a list"))
        third.append(items[2])
        #expect(first == third)

        let realm = try makeRealm()
        let holder = Holder()
        let other = Holder()
        try realm.write { try realm.add([holder, other]) }
        let again = try #require(realm.objects(Holder.self).first { $0 == holder })
        #expect(again !== holder && holder.items == again.items, "the same managed list, through another instance of its object")
        #expect(holder.items != other.items, "two managed lists, both empty, are not the same list")
        #expect(holder.items != List<Item>(), "a managed list is not an unmanaged one")
    }

    @Test func valuesAggregateThemselves() throws {
        let realm = try makeRealm()
        let managed = Holder()
        try realm.write { try realm.add(managed) }
        for holder in [Holder(), managed] {
            #expect(holder.ints.min() == nil && holder.ints.max() == nil && holder.ints.sum() == 0)
            #expect(holder.ints.average() as Double? == nil)
            let date = Date(timeIntervalSince1970: 1_000)
            try realm.write {
                holder.ints.append(objectsIn: [3, 1, 2])
                holder.optionalInts.append(objectsIn: [nil, 5, nil, 7])
                holder.doubles.append(objectsIn: [1.5, -2.5])
                holder.decimals.append(objectsIn: [Decimal128(1), Decimal128(2)])
                holder.dates.append(objectsIn: [date, date.addingTimeInterval(-5)])
                // Values that are not numbers come first: they are left out, wherever they are.
                holder.anys.append(objectsIn: [.string("not a number"), .none, .int(1), .double(2.5), .object(Item())])
                holder.intSet.insert(objectsIn: [4, 6])
            }
            #expect(holder.ints.min() == 1 && holder.ints.max() == 3 && holder.ints.sum() == 6)
            #expect(holder.ints.average() as Double? == 2)
            #expect(holder.optionalInts.min() == .some(5) && holder.optionalInts.max() == .some(7))
            #expect(holder.optionalInts.sum() == .some(12) && holder.optionalInts.average() as Double? == 6)
            #expect(holder.doubles.sum() == -1 && holder.doubles.min() == -2.5)
            #expect(holder.decimals.sum() == Decimal128(3) && holder.decimals.average() as Decimal128? == Decimal128(1.5))
            #expect(holder.dates.min() == date.addingTimeInterval(-5) && holder.dates.max() == date)
            #expect(holder.anys.sum() == .double(3.5) && holder.anys.max() == .double(2.5) && holder.anys.min() == .int(1))
            #expect(holder.intSet.sum() == 10 && holder.intSet.max() == 6)
        }
    }

    @Test func aRangeOrOffsetOutOfBoundsTraps() async {
        await #expect(processExitsWith: .failure) {
            let list = List<Int>()
            list.append(objectsIn: [1, 2])
            list.replaceSubrange(0..<200, with: [3])
        }
        await #expect(processExitsWith: .failure) {
            let list = List<Int>()
            list.append(objectsIn: [1, 2])
            list.removeLast(3)
        }
        await #expect(processExitsWith: .failure) {
            let list = List<Int>()
            list.append(objectsIn: [1, 2, 3])
            list.move(fromOffsets: [0], toOffset: 4)
        }
        await #expect(processExitsWith: .failure) {
            let list = List<Int>()
            list.append(objectsIn: [1])
            list.remove(atOffsets: [1])
        }
    }
}
