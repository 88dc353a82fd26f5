import BurrowStore
import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// Change streams of results and objects: elements, indices, coalescing, silent writes, and
/// streams ending.
@Suite(.temporaryDirectory) struct ChangeStreamTests {
    typealias ResultsChange = RealmCollectionChange<FrozenResults<ObjectSuiteModels.RTIntKey>>

    /// The update in `change`, or a recorded issue.
    private func update(
        _ change: ResultsChange?, sourceLocation: SourceLocation = #_sourceLocation
    ) -> (ids: [Int], deletions: [Int], insertions: [Int], modifications: [Int])? {
        guard case .update(let results, let deletions, let insertions, let modifications) = change else {
            Issue.record("expected an update, got \(String(describing: change))", sourceLocation: sourceLocation)
            return nil
        }
        return (results.map(\.id), deletions, insertions, modifications)
    }

    private func add(_ realm: Realm, _ ids: [Int]) throws {
        try realm.write { for id in ids { try realm.add(ObjectSuiteModels.RTIntKey(value: ["id": id, "value": "v\(id)"])) } }
    }

    @Test func resultsReportInsertionsDeletionsAndModificationsByIndex() async throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        try add(realm, [10, 20, 30])
        let changes = realm.objects(ObjectSuiteModels.RTIntKey.self).changes().makeAsyncIterator()
        guard case .initial(let initial) = await next(changes) else {
            Issue.record("no initial element")
            return
        }
        #expect(initial.map(\.id) == [10, 20, 30])

        try add(realm, [15, 40])
        let inserted = update(await next(changes))
        #expect(inserted?.ids == [10, 15, 20, 30, 40])
        #expect(inserted?.insertions == [1, 4])
        #expect(inserted?.deletions == [])

