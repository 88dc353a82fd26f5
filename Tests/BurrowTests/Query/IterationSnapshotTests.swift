import BurrowStore
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// The models of `IterationSnapshotTests`, stored under the names they had before they were namespaced.
enum IterationSnapshotModels {
    final class Item: Object {
        override class func _realmObjectName() -> String? { "IterItem" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var rank = 0
        @Persisted var group = 0
        @Persisted(originProperty: "items") var holders: LinkingObjects<IterationSnapshotModels.Holder>
    }

    final class Holder: Object {
        override class func _realmObjectName() -> String? { "IterHolder" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var items: List<IterationSnapshotModels.Item>
        @Persisted var itemSet: MutableSet<IterationSnapshotModels.Item>
        @Persisted var itemMap: Map<String, IterationSnapshotModels.Item?>
        @Persisted var numbers: MutableSet<Int>
    }
}

/// Iterating a live collection visits its elements as they were when the loop began, as in
/// RealmSwift: deleting, changing or adding objects inside the loop visits each exactly once.
@Suite(.temporaryDirectory) struct IterationSnapshotTests {
    /// A realm with `count` items (ids 0..<count, rank = id, group = id % 2) and one holder
    /// whose list, set and map hold them all.
    private func populated(_ count: Int = 100, name: String = #function) throws -> (Realm, IterationSnapshotModels.Holder) {
        let realm = try Realm(configuration: temporaryInMemoryConfiguration(name))
        let holder = IterationSnapshotModels.Holder(value: ["id": 1])
        try realm.write {
            try realm.add(holder)
            for id in 0..<count {
                let item = try realm.create(IterationSnapshotModels.Item.self, value: ["id": id, "rank": id, "group": id % 2])
                holder.items.append(item)
                holder.itemSet.insert(item)
                holder.itemMap[String(format: "k%04d", id)] = item
                holder.numbers.insert(id)
            }
        }
        return (realm, holder)
    }

    private func key(_ object: ObjectBase) -> ObjectKey { object._state!.key }

    // MARK: Results

    @Test func testDeletingEveryObjectOfResultsWhileIteratingVisitsEach() throws {
        let (realm, _) = try populated()
        let items = realm.objects(IterationSnapshotModels.Item.self)
        var visited = 0
        try realm.write {
            for item in items {
                visited += 1
                try realm.delete(item)
            }
        }
        #expect(visited == 100)
        #expect(items.isEmpty)
    }

    @Test func testDeletingFilteredSortedResultsWhileIteratingVisitsEach() throws {
        let (realm, _) = try populated()
        let evens = realm.objects(IterationSnapshotModels.Item.self).where { $0.group == 0 }.sorted(byKeyPath: "rank", ascending: false)
        var ids: [Int] = []
        try realm.write {
            for item in evens {
                ids.append(item.id)
                try realm.delete(item)
            }
        }
        #expect(ids == Array(stride(from: 98, through: 0, by: -2)))
        #expect(evens.isEmpty)
        #expect(realm.objects(IterationSnapshotModels.Item.self).count == 50)
    }

    @Test func testTakingObjectsOutOfTheFilterWhileIteratingVisitsEach() throws {
        let (realm, _) = try populated()
        let evens = realm.objects(IterationSnapshotModels.Item.self).where { $0.group == 0 }
        var ids: [Int] = []
        try realm.write {
            for item in evens {
                ids.append(item.id)
                item.group = 1
                #expect(evens.count == 50 - ids.count)  // count stays live
            }
        }
        #expect(ids == Array(stride(from: 0, to: 100, by: 2)))
        #expect(evens.isEmpty)
    }

    @Test func testMovingObjectsInTheSortWhileIteratingVisitsEachInTheStartingOrder() throws {
        let (realm, _) = try populated(20)
        let byRank = realm.objects(IterationSnapshotModels.Item.self).sorted(byKeyPath: "rank")
        var ids: [Int] = []
        try realm.write {
            for item in byRank {
                ids.append(item.id)
                item.rank += 1000  // each visited object moves to the end
                #expect(byRank[byRank.count - 1].id == item.id)  // subscripts stay live
            }
        }
        #expect(ids == Array(0..<20))
    }

    @Test func testAddingObjectsWhileIteratingResultsVisitsOnlyTheObjectsAtTheStart() throws {
        let (realm, _) = try populated(10)
        let items = realm.objects(IterationSnapshotModels.Item.self)
        var visited = 0
        try realm.write {
            for _ in items {
                visited += 1
                if visited > 10 { break }  // a live iteration would never end
                try realm.add(IterationSnapshotModels.Item(value: ["id": 1000 + visited]))
            }
        }
        #expect(visited == 10)
        #expect(items.count == 20)
    }

