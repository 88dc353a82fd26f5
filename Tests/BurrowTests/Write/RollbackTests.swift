import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// An error a write block throws to abandon its transaction.
struct AbandonWrite: Error, Equatable {}

/// A committed starting point: `keep` (modified by the failed write), `doomed` (deleted by it),
/// a target both link to, and an embedded place.
private func seed(_ realm: Realm) throws -> (keep: ObjectSuiteModels.RTNode, doomed: ObjectSuiteModels.RTNode, target: ObjectSuiteModels.RTTarget) {
    let keep = ObjectSuiteModels.RTNode(value: ["name": "keep", "weight": 1])
    let doomed = ObjectSuiteModels.RTNode(value: ["name": "doomed", "weight": 2])
    let place = ObjectSuiteModels.RTPlace()
    place.street = "Old Street"
    place.number = 1
    keep.home = place
    keep.next = doomed
    keep.children.append(doomed)
    let target = ObjectSuiteModels.RTTarget(value: ["id": 1, "label": "target"])
    let holder = ObjectSuiteModels.RTEverything(value: ["id": "holder"])
    holder.link = target
    holder.ints.append(objectsIn: [1, 2, 3])
    try realm.write {
        try realm.add(keep)
        try realm.add(holder)
    }
    return (keep, doomed, target)
}

/// Makes every kind of change to the seeded objects: scalar, link, list, embedded, delete,
/// add (with nested new objects), new class.
private func changeEverything(
    _ realm: Realm, _ seeded: (keep: ObjectSuiteModels.RTNode, doomed: ObjectSuiteModels.RTNode, target: ObjectSuiteModels.RTTarget),
    added: ObjectSuiteModels.RTEverything
) throws {
    seeded.keep.weight = 100
    seeded.keep.next = nil
    let newHome = ObjectSuiteModels.RTPlace()
    newHome.street = "New Street"
    seeded.keep.home = newHome
    seeded.keep.children.append(ObjectSuiteModels.RTNode(value: ["name": "child added in the failed write"]))
    try realm.delete(seeded.doomed)
    seeded.target.label = "changed"
    let holder = realm.object(ofType: ObjectSuiteModels.RTEverything.self, forPrimaryKey: "holder")!
    holder.ints.removeAll()
    holder.link = nil
    try realm.add(added)
    try realm.add(ObjectSuiteModels.RTMixed(value: ["id": 1, "value": AnyRealmValue.int(1)]))
}

/// Expects the seeded state, untouched, in `realm` (live objects `seeded` if given).
private func expectSeededState(_ realm: Realm, sourceLocation: SourceLocation = #_sourceLocation) throws {
    #expect(!realm.isInWriteTransaction, sourceLocation: sourceLocation)
    #expect(realm.objects(ObjectSuiteModels.RTNode.self).count == 2, sourceLocation: sourceLocation)
    #expect(realm.objects(ObjectSuiteModels.RTEverything.self).count == 1, sourceLocation: sourceLocation)
    #expect(realm.objects(ObjectSuiteModels.RTTarget.self).count == 1, sourceLocation: sourceLocation)
    #expect(realm.objects(ObjectSuiteModels.RTPlace.self).count == 1, sourceLocation: sourceLocation)
    #expect(realm.objects(ObjectSuiteModels.RTMixed.self).count == 0, sourceLocation: sourceLocation)
    let keep = try #require(realm.object(ofType: ObjectSuiteModels.RTNode.self, forPrimaryKey: "keep"), sourceLocation: sourceLocation)
    #expect(keep.weight == 1, sourceLocation: sourceLocation)
    #expect(keep.next?.name == "doomed", sourceLocation: sourceLocation)
    #expect(keep.children.map(\.name) == ["doomed"], sourceLocation: sourceLocation)
    #expect(keep.home?.street == "Old Street", sourceLocation: sourceLocation)
    #expect(keep.home?.number == 1, sourceLocation: sourceLocation)
    let doomed = try #require(realm.object(ofType: ObjectSuiteModels.RTNode.self, forPrimaryKey: "doomed"), sourceLocation: sourceLocation)
    #expect(doomed.weight == 2, sourceLocation: sourceLocation)
    #expect(doomed.previous.map(\.name) == ["keep"], sourceLocation: sourceLocation)
    let holder = try #require(realm.object(ofType: ObjectSuiteModels.RTEverything.self, forPrimaryKey: "holder"), sourceLocation: sourceLocation)
    #expect(Array(holder.ints) == [1, 2, 3], sourceLocation: sourceLocation)
    #expect(holder.link?.label == "target", sourceLocation: sourceLocation)
    let target = try #require(realm.object(ofType: ObjectSuiteModels.RTTarget.self, forPrimaryKey: 1), sourceLocation: sourceLocation)
    #expect(target.linkedFrom.map(\.id) == ["holder"], sourceLocation: sourceLocation)
    #expect(realm.object(ofType: ObjectSuiteModels.RTEverything.self, forPrimaryKey: "added") == nil, sourceLocation: sourceLocation)
    #expect(realm.object(ofType: ObjectSuiteModels.RTTarget.self, forPrimaryKey: 11) == nil, sourceLocation: sourceLocation)
}

