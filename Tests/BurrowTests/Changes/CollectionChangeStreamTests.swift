import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// The models of `CollectionChangeStreamTests`, stored under the names they had before they were namespaced.
enum CollectionChangeStreamModels {
    final class Toy: Object {
        override class func _realmObjectName() -> String? { "CCToy" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var price = 0
    }

    final class Owner: Object {
        override class func _realmObjectName() -> String? { "CCOwner" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var label = ""
        @Persisted var numbers: List<Int>
        @Persisted var toys: List<CollectionChangeStreamModels.Toy>
        @Persisted var tags: MutableSet<String>
        @Persisted var scores: Map<String, Int>
        @Persisted var toyByRoom: Map<String, CollectionChangeStreamModels.Toy?>
    }
}

/// Change streams of lists, sets, maps and whole realms.
@Suite(.temporaryDirectory) struct CollectionChangeStreamTests {
    private struct Update<Element> {
        var elements: [Element]
        var deletions: [Int]
        var insertions: [Int]
        var modifications: [Int]
    }

    /// The update in `change` with its elements, or a recorded issue.
    private func update<C: Sequence & Sendable>(
        _ change: RealmCollectionChange<C>?, sourceLocation: SourceLocation = #_sourceLocation
    ) -> Update<C.Element>? {
        guard case .update(let collection, let deletions, let insertions, let modifications) = change else {
            Issue.record("expected an update, got \(String(describing: change))", sourceLocation: sourceLocation)
            return nil
        }
        return Update(elements: Array(collection), deletions: deletions, insertions: insertions, modifications: modifications)
    }

    /// A realm with one owner (id 1) holding `numbers` and the toys 1, 2, 3.
    private func seeded(numbers: [Int] = [1, 2, 3]) throws -> (Realm, CollectionChangeStreamModels.Owner) {
        let realm = try Realm(configuration: temporaryConfiguration())
        let owner = CollectionChangeStreamModels.Owner(value: ["id": 1, "numbers": numbers])
        try realm.write {
            try realm.add(owner)
            for id in 1...3 {
                owner.toys.append(try realm.create(CollectionChangeStreamModels.Toy.self, value: ["id": id, "name": "toy \(id)", "price": id]))
            }
        }
        return (realm, owner)
    }

    @Test func aListOfValuesReportsWhatEachCommitDidByIndex() async throws {
        let (realm, owner) = try seeded()
        let changes = owner.numbers.changes().makeAsyncIterator()
        guard case .initial(let initial) = await next(changes) else {
            Issue.record("no initial element")
            return
        }
        #expect(Array(initial) == [1, 2, 3])

        try realm.write { owner.numbers.append(4) }
        let appended = update(await next(changes))
        #expect(appended?.elements == [1, 2, 3, 4] && appended?.insertions == [3] && appended?.deletions == [])

        try realm.write { owner.numbers.remove(at: 0) }
        let removed = update(await next(changes))
        #expect(removed?.elements == [2, 3, 4] && removed?.deletions == [0] && removed?.insertions == [])

        try realm.write { owner.numbers[1] = 30 }
        let replaced = update(await next(changes))
        #expect(replaced?.elements == [2, 30, 4])
        #expect(replaced?.deletions == [1] && replaced?.insertions == [1], "a value replaced in place is deleted and inserted")

        // A commit that leaves the list alone yields nothing: the next element is the one after.
        try realm.write { owner.label = "changed" }
        try realm.write { owner.numbers.insert(1, at: 0) }
        let inserted = update(await next(changes))
        #expect(inserted?.elements == [1, 2, 30, 4] && inserted?.insertions == [0] && inserted?.deletions == [])
    }

    @Test func repeatedValuesGiveTheSmallestChange() async throws {
        let (realm, owner) = try seeded(numbers: [1, 2, 1, 2, 1, 2])
        let changes = owner.numbers.changes().makeAsyncIterator()
        _ = await next(changes)
        try realm.write { owner.numbers.remove(at: 0) }
        let removed = update(await next(changes))
        #expect(removed?.elements == [2, 1, 2, 1, 2])
        #expect(removed?.deletions == [0] && removed?.insertions == [], "one removal, not moves")
        try realm.write { owner.numbers.insert(2, at: 2) }
        let inserted = update(await next(changes))
        #expect(inserted?.elements == [2, 1, 2, 2, 1, 2])
        #expect(inserted?.deletions == [] && inserted?.insertions.count == 1, "one insertion of an equal value")
        // Between a changed beginning and end, the fewest deletions and insertions.
        try realm.write {
            owner.numbers.removeAll()
            owner.numbers.append(objectsIn: [9, 1, 2, 2, 1, 8])
        }
        let middle = update(await next(changes))
        #expect(middle?.elements == [9, 1, 2, 2, 1, 8])
        #expect(middle?.deletions == [0, 5] && middle?.insertions == [0, 5], "1 2 2 1 stays: \(String(describing: middle))")
    }

