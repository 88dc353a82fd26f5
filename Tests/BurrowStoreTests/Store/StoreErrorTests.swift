import BurrowStorage
import BurrowStore
import BurrowTestSupport
import Foundation
import Testing

/// The rules the store enforces, as `StoreError`s a caller can switch on: each is thrown before
/// anything is written, so a transaction that meets one may go on or be cancelled.
@Suite("StoreErrors")
struct StoreErrorTests {
    static let item = DeclaredClass(
        name: "Item",
        properties: [
            TestProperty.make("id", .int, primary: true), TestProperty.make("title", .string),
            TestProperty.make("tags", .string, .list), TestProperty.make("next", .object, optional: true, to: "Item"),
        ], isEmbedded: false)

    /// A store on a new in-memory engine, with the class `Item` stored.
    func makeStore(_ label: String) throws -> StoreHarness {
        try StoreHarness(
            storage: try Storage.inMemory(identifier: "store-errors-\(label)-\(UInt64.random(in: 0...UInt64.max))"), declaring: [Self.item])
    }

    /// Inserts an `Item` with primary key `id` and title `title`.
    @discardableResult
    func insertItem(_ harness: StoreHarness, id: Int64, title: String) throws -> ObjectKey {
        let table = harness.table("Item")
        return try harness.store.insertObject(table, primaryKey: .int(id), probed: nil, in: harness.write) { field in
            switch field {
            case 0: .stored(.int(id))
            case 1: .stored(.string(title))
            default: .empty
            }
        }
    }

    func title(_ harness: StoreHarness, _ key: ObjectKey) -> String? {
        guard case .single(.string(let title)) = harness.store.content(harness.table("Item"), key, 1, resolve: { _, _ -> StoreValue in .null }) else {
            return nil
        }
        return title
    }

    @Test("a duplicate primary key throws primaryKeyExists before anything is written")
    func duplicatePrimaryKeyWritesNothing() throws {
        let harness = try makeStore("duplicate")
        let table = harness.table("Item")
        try harness.beginWrite()
        let first = try insertItem(harness, id: 7, title: "first")
        try harness.commit()

        try harness.beginWrite()
        let other = try insertItem(harness, id: 8, title: "other")
        #expect {
            try insertItem(harness, id: 7, title: "second")
        } throws: { error in
            (error as? StoreError)?.kind == .primaryKeyExists
        }
        // The transaction goes on: nothing of the refused object is in it.
        #expect(try harness.store.objectKeys(table) == [first, other].sorted())
        #expect(title(harness, first) == "first")
        try harness.commit()
        #expect(try harness.store.objectKeys(table) == [first, other].sorted())
        #expect(try harness.store.objectKey(table, primaryKey: .int(7)) == first)

