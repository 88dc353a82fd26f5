import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// What an update of a stream of results of values says, for comparing in one expectation.
struct ValueUpdate<Element: RealmCollectionValue & Equatable>: Equatable, CustomStringConvertible {
    var values: [Element]
    var deletions: [Int]
    var insertions: [Int]
    var modifications: [Int]

    init(_ values: [Element], _ deletions: [Int], _ insertions: [Int], _ modifications: [Int]) {
        (self.values, self.deletions, self.insertions, self.modifications) = (values, deletions, insertions, modifications)
    }

    var description: String { "\(values) -\(deletions) +\(insertions) ~\(modifications)" }

    /// The update of `change`, or nil with a recorded issue.
    init?(of change: RealmCollectionChange<FrozenValueResults<Element>>?, sourceLocation: SourceLocation = #_sourceLocation) {
        guard case .update(let results, let deletions, let insertions, let modifications)? = change else {
            Issue.record("expected an update, got \(String(describing: change))", sourceLocation: sourceLocation)
            return nil
        }
        self.init(Array(results), deletions, insertions, modifications)
    }

    /// `old` with the deletions removed (by index, descending) and then the inserted values put
    /// at their indices (ascending): what the update says the results became.
    func applied(to old: [Element]) -> [Element]? {
        guard deletions == deletions.sorted(), Set(deletions).count == deletions.count, deletions.allSatisfy(old.indices.contains),
            insertions == insertions.sorted(), Set(insertions).count == insertions.count, insertions.allSatisfy(values.indices.contains)
        else { return nil }
        var result = old
        for index in deletions.reversed() { result.remove(at: index) }
        for index in insertions {
            guard index <= result.count else { return nil }
            result.insert(values[index], at: index)
        }
        return result
    }
}

/// The first element of `changes`, which must be `.initial`, as an array (nil, with a recorded
/// issue, otherwise).
func initialValues<Element>(
    _ changes: ChangeStream<RealmCollectionChange<FrozenValueResults<Element>>>.Iterator, sourceLocation: SourceLocation = #_sourceLocation
) async -> [Element]? {
    guard case .initial(let results)? = await next(changes, sourceLocation: sourceLocation) else {
        Issue.record("no initial element", sourceLocation: sourceLocation)
        return nil
    }
    #expect(results.isFrozen, sourceLocation: sourceLocation)
    return Array(results)
}

/// Change streams of results of values (`owner.scores.sorted().changes()`), as RealmSwift's
/// notifications on results of a list, set or map of primitives: `.initial`, then an update per
/// commit that changed the results, with deletions indexing the old results and insertions and
/// modifications the new; a moved or replaced value is deleted and inserted; an object in an
/// `AnyRealmValue` is modified when it changes; the owner's deletion deletes every value and
/// ends the stream.
@Suite(.temporaryDirectory) struct ValueResultsChangeTests {
    private typealias Owner = FrozenValueModels.Owner
    private typealias Target = FrozenValueModels.Target

    private func realm(with value: [String: Any], _ name: String = #function) throws -> (Realm, Owner) {
        try FrozenValueModels.realm(with: value, name)
    }

    @Test func listEditsOfFilteredValues() async throws {
        let (realm, owner) = try realm(with: ["scores": [1, 2, 3]])
        let changes = owner.scores.where { $0 > 0 }.changes().makeAsyncIterator()
        #expect(await initialValues(changes) == [1, 2, 3])

        try realm.write { owner.scores.append(4) }
        #expect(ValueUpdate(of: await next(changes)) == ValueUpdate([1, 2, 3, 4], [], [3], []))
        try realm.write { owner.scores.remove(at: 0) }
        #expect(ValueUpdate(of: await next(changes)) == ValueUpdate([2, 3, 4], [0], [], []))
        try realm.write { owner.scores.move(from: 2, to: 0) }
        #expect(ValueUpdate(of: await next(changes)) == ValueUpdate([4, 2, 3], [2], [0], []), "a moved value is deleted and inserted")
        try realm.write { owner.scores[1] = 9 }
        #expect(ValueUpdate(of: await next(changes)) == ValueUpdate([4, 9, 3], [1], [1], []), "a replaced value is deleted and inserted")

        try realm.write { owner.scores[0] = 4 }  // the same value: nothing changed
        try realm.write { owner.scores.append(-5) }  // filtered out
        try realm.write { try realm.add(Owner(value: ["id": 2, "scores": [1]])) }  // another owner's list
        try realm.write { owner.scores.insert(7, at: 0) }
        #expect(ValueUpdate(of: await next(changes)) == ValueUpdate([7, 4, 9, 3], [], [0], []), "commits that change nothing shown give no element")

        try realm.write { owner.scores[1] = -4 }
        #expect(ValueUpdate(of: await next(changes)) == ValueUpdate([7, 9, 3], [1], [], []), "a value leaving the filter is deleted")
        try realm.write { owner.scores[4] = 6 }
        #expect(ValueUpdate(of: await next(changes)) == ValueUpdate([7, 9, 3, 6], [], [3], []), "a value entering it is inserted")

        // Commits made while the consumer is away come as one element.
        try realm.write { owner.scores.append(8) }
        try realm.write { owner.scores.remove(at: 0) }
        try realm.write { owner.scores.append(1) }
        #expect(ValueUpdate(of: await next(changes)) == ValueUpdate([9, 3, 6, 8, 1], [0], [3, 4], []))

        try realm.write { owner.scores.removeAll() }
        #expect(ValueUpdate(of: await next(changes)) == ValueUpdate([], [0, 1, 2, 3, 4], [], []))
    }

