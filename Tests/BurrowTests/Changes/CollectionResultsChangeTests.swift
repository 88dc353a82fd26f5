import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// The models of the change streams of results of a collection.
enum CollectionResultsModels {
    final class Item: Object {
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var value = 0
        @Persisted var name = ""
        @Persisted(originProperty: "items") var owners: LinkingObjects<CollectionResultsModels.Owner>
    }

    final class Owner: Object {
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var items: List<CollectionResultsModels.Item>
        @Persisted var itemSet: MutableSet<CollectionResultsModels.Item>
        @Persisted var itemsByName: Map<String, CollectionResultsModels.Item?>
    }

    static func configuration(_ name: String = #function) -> Realm.Configuration {
        var config = temporaryConfiguration(name)
        config.objectTypes = [Item.self, Owner.self]
        return config
    }
}

/// Change streams of results of a collection (`owner.items.where { … }.changes()`), as
/// RealmSwift's notifications on results derived from a list, a set, a map or linking objects:
/// the query evaluated on the collection at each version, its order kept, the collection's own
/// changes and its objects' changes both reported.
@Suite(.temporaryDirectory) struct CollectionResultsChangeTests {
    private typealias Item = CollectionResultsModels.Item
    private typealias Owner = CollectionResultsModels.Owner

    private func item(_ realm: Realm, _ id: Int) -> Item { realm.object(ofType: Item.self, forPrimaryKey: id)! }

    /// The update of `change`, or a recorded issue.
    private func update(
        _ change: RealmCollectionChange<FrozenResults<Item>>?, sourceLocation: SourceLocation = #_sourceLocation
    ) -> (ids: [Int], deletions: [Int], insertions: [Int], modifications: [Int])? {
        guard case .update(let results, let deletions, let insertions, let modifications)? = change else {
            Issue.record("expected an update, got \(String(describing: change))", sourceLocation: sourceLocation)
            return nil
        }
        return (results.map(\.id), deletions, insertions, modifications)
    }

    @Test func aFilteredListFollowsTheListAndItsObjects() async throws {
        let realm = try Realm(configuration: CollectionResultsModels.configuration())
        let owner = Owner(value: ["id": 1, "items": [["id": 1, "value": 1], ["id": 2, "value": 9], ["id": 3, "value": 3]]])
        try realm.write { try realm.add(owner) }
        let small = owner.items.where { $0.value < 5 }
        let changes = small.changes().makeAsyncIterator()
        guard case .initial(let first)? = await next(changes) else {
            Issue.record("no initial element")
            return
        }
        #expect(first.map(\.id) == [1, 3])

        try realm.write { owner.items.append(Item(value: ["id": 4, "value": 4])) }
        #expect(update(await next(changes))! == ([1, 3, 4], [], [2], []))

        try realm.write { owner.items.move(from: 3, to: 0) }  // 4 moves to the front
        let moved = update(await next(changes))!
        #expect(moved.ids == [4, 1, 3])
        #expect(moved.deletions == [2] && moved.insertions == [0], "a move is a deletion and an insertion")

        try realm.write {
            item(realm, 1).value = 2  // modified, stays
            item(realm, 2).value = 0  // enters: it was in the list all along
            item(realm, 3).value = 7  // leaves
        }
        #expect(update(await next(changes))! == ([4, 1, 2], [2], [2], [1]))

        try realm.write { owner.items.remove(at: 0) }  // 4 leaves the list; the object stays
        #expect(update(await next(changes))! == ([1, 2], [0], [], []))
        try realm.write { try realm.delete(item(realm, 2)) }  // deleting an object takes it out of the list
        #expect(update(await next(changes))! == ([1], [1], [], []))

        try realm.write {
            try realm.add(Item(value: ["id": 9, "value": 1]))  // not in the list
            item(realm, 3).name = "elsewhere"  // in the list, filtered out
        }
        try realm.write { item(realm, 1).name = "seen" }
        #expect(update(await next(changes))! == ([1], [], [], [0]), "commits that change nothing shown give no element")

        try realm.write { try realm.delete(owner) }
        #expect(update(await next(changes))! == ([], [0], [], []), "the owner's deletion empties the results")
        #expect(small.isInvalidated)
    }

