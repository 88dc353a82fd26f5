import BurrowStorage
import BurrowStore
import Testing

/// Embedded objects live only in their owner's field: deleting one leaves the owner's other
/// embedded objects alone, as in RealmSwift. A deleted list element leaves the list (the others
/// keep their order), a deleted map value leaves its key with nil, and a deleted to-one
/// embedded object leaves its property nil. Deleting an owner deletes the embedded objects it
/// holds, however deeply they nest.
@Suite("EmbeddedDeletes")
struct EmbeddedDeleteTests {
    static let notesField = 0
    static let noteField = 1
    static let noteMapField = 2
    static let innerField = 1

    static let classes = [
        DeclaredClass(
            name: "Owner",
            properties: [
                TestProperty.make("notes", .object, .list, to: "Note"), TestProperty.make("note", .object, optional: true, to: "Note"),
                TestProperty.make("noteMap", .object, optional: true, .map, to: "Note"),
            ],
            isEmbedded: false),
        DeclaredClass(
            name: "Note", properties: [TestProperty.make("text", .string), TestProperty.make("inner", .object, optional: true, to: "Note")],
            isEmbedded: true),
    ]

    /// A store holding `classes`, its two tables, and a write transaction begun.
    struct Fixture {
        let harness: StoreHarness
        let owners: Table
        let notes: Table
        var store: ObjectStore { harness.store }

        init(_ label: String) throws {
            harness = try StoreHarness(
                storage: try Storage.inMemory(identifier: "\(label)-\(UInt64.random(in: 0...UInt64.max))"), declaring: EmbeddedDeleteTests.classes)
            owners = harness.table("Owner")
            notes = harness.table("Note")
            try harness.beginWrite()
        }

        func newOwner() throws -> ObjectKey {
            try store.insertObject(owners, primaryKey: nil, probed: nil, in: harness.write) { _ -> NewField<ObjectLink> in .empty }
        }

        func newNote(_ text: String) throws -> ObjectKey {
            try store.insertObject(notes, primaryKey: nil, probed: nil, in: harness.write) { field -> NewField<ObjectLink> in
                field == 0 ? .stored(.string(text)) : .empty
            }
        }

        func link(_ note: ObjectKey) -> StoreValue { .object(ObjectLink(table: notes.id, key: note)) }

        /// Appends new notes with `texts` to `owner`'s list and returns their keys.
        func appendNotes(_ texts: [String], to owner: ObjectKey) throws -> [ObjectKey] {
            var keys: [ObjectKey] = []
            for text in texts {
                let note = try newNote(text)
                try store.listInsert(owners, owner, notesField, link(note), at: keys.count, in: harness.write)
                keys.append(note)
            }
            return keys
        }

        /// Deletes note `key` in a transaction of its own, after committing the open one if one
        /// is open.
        func deleteNoteInOwnWrite(_ key: ObjectKey) throws {
            if store.write != nil { try harness.commit() }
            try harness.beginWrite()
            try store.deleteObject(notes, key, in: harness.write)
            try harness.commit()
        }

        /// The links to note `key`: each linking object's class id, field and key.
        func linksToNote(_ key: ObjectKey) throws -> [(table: UInt32, field: Int, key: ObjectKey)] {
            try harness.beginWrite()
            defer { harness.cancel() }
            return try store.incomingLinks(to: notes, key, in: harness.write)
        }

        func content(_ owner: ObjectKey, _ field: Int) -> FieldContent<ObjectLink> {
            store.content(owners, owner, field) { .object(ObjectLink(table: $0, key: $1)) }
        }
    }

    @Test("deleting an embedded object in a list removes it alone, and its siblings stay in order", arguments: [0, 1, 2])
    func deletingAnEmbeddedListElementKeepsItsSiblings(index: Int) throws {
        let fixture = try Fixture("embedded-list-delete")
        let owner = try fixture.newOwner()
        let keys = try fixture.appendNotes(["a", "b", "c"], to: owner)
        try fixture.deleteNoteInOwnWrite(keys[index])

        var survivors = keys
        survivors.remove(at: index)
        guard case .elements(let elements) = fixture.content(owner, Self.notesField) else {
            Issue.record("the list reads as \(fixture.content(owner, Self.notesField))")
            return
        }
        #expect(sameStoredValues(elements, survivors.map(fixture.link)), "the list holds \(elements)")
        #expect(fixture.store.collectionCount(fixture.owners, owner, Self.notesField) == 2)
        #expect(try fixture.store.objectKeys(fixture.notes) == survivors)
        #expect(try fixture.linksToNote(keys[index]).isEmpty)
        for survivor in survivors {
            let links = try fixture.linksToNote(survivor)
            #expect(links.count == 1 && links[0].key == owner && links[0].field == Self.notesField, "note \(survivor) has links \(links)")
        }
    }

    @Test("deleting every element of an embedded list one by one empties it and deletes no owner")
    func deletingEveryEmbeddedListElement() throws {
        let fixture = try Fixture("embedded-list-delete-all")
        let owner = try fixture.newOwner()
        let keys = try fixture.appendNotes(["a", "b", "c", "d"], to: owner)
        for key in [keys[2], keys[0], keys[3], keys[1]] { try fixture.deleteNoteInOwnWrite(key) }
        #expect(fixture.store.collectionCount(fixture.owners, owner, Self.notesField) == 0)
        guard case .elements(let elements) = fixture.content(owner, Self.notesField) else {
            Issue.record("the list reads as \(fixture.content(owner, Self.notesField))")
            return
        }
        #expect(elements.isEmpty)
        #expect(try fixture.store.objectKeys(fixture.notes).isEmpty)
        #expect(try fixture.store.objectKeys(fixture.owners) == [owner])
    }