        // Refused again, then cancelled: the file is as it was.
        try harness.beginWrite()
        #expect(throws: StoreError.self) { try insertItem(harness, id: 8, title: "again") }
        harness.cancel()
        #expect(try harness.store.objectKeys(table) == [first, other].sorted())
        #expect(title(harness, first) == "first" && title(harness, other) == "other")
    }

    @Test("changing a deleted object throws invalidObject")
    func changingADeletedObjectThrows() throws {
        let harness = try makeStore("deleted")
        let table = harness.table("Item")
        try harness.beginWrite()
        let key = try insertItem(harness, id: 1, title: "doomed")
        try harness.store.deleteObject(table, key, in: harness.write)
        let changes: [(String, () throws -> Void)] = [
            ("setField", { try harness.store.setField(table, key, 1, .single(.string("x")), in: harness.write) }),
            ("setPayload", { try harness.store.setPayload(table, key, 1, nil, in: harness.write) }),
            ("listInsert", { try harness.store.listInsert(table, key, 2, .string("x"), at: 0, in: harness.write) }),
        ]
        for (name, change) in changes {
            #expect("\(name)", performing: change, throws: { error in (error as? StoreError)?.kind == .invalidObject })
        }
        try harness.commit()
        #expect(try harness.store.objectKeys(table).isEmpty)
    }

    @Test("changing a primary key outside a migration throws invalidArgument")
    func changingAPrimaryKeyThrows() throws {
        let harness = try makeStore("primary")
        let table = harness.table("Item")
        try harness.beginWrite()
        let key = try insertItem(harness, id: 1, title: "one")
        try harness.store.setField(table, key, 0, .single(.int(1)), in: harness.write)
        #expect {
            try harness.store.setField(table, key, 0, .single(.int(2)), in: harness.write)
        } throws: { error in
            (error as? StoreError)?.kind == .invalidArgument
        }
        try harness.commit()
        #expect(try harness.store.objectKey(table, primaryKey: .int(1)) == key)
        #expect(try harness.store.objectKey(table, primaryKey: .int(2)) == nil)
    }

    @Test("a damaged schema entry throws corruptFile from FileSchema.load")
    func damagedSchemaEntryThrowsCorruptFile() throws {
        let harness = try makeStore("schema")
        let write = try harness.beginWrite()
        try write.trees.put(.schema, Array((FileSchema.classKeyPrefix + "Item").utf8), Array("{\"id\": \"not a number\"".utf8))
        #expect {
            _ = try FileSchema.load(from: write.trees, stamp: try FileSchema.stamp(in: write.trees), path: "damaged.burrow")
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.kind == .corruptFile && error.message.contains("damaged.burrow")
        }
        harness.cancel()
        // The entry the write damaged was never committed.
        #expect(
            try FileSchema.load(from: harness.store.reader, stamp: try FileSchema.stamp(in: harness.store.reader), path: "x").classes["Item"] != nil)
    }

    @Test("a damaged schema info entry throws corruptFile from FileSchema.load")
    func damagedSchemaInfoThrowsCorruptFile() throws {
        let harness = try makeStore("info")
        let write = try harness.beginWrite()
        let damaged = Array("[]".utf8)
        try write.trees.put(.schema, FileSchema.infoKey, damaged)
        #expect {
            _ = try FileSchema.load(from: write.trees, stamp: damaged, path: "damaged.burrow")
        } throws: { error in
            (error as? StoreError)?.kind == .corruptFile
        }
        harness.cancel()
    }
}

/// Embedded objects live only in their owner's field: deleting one leaves the owner's other
/// embedded objects alone.
@Suite("EmbeddedDeletes")
struct EmbeddedDeleteTests {
    static let classes = [
        DeclaredClass(
            name: "Owner",
            properties: [TestProperty.make("notes", .object, .list, to: "Note"), TestProperty.make("note", .object, optional: true, to: "Note")],
            isEmbedded: false),
        DeclaredClass(name: "Note", properties: [TestProperty.make("text", .string)], isEmbedded: true),
    ]

    @Test("deleting an embedded object in a list removes it alone, and its siblings stay")
    func deletingAnEmbeddedListElementKeepsItsSiblings() throws {
        let harness = try StoreHarness(
            storage: try Storage.inMemory(identifier: "embedded-delete-\(UInt64.random(in: 0...UInt64.max))"), declaring: Self.classes)
        let owners = harness.table("Owner")
        let notes = harness.table("Note")
        let store = harness.store
        try harness.beginWrite()
        let owner = try store.insertObject(owners, primaryKey: nil, probed: nil, in: harness.write) { _ in .empty }
        var keys: [ObjectKey] = []
        for text in ["a", "b", "c"] {
            let note = try store.insertObject(notes, primaryKey: nil, probed: nil, in: harness.write) { _ in .stored(.string(text)) }
            try store.listInsert(owners, owner, 0, .object(ObjectLink(table: notes.id, key: note)), at: keys.count, in: harness.write)
            keys.append(note)
        }
        try harness.commit()

        try harness.beginWrite()
        try store.deleteObject(notes, keys[1], in: harness.write)
        try harness.commit()
        // The store's bug: removing the link from the owner rewrites the whole list
        // (`removeIncomingLinks` → `setField` → `replaceCollection`), and `clearCollection`
        // deletes every embedded element it clears as an orphan, the siblings re-added too.
        let remaining = try store.objectKeys(notes)
        withKnownIssue("deleting an embedded object from a list deletes its siblings (issue 30)") {
            let left = store.content(owners, owner, 0) { .object(ObjectLink(table: $0, key: $1)) }
            guard case .elements(let elements) = left else {
                Issue.record("the list reads as \(left)")
                return
            }
            let expected: [StoreValue] = [.object(ObjectLink(table: notes.id, key: keys[0])), .object(ObjectLink(table: notes.id, key: keys[2]))]
            #expect(sameStoredValues(elements, expected), "the list holds \(elements)")
            #expect(remaining == [keys[0], keys[2]])
        }
    }
}