/// Expects the live objects of the seeded state to read their committed values again.
private func expectLiveObjectsReadOldValues(
    _ seeded: (keep: ObjectSuiteModels.RTNode, doomed: ObjectSuiteModels.RTNode, target: ObjectSuiteModels.RTTarget),
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(!seeded.keep.isInvalidated, sourceLocation: sourceLocation)
    #expect(seeded.keep.weight == 1, sourceLocation: sourceLocation)
    #expect(seeded.keep.next?.name == "doomed", sourceLocation: sourceLocation)
    #expect(seeded.keep.home?.street == "Old Street", sourceLocation: sourceLocation)
    #expect(seeded.keep.children.map(\.name) == ["doomed"], sourceLocation: sourceLocation)
    #expect(!seeded.doomed.isInvalidated, "the object deleted by the failed write exists again", sourceLocation: sourceLocation)
    #expect(seeded.doomed.weight == 2, sourceLocation: sourceLocation)
    #expect(seeded.target.label == "target", sourceLocation: sourceLocation)
}

/// Expects `added` (and the objects it links to) to be unmanaged and to hold what
/// `RTFixture.full` gave them.
private func expectAddedObjectIsUnmanagedWithItsValues(_ added: ObjectSuiteModels.RTEverything, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(added.realm == nil, sourceLocation: sourceLocation)
    #expect(!added.isInvalidated, sourceLocation: sourceLocation)
    #expect(!added.isFrozen, sourceLocation: sourceLocation)
    RTFixture.expectFull(added, id: "added", targetBase: 10, sourceLocation: sourceLocation)
    #expect(added.link?.realm == nil, "a linked object added by the cascade is unmanaged too", sourceLocation: sourceLocation)
    #expect(added.targets.allSatisfy { $0.realm == nil }, sourceLocation: sourceLocation)
    #expect(added.place?.realm == nil, "an embedded object created by the cascade is unmanaged too", sourceLocation: sourceLocation)
    #expect(added.places.allSatisfy { $0.realm == nil }, sourceLocation: sourceLocation)
}

