import Foundation
import Testing

@testable import Burrow

/// The models of `EmbeddedObjectDeleteTests`.
enum EmbeddedDeleteModels {
    final class Note: EmbeddedObject {
        override class func _realmObjectName() -> String? { "EmbeddedDeleteNote" }
        @Persisted var text = ""
        @Persisted var inner: EmbeddedDeleteModels.Note?
    }

    final class Owner: Object {
        override class func _realmObjectName() -> String? { "EmbeddedDeleteOwner" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var note: EmbeddedDeleteModels.Note?
        @Persisted var notes: List<EmbeddedDeleteModels.Note>
        @Persisted var noteMap: Map<String, EmbeddedDeleteModels.Note?>
    }
}

/// Deleting an embedded object with `realm.delete`, as a RealmSwift user does: it leaves its
/// owner's list (the other elements stay, in order), a map keeps its key with nil, and a to-one
/// property becomes nil. Only that object (and the embedded objects it holds) is deleted.
@Suite struct EmbeddedObjectDeleteTests {
    typealias Note = EmbeddedDeleteModels.Note
    typealias Owner = EmbeddedDeleteModels.Owner

    static func memoryRealm() throws -> Realm {
        try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "embedded-delete-\(UUID().uuidString)"))
    }

    /// An owner with notes "a", "b", "c" in its list, "x", "y", "z" in its map (keyed by their
    /// text) and "single" in its to-one property, added to `realm`.
    static func owner(id: Int = 1, in realm: Realm) throws -> Owner {
        let owner = Owner(
            value: [
                "id": id, "note": ["text": "single"], "notes": [["text": "a"], ["text": "b"], ["text": "c"]],
                "noteMap": ["x": ["text": "x"], "y": ["text": "y"], "z": ["text": "z"]],
            ])
        try realm.write { try realm.add(owner) }
        return owner
    }

    @Test("realm.delete(list[i]) removes that element alone; the others stay in order", arguments: [0, 1, 2])
    func deletingAListElement(index: Int) throws {
        let realm = try Self.memoryRealm()
        let owner = try Self.owner(in: realm)
        let other = try Self.owner(id: 2, in: realm)
        let survivors = Array(owner.notes.enumerated().filter { $0.offset != index }.map(\.element))
        let doomed = owner.notes[index]
        try realm.write { try realm.delete(doomed) }

        var texts = ["a", "b", "c"]
        texts.remove(at: index)
        #expect(doomed.isInvalidated)
        #expect(owner.notes.count == 2)
        #expect(owner.notes.map(\.text) == texts)
        #expect(survivors.allSatisfy { !$0.isInvalidated })
        #expect(survivors.map(\.text) == texts)
        #expect(owner.note?.text == "single")
        #expect(owner.noteMap.count == 3)
        #expect(other.notes.map(\.text) == ["a", "b", "c"])
        // Two owners' 7 notes each, one deleted.
        #expect(realm.objects(Note.self).count == 13)
        let reread = try #require(realm.object(ofType: Owner.self, forPrimaryKey: 1))
        #expect(reread.notes.map(\.text) == texts)
    }

    @Test("realm.delete(list[1]) in a loop empties a list one element at a time")
    func deletingEveryListElement() throws {
        let realm = try Self.memoryRealm()
        let owner = try Self.owner(in: realm)
        try realm.write { try realm.delete(owner.notes[1]) }
        #expect(owner.notes.map(\.text) == ["a", "c"])
        try realm.write {
            try realm.delete(owner.notes[1])
            try realm.delete(owner.notes[0])
        }
        #expect(owner.notes.isEmpty)
        #expect(realm.objects(Note.self).count == 4)
    }

    @Test("realm.delete(map[key]) leaves the key with nil; the other values stay")
    func deletingAMapValue() throws {
        let realm = try Self.memoryRealm()
        let owner = try Self.owner(in: realm)
        let doomed = try #require(owner.noteMap["y"] ?? nil)
        try realm.write { try realm.delete(doomed) }

        #expect(doomed.isInvalidated)
        #expect(owner.noteMap.count == 3)
        #expect(owner.noteMap.keys.sorted() == ["x", "y", "z"])
        #expect((owner.noteMap["y"] ?? nil) == nil)
        #expect((owner.noteMap["x"] ?? nil)?.text == "x")
        #expect((owner.noteMap["z"] ?? nil)?.text == "z")
        #expect(owner.notes.map(\.text) == ["a", "b", "c"])
        #expect(realm.objects(Note.self).count == 6)
    }

    @Test("realm.delete of a to-one embedded object sets the property to nil")
    func deletingAToOneEmbeddedObject() throws {
        let realm = try Self.memoryRealm()
        let owner = try Self.owner(in: realm)
        let doomed = try #require(owner.note)
        try realm.write { try realm.delete(doomed) }

        #expect(doomed.isInvalidated)
        #expect(owner.note == nil)
        #expect(owner.notes.count == 3)
        #expect(owner.noteMap.count == 3)
        #expect(realm.objects(Note.self).count == 6)
    }

    @Test("deleting an embedded object deletes the embedded objects it holds")
    func deletingAnEmbeddedObjectDeletesWhatItHolds() throws {
        let realm = try Self.memoryRealm()
        let owner = try Self.owner(in: realm)
        try realm.write {
            owner.notes[0].inner = Note(value: ["text": "a.inner", "inner": ["text": "a.inner.inner"]])
            owner.notes[1].inner = Note(value: ["text": "b.inner"])
        }
        #expect(realm.objects(Note.self).count == 10)
        try realm.write { try realm.delete(owner.notes[0]) }
        #expect(owner.notes.map(\.text) == ["b", "c"])
        #expect(owner.notes[0].inner?.text == "b.inner")
        #expect(realm.objects(Note.self).count == 7)
    }

    @Test("deleting an owner deletes its embedded objects, and another owner's stay")
    func deletingAnOwner() throws {
        let realm = try Self.memoryRealm()
        let owner = try Self.owner(in: realm)
        let other = try Self.owner(id: 2, in: realm)
        try realm.write { owner.notes[2].inner = Note(value: ["text": "c.inner"]) }
        try realm.write { try realm.delete(owner) }
        #expect(realm.objects(Note.self).count == 7)
        #expect(other.notes.map(\.text) == ["a", "b", "c"])
        #expect(other.noteMap.keys.sorted() == ["x", "y", "z"])
        #expect(other.note?.text == "single")
    }
}