    @Test func testDeletingAllResultsInsideTheLoopVisitsTheRestInvalidated() throws {
        let (realm, _) = try populated(10)
        let items = realm.objects(IterationSnapshotModels.Item.self)
        var invalidated = 0
        var visited = 0
        try realm.write {
            for item in items {
                visited += 1
                if visited == 1 {
                    try realm.delete(items)
                    #expect(item.isInvalidated)
                } else if item.isInvalidated {
                    invalidated += 1
                }
            }
        }
        #expect(visited == 10)
        #expect(invalidated == 9)
    }

    @Test func testSequenceOperationsOnResultsSeeTheObjectsAtTheStart() throws {
        let (realm, _) = try populated(20)
        let evens = realm.objects(IterationSnapshotModels.Item.self).where { $0.group == 0 }
        try realm.write {
            let mapped = evens.map { item -> Int in
                item.group = 1
                return item.id
            }
            #expect(mapped == Array(stride(from: 0, to: 20, by: 2)))
        }
        try realm.write {
            var seen: [Int] = []
            // `forEach` itself is what this test proves, not a `for` loop.
            // swift-format-ignore: ReplaceForEachWithForLoop
            realm.objects(IterationSnapshotModels.Item.self).forEach { item in
                seen.append(item.id)
                item.group = 0
            }
            #expect(seen == Array(0..<20))
            let kept = try evens.filter { item in
                try realm.delete(item)
                return true
            }
            #expect(kept.count == 20)
        }
        try realm.write {
            for id in 0..<10 { try realm.add(IterationSnapshotModels.Item(value: ["id": id, "rank": id])) }
            let items = realm.objects(IterationSnapshotModels.Item.self).sorted(byKeyPath: "rank")
            var offsets: [Int] = []
            for (offset, item) in items.enumerated() {
                offsets.append(offset)
                try realm.delete(item)
            }
            #expect(offsets == Array(0..<10))
        }
        try realm.write {
            for id in 0..<10 { try realm.add(IterationSnapshotModels.Item(value: ["id": id])) }
            let items = realm.objects(IterationSnapshotModels.Item.self)
            var ids: [Int] = []
            for item in items.lazy.filter({ $0.rank == 0 }) {
                ids.append(item.id)
                try realm.delete(item)
            }
            #expect(ids == Array(0..<10))
            #expect(items.isEmpty)
        }
    }

    @Test func testIteratingResultsOutsideAWriteWhileCommittingInsideTheLoop() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        try realm.write {
            for id in 0..<300 { try realm.add(IterationSnapshotModels.Item(value: ["id": id, "rank": id])) }
        }
        let items = realm.objects(IterationSnapshotModels.Item.self).where { $0.rank >= 0 }
        var ids: [Int] = []
        var ranks: [Int] = []
        for item in items {
            ids.append(item.id)
            ranks.append(item.rank)
            // Each commit moves the realm to a new version: the iterator must read the next
            // objects there, not the rows of the version it started in.
            try realm.write {
                if let next = realm.object(ofType: IterationSnapshotModels.Item.self, forPrimaryKey: item.id + 1) { next.rank = item.id + 1001 }
                try realm.add(IterationSnapshotModels.Item(value: ["id": 10_000 + item.id, "rank": -1]))
                try realm.delete(item)
            }
        }
        #expect(ids == Array(0..<300))
        #expect(ranks == [0] + Array(1001..<1300))
        #expect(items.isEmpty)
    }

    // MARK: List

    @Test func testDeletingListObjectsWhileIteratingVisitsEach() throws {
        let (realm, holder) = try populated()
        var ids: [Int] = []
        try realm.write {
            for item in holder.items {
                ids.append(item.id)
                try realm.delete(item)
            }
        }
        #expect(ids == Array(0..<100))
        #expect(holder.items.isEmpty)
    }

    @Test func testAppendingAndMovingInAListWhileIteratingVisitsTheElementsAtTheStart() throws {
        let (realm, holder) = try populated(10)
        var ids: [Int] = []
        try realm.write {
            for item in holder.items {
                ids.append(item.id)
                holder.items.append(item)
                holder.items.move(from: 0, to: holder.items.count - 1)
            }
        }
        #expect(ids == Array(0..<10))
        #expect(holder.items.count == 20)
    }

    @Test func testRemovingAllOfAListWhileIteratingOrMappingVisitsEach() throws {
        let (realm, holder) = try populated(10)
        var visited = 0
        try realm.write {
            for _ in holder.items {
                visited += 1
                holder.items.removeAll()
            }
        }
        #expect(visited == 10)
        let (realm2, holder2) = try populated(10, name: "second")
        try realm2.write {
            let ids = holder2.items.map { item -> Int in
                holder2.items.remove(at: 0)
                return item.id
            }
            #expect(ids == Array(0..<10))
        }
    }