/// Seeds a new file, lets `abandon` make every change of `changeEverything` in a write that it
/// ends without committing, and expects no trace of it: the realm and its live objects read
/// the seeded state, `added` is unmanaged with its values, and so does the file reopened,
/// which it returns.
@discardableResult
private func expectAbandonedWriteLeavesNoTrace(
    sourceLocation: SourceLocation = #_sourceLocation,
    _ abandon: (
        Realm, _ seeded: (keep: ObjectSuiteModels.RTNode, doomed: ObjectSuiteModels.RTNode, target: ObjectSuiteModels.RTTarget),
        _ added: ObjectSuiteModels.RTEverything
    ) async throws -> Void
) async throws -> Realm {
    let config = temporaryConfiguration()
    let added = RTFixture.full(id: "added", targetBase: 10)
    do {
        let realm = try Realm(configuration: config)
        let seeded = try seed(realm)
        try await abandon(realm, seeded, added)
        try expectSeededState(realm, sourceLocation: sourceLocation)
        expectLiveObjectsReadOldValues(seeded, sourceLocation: sourceLocation)
        expectAddedObjectIsUnmanagedWithItsValues(added, sourceLocation: sourceLocation)
    }
    let reopened = try Realm(configuration: config)
    try expectSeededState(reopened, sourceLocation: sourceLocation)
    return reopened
}