    @Test func aListOfObjectsReportsMovesAndModifiedObjects() async throws {
        let (realm, owner) = try seeded()
        let changes = owner.toys.changes().makeAsyncIterator()
        _ = await next(changes)

        try realm.write { realm.object(ofType: CollectionChangeStreamModels.Toy.self, forPrimaryKey: 2)!.name = "renamed" }
        let modified = update(await next(changes))
        #expect(modified?.elements.map(\.id) == [1, 2, 3] && modified?.modifications == [1])
        #expect(modified?.elements[1].name == "renamed" && modified?.elements[1].isFrozen == true)

        try realm.write { owner.toys.move(from: 0, to: 2) }
        let moved = update(await next(changes))
        #expect(moved?.elements.map(\.id) == [2, 3, 1] && moved?.deletions == [0] && moved?.insertions == [2])

        // Deleting a toy removes it from the list.
        try realm.write { try realm.delete(realm.object(ofType: CollectionChangeStreamModels.Toy.self, forPrimaryKey: 3)!) }
        let deleted = update(await next(changes))
        #expect(deleted?.elements.map(\.id) == [2, 1] && deleted?.deletions == [1])
    }

    @Test func commitsThatCannotChangeTheListAreSkippedAndLaterOnesCount() async throws {
        let (realm, owner) = try seeded()
        let changes = owner.toys.changes().makeAsyncIterator()
        _ = await next(changes)
        // The consumer waits while the commits come, so each is looked at on its own.
        let waiter = Task { await next(changes) }
        let consumerWaits = { try await waitUntil("the consumer waiting for a commit") { changes.isWaitingForACommit } }
        try await consumerWaits()
        try realm.write { try realm.add(CollectionChangeStreamModels.Toy(value: ["id": 50, "name": "not listed"])) }  // a toy made elsewhere
        try await consumerWaits()
        try realm.write { owner.label = "renamed" }  // another field of the owner
        try await consumerWaits()
        try realm.write { realm.object(ofType: CollectionChangeStreamModels.Toy.self, forPrimaryKey: 50)!.price = 9 }  // a toy not in the list
        try await consumerWaits()
        try realm.write { realm.object(ofType: CollectionChangeStreamModels.Toy.self, forPrimaryKey: 2)!.price = 7 }
        let modified = update(await waiter.value)
        #expect(modified?.elements.map(\.id) == [1, 2, 3] && modified?.modifications == [1] && modified?.deletions == [])
        #expect(modified?.elements[1].price == 7)
    }

    @Test func keyPathsLimitWhichObjectChangesCount() async throws {
        let (realm, owner) = try seeded()
        let changes = owner.toys.changes(keyPaths: ["price"]).makeAsyncIterator()
        _ = await next(changes)
        try realm.write { realm.object(ofType: CollectionChangeStreamModels.Toy.self, forPrimaryKey: 1)!.name = "not observed" }
        try realm.write { realm.object(ofType: CollectionChangeStreamModels.Toy.self, forPrimaryKey: 3)!.price = 30 }
        let priced = update(await next(changes))
        #expect(priced?.modifications == [2], "the name change is not reported")
    }

    @Test func deletingTheOwnerDeletesEveryElementAndEndsTheStream() async throws {
        let (realm, owner) = try seeded()
        let changes = owner.numbers.changes().makeAsyncIterator()
        _ = await next(changes)
        try realm.write { try realm.delete(owner) }
        let gone = update(await next(changes))
        #expect(gone?.elements == [] && gone?.deletions == [0, 1, 2])
        #expect(await next(changes) == nil, "the stream ends")
    }

    @Test func aSetReportsIndicesInItsOrder() async throws {
        let (realm, owner) = try seeded()
        try realm.write { owner.tags.insert(objectsIn: ["b", "d"]) }
        let changes = owner.tags.changes().makeAsyncIterator()
        guard case .initial(let initial) = await next(changes) else {
            Issue.record("no initial element")
            return
        }
        #expect(Array(initial) == ["b", "d"])
        try realm.write {
            owner.tags.insert("a")
            owner.tags.insert("c")
            owner.tags.remove("d")
        }
        let changed = update(await next(changes))
        #expect(changed?.elements == ["a", "b", "c"] && changed?.insertions == [0, 2] && changed?.deletions == [1])
    }