    @Test func sortOrderFollowsTheValues() async throws {
        let (realm, owner) = try realm(with: ["scores": [5, 1, 3]])
        let ascending = owner.scores.sorted().changes().makeAsyncIterator()
        let descending = owner.scores.sorted(ascending: false).changes().makeAsyncIterator()
        #expect(await initialValues(ascending) == [1, 3, 5])
        #expect(await initialValues(descending) == [5, 3, 1])

        try realm.write { owner.scores.append(2) }  // [5, 1, 3, 2]
        #expect(ValueUpdate(of: await next(ascending)) == ValueUpdate([1, 2, 3, 5], [], [1], []))
        #expect(ValueUpdate(of: await next(descending)) == ValueUpdate([5, 3, 2, 1], [], [2], []))
        try realm.write { owner.scores[1] = 6 }  // [5, 6, 3, 2]: 1 goes, 6 comes at the other end
        #expect(ValueUpdate(of: await next(ascending)) == ValueUpdate([2, 3, 5, 6], [0], [3], []))
        #expect(ValueUpdate(of: await next(descending)) == ValueUpdate([6, 5, 3, 2], [3], [0], []))
        try realm.write { owner.scores[0] = 4 }  // 5 becomes 4: it moves past nothing
        #expect(ValueUpdate(of: await next(ascending)) == ValueUpdate([2, 3, 4, 6], [2], [2], []))
        _ = await next(descending)

        try realm.write { owner.scores.move(from: 0, to: 3) }  // the list's order only: the sorted results are the same
        try realm.write { owner.scores.swapAt(0, 1) }
        try realm.write { owner.scores.append(0) }
        #expect(ValueUpdate(of: await next(ascending)) == ValueUpdate([0, 2, 3, 4, 6], [], [0], []))
        #expect(ValueUpdate(of: await next(descending)) == ValueUpdate([6, 4, 3, 2, 0], [], [4], []))
    }

    @Test func aFilterAndASortTogether() async throws {
        let (realm, owner) = try realm(with: ["scores": [10, 30, 5, 20]])
        let changes = owner.scores.where { $0 >= 10 }.sorted(ascending: false).changes().makeAsyncIterator()
        #expect(await initialValues(changes) == [30, 20, 10])
        try realm.write {
            owner.scores[2] = 25  // enters, between 30 and 20
            owner.scores[0] = 1  // 10 leaves
        }
        #expect(ValueUpdate(of: await next(changes)) == ValueUpdate([30, 25, 20], [2], [1], []))
        try realm.write { owner.scores.append(objectsIn: [40, 9]) }
        #expect(ValueUpdate(of: await next(changes)) == ValueUpdate([40, 30, 25, 20], [], [0], []))
    }

