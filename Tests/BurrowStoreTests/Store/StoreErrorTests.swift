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
        return try harness.store.insertObject(table, primaryKey: .int(id), probed: nil, in: harness.write) { field -> NewField<ObjectLink> in
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