    @Test("deleting an embedded object in a map leaves its key with nil, and the other values stay")
    func deletingAnEmbeddedMapValueKeepsTheOthers() throws {
        let fixture = try Fixture("embedded-map-delete")
        let owner = try fixture.newOwner()
        var keys: [ObjectKey] = []
        for text in ["a", "b", "c"] {
            let note = try fixture.newNote(text)
            try fixture.store.mapSet(fixture.owners, owner, Self.noteMapField, text, fixture.link(note), in: fixture.harness.write)
            keys.append(note)
        }
        try fixture.deleteNoteInOwnWrite(keys[1])

        guard case .entries(let entries) = fixture.content(owner, Self.noteMapField) else {
            Issue.record("the map reads as \(fixture.content(owner, Self.noteMapField))")
            return
        }
        #expect(entries.map(\.key) == ["a", "b", "c"])
        #expect(sameStoredValues(entries.map(\.value), [fixture.link(keys[0]), .null, fixture.link(keys[2])]), "the map holds \(entries)")
        #expect(fixture.store.collectionCount(fixture.owners, owner, Self.noteMapField) == 3)
        #expect(try fixture.store.objectKeys(fixture.notes) == [keys[0], keys[2]])
        #expect(try fixture.linksToNote(keys[1]).isEmpty)
        for survivor in [keys[0], keys[2]] {
            let links = try fixture.linksToNote(survivor)
            #expect(links.count == 1 && links[0].key == owner && links[0].field == Self.noteMapField, "note \(survivor) has links \(links)")
        }
    }

    @Test("deleting an embedded object held by a to-one property sets the property to nil")
    func deletingAToOneEmbeddedObjectLeavesNil() throws {
        let fixture = try Fixture("embedded-single-delete")
        let owner = try fixture.newOwner()
        let other = try fixture.newOwner()
        let note = try fixture.newNote("mine")
        let otherNote = try fixture.newNote("theirs")
        try fixture.store.setField(fixture.owners, owner, Self.noteField, .single(fixture.link(note)), in: fixture.harness.write)
        try fixture.store.setField(fixture.owners, other, Self.noteField, .single(fixture.link(otherNote)), in: fixture.harness.write)
        try fixture.deleteNoteInOwnWrite(note)

        guard case .single(let value) = fixture.content(owner, Self.noteField) else {
            Issue.record("the property reads as \(fixture.content(owner, Self.noteField))")
            return
        }
        #expect(sameStoredValue(value, .null), "the property holds \(value)")
        guard case .single(let otherValue) = fixture.content(other, Self.noteField) else {
            Issue.record("the other property reads as \(fixture.content(other, Self.noteField))")
            return
        }
        #expect(sameStoredValue(otherValue, fixture.link(otherNote)))
        #expect(try fixture.store.objectKeys(fixture.notes) == [otherNote])
        #expect(try fixture.store.objectKeys(fixture.owners) == [owner, other])
        #expect(try fixture.linksToNote(note).isEmpty)
    }

    @Test("deleting an embedded object deletes the embedded objects it holds, and only those")
    func deletingAnEmbeddedObjectDeletesWhatItHolds() throws {
        let fixture = try Fixture("embedded-nested-delete")
        let owner = try fixture.newOwner()
        let keys = try fixture.appendNotes(["a", "b"], to: owner)
        let innerA = try fixture.newNote("a.inner")
        let innerB = try fixture.newNote("b.inner")
        try fixture.store.setField(fixture.notes, keys[0], Self.innerField, .single(fixture.link(innerA)), in: fixture.harness.write)
        try fixture.store.setField(fixture.notes, keys[1], Self.innerField, .single(fixture.link(innerB)), in: fixture.harness.write)
        try fixture.deleteNoteInOwnWrite(keys[0])

        #expect(try fixture.store.objectKeys(fixture.notes) == [keys[1], innerB].sorted())
        guard case .elements(let elements) = fixture.content(owner, Self.notesField) else {
            Issue.record("the list reads as \(fixture.content(owner, Self.notesField))")
            return
        }
        #expect(sameStoredValues(elements, [fixture.link(keys[1])]))
    }

    @Test("deleting an owner deletes its embedded objects in every field, however deep a chain of them nests")
    func deletingAnOwnerDeletesItsEmbeddedObjects() throws {
        let fixture = try Fixture("embedded-owner-delete")
        let owner = try fixture.newOwner()
        let keeper = try fixture.newOwner()
        _ = try fixture.appendNotes(["a", "b", "c"], to: owner)
        let kept = try fixture.appendNotes(["kept"], to: keeper)
        let single = try fixture.newNote("single")
        try fixture.store.setField(fixture.owners, owner, Self.noteField, .single(fixture.link(single)), in: fixture.harness.write)
        for text in ["x", "y"] {
            let note = try fixture.newNote(text)
            try fixture.store.mapSet(fixture.owners, owner, Self.noteMapField, text, fixture.link(note), in: fixture.harness.write)
        }
        // A chain of embedded objects deep enough to overflow the stack if deleting followed it
        // by recursion.
        var parent = single
        for depth in 0..<20_000 {
            let child = try fixture.newNote("depth \(depth)")
            try fixture.store.setField(fixture.notes, parent, Self.innerField, .single(fixture.link(child)), in: fixture.harness.write)
            parent = child
        }
        try fixture.harness.commit()

        try fixture.harness.beginWrite()
        try fixture.store.deleteObject(fixture.owners, owner, in: fixture.harness.write)
        try fixture.harness.commit()
        #expect(try fixture.store.objectKeys(fixture.owners) == [keeper])
        #expect(try fixture.store.objectKeys(fixture.notes) == kept)
    }
}