    @Test func repeatedValues() async throws {
        let (realm, owner) = try realm(with: ["scores": [2, 7, 2, 2, 7]])
        let twos = owner.scores.where { $0 == 2 }.changes().makeAsyncIterator()
        let all = owner.scores.where { $0 > 0 }.changes().makeAsyncIterator()
        var shownTwos = try #require(await initialValues(twos))
        var shownAll = try #require(await initialValues(all))
        #expect(shownTwos == [2, 2, 2] && shownAll == [2, 7, 2, 2, 7])
        let edits: [(String, () -> Void)] = [
            ("remove a middle 2", { owner.scores.remove(at: 2) }),
            ("insert a 2 between the 7s", { owner.scores.insert(2, at: 1) }),
            ("append two 7s", { owner.scores.append(objectsIn: [7, 7]) }),
            ("move a 7 to the front", { owner.scores.move(from: 4, to: 0) }),
            ("replace a 2 with a 2", { owner.scores[1] = 2 }),
            ("replace a 7 with a 2", { owner.scores[0] = 2 }),
        ]
        for (what, edit) in edits {
            try realm.write(edit)
            let live = (twos: Array(owner.scores.where { $0 == 2 }), all: Array(owner.scores))
            if live.twos != shownTwos {
                let update = try #require(ValueUpdate(of: await next(twos)))
                #expect(update.values == live.twos, "\(what)")
                #expect(update.applied(to: shownTwos) == live.twos, "\(what): \(shownTwos) then \(update)")
                #expect(update.deletions.count + update.insertions.count == abs(live.twos.count - shownTwos.count), "\(what): \(update)")
                shownTwos = live.twos
            }
            if live.all != shownAll {
                let update = try #require(ValueUpdate(of: await next(all)))
                #expect(update.values == live.all, "\(what)")
                #expect(update.applied(to: shownAll) == live.all, "\(what): \(shownAll) then \(update)")
                #expect(update.deletions.count <= 1 && update.insertions.count <= 2 && update.modifications.isEmpty, "\(what): \(update)")
                shownAll = live.all
            }
        }
        #expect(shownAll == [2, 2, 2, 7, 2, 7, 7], "every edit but one changed the list")
    }

    @Test func setAndMapValues() async throws {
        let (realm, owner) = try realm(with: ["tags": ["b", "d"], "ratings": ["a": 2, "c": 5, "d": 1]])
        let tags = owner.tags.sorted().changes().makeAsyncIterator()
        let ratings = owner.ratings.where { $0 > 1 }.changes().makeAsyncIterator()
        let sortedRatings = owner.ratings.sorted(ascending: false).changes().makeAsyncIterator()
        #expect(await initialValues(tags) == ["b", "d"])
        #expect(await initialValues(ratings) == [2, 5], "in the order of the keys")
        #expect(await initialValues(sortedRatings) == [5, 2, 1])

        try realm.write {
            owner.tags.insert("a")
            owner.tags.insert("c")
            owner.ratings["b"] = 3
        }
        #expect(ValueUpdate(of: await next(tags)) == ValueUpdate(["a", "b", "c", "d"], [], [0, 2], []))
        #expect(ValueUpdate(of: await next(ratings)) == ValueUpdate([2, 3, 5], [], [1], []))
        #expect(ValueUpdate(of: await next(sortedRatings)) == ValueUpdate([5, 3, 2, 1], [], [1], []))

        try realm.write {
            owner.tags.insert("b")  // already there
            owner.ratings["d"] = 4  // enters the filter, at the end of the keys
        }
        #expect(ValueUpdate(of: await next(ratings)) == ValueUpdate([2, 3, 5, 4], [], [3], []))
        #expect(ValueUpdate(of: await next(sortedRatings)) == ValueUpdate([5, 4, 3, 2], [3], [1], []))
        try realm.write {
            owner.tags.remove("d")
            owner.ratings["a"] = 7  // a new value under a key: deleted and inserted
            owner.ratings.removeObject(for: "c")
        }
        #expect(ValueUpdate(of: await next(tags)) == ValueUpdate(["a", "b", "c"], [3], [], []), "the insertion of b was no change")
        #expect(ValueUpdate(of: await next(ratings)) == ValueUpdate([7, 3, 4], [0, 2], [0], []))
        #expect(ValueUpdate(of: await next(sortedRatings)) == ValueUpdate([7, 4, 3], [0, 3], [0], []))
    }

