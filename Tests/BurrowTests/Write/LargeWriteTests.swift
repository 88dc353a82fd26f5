import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// A write transaction that adds many objects does not keep alive those the caller let go of,
/// and still ends as a smaller one does: cancelling makes the objects the caller holds
/// unmanaged again (RealmSwift's `create`'s are invalidated), committing keeps every row.
@Suite(.temporaryDirectory) struct LargeWriteTests {
    /// A weak reference, to see whether an object was freed.
    private final class Weak {
        weak var object: ObjectBase?
        init(_ object: ObjectBase) { self.object = object }
    }

    /// Begins a write on `realm` whose list of added objects lets go of dropped objects
    /// past `threshold` entries (65,536 in a real transaction).
    private func beginWrite(_ realm: Realm, threshold: Int) throws {
        try realm.beginWrite()
        realm.write!.added = AddedObjects(compactionThreshold: threshold)
    }

    /// Adds `count` notes numbered from 0, keeping every `keptEvery`-th and a weak reference
    /// to each of the others.
    private func addNotes(_ realm: Realm, count: Int, keptEvery: Int) throws -> (kept: [ObjectSuiteModels.RTNote], dropped: [Weak]) {
        var kept: [ObjectSuiteModels.RTNote] = []
        var dropped: [Weak] = []
        for number in 0..<count {
            let note = ObjectSuiteModels.RTNote(value: ["text": "note \(number)", "stars": number])
            try realm.add(note)
            if number % keptEvery == 0 { kept.append(note) } else { dropped.append(Weak(note)) }
        }
        return (kept, dropped)
    }

    @Test func testDroppedObjectsAreFreedBeforeTheWriteEnds() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        try beginWrite(realm, threshold: 64)
        let (kept, dropped) = try addNotes(realm, count: 1_000, keptEvery: 100)
        let alive = dropped.filter { $0.object != nil }.count
        #expect(alive < 128, "\(alive) of \(dropped.count) dropped objects are still alive")
        #expect(realm.write!.added.count < 200 + kept.count)
        #expect(kept.allSatisfy { $0.realm === realm })
        try realm.commitWrite()
        #expect(realm.objects(ObjectSuiteModels.RTNote.self).count == 1_000)
        #expect(realm.objects(ObjectSuiteModels.RTNote.self).sum(ofProperty: "stars") as Int == (0..<1_000).reduce(0, +))
        #expect(kept.map(\.stars) == Array(stride(from: 0, to: 1_000, by: 100)))
        #expect(kept.allSatisfy { $0.realm === realm && !$0.isInvalidated })
    }

    @Test func testCancellingALargeWriteMakesTheHeldObjectsUnmanagedAgain() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        try beginWrite(realm, threshold: 64)
        let (kept, _) = try addNotes(realm, count: 1_000, keptEvery: 100)
        let made = try realm.create(ObjectSuiteModels.RTNote.self, value: ["text": "made", "stars": -1])
        // More adds, so that passes run after `create`'s object was listed.
        _ = try addNotes(realm, count: 300, keptEvery: 1_000)
        try realm.cancelWrite()
        #expect(realm.objects(ObjectSuiteModels.RTNote.self).isEmpty)
        for (index, note) in kept.enumerated() {
            #expect(note.realm == nil && !note.isInvalidated)
            #expect(note.text == "note \(index * 100)" && note.stars == index * 100)
        }
        #expect(made.isInvalidated, "RealmSwift: an object create made in a cancelled write is invalidated")
    }

    @Test func testALinkedChainDroppedInsideTheWriteIsCommittedWhole() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        let depth = 500
        try beginWrite(realm, threshold: 64)
        var head: ObjectSuiteModels.RTNode? = ObjectSuiteModels.RTNode(value: ["name": "0", "weight": 0])
        var tail = head!
        for number in 1..<depth {
            let next = ObjectSuiteModels.RTNode(value: ["name": "\(number)", "weight": number])
            tail.next = next
            tail = next
        }
        try realm.add(head!)
        head = nil
        // Passes run over the chain's entries; its objects hold one another (and their
        // unmanaged values hold them) until the commit.
        _ = try addNotes(realm, count: 2_000, keptEvery: 10_000)
        try realm.commitWrite()
        #expect(realm.objects(ObjectSuiteModels.RTNode.self).count == depth)
        var node = try #require(realm.object(ofType: ObjectSuiteModels.RTNode.self, forPrimaryKey: "0"))
        var steps = 0
        while let next = node.next {
            node = next
            steps += 1
        }
        #expect(steps == depth - 1 && node.name == "\(depth - 1)" && tail.realm === realm)
    }

    @Test func testCancellingAfterAChainWasDroppedLeavesTheHeldTailUnmanaged() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        try beginWrite(realm, threshold: 64)
        var head: ObjectSuiteModels.RTNode? = ObjectSuiteModels.RTNode(value: ["name": "head"])
        let tail = ObjectSuiteModels.RTNode(value: ["name": "tail", "weight": 7])
        head!.next = tail
        try realm.add(head!)
        head = nil
        _ = try addNotes(realm, count: 500, keptEvery: 10_000)
        try realm.cancelWrite()
        #expect(tail.realm == nil && !tail.isInvalidated && tail.name == "tail" && tail.weight == 7)
        #expect(realm.objects(ObjectSuiteModels.RTNode.self).isEmpty)
    }
}