    @Test func aMapReportsKeys() async throws {
        let (realm, owner) = try seeded()
        try realm.write {
            owner.scores["a"] = 1
            owner.scores["b"] = 2
            owner.toyByRoom["hall"] = realm.object(ofType: CollectionChangeStreamModels.Toy.self, forPrimaryKey: 1)
        }
        let scores = owner.scores.changes().makeAsyncIterator()
        let rooms = owner.toyByRoom.changes().makeAsyncIterator()
        guard case .initial(let initial) = await next(scores) else {
            Issue.record("no initial element")
            return
        }
        #expect(initial["a"] == 1 && initial.count == 2)
        _ = await next(rooms)

        try realm.write {
            owner.scores["b"] = 20
            owner.scores["c"] = 3
            owner.scores.removeObject(for: "a")
        }
        guard case .update(let map, let deletions, let insertions, let modifications) = await next(scores) else {
            Issue.record("no update")
            return
        }
        #expect(map["b"] == 20 && map["c"] == 3 && map["a"] == nil)
        #expect(deletions == ["a"] && insertions == ["c"] && modifications == ["b"])

        try realm.write { realm.object(ofType: CollectionChangeStreamModels.Toy.self, forPrimaryKey: 1)!.price = 100 }
        guard case .update(let roomMap, _, _, let modifiedRooms) = await next(rooms) else {
            Issue.record("no update")
            return
        }
        #expect(modifiedRooms == ["hall"], "the object under a key changed")
        #expect(roomMap["hall"]??.price == 100)
    }

    @Test func aRealmReportsEachCommitAndTheClassesItChanged() async throws {
        let (realm, owner) = try seeded()
        let stream = realm.changes()
        let changes = stream.makeAsyncIterator()
        guard case .initial(let version) = await next(changes) else {
            Issue.record("no initial element")
            return
        }
        #expect(version == realm.version)

        try realm.write { realm.object(ofType: CollectionChangeStreamModels.Toy.self, forPrimaryKey: 1)!.price = 5 }
        guard case .update(let first, let classes) = await next(changes) else {
            Issue.record("no update")
            return
        }
        #expect(first == realm.version && classes == ["CCToy"])

        try realm.write(withoutNotifying: [stream.token]) { owner.label = "silent" }
        try realm.write {
            try realm.add(CollectionChangeStreamModels.Toy(value: ["id": 9]))
            owner.label = "loud"
        }
        guard case .update(let second, let both) = await next(changes) else {
            Issue.record("no update")
            return
        }
        #expect(second == realm.version && both == ["CCToy", "CCOwner"], "the silent write yields nothing of its own")
    }

    @Test func aListStreamCoalescesCommitsAndStaysSilentForItsToken() async throws {
        let (realm, owner) = try seeded()
        let stream = owner.numbers.changes()
        let changes = stream.makeAsyncIterator()
        _ = await next(changes)
        try realm.write { owner.numbers.append(4) }
        try realm.write { owner.numbers.append(5) }
        let both = update(await next(changes))
        #expect(both?.elements == [1, 2, 3, 4, 5] && both?.insertions == [3, 4], "two commits, one element")
        try realm.write(withoutNotifying: [stream.token]) { owner.numbers.remove(at: 0) }
        try realm.write { owner.numbers.append(6) }
        let after = update(await next(changes))
        #expect(after?.elements == [2, 3, 4, 5, 6] && after?.insertions == [4] && after?.deletions == [], "the silent removal is baseline")
    }

    @Test func aMapWithKeyPathsReportsModifiedObjectsAndEndsWithItsOwner() async throws {
        let (realm, owner) = try seeded()
        let toy = try #require(realm.object(ofType: CollectionChangeStreamModels.Toy.self, forPrimaryKey: 1))
        try realm.write { owner.toyByRoom["hall"] = toy }
        let rooms = owner.toyByRoom.changes(keyPaths: ["price"]).makeAsyncIterator()
        _ = await next(rooms)
        try realm.write { toy.name = "not observed" }
        try realm.write { toy.price = 50 }
        guard case .update(_, let deletions, let insertions, let modifications) = await next(rooms) else {
            Issue.record("no update")
            return
        }
        #expect(deletions.isEmpty && insertions.isEmpty && modifications == ["hall"])
        try realm.write { try realm.delete(owner) }
        guard case .update(let empty, let gone, _, _) = await next(rooms) else {
            Issue.record("no update")
            return
        }
        #expect(empty.count == 0 && gone == ["hall"], "every key removed with the owner")
        #expect(await next(rooms) == nil)
    }