    @Test func anObjectInAnAnyRealmValueIsModifiedWhenItChanges() async throws {
        let (realm, owner) = try realm(with: ["mixed": [AnyRealmValue.object(Target(value: ["id": 1, "name": "one"])), .int(1), .string("s")]])
        try realm.write { try realm.add(Target(value: ["id": 2, "name": "two"])) }
        let all = owner.mixed.sorted().changes().makeAsyncIterator()
        let ranks = owner.mixed.sorted().changes(keyPaths: ["rank"]).makeAsyncIterator()
        guard case .initial(let first)? = await next(all) else {
            Issue.record("no initial element")
            return
        }
        _ = await next(ranks)
        #expect(first.count == 3 && first[0] == .int(1) && first[1] == .string("s"))
        #expect(first[2].object(Target.self)?.name == "one" && first[2].object(Target.self)?.isFrozen == true)

        func target(_ id: Int) -> Target { realm.object(ofType: Target.self, forPrimaryKey: id)! }
        try realm.write { target(2).name = "not in the list" }
        try realm.write { target(1).name = "uno" }
        guard case .update(let renamed, let deletions, let insertions, let modifications)? = await next(all) else {
            Issue.record("no update for the renaming")
            return
        }
        #expect(deletions.isEmpty && insertions.isEmpty && modifications == [2])
        #expect(renamed[2].object(Target.self)?.name == "uno", "the object as of the update's version")
        #expect(first[2].object(Target.self)?.name == "one", "the initial element keeps its version")

        // `keyPaths` limits which of the object's properties count.
        try realm.write { target(1).rank = 3 }
        guard case .update(_, let allDeleted, let allInserted, let allModified)? = await next(all),
            case .update(_, let rankDeleted, let rankInserted, let rankModified)? = await next(ranks)
        else {
            Issue.record("no update for the rank")
            return
        }
        #expect(allDeleted.isEmpty && allInserted.isEmpty && allModified == [2])
        #expect(rankDeleted.isEmpty && rankInserted.isEmpty && rankModified == [2], "the first element after the renamings is the rank's")

        try realm.write {
            owner.mixed.append(.object(target(1)))  // the same object again
            owner.mixed.append(.object(target(2)))
        }
        guard case .update(let appended, let appendDeletions, let appendedAt, let appendModifications)? = await next(all) else {
            Issue.record("no update for the appends")
            return
        }
        #expect(appended.count == 5 && appendedAt.count == 2 && appendDeletions.isEmpty && appendModifications.isEmpty)
        try realm.write { target(1).name = "eins" }
        guard case .update(let twice, let twiceDeletions, let twiceInsertions, let modifiedAt)? = await next(all) else {
            Issue.record("no update for the second renaming")
            return
        }
        #expect(twiceDeletions.isEmpty && twiceInsertions.isEmpty)
        #expect(modifiedAt.count == 2 && modifiedAt.allSatisfy { twice[$0].object(Target.self)?.id == 1 }, "modified at each place")

        // Deleting an object the list holds changes the list as the live list shows it. (Values
        // compared by what they hold: an object in an AnyRealmValue is equal only to itself.)
        func held(_ value: AnyRealmValue) -> String { value.object(Target.self).map { "Target \($0.id)" } ?? "\(value)" }
        let before = twice.map(held)
        try realm.write { try realm.delete(target(2)) }
        guard case .update(let afterDeletion, let deletions2, let insertions2, _)? = await next(all) else {
            Issue.record("no update for the deletion")
            return
        }
        let after = afterDeletion.map(held)
        #expect(after == owner.mixed.sorted().map(held) && !after.contains("Target 2"))
        #expect(ValueUpdate(after, deletions2, insertions2, []).applied(to: before) == after)
    }

    @Test func aListNestedInAnAnyRealmValue() async throws {
        let (realm, owner) = try realm(with: ["any": AnyRealmValue.fromArray([.int(3), .int(1)])])
        let nested = try #require(owner.any.listValue)
        let changes = nested.sorted().changes().makeAsyncIterator()
        #expect(await initialValues(changes) == [.int(1), .int(3)])
        try realm.write { nested.append(.int(2)) }
        #expect(ValueUpdate(of: await next(changes)) == ValueUpdate([.int(1), .int(2), .int(3)], [], [1], []))
        try realm.write { nested[0] = .string("three") }
        #expect(ValueUpdate(of: await next(changes)) == ValueUpdate([.int(1), .int(2), .string("three")], [2], [2], []))
        // A list whose place gets another value is gone, as a deleted owner's list is.
        try realm.write { owner.any = .int(3) }
        #expect(ValueUpdate(of: await next(changes)) == ValueUpdate([], [0, 1, 2], [], []))
        try realm.write { owner.any = .fromArray([.int(4)]) }
        let end = await next(changes)
        #expect(end == nil, "the stream ended; a new list in the same place is not followed")
    }