    // MARK: MutableSet

    @Test func testRemovingSetElementsWhileIteratingVisitsEach() throws {
        let (realm, holder) = try populated(30)
        var ids: [Int] = []
        var numbers: [Int] = []
        try realm.write {
            for item in holder.itemSet {
                ids.append(item.id)
                holder.itemSet.remove(item)
            }
            for number in holder.numbers {
                numbers.append(number)
                holder.numbers.remove(number)
                holder.numbers.insert(number + 1000)
            }
        }
        #expect(ids.sorted() == Array(0..<30) && Set(ids).count == 30)
        #expect(numbers == Array(0..<30))
        #expect(holder.itemSet.isEmpty)
        #expect(holder.numbers.count == 30)
    }

    @Test func testDeletingSetObjectsOrRemovingAllWhileIteratingVisitsEach() throws {
        let (realm, holder) = try populated(30)
        var visited = 0
        try realm.write {
            for item in holder.itemSet {
                visited += 1
                if !item.isInvalidated { try realm.delete(item) }
            }
        }
        #expect(visited == 30)
        var numbers = 0
        try realm.write {
            for _ in holder.numbers {
                numbers += 1
                holder.numbers.removeAll()
            }
        }
        #expect(numbers == 30)
    }

    // MARK: Map

    @Test func testChangingAMapWhileIteratingVisitsTheEntriesAtTheStart() throws {
        let (realm, holder) = try populated(30)
        var keys: [String] = []
        try realm.write {
            for entry in holder.itemMap {
                keys.append(entry.key)
                holder.itemMap.removeObject(for: entry.key)
                holder.itemMap["a" + entry.key] = entry.value
            }
        }
        #expect(keys == (0..<30).map { String(format: "k%04d", $0) })
        #expect(holder.itemMap.count == 30)
        var visited = 0
        try realm.write {
            for entry in holder.itemMap {
                visited += 1
                if let item = entry.value, !item.isInvalidated { try realm.delete(item) }
                if visited == 2 { holder.itemMap.removeAll() }
            }
        }
        #expect(visited == 30)
    }

    // MARK: LinkingObjects

    @Test func testAHeldLinkingObjectsValueFollowsWrites() throws {
        // RealmSwift's LinkingObjects are live: a value held across writes counts what links
        // to its object now (its own testLinkingObjects asserts this).
        let realm = try Realm(configuration: temporaryInMemoryConfiguration())
        let item = IterationSnapshotModels.Item(value: ["id": 1])
        try realm.write { try realm.add(IterationSnapshotModels.Holder(value: ["id": 0, "items": [item]])) }
        let holders = item.holders
        #expect(holders.count == 1 && holders.first?.id == 0)
        try realm.write {
            try realm.add(IterationSnapshotModels.Holder(value: ["id": 1, "items": [item]]))
            #expect(holders.count == 2, "inside the write, its own links count")
        }
        #expect(holders.map(\.id) == [0, 1])
        let frozen = try holders.freeze()
        try realm.write { realm.objects(IterationSnapshotModels.Holder.self).where { $0.id == 0 }.first!.items.removeAll() }
        #expect(holders.map(\.id) == [1])
        #expect(frozen.map(\.id) == [0, 1], "a frozen value keeps its version")
        try realm.write { try realm.delete(realm.objects(IterationSnapshotModels.Holder.self)) }
        #expect(holders.isEmpty)
        #expect(frozen.count == 2)
    }

    @Test func testUnlinkingOrDeletingLinkingObjectsWhileIteratingVisitsEach() throws {
        let realm = try Realm(configuration: temporaryInMemoryConfiguration())
        let item = IterationSnapshotModels.Item(value: ["id": 1])
        try realm.write {
            for id in 0..<20 { try realm.add(IterationSnapshotModels.Holder(value: ["id": id, "items": [item]])) }
        }
        var ids: [Int] = []
        try realm.write {
            for holder in item.holders {
                ids.append(holder.id)
                holder.items.removeAll()
            }
        }
        #expect(ids == Array(0..<20))
        #expect(item.holders.isEmpty)
        try realm.write {
            for holder in realm.objects(IterationSnapshotModels.Holder.self) { holder.items.append(item) }
        }
        var visited = 0
        try realm.write {
            for holder in item.holders {
                visited += 1
                if !holder.isInvalidated { try realm.delete(realm.objects(IterationSnapshotModels.Holder.self).where { $0.id >= holder.id }) }
            }
        }
        #expect(visited == 20)
        #expect(realm.objects(IterationSnapshotModels.Holder.self).isEmpty)
    }
}