        try realm.write {
            try realm.delete(realm.object(ofType: ObjectSuiteModels.RTIntKey.self, forPrimaryKey: 10)!)
            realm.object(ofType: ObjectSuiteModels.RTIntKey.self, forPrimaryKey: 30)!.value = "changed"
        }
        let changed = update(await next(changes))
        #expect(changed?.ids == [15, 20, 30, 40])
        #expect(changed?.deletions == [0])
        #expect(changed?.insertions == [])
        #expect(changed?.modifications == [2])
    }

    @Test func commitsMadeWhileTheConsumerIsBusyComeAsOneElement() async throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        try add(realm, [1])
        let changes = realm.objects(ObjectSuiteModels.RTIntKey.self).changes().makeAsyncIterator()
        _ = await next(changes)
        try add(realm, [2])
        try add(realm, [3])
        try realm.write { realm.object(ofType: ObjectSuiteModels.RTIntKey.self, forPrimaryKey: 1)!.value = "x" }
        let coalesced = update(await next(changes))
        #expect(coalesced?.ids == [1, 2, 3])
        #expect(coalesced?.insertions == [1, 2])
        #expect(coalesced?.modifications == [0])
    }

    @Test func aFilteredQueryReportsObjectsEnteringAndLeavingIt() async throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        try add(realm, [1, 5, 9])
        let changes = try realm.objects(ObjectSuiteModels.RTIntKey.self).where { $0.value != "out" }.filter("id > 2").changes().makeAsyncIterator()
        guard case .initial(let initial) = await next(changes) else {
            Issue.record("no initial element")
            return
        }
        #expect(initial.map(\.id) == [5, 9])
        try realm.write {
            realm.object(ofType: ObjectSuiteModels.RTIntKey.self, forPrimaryKey: 5)!.value = "out"  // leaves
            try realm.add(ObjectSuiteModels.RTIntKey(value: ["id": 7]))  // enters
            try realm.add(ObjectSuiteModels.RTIntKey(value: ["id": 2]))  // never in
        }
        let seen = update(await next(changes))
        #expect(seen?.ids == [7, 9])
        #expect(seen?.deletions == [0])
        #expect(seen?.insertions == [0])
    }

    @Test func aWriteThatChangesNothingHidesNoEarlierChange() async throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        let changes = realm.objects(ObjectSuiteModels.RTIntKey.self).changes().makeAsyncIterator()
        _ = await next(changes)
        try add(realm, [1])
        try realm.write {}  // makes no version
        try add(realm, [2])
        try realm.write {}
        let seen = update(await next(changes))
        #expect(seen?.ids == [1, 2])
        #expect(seen?.insertions == [0, 1])
    }

    @Test func aWriteWithoutNotifyingIsTakenIntoTheBaseline() async throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        try add(realm, [1])
        let stream = realm.objects(ObjectSuiteModels.RTIntKey.self).changes()
        let other = realm.objects(ObjectSuiteModels.RTIntKey.self).changes()
        let changes = stream.makeAsyncIterator()
        let otherChanges = other.makeAsyncIterator()
        _ = await next(changes)
        _ = await next(otherChanges)

        try realm.write(withoutNotifying: [stream.token]) { try realm.add(ObjectSuiteModels.RTIntKey(value: ["id": 2])) }
        try add(realm, [3])
        let following = update(await next(changes))
        #expect(following?.ids == [1, 2, 3])
        #expect(following?.insertions == [2], "the silent insertion of 2 is part of the baseline")

        let seenByOther = update(await next(otherChanges))
        #expect(seenByOther?.insertions == [1, 2], "other streams see the silent write")
    }

    @Test func changesPendingBeforeASilentWriteAreStillReported() async throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        let stream = realm.objects(ObjectSuiteModels.RTIntKey.self).changes()
        let changes = stream.makeAsyncIterator()
        _ = await next(changes)
        try add(realm, [1])
        try realm.write(withoutNotifying: [stream.token]) { try realm.add(ObjectSuiteModels.RTIntKey(value: ["id": 2])) }
        try add(realm, [3])
        let first = update(await next(changes))
        #expect(first?.ids == [1], "the write before the silent one")
        #expect(first?.insertions == [0])
        let second = update(await next(changes))
        #expect(second?.ids == [1, 2, 3])
        #expect(second?.insertions == [2])
    }

    @Test func keyPathsLimitWhatCountsAsAModification() async throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        try realm.write {
            try realm.add(ObjectSuiteModels.RTIndexed(value: ["id": 1, "text": "a", "flag": false]))
            try realm.add(ObjectSuiteModels.RTIndexed(value: ["id": 2, "text": "b", "flag": false]))
        }
        let changes = realm.objects(ObjectSuiteModels.RTIndexed.self).changes(keyPaths: ["text"]).makeAsyncIterator()
        _ = await next(changes)
        try realm.write { realm.object(ofType: ObjectSuiteModels.RTIndexed.self, forPrimaryKey: 1)!.flag = true }
        try realm.write { realm.object(ofType: ObjectSuiteModels.RTIndexed.self, forPrimaryKey: 2)!.text = "B" }
        guard case .update(_, let deletions, let insertions, let modifications) = await next(changes) else {
            Issue.record("expected an update")
            return
        }
        #expect(deletions.isEmpty && insertions.isEmpty)
        #expect(modifications == [1], "only the change to text counts")
    }

    @Test func anObjectStreamReportsChangedPropertiesThenDeletion() async throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        let item = ObjectSuiteModels.RTIntKey(value: ["id": 1, "value": "before"])
        let bystander = ObjectSuiteModels.RTIntKey(value: ["id": 2, "value": "other"])
        try realm.write { try realm.add([item, bystander]) }
        let changes = item.changes().makeAsyncIterator()
        try realm.write { bystander.value = "ignored" }
        try realm.write { item.value = "after" }
        guard case .change(let object, let properties) = await next(changes) else {
            Issue.record("expected a change")
            return
        }
        #expect(object.value == "after")
        #expect(properties.map(\.name) == ["value"])
        #expect(properties.first?.oldValue as? String == "before")
        #expect(properties.first?.newValue as? String == "after")

        try realm.write { try realm.delete(item) }
        guard case .deleted = await next(changes) else {
            Issue.record("expected deleted")
            return
        }
        #expect(await next(changes) == nil, "deletion ends the stream")
    }

    @Test func writesFromAnActorReachAStreamOfAnotherRealm() async throws {
        let config = temporaryConfiguration()
        let realm = try Realm(configuration: config)
        let changes = realm.objects(ObjectSuiteModels.RTIntKey.self).changes().makeAsyncIterator()
        _ = await next(changes)
        let db = try await RealmActor(configuration: config)
        try await db.asyncWrite { realm in try realm.add(ObjectSuiteModels.RTIntKey(value: ["id": 7])) }
        let seen = update(await next(changes))
        #expect(seen?.ids == [7])
        await db.close()
    }

    @Test func commitsMadeBeforeTheStreamRegisteredAreCompared() async throws {
        let config = temporaryConfiguration()
        let realm = try Realm(configuration: config)
        try add(realm, [1, 2])
        let results = realm.objects(ObjectSuiteModels.RTIntKey.self)
        _ = results.count
        // Another realm commits while no stream observes the file: nothing is recorded.
        try onAnotherThread {
            let writer = try Realm(configuration: config)
            try writer.write {
                writer.object(ofType: ObjectSuiteModels.RTIntKey.self, forPrimaryKey: 2)!.value = "changed"
                try writer.add(ObjectSuiteModels.RTIntKey(value: ["id": 3]))
            }
        }
        let changes = results.changes().makeAsyncIterator()
        guard case .initial(let initial) = await next(changes) else {
            Issue.record("no initial element")
            return
        }
        #expect(initial.map(\.id) == [1, 2], "the first element shows the realm's version")
        let caughtUp = update(await next(changes))
        #expect(caughtUp?.ids == [1, 2, 3])
        #expect(caughtUp?.insertions == [2])
        #expect(caughtUp?.modifications == [1])
    }

    @Test func deleteAllReportsEveryObjectDeleted() async throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        try add(realm, [1, 2, 3])
        let changes = realm.objects(ObjectSuiteModels.RTIntKey.self).changes().makeAsyncIterator()
        _ = await next(changes)
        try realm.write { try realm.deleteAll() }
        let cleared = update(await next(changes))
        #expect(cleared?.ids == [])
        #expect(cleared?.deletions == [0, 1, 2])
    }

    @Test func aStreamMadeInAWriteYieldsAnErrorAndEnds() async throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        try realm.beginWrite()
        let changes = realm.objects(ObjectSuiteModels.RTIntKey.self).changes().makeAsyncIterator()
        try realm.cancelWrite()
        guard case .error(let error) = await next(changes) else {
            Issue.record("expected an error")
            return
        }
        #expect(error.code == .wrongState)
        #expect(await next(changes) == nil)
    }

    @Test func cancellingTheConsumingTaskEndsTheIteration() async throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        let stream = realm.objects(ObjectSuiteModels.RTIntKey.self).changes()
        let (received, receivedOne) = AsyncStream<Void>.makeStream()
        let consumer = Task {
            var count = 0
            for await _ in stream {
                count += 1
                receivedOne.yield()
            }
            return count
        }
        for await _ in received { break }  // the initial element arrived, however loaded the machine
        consumer.cancel()
        #expect(await consumer.value == 1, "the initial element, then the end")
    }

    /// Random old and new orderings: removing the deletions from the old keys and the
    /// insertions from the new ones leaves the same keys in the same order.
    @Test func collectionDiffsTurnTheOldOrderIntoTheNew() {
        let seed = TestSeed.make("ChangeStreamTests.collectionDiffsTurnTheOldOrderIntoTheNew")
        var random = TestRandom(seed: seed)
        for round in 0..<300 {
            let old = (0..<random.next(upperBound: 12)).map { ObjectKey(UInt64($0)) }.shuffled(using: &random)
            var new = old.filter { _ in random.next(upperBound: 4) != 0 }
            for _ in 0..<random.next(upperBound: 4) {
                new.insert(ObjectKey(UInt64(100 + random.next(upperBound: 50))), at: random.next(upperBound: new.count + 1))
            }
            new = Array(NSOrderedSet(array: new.map(\.rawValue))).map { ObjectKey($0 as! UInt64) }
            if random.next(upperBound: 3) == 0, new.count > 1 { new.swapAt(0, new.count - 1) }
            let modified = Set(old.filter { _ in random.next(upperBound: 3) == 0 })
            let diff = CollectionDiff(old: old, new: new) { modified.contains($0) }
            let kept = old.indices.filter { !diff.deletions.contains($0) }.map { old[$0] }
            let stayed = new.indices.filter { !diff.insertions.contains($0) }.map { new[$0] }
            #expect(kept == stayed, "round \(round), seed \(seed)")
            #expect(Set(diff.modifications.map { new[$0] }).isSubset(of: modified))
            #expect(diff.modifications.allSatisfy { !diff.insertions.contains($0) })
            let movedOrNew = Set(diff.insertions.map { new[$0] })
            #expect(Set(stayed.filter { modified.contains($0) }) == Set(diff.modifications.map { new[$0] }).subtracting(movedOrNew))
        }
    }
}

