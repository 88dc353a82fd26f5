import BurrowStorage
import BurrowStore
import BurrowTestSupport
import Foundation
import Testing

/// The schema a write stores: read back after the commit and after reopening, and gone with a
/// cancelled write.
@Suite("StoredSchema")
struct StoredSchemaTests {
    static let first = DeclaredClass(name: "First", properties: [TestProperty.make("value", .int, indexed: true)], isEmbedded: false)
    static let second = DeclaredClass(
        name: "Second",
        properties: [TestProperty.make("id", .string, primary: true), TestProperty.make("first", .object, optional: true, to: "First")],
        isEmbedded: false)

    @Test("a cancelled write that stored a class leaves the schema read before")
    func cancelledSchemaChangeLeavesNoTrace() throws {
        let harness = try StoreHarness(
            storage: try Storage.inMemory(identifier: "stored-schema-\(UInt64.random(in: 0...UInt64.max))"), declaring: [Self.first])
        let before = harness.store.currentFileSchema
        let write = try harness.beginWrite()
        var schema = before
        let stored = Table.newStoredClass(for: Self.second, id: schema.info.nextClassId)
        schema.info.nextClassId += 1
        schema.classes[stored.name] = stored
        try harness.store.storeSchema(schema, changing: [stored], in: write)
        #expect(harness.store.currentFileSchema.classes["Second"] == stored)
        harness.cancel()
        #expect(harness.store.currentFileSchema == before)
        let reloaded = try FileSchema.load(from: harness.store.reader, stamp: try FileSchema.stamp(in: harness.store.reader), path: "memory")
        #expect(reloaded == before)
    }

    @Test("the classes a write stores read back the same after reopening the file")
    func storedClassesReadBackAfterReopening() throws {
        let directory = try TemporaryDirectory("stored-schema")
        let path = directory.file("schema.burrow")
        let stored: FileSchema
        do {
            let harness = try StoreHarness(storage: try Storage.open(path: path), declaring: [Self.first, Self.second])
            stored = harness.store.currentFileSchema
            #expect(stored.classes.count == 2 && stored.info.nextClassId == 3)
            #expect(stored.classes["Second"]?.properties.map(\.name) == ["id", "first"])
            harness.storage.close()
        }
        let reopened = try StoreHarness(storage: try Storage.open(path: path), declaring: [Self.first, Self.second])
        #expect(reopened.store.currentFileSchema == stored)
        #expect(reopened.table("Second").primaryKeyField == 0)
        #expect(reopened.table("First").fieldIndexTrees == [TreeName(.index, stored.classes["First"]!.id, field: 0)])
    }
}