    @Test func theOwnersDeletionDeletesEveryValueAndEndsTheStream() async throws {
        let (realm, owner) = try realm(with: ["scores": [3, 1, 2], "ratings": ["a": 1]])
        let scores = owner.scores.sorted()
        let changes = scores.changes().makeAsyncIterator()
        let ratings = owner.ratings.where { $0 > 0 }.changes().makeAsyncIterator()
        #expect(await initialValues(changes) == [1, 2, 3])
        #expect(await initialValues(ratings) == [1])
        try realm.write { try realm.delete(owner) }
        #expect(ValueUpdate(of: await next(changes)) == ValueUpdate([], [0, 1, 2], [], []))
        #expect(ValueUpdate(of: await next(ratings)) == ValueUpdate([], [0], [], []))
        let (listEnd, mapEnd) = (await next(changes), await next(ratings))
        #expect(listEnd == nil && mapEnd == nil, "the streams end")
        #expect(scores.isInvalidated)
    }

    @Test func anotherActorsCommitReachesTheStream() async throws {
        let config = FrozenValueModels.configuration()
        let realm = try Realm(configuration: config)
        let owner = Owner(value: ["id": 1, "scores": [1]])
        try realm.write { try realm.add(owner) }
        let changes = owner.scores.sorted(ascending: false).changes().makeAsyncIterator()
        #expect(await initialValues(changes) == [1])
        let db = try await RealmActor(configuration: config)
        try await db.asyncWrite { realm in realm.object(ofType: Owner.self, forPrimaryKey: 1)!.scores.append(objectsIn: [0, 5]) }
        #expect(ValueUpdate(of: await next(changes)) == ValueUpdate([5, 1, 0], [], [0, 2], []))
    }

    // MARK: Streams that cannot start

    /// The one element of `changes`, which must be an error with `code` whose message
    /// mentions `word`, after which the stream ends.
    private func expectError<Element>(
        _ stream: ChangeStream<RealmCollectionChange<FrozenValueResults<Element>>>, _ code: RealmError.Code, mentioning word: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        let changes = stream.makeAsyncIterator()
        guard case .error(let error)? = await next(changes, sourceLocation: sourceLocation) else {
            Issue.record("expected an error", sourceLocation: sourceLocation)
            return
        }
        #expect(error.code == code && error.description.lowercased().contains(word), "\(error)", sourceLocation: sourceLocation)
        let end = await next(changes, sourceLocation: sourceLocation)
        #expect(end == nil, "then the stream ends", sourceLocation: sourceLocation)
    }

    @Test func aStreamInsideAWriteAFrozenOwnersOrADeletedOwnersIsAnError() async throws {
        let (realm, owner) = try realm(with: ["scores": [1], "tags": ["a"], "ratings": ["a": 1]])
        let (list, set, map) = (owner.scores.sorted(), owner.tags.sorted(), owner.ratings.sorted())
        let inWrite = try realm.write { (list.changes(), set.changes(), map.changes()) }
        await expectError(inWrite.0, .wrongState, mentioning: "write transaction")
        await expectError(inWrite.1, .wrongState, mentioning: "write transaction")
        await expectError(inWrite.2, .wrongState, mentioning: "write transaction")

        let frozen = try owner.freeze()
        await expectError(frozen.scores.where { $0 > 0 }.changes(), .wrongState, mentioning: "frozen")
        await expectError(frozen.tags.sorted().changes(), .wrongState, mentioning: "frozen")
        await expectError(frozen.ratings.sorted().changes(), .wrongState, mentioning: "frozen")

        try realm.write { try realm.delete(owner) }
        await expectError(list.changes(), .invalidObject, mentioning: "deleted")
    }

    @Test func resultsOfObjectsThroughGenericCodeAreAnError() async throws {
        let (_, owner) = try realm(with: ["targets": [["id": 1]], "scores": [2, 1]])
        func stream<T: RealmCollectionValue>(_ results: Results<T>) -> ChangeStream<RealmCollectionChange<FrozenValueResults<T>>> {
            results.changes()
        }
        await expectError(stream(owner.targets.where { $0.id > 0 }), .invalidArgument, mentioning: "frozenresults")
        #expect(await initialValues(stream(owner.scores.sorted()).makeAsyncIterator()) == [1, 2])
        // Where the class is known, results of objects stream FrozenResults.
        guard case .initial(let objects)? = await next(owner.targets.where { $0.id > 0 }.changes().makeAsyncIterator()) else {
            Issue.record("no initial element")
            return
        }
        let typed: FrozenResults<Target> = objects
        #expect(typed.map(\.id) == [1])
    }
}

