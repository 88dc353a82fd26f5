import BurrowStore
import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// Random changes to random objects while iterating each kind of live collection: every loop
/// visits exactly the elements the collection had when it began, once each, in that order.
/// `BURROW_ITERATION_ROUNDS` sets the number of rounds (default 20); `BURROW_SEED` replays one.
@Suite(.temporaryDirectory) struct IterationSnapshotModelTests {
    private var rounds: Int { TestEnvironment.count("BURROW_ITERATION_ROUNDS", default: 20) }

    private enum Kind: CaseIterable { case results, filteredSorted, list, set, map, linkingObjects }

    @Test func testRandomChangesDuringIterationVisitEachStartingElementOnceInOrder() throws {
        let seed = TestSeed.make("IterationSnapshotModelTests")
        var random = TestRandom(seed: seed)
        let realm = try Realm(configuration: temporaryInMemoryConfiguration())
        var nextId = 0
        for round in 0..<rounds {
            for kind in Kind.allCases {
                try realm.write {
                    try realm.deleteAll()
                    let holder = try realm.create(IterationSnapshotModels.Holder.self, value: ["id": 1])
                    for _ in 0..<random.next(upperBound: 40) {
                        let item = try realm.create(
                            IterationSnapshotModels.Item.self,
                            value: ["id": nextId, "rank": random.next(upperBound: 20), "group": random.next(upperBound: 2)])
                        nextId += 1
                        holder.items.append(item)
                        holder.itemSet.insert(item)
                        holder.itemMap["k\(item.id)"] = item
                        if random.next() % 2 == 0 { try realm.add(IterationSnapshotModels.Holder(value: ["id": 100 + item.id, "items": [item]])) }
                    }
                }
                let holder = realm.object(ofType: IterationSnapshotModels.Holder.self, forPrimaryKey: 1)!
                let target = realm.objects(IterationSnapshotModels.Item.self).first
                // The elements each kind visits, as object keys, before the loop.
                func keysNow() -> [ObjectKey] {
                    switch kind {
                    case .results: realm.objects(IterationSnapshotModels.Item.self).evaluated.keys
                    case .filteredSorted:
                        realm.objects(IterationSnapshotModels.Item.self).where { $0.group == 0 }.sorted(byKeyPath: "rank").evaluated.keys
                    case .list: (0..<holder.items.count).map { holder.items[$0]._state!.key }
                    case .set: holder.itemSet.elements.map { $0._state!.key }
                    case .map: holder.itemMap.keys.compactMap { holder.itemMap[$0]??._state?.key }
                    case .linkingObjects: target.map { t in (0..<t.holders.count).map { t.holders[$0]._state!.key } } ?? []
                    }
                }
                let expected = keysNow()
                var visited: [ObjectKey] = []
                try realm.write {
                    func mutate() throws {
                        let all = Array(realm.objects(IterationSnapshotModels.Item.self))
                        guard !all.isEmpty else { return }
                        let item = all[random.next(upperBound: all.count)]
                        switch random.next() % 8 {
                        case 0: try realm.delete(item)
                        case 1: item.rank = random.next(upperBound: 20)
                        case 2: item.group = 1 - item.group
                        case 3:
                            let added = try realm.create(IterationSnapshotModels.Item.self, value: ["id": nextId, "group": 0])
                            nextId += 1
                            holder.items.insert(added, at: random.next(upperBound: holder.items.count + 1))
                            holder.itemSet.insert(added)
                            holder.itemMap["k\(added.id)"] = added
                        case 4: if !holder.items.isEmpty { holder.items.remove(at: random.next(upperBound: holder.items.count)) }
                        case 5: if holder.items.count > 1 { holder.items.move(from: 0, to: holder.items.count - 1) }
                        case 6:
                            holder.itemSet.remove(item)
                            holder.itemMap.removeObject(for: "k\(item.id)")
                        default:
                            if let owner = item.holders.first, owner.id != 1 { try realm.delete(owner) }
                        }
                    }
                    func visit(_ object: ObjectBase?) throws {
                        guard let object else { return }
                        visited.append(object._state!.key)
                        for _ in 0..<random.next(upperBound: 3) { try mutate() }
                    }
                    switch kind {
                    case .results: for item in realm.objects(IterationSnapshotModels.Item.self) { try visit(item) }
                    case .filteredSorted:
                        for item in realm.objects(IterationSnapshotModels.Item.self).where({ $0.group == 0 }).sorted(byKeyPath: "rank") {
                            try visit(item)
                        }
                    case .list: for item in holder.items { try visit(item) }
                    case .set: for item in holder.itemSet { try visit(item) }
                    case .map: for entry in holder.itemMap { try visit(entry.value) }
                    case .linkingObjects: if let target { for owner in target.holders { try visit(owner) } }
                    }
                }
                #expect(visited == expected, "round \(round), \(kind), seed \(seed)")
            }
        }
    }
}