/// The next element of `iterator`, or nil with an issue recorded if none comes within
/// `timeout`: a stream that misses a change fails its test instead of hanging it.
func next<Element: Sendable>(
    _ iterator: ChangeStream<Element>.Iterator, timeout: Duration = .seconds(20), sourceLocation: SourceLocation = #_sourceLocation
) async -> Element? {
    let outcome = await withTaskGroup(of: Element??.self) { group in
        group.addTask {
            var iterator = iterator
            return .some(await iterator.next())
        }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
    guard let outcome else {
        Issue.record("no element within \(timeout)", sourceLocation: sourceLocation)
        return nil
    }
    return outcome
}

/// Random writes (some silent) against a dictionary model: each element of a results stream
/// must carry the model's state, and indices that turn the previous element into it.
@Suite(.temporaryDirectory) struct ChangeStreamModelTests {
    @Test func resultsStreamsFollowRandomWrites() async throws {
        let seed = TestSeed.make("ChangeStreamModelTests")
        var random = TestRandom(seed: seed)
        let rounds = TestEnvironment.count("BURROW_MODEL_OPS", default: 120)
        let realm = try Realm(configuration: temporaryConfiguration())
        var model: [Int: String] = [:]
        let stream = realm.objects(ObjectSuiteModels.RTIntKey.self).changes()
        let changes = stream.makeAsyncIterator()
        guard case .initial(let initial) = await next(changes) else {
            Issue.record("no initial element")
            return
        }
        #expect(initial.isEmpty)
        // What the last element showed, with silent writes taken in; and the ids changed since.
        var baseline: [Int: String] = [:]
        var touched = Set<Int>()
        var pendingNonSilent = false
        for round in 0..<rounds {
            // A silent write only when nothing unreported is pending, so each pull yields one element.
            let silent = !pendingNonSilent && random.next(upperBound: 4) == 0
            var inWrite = model
            var touchedNow = Set<Int>()
            try realm.write(withoutNotifying: silent ? [stream.token] : []) {
                for _ in 0..<(1 + random.next(upperBound: 4)) {
                    let id = random.next(upperBound: 30)
                    switch random.next(upperBound: 3) {
                    case 0 where inWrite[id] == nil:
                        try realm.add(ObjectSuiteModels.RTIntKey(value: ["id": id, "value": "r\(round)"]))
                        inWrite[id] = "r\(round)"
                        touchedNow.insert(id)  // a deleted id made again counts as modified
                    case 1 where inWrite[id] != nil:
                        try realm.delete(realm.object(ofType: ObjectSuiteModels.RTIntKey.self, forPrimaryKey: id)!)
                        inWrite[id] = nil
                        touchedNow.insert(id)
                    case 2 where inWrite[id] != nil:
                        let value = "m\(random.next(upperBound: 3))"
                        realm.object(ofType: ObjectSuiteModels.RTIntKey.self, forPrimaryKey: id)!.value = value
                        if inWrite[id] != value { touchedNow.insert(id) }
                        inWrite[id] = value
                    default:
                        break
                    }
                }
            }
            model = inWrite
            if silent {
                baseline = model
                continue
            }
            touched.formUnion(touchedNow)
            pendingNonSilent = true
            guard random.next(upperBound: 3) == 0 else { continue }  // let changes pile up
            let old = baseline.keys.sorted()
            let new = model.keys.sorted()
            // Nothing visible changed: the stream may have nothing to say yet; pull later.
            if old == new, touched.allSatisfy({ baseline[$0] == model[$0] }) { continue }
            guard case .update(let results, let deletions, let insertions, let modifications) = await next(changes) else {
                Issue.record("round \(round): expected an update (seed \(seed))")
                return
            }
            #expect(results.map(\.id) == new, "round \(round), seed \(seed)")
            #expect(results.map(\.value) == new.map { model[$0]! }, "round \(round), seed \(seed)")
            let kept = old.indices.filter { !deletions.contains($0) }.map { old[$0] }
            let stayed = new.indices.filter { !insertions.contains($0) }.map { new[$0] }
            #expect(kept == stayed, "round \(round), seed \(seed)")
            let modifiedIds = Set(modifications.map { new[$0] })
            let differing = Set(stayed.filter { baseline[$0] != model[$0] })
            #expect(differing.isSubset(of: modifiedIds), "round \(round), seed \(seed): \(differing) not all in \(modifiedIds)")
            #expect(modifiedIds.isSubset(of: touched), "round \(round), seed \(seed)")
            baseline = model
            touched = []
            pendingNonSilent = false
        }
        _ = try realm.storage.snapshot().verify()
    }
}