/// Random edits of a list of small integers (appends, inserts, removals, moves, replacements,
/// many repeated values), some silent: each element of the streams of the filtered list and of
/// the filtered, sorted list must show what plain Swift computes from a model of the list, with
/// deletions and insertions that turn the previous element into it.
@Suite(.temporaryDirectory) struct ValueResultsChangeModelTests {
    @Test func streamsOfFilteredAndSortedValuesFollowRandomEdits() async throws {
        let seed = TestSeed.make("ValueResultsChangeModelTests")
        var random = TestRandom(seed: seed)
        let rounds = TestEnvironment.count("BURROW_MODEL_OPS", default: 120)
        let realm = try Realm(configuration: FrozenValueModels.configuration())
        let owner = FrozenValueModels.Owner(value: ["id": 1])
        try realm.write { try realm.add(owner) }
        let limit = 6
        let longest = 400
        func filtered(_ list: [Int]) -> [Int] { list.filter { $0 < limit } }
        func sorted(_ list: [Int]) -> [Int] { filtered(list).sorted(by: >) }
        let filteredStream = owner.scores.where { $0 < limit }.changes()
        let sortedStream = try owner.scores.filter("self < %@", limit).sorted(ascending: false).changes()
        let streams = [(filteredStream.makeAsyncIterator(), filtered), (sortedStream.makeAsyncIterator(), sorted)]
        for (changes, _) in streams { #expect(await initialValues(changes) == []) }

        var list: [Int] = []
        // The list the streams last showed, and how many edits were made since.
        var shown: [Int] = []
        var editsSince = 0
        var pending = false
        var updates = 0
        for round in 0..<rounds {
            let silent = !pending && random.next(upperBound: 5) == 0
            var edits = 0
            try realm.write(withoutNotifying: silent ? [filteredStream.token, sortedStream.token] : []) {
                for _ in 0..<(1 + random.next(upperBound: 3)) {
                    let value = random.next(upperBound: 8)
                    // Past `longest` values, only removals and moves: the list stays short
                    // enough for the exact diff (see the bound below) however many rounds run.
                    let operation = list.count < longest ? random.next(upperBound: 6) : 2 + random.next(upperBound: 2)
                    switch operation {
                    case 0:
                        owner.scores.append(value)
                        list.append(value)
                    case 1:
                        let index = random.next(upperBound: list.count + 1)
                        owner.scores.insert(value, at: index)
                        list.insert(value, at: index)
                    case 2, 3:
                        randomlyRemoveOrMove(in: owner.scores, mirror: &list, moving: operation == 3, random: &random)
                    case 4 where !list.isEmpty:
                        let index = random.next(upperBound: list.count)
                        owner.scores[index] = value
                        list[index] = value
                    case 5 where !list.isEmpty:  // a value the list already holds, elsewhere
                        let index = random.next(upperBound: list.count + 1)
                        let copy = list[random.next(upperBound: list.count)]
                        owner.scores.insert(copy, at: index)
                        list.insert(copy, at: index)
                    default:
                        break
                    }
                    edits += 1
                }
            }
            #expect(Array(owner.scores) == list, "round \(round), seed \(seed): the model is the list")
            if silent {
                shown = list
                editsSince = 0
                continue
            }
            pending = true
            editsSince += edits
            guard random.next(upperBound: 3) == 0 else { continue }
            for (changes, compute) in streams {
                let (old, new) = (compute(shown), compute(list))
                if old == new { continue }
                guard let update = ValueUpdate(of: await next(changes)) else {
                    Issue.record("round \(round), seed \(seed): no update from \(old) to \(new)")
                    return
                }
                #expect(update.values == new, "round \(round), seed \(seed)")
                #expect(update.applied(to: old) == new, "round \(round), seed \(seed): \(old) then \(update)")
                #expect(update.modifications.isEmpty, "round \(round), seed \(seed): values are never modified")
                // Each edit shortens a longest common subsequence of the results by one value at
                // most, and the diff is a longest one while the lists are short enough for it to
                // be exact (`CollectionDiff.exactLimit`, 2^20 pairs of positions).
                if old.count * new.count <= 1 << 20 {
                    #expect(
                        update.deletions.count <= editsSince && update.insertions.count <= editsSince,
                        "round \(round), seed \(seed): \(editsSince) edits gave \(update)")
                }
                updates += 1
            }
            shown = list
            editsSince = 0
            pending = false
        }
        #expect(rounds < 30 || updates > rounds / 10, "seed \(seed): the streams were read \(updates) times")
        _ = try realm.storage.snapshot().verify()
    }
}