    @Test func keyPathsLimitModificationsNotTheCollectionsChanges() async throws {
        let realm = try Realm(configuration: CollectionResultsModels.configuration())
        let owner = Owner(value: ["id": 1, "items": [["id": 1], ["id": 2]]])
        try realm.write { try realm.add(owner) }
        let changes = owner.items.sorted(byKeyPath: "id", ascending: false).changes(keyPaths: ["value"]).makeAsyncIterator()
        _ = await next(changes)
        try realm.write { item(realm, 1).name = "not observed" }
        try realm.write { owner.items.append(Item(value: ["id": 3])) }
        #expect(update(await next(changes))! == ([3, 2, 1], [], [0], []))
        try realm.write { item(realm, 2).value = 5 }
        #expect(update(await next(changes))! == ([3, 2, 1], [], [], [1]))
    }

    @Test func setsMapsAndLinkingObjects() async throws {
        let realm = try Realm(configuration: CollectionResultsModels.configuration())
        let owner = Owner(value: ["id": 1])
        try realm.write {
            try realm.add(owner)
            for id in 1...4 { try realm.add(Item(value: ["id": id, "value": id])) }
            owner.itemSet.insert(objectsIn: [item(realm, 1), item(realm, 2)])
            owner.itemsByName["b"] = item(realm, 2)
            owner.itemsByName["a"] = item(realm, 1)
            owner.itemsByName["c"] = nil
            owner.items.append(item(realm, 3))
        }
        let set = owner.itemSet.sorted(byKeyPath: "id").changes().makeAsyncIterator()
        let map = owner.itemsByName.where { $0.value > 0 }.changes().makeAsyncIterator()
        let owners = item(realm, 4).owners.where { $0.id > 1 }.changes().makeAsyncIterator()
        guard case .initial(let setFirst)? = await next(set), case .initial(let mapFirst)? = await next(map),
            case .initial(let ownersFirst)? = await next(owners)
        else {
            Issue.record("no initial elements")
            return
        }
        #expect(setFirst.map(\.id) == [1, 2])
        #expect(mapFirst.map(\.id) == [1, 2], "in the order of the keys, nil left out")
        #expect(ownersFirst.isEmpty)

        try realm.write {
            owner.itemSet.remove(item(realm, 1))
            owner.itemSet.insert(item(realm, 4))
            owner.itemsByName["aa"] = item(realm, 4)
            owner.itemsByName["b"] = nil
            try realm.add(Owner(value: ["id": 2, "items": [item(realm, 4)]]))
            try realm.add(Owner(value: ["id": 0, "items": [item(realm, 4)]]))  // filtered out
        }
        #expect(update(await next(set))! == ([2, 4], [0], [1], []))
        #expect(update(await next(map))! == ([1, 4], [1], [1], []))
        guard case .update(let linking, _, let insertions, _)? = await next(owners) else {
            Issue.record("no update of the linking objects")
            return
        }
        #expect(linking.map(\.id) == [2] && insertions == [0])
    }

    /// A stream reads the collection's stored elements, the live results the collection: both
    /// must give one order (a set's, and a map's by keys of mixed case and accents).
    @Test func aStreamShowsTheOrderOfTheLiveResults() async throws {
        let realm = try Realm(configuration: CollectionResultsModels.configuration())
        let owner = Owner(value: ["id": 1])
        try realm.write {
            try realm.add(owner)
            for id in [5, 3, 9, 1, 7] {
                let item = try realm.create(Item.self, value: ["id": id])
                owner.itemSet.insert(item)
                for key in ["k\(10 - id)", "K\(id)", "é\(id)", "e\u{301}\(id)"] { owner.itemsByName[key] = item }
            }
        }
        let set = owner.itemSet.where { $0.value == 0 }
        let map = owner.itemsByName.where { $0.value == 0 }
        guard case .initial(let frozenSet)? = await next(set.changes().makeAsyncIterator()),
            case .initial(let frozenMap)? = await next(map.changes().makeAsyncIterator())
        else {
            Issue.record("no initial elements")
            return
        }
        #expect(frozenSet.map(\.id) == set.map(\.id))
        #expect(frozenMap.map(\.id) == map.map { $0!.id })
    }