@Suite(.temporaryDirectory) struct RollbackTests {
    @Test func testThrowingWriteLeavesNoTraceInLiveObjectsOrTheFile() async throws {
        let reopened = try await expectAbandonedWriteLeavesNoTrace { realm, seeded, added in
            let versionBefore = realm.version
            let heldNodes = realm.objects(ObjectSuiteModels.RTNode.self)
            let heldMixed = realm.objects(ObjectSuiteModels.RTMixed.self)
            #expect(heldNodes.count == 2)
            #expect(throws: AbandonWrite.self) {
                try realm.write {
                    try changeEverything(realm, seeded, added: added)
                    #expect(heldNodes.count == 2, "inside the write its changes are visible: one deleted, one added")
                    #expect(Set(heldNodes.map(\.name)) == ["keep", "child added in the failed write"])
                    #expect(heldMixed.count == 1)
                    throw AbandonWrite()
                }
            }
            #expect(realm.version == versionBefore)
            #expect(Set(heldNodes.map(\.name)) == ["keep", "doomed"], "results held across the failed write read the old version")
            #expect(heldMixed.isEmpty)
        }
        #expect(!reopened.objects(ObjectSuiteModels.RTMixed.self).contains { _ in true })
    }

    @Test func testCancelWriteLeavesNoTraceInLiveObjectsOrTheFile() async throws {
        try await expectAbandonedWriteLeavesNoTrace { realm, seeded, added in
            try realm.beginWrite()
            try changeEverything(realm, seeded, added: added)
            try realm.cancelWrite()
        }
    }

    @Test func testThrowingAsyncWriteLeavesNoTraceInLiveObjectsOrTheFile() async throws {
        try await expectAbandonedWriteLeavesNoTrace { realm, seeded, added in
            await #expect(throws: AbandonWrite.self) {
                try await realm.asyncWrite {
                    try changeEverything(realm, seeded, added: added)
                    throw AbandonWrite()
                }
            }
        }
    }

    @Test func testThrowingRealmActorWriteKeepsNothingAndTheActorCanWriteAgain() async throws {
        let config = temporaryConfiguration()
        let db = try await RealmActor(configuration: config)
        try await db.asyncWrite { realm in try realm.add(ObjectSuiteModels.RTNote(value: ["text": "before", "stars": 1])) }
        await #expect(throws: AbandonWrite.self) {
            try await db.asyncWrite { realm in
                realm.objects(ObjectSuiteModels.RTNote.self).first!.stars = 99
                try realm.add(ObjectSuiteModels.RTNote(value: ["text": "abandoned"]))
                throw AbandonWrite()
            }
        }
        let afterFailure = try await db.objects(ObjectSuiteModels.RTNote.self)
        #expect(afterFailure.map(\.text) == ["before"])
        #expect(afterFailure.first?.stars == 1)
        #expect(try await db.read { realm in realm.isInWriteTransaction } == false)
        try await db.asyncWrite { realm in try realm.add(ObjectSuiteModels.RTNote(value: ["text": "after"])) }
        #expect(try await db.objects(ObjectSuiteModels.RTNote.self).map(\.text) == ["before", "after"])
        await db.close()
        let reopened = try Realm(configuration: config)
        #expect(reopened.objects(ObjectSuiteModels.RTNote.self).map(\.text) == ["before", "after"])
        #expect(reopened.objects(ObjectSuiteModels.RTNote.self).first?.stars == 1)
    }

    @Test func testObjectsAddedInAFailedWriteKeepTheValuesTheyHadWhenAdded() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        let node = ObjectSuiteModels.RTNode(value: ["name": "n", "weight": 5])
        let ints = ObjectSuiteModels.RTEverything(value: ["id": "e", "ints": [1, 2]])
        #expect(throws: AbandonWrite.self) {
            try realm.write {
                try realm.add(node)
                try realm.add(ints)
                node.weight = 6
                ints.ints.append(3)
                ints.string = "changed after add"
                throw AbandonWrite()
            }
        }
        #expect(node.realm == nil)
        #expect(node.weight == 5)
        #expect(ints.realm == nil)
        #expect(Array(ints.ints) == [1, 2])
        #expect(ints.string == "")
        // Unmanaged again means plain objects: they change freely outside a write.
        node.weight = 7
        ints.ints.append(9)
        #expect(node.weight == 7)
        #expect(Array(ints.ints) == [1, 2, 9])
    }

    @Test func testAnObjectAddedAndDeletedInAFailedWriteIsUnmanagedWithItsValues() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        let node = ObjectSuiteModels.RTNode(value: ["name": "brief", "weight": 3, "home": ["street": "Short Street"]])
        #expect(throws: AbandonWrite.self) {
            try realm.write {
                try realm.add(node)
                try realm.delete(node)
                #expect(node.isInvalidated)
                throw AbandonWrite()
            }
        }
        #expect(node.realm == nil)
        #expect(!node.isInvalidated)
        #expect(node.name == "brief")
        #expect(node.weight == 3)
        #expect(node.home?.street == "Short Street")
        #expect(node.home?.realm == nil)
        #expect(realm.objects(ObjectSuiteModels.RTNode.self).isEmpty)
        #expect(realm.objects(ObjectSuiteModels.RTPlace.self).isEmpty)
    }

    @Test func testCancelWriteInsideAWriteBlockKeepsNothingAndTheBlockReturns() throws {
        let config = temporaryConfiguration()
        let node = ObjectSuiteModels.RTNode(value: ["name": "cancelled", "weight": 1])
        do {
            let realm = try Realm(configuration: config)
            try realm.write { try realm.add(ObjectSuiteModels.RTNote(value: ["text": "kept"])) }
            let returned = try realm.write {
                try realm.add(node)
                realm.objects(ObjectSuiteModels.RTNote.self).first!.stars = 5
                try realm.cancelWrite()
                return "returned"
            }
            #expect(returned == "returned")
            #expect(!realm.isInWriteTransaction)
            #expect(node.realm == nil)
            #expect(node.weight == 1)
            #expect(realm.objects(ObjectSuiteModels.RTNote.self).first?.stars == 0)
            #expect(realm.objects(ObjectSuiteModels.RTNode.self).isEmpty)
        }
        let reopened = try Realm(configuration: config)
        #expect(reopened.objects(ObjectSuiteModels.RTNode.self).isEmpty)
        #expect(reopened.objects(ObjectSuiteModels.RTNote.self).map(\.stars) == [0])
    }

    @Test func testAnObjectReachedTwiceByOneFailedAddIsUnmanagedOnce() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        let shared = ObjectSuiteModels.RTTarget(value: ["id": 1, "label": "shared"])
        let o = ObjectSuiteModels.RTEverything(value: ["id": "o"])
        o.link = shared
        o.targets.append(objectsIn: [shared, shared])
        let mixed = ObjectSuiteModels.RTMixed(value: ["id": 1, "value": AnyRealmValue.object(shared)])
        #expect(throws: AbandonWrite.self) {
            try realm.write {
                try realm.add(o)
                try realm.add(mixed)
                #expect(shared.realm === realm)
                throw AbandonWrite()
            }
        }
        #expect(shared.realm == nil)
        #expect(shared.label == "shared")
        #expect(o.link === shared)
        #expect(o.targets.count == 2 && o.targets.allSatisfy { $0 === shared })
        #expect(mixed.value.object(ObjectSuiteModels.RTTarget.self) === shared)
        try realm.write { try realm.add([o]) }
        #expect(realm.objects(ObjectSuiteModels.RTTarget.self).count == 1)
        #expect(o.targets.map(\.id) == [1, 1])
        #expect(shared.listedIn.count == 1)
    }

    @Test func testObjectsFromAFailedWriteCanBeAddedAgainAndAreStoredWithTheirValues() throws {
        let config = temporaryConfiguration()
        let added = RTFixture.full(id: "added", targetBase: 10)
        do {
            let realm = try Realm(configuration: config)
            #expect(throws: AbandonWrite.self) {
                try realm.write {
                    try realm.add(added)
                    throw AbandonWrite()
                }
            }
            // The class created by the failed write is gone from the schema and comes back.
            try realm.write { try realm.add(added) }
            #expect(added.realm === realm)
            RTFixture.expectFull(added, id: "added", targetBase: 10)
            #expect(realm.objects(ObjectSuiteModels.RTTarget.self).count == 3)
            #expect(realm.objects(ObjectSuiteModels.RTPlace.self).count == 3)
        }
        let reopened = try Realm(configuration: config)
        RTFixture.expectFull(
            try #require(reopened.object(ofType: ObjectSuiteModels.RTEverything.self, forPrimaryKey: "added")), id: "added", targetBase: 10)
        #expect(reopened.objects(ObjectSuiteModels.RTTarget.self).count == 3)
    }

    @Test func testAFailedWriteThatCreatedTheFirstObjectOfAClassLeavesNoClassInTheFile() throws {
        let config = temporaryConfiguration()
        do {
            let realm = try Realm(configuration: config)
            try realm.write { try realm.add(ObjectSuiteModels.RTNote(value: ["text": "a note"])) }
            let schemaBefore = realm.currentFileSchema
            #expect(throws: AbandonWrite.self) {
                try realm.write {
                    try realm.add(ObjectSuiteModels.RTMixed(value: ["id": 1]))
                    throw AbandonWrite()
                }
            }
            #expect(realm.currentFileSchema == schemaBefore)
            #expect(realm.currentFileSchema.classes["RTMixed"] == nil)
            #expect(realm.objects(ObjectSuiteModels.RTMixed.self).isEmpty)
        }
        let reopened = try Realm(configuration: config)
        #expect(reopened.currentFileSchema.classes["RTMixed"] == nil)
        #expect(reopened.currentFileSchema.classes["RTNote"] != nil)
        try reopened.write { try reopened.add(ObjectSuiteModels.RTMixed(value: ["id": 1, "value": 5])) }
        #expect(reopened.object(ofType: ObjectSuiteModels.RTMixed.self, forPrimaryKey: 1)?.value == .int(5))
    }

    @Test func testAnUpsertInAFailedWriteLeavesTheExistingObjectAndTheGivenObjectAsTheyWere() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        let existing = ObjectSuiteModels.RTNode(value: ["name": "same", "weight": 1])
        try realm.write { try realm.add(existing) }
        let update = ObjectSuiteModels.RTNode(value: ["name": "same", "weight": 2, "next": ["name": "new next"]])
        #expect(throws: AbandonWrite.self) {
            try realm.write {
                try realm.add(update, update: .modified)
                #expect(existing.weight == 2)
                throw AbandonWrite()
            }
        }
        #expect(existing.weight == 1)
        #expect(existing.next == nil)
        #expect(update.realm == nil)
        #expect(update.weight == 2)
        #expect(update.next?.name == "new next")
        #expect(update.next?.realm == nil)
        #expect(realm.objects(ObjectSuiteModels.RTNode.self).count == 1)
    }

    @Test func testPrimaryKeyDuplicateDeepInACascadeFailsTheAddAndKeepsNothing() throws {
        let config = temporaryConfiguration()
        do {
            let realm = try Realm(configuration: config)
            try realm.write { try realm.add(ObjectSuiteModels.RTNode(value: ["name": "taken", "weight": 1])) }
            // root → a (new) → b (new) → c whose key is taken: the duplicate is three links deep.
            let root = ObjectSuiteModels.RTNode(value: ["name": "root"])
            let a = ObjectSuiteModels.RTNode(value: ["name": "a"])
            let b = ObjectSuiteModels.RTNode(value: ["name": "b"])
            let c = ObjectSuiteModels.RTNode(value: ["name": "taken", "weight": 2])
            root.next = a
            a.children.append(b)
            b.next = c
            let error = #expect(throws: RealmError.self) {
                try realm.write { try realm.add(root) }
            }
            #expect(error?.code == .primaryKeyExists)
            #expect(error?.description.contains("taken") == true)
            #expect(error?.description.contains("RTNode") == true)
            for node in [root, a, b, c] {
                #expect(node.realm == nil, "\(node.name) is unmanaged after the failed add")
            }
            #expect(root.next === a)
            #expect(a.children.first === b)
            #expect(b.next === c)
            #expect(c.weight == 2)
            #expect(realm.objects(ObjectSuiteModels.RTNode.self).map(\.name) == ["taken"])
            #expect(realm.object(ofType: ObjectSuiteModels.RTNode.self, forPrimaryKey: "taken")?.weight == 1)
        }
        let reopened = try Realm(configuration: config)
        #expect(reopened.objects(ObjectSuiteModels.RTNode.self).map(\.name) == ["taken"])
    }

    @Test func testPrimaryKeyDuplicateDeepInACascadeFailsTheCommitEvenIfTheAddErrorIsCaught() throws {
        let config = temporaryConfiguration()
        do {
            let realm = try Realm(configuration: config)
            try realm.write { try realm.add(ObjectSuiteModels.RTNode(value: ["name": "taken", "weight": 1])) }
            let innocent = ObjectSuiteModels.RTNote(value: ["text": "added before the failing add"])
            let root = ObjectSuiteModels.RTNode(value: ["name": "root", "children": [["name": "fine"], ["name": "taken", "weight": 2]]])
            let error = #expect(throws: RealmError.self) {
                try realm.write {
                    try realm.add(innocent)
                    do {
                        try realm.add(root)
                    } catch {
                        // Ignored: the half-added cascade must still not be committed.
                    }
                    try realm.add(ObjectSuiteModels.RTNote(value: ["text": "added after the failing add"]))
                }
            }
            #expect(error?.code == .primaryKeyExists)
            #expect(innocent.realm == nil)
            #expect(root.realm == nil)
            #expect(root.children.allSatisfy { $0.realm == nil })
            #expect(realm.objects(ObjectSuiteModels.RTNote.self).isEmpty)
            #expect(realm.objects(ObjectSuiteModels.RTNode.self).map(\.name) == ["taken"])
            #expect(!realm.isInWriteTransaction)
        }
        let reopened = try Realm(configuration: config)
        #expect(reopened.objects(ObjectSuiteModels.RTNote.self).isEmpty)
        #expect(reopened.objects(ObjectSuiteModels.RTNode.self).map(\.name) == ["taken"])
        #expect(reopened.object(ofType: ObjectSuiteModels.RTNode.self, forPrimaryKey: "taken")?.weight == 1)
    }

    @Test func testPrimaryKeyDuplicateAppendedToAManagedListFailsTheCommit() throws {
        let config = temporaryConfiguration()
        do {
            let realm = try Realm(configuration: config)
            let parent = ObjectSuiteModels.RTNode(value: ["name": "parent"])
            try realm.write {
                try realm.add(parent)
                try realm.add(ObjectSuiteModels.RTNode(value: ["name": "taken"]))
            }
            let error = #expect(throws: RealmError.self) {
                try realm.write {
                    parent.weight = 50
                    parent.children.append(ObjectSuiteModels.RTNode(value: ["name": "new child"]))
                    parent.children.append(ObjectSuiteModels.RTNode(value: ["name": "taken", "weight": 3]))
                }
            }
            #expect(error?.code == .primaryKeyExists)
            #expect(error?.description.contains("taken") == true)
            #expect(parent.weight == 0)
            #expect(parent.children.isEmpty)
            #expect(realm.objects(ObjectSuiteModels.RTNode.self).count == 2)
            #expect(realm.object(ofType: ObjectSuiteModels.RTNode.self, forPrimaryKey: "new child") == nil)
        }
        let reopened = try Realm(configuration: config)
        #expect(Set(reopened.objects(ObjectSuiteModels.RTNode.self).map(\.name)) == ["parent", "taken"])
        #expect(reopened.object(ofType: ObjectSuiteModels.RTNode.self, forPrimaryKey: "parent")?.children.isEmpty == true)
    }

    @Test func testAFailedCommitLeavesTheRealmUsableForTheNextWrite() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        try realm.write { try realm.add(ObjectSuiteModels.RTNode(value: ["name": "taken"])) }
        #expect(throws: RealmError.self) {
            try realm.write { try realm.add(ObjectSuiteModels.RTNode(value: ["name": "x", "next": ["name": "taken"]])) }
        }
        #expect(!realm.isInWriteTransaction)
        // The keys, indexes and backlinks of the failed write are all gone: the same objects add cleanly.
        try realm.write {
            try realm.add(ObjectSuiteModels.RTNode(value: ["name": "x", "next": ["name": "y"]]))
        }
        #expect(realm.object(ofType: ObjectSuiteModels.RTNode.self, forPrimaryKey: "x")?.next?.name == "y")
        #expect(realm.object(ofType: ObjectSuiteModels.RTNode.self, forPrimaryKey: "y")?.previous.map(\.name) == ["x"])
        #expect(realm.objects(ObjectSuiteModels.RTNode.self).count == 3)
    }

    @Test func testALinkToAnEmbeddedObjectReplacedInAFailedWriteReadsTheOldObject() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        let node = ObjectSuiteModels.RTNode(value: ["name": "n", "home": ["street": "Old", "tags": ["a"]]])
        try realm.write { try realm.add(node) }
        let oldHome = try #require(node.home)
        #expect(throws: AbandonWrite.self) {
            try realm.write {
                node.home = ObjectSuiteModels.RTPlace(value: ["street": "New"])
                #expect(oldHome.isInvalidated, "the replaced embedded object is deleted inside the write")
                throw AbandonWrite()
            }
        }
        #expect(!oldHome.isInvalidated)
        #expect(oldHome.street == "Old")
        #expect(Array(oldHome.tags) == ["a"])
        #expect(node.home?.street == "Old")
        #expect(realm.objects(ObjectSuiteModels.RTPlace.self).count == 1)
    }

    @Test func testDeleteAllInAFailedWriteKeepsEverything() throws {
        let config = temporaryConfiguration()
        do {
            let realm = try Realm(configuration: config)
            let seeded = try seed(realm)
            #expect(throws: AbandonWrite.self) {
                try realm.write {
                    try realm.deleteAll()
                    #expect(realm.isEmpty)
                    throw AbandonWrite()
                }
            }
            try expectSeededState(realm)
            expectLiveObjectsReadOldValues(seeded)
        }
        try expectSeededState(try Realm(configuration: config))
    }
}