    @Test func aRealmStreamDoesNotKnowTheClassesAfterASchemaChange() async throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        try realm.write { try realm.add(CollectionChangeStreamModels.Toy(value: ["id": 1])) }
        let changes = realm.changes().makeAsyncIterator()
        _ = await next(changes)
        // The first object of a new class adds it to the stored schema in the same commit.
        try realm.write { try realm.add(CollectionChangeStreamModels.Owner(value: ["id": 1])) }
        guard case .update(_, let classNames) = await next(changes) else {
            Issue.record("no update")
            return
        }
        #expect(classNames == nil)
    }

    @Test func streamsThatCannotStartYieldOneError() async throws {
        let (realm, owner) = try seeded()
        let unmanaged = CollectionChangeStreamModels.Owner()
        let frozenOwner = try #require(try realm.freeze().object(ofType: CollectionChangeStreamModels.Owner.self, forPrimaryKey: owner.id))
        for stream in [unmanaged.numbers.changes(), frozenOwner.numbers.changes()] {
            let changes = stream.makeAsyncIterator()
            guard case .error(let error) = await next(changes) else {
                Issue.record("expected an error")
                continue
            }
            #expect(error.description.contains("List<Int>"))
            #expect(await next(changes) == nil)
        }
        let madeInAWrite = try realm.write { (realm.changes(), owner.numbers.changes()) }
        guard case .error = await next(madeInAWrite.0.makeAsyncIterator()) else {
            Issue.record("a realm stream made in a write starts")
            return
        }
        guard case .error = await next(madeInAWrite.1.makeAsyncIterator()) else {
            Issue.record("a list stream made in a write starts")
            return
        }
        guard case .error = await next(try realm.freeze().changes().makeAsyncIterator()) else {
            Issue.record("a frozen realm has changes")
            return
        }
        guard case .error = await next(CollectionChangeStreamModels.Owner().scores.changes().makeAsyncIterator()) else {
            Issue.record("an unmanaged map has changes")
            return
        }
    }
}

/// `CollectionDiff(repeating:)` against a model: the elements it keeps are equal and in order,
/// and, while the changed middle is small, they are as many as a longest common subsequence.
@Suite(.temporaryDirectory) struct RepeatingDiffModelTests {
    /// What the diff keeps of `old` and of `new`: each must be the same sequence.
    private func kept(_ old: [Int], _ new: [Int], _ diff: CollectionDiff) -> (fromOld: [Int], fromNew: [Int]) {
        let deleted = Set(diff.deletions)
        let inserted = Set(diff.insertions)
        return (old.indices.filter { !deleted.contains($0) }.map { old[$0] }, new.indices.filter { !inserted.contains($0) }.map { new[$0] })
    }

    /// The length of a longest common subsequence, by its recursive definition.
    private func lcsLength(_ a: [Int], _ b: [Int]) -> Int {
        var memo: [Int: Int] = [:]
        func length(_ i: Int, _ j: Int) -> Int {
            if i == a.count || j == b.count { return 0 }
            if let known = memo[i * 10_000 + j] { return known }
            let result = a[i] == b[j] ? 1 + length(i + 1, j + 1) : max(length(i + 1, j), length(i, j + 1))
            memo[i * 10_000 + j] = result
            return result
        }
        return length(0, 0)
    }

    @Test func smallListsKeepALongestCommonSubsequence() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let old = (0..<Int.random(in: 0...12, using: &generator)).map { _ in Int.random(in: 0...2, using: &generator) }
            let new = (0..<Int.random(in: 0...12, using: &generator)).map { _ in Int.random(in: 0...2, using: &generator) }
            let diff = CollectionDiff(repeating: old, new) { $0 == 2 }
            let (fromOld, fromNew) = kept(old, new, diff)
            #expect(fromOld == fromNew, "\(old) → \(new): \(diff)")
            #expect(fromNew.count == lcsLength(old, new), "\(old) → \(new): \(diff)")
            #expect(diff.modifications == new.indices.filter { !Set(diff.insertions).contains($0) && new[$0] == 2 })
        }
    }

    @Test func largeChangesStillKeepEqualElementsInOrder() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5 {
            let old = (0..<1_500).map { _ in Int.random(in: 0...4, using: &generator) }
            let new = old.shuffled(using: &generator)
            #expect(1_500 * 1_500 > CollectionDiff.exactLimit, "this exercises the occurrence diff")
            let diff = CollectionDiff(repeating: old, new) { _ in false }
            let (fromOld, fromNew) = kept(old, new, diff)
            #expect(fromOld == fromNew)
            #expect(diff.deletions.count - diff.insertions.count == old.count - new.count)
        }
    }
}