    /// An object a list (or a map) holds at several places is modified at each of them.
    @Test func aRepeatedObjectIsModifiedAtEveryPlace() async throws {
        let realm = try Realm(configuration: CollectionResultsModels.configuration())
        let owner = Owner(value: ["id": 1])
        try realm.write {
            try realm.add(owner)
            let (a, b) = (try realm.create(Item.self, value: ["id": 1]), try realm.create(Item.self, value: ["id": 2]))
            owner.items.append(objectsIn: [a, a, b, a, b, a])
            for (key, item) in [("a", a), ("b", a), ("c", b), ("d", a)] { owner.itemsByName[key] = item }
        }
        let list = owner.items.where { $0.value < 5 }.changes().makeAsyncIterator()
        let map = owner.itemsByName.where { $0.value < 5 }.changes().makeAsyncIterator()
        _ = await next(list)
        _ = await next(map)
        try realm.write { item(realm, 1).value = 3 }
        #expect(update(await next(list))! == ([1, 1, 2, 1, 2, 1], [], [], [0, 1, 3, 5]))
        #expect(update(await next(map))! == ([1, 1, 2, 1], [], [], [0, 1, 3]))
    }

    /// A frozen object's collection never changes: its results' stream is an error, as the
    /// frozen collection's own is.
    @Test func resultsOfAFrozenObjectsCollectionHaveNoStream() async throws {
        let realm = try Realm(configuration: CollectionResultsModels.configuration())
        let owner = Owner(value: ["id": 1, "items": [["id": 1]]])
        try realm.write { try realm.add(owner) }
        let frozen = try owner.freeze()
        func expectFrozenError<T: ObjectBase>(_ changes: ChangeStream<RealmCollectionChange<FrozenResults<T>>>) async {
            guard case .error(let error)? = await next(changes.makeAsyncIterator()) else {
                Issue.record("expected an error")
                return
            }
            #expect(error.code == .wrongState && error.description.contains("frozen"), "\(error)")
        }
        await expectFrozenError(frozen.items.where { $0.value == 0 }.changes())
        await expectFrozenError(frozen.itemSet.where { $0.value == 0 }.changes())
        await expectFrozenError(try frozen.items[0].freeze().owners.where { $0.id > 0 }.changes())
    }

    @Test func sectionedResultsOfAListFollowTheList() async throws {
        let realm = try Realm(configuration: CollectionResultsModels.configuration())
        let owner = Owner(value: ["id": 1, "items": [["id": 1, "name": "apple"], ["id": 2, "name": "bee"], ["id": 3, "name": "avocado"]]])
        try realm.write { try realm.add(owner) }
        let sections = owner.items.where { $0.id < 10 }.sectioned(sortDescriptors: [SortDescriptor(keyPath: "name")]) {
            String($0.name.prefix(1))
        }
        let changes = sections.changes().makeAsyncIterator()
        guard case .initial(let first)? = await next(changes) else {
            Issue.record("no initial element")
            return
        }
        #expect(first.allKeys == ["a", "b"])
        try realm.write { owner.items.append(Item(value: ["id": 4, "name": "cat"])) }
        guard case .update(let after, _, let insertions, _, let sectionsToInsert, _)? = await next(changes) else {
            Issue.record("no update")
            return
        }
        #expect(after.allKeys == ["a", "b", "c"])
        #expect(insertions == [IndexPath(item: 0, section: 2)] && sectionsToInsert == IndexSet([2]))
        #expect(throws: RealmError.self, "a collection's sections still cannot be thawed") { try after.thaw() }
    }

    @Test func anotherActorsCommitReachesTheStream() async throws {
        let config = CollectionResultsModels.configuration()
        let realm = try Realm(configuration: config)
        let owner = Owner(value: ["id": 1, "items": [["id": 1]]])
        try realm.write { try realm.add(owner) }
        let changes = owner.items.where { $0.value == 0 }.changes().makeAsyncIterator()
        _ = await next(changes)
        let db = try await RealmActor(configuration: config)
        try await db.asyncWrite { realm in
            let owner = realm.object(ofType: Owner.self, forPrimaryKey: 1)!
            owner.items.append(Item(value: ["id": 2]))
            owner.items.append(Item(value: ["id": 3, "value": 1]))
        }
        #expect(update(await next(changes))! == ([1, 2], [], [1], []))
    }
}

/// Random writes to a list and its objects (appends of objects already in it too, removals,
/// moves, value changes, deletions of objects), some silent: each element of a stream of the
/// filtered list must show the model's filtered list, with indices that turn the previous
/// element into it.
@Suite(.temporaryDirectory) struct CollectionResultsChangeModelTests {
    @Test func aFilteredListsStreamFollowsRandomWrites() async throws {
        typealias Item = CollectionResultsModels.Item
        let seed = TestSeed.make("CollectionResultsChangeModelTests")
        var random = TestRandom(seed: seed)
        let rounds = TestEnvironment.count("BURROW_MODEL_OPS", default: 120)
        let realm = try Realm(configuration: CollectionResultsModels.configuration())
        let owner = CollectionResultsModels.Owner(value: ["id": 1])
        try realm.write { try realm.add(owner) }
        // The list's item ids, and each item's value (nil: deleted or never made).
        var list: [Int] = []
        var values: [Int: Int] = [:]
        func shown(_ list: [Int], _ values: [Int: Int]) -> [Int] { list.filter { values[$0]! < 3 } }
        let stream = owner.items.where { $0.value < 3 }.changes()
        let changes = stream.makeAsyncIterator()
        _ = await next(changes)
        var baseline: (list: [Int], values: [Int: Int]) = ([], [:])
        var pending = false
        for round in 0..<rounds {
            let silent = !pending && random.next(upperBound: 4) == 0
            var newList = list
            var newValues = values
            try realm.write(withoutNotifying: silent ? [stream.token] : []) {
                for _ in 0..<(1 + random.next(upperBound: 3)) {
                    let id = random.next(upperBound: 12)
                    let operation = random.next(upperBound: 5)
                    switch operation {
                    case 0:  // append, making the item if it does not exist
                        if newValues[id] == nil {
                            let value = random.next(upperBound: 5)
                            try realm.add(Item(value: ["id": id, "value": value]))
                            newValues[id] = value
                        }
                        owner.items.append(realm.object(ofType: Item.self, forPrimaryKey: id)!)
                        newList.append(id)
                    case 1, 2:
                        randomlyRemoveOrMove(in: owner.items, mirror: &newList, moving: operation == 2, random: &random)
                    case 3 where newValues[id] != nil:
                        let value = random.next(upperBound: 5)
                        realm.object(ofType: Item.self, forPrimaryKey: id)!.value = value
                        newValues[id] = value
                    case 4 where newValues[id] != nil:
                        try realm.delete(realm.object(ofType: Item.self, forPrimaryKey: id)!)
                        newValues[id] = nil
                        newList.removeAll { $0 == id }
                    default:
                        break
                    }
                }
            }
            list = newList
            values = newValues
            if silent {
                baseline = (list, values)
                continue
            }
            pending = true
            guard random.next(upperBound: 3) == 0 else { continue }
            let old = shown(baseline.list, baseline.values)
            let new = shown(list, values)
            if old == new, new.allSatisfy({ baseline.values[$0] == values[$0] }) { continue }
            guard case .update(let results, let deletions, let insertions, let modifications)? = await next(changes) else {
                Issue.record("round \(round): expected an update (seed \(seed))")
                return
            }
            #expect(results.map(\.id) == new, "round \(round), seed \(seed)")
            let kept = old.indices.filter { !deletions.contains($0) }.map { old[$0] }
            let stayed = new.indices.filter { !insertions.contains($0) }.map { new[$0] }
            #expect(kept == stayed, "round \(round), seed \(seed): \(old) to \(new) is not -\(deletions) +\(insertions)")
            let changedValue = Set(stayed.filter { baseline.values[$0] != values[$0] })
            #expect(changedValue.isSubset(of: Set(modifications.map { new[$0] })), "round \(round), seed \(seed)")
            baseline = (list, values)
            pending = false
        }
        _ = try realm.storage.snapshot().verify()
    }
}
