import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// The models of `PrimaryKeyChangeTests`, stored under the names they had before they were namespaced.
enum PrimaryKeyChangeModels {
    final class Item: Object {
        override class func _realmObjectName() -> String? { "PKChangeItem" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
    }

    final class Label: Object {
        override class func _realmObjectName() -> String? { "PKChangeLabel" }
        @Persisted(primaryKey: true) var code: String?
        @Persisted var uses = 0
    }
}

/// A managed object's primary key cannot change, as in RealmSwift ("Primary key can't be
/// changed after an object is inserted."): the assignment cannot throw, so the write records
/// the error and its commit throws it, changing nothing.
@Suite(.temporaryDirectory) struct PrimaryKeyChangeTests {
    private static let reason = "Primary key can't be changed after an object is inserted"

    /// A realm with item 1 "one" and label "a".
    private func realmWithObjects(_ name: String = #function) throws -> (Realm, PrimaryKeyChangeModels.Item, PrimaryKeyChangeModels.Label) {
        let realm = try Realm(configuration: temporaryInMemoryConfiguration(name))
        let item = PrimaryKeyChangeModels.Item(value: ["id": 1, "name": "one"])
        let label = PrimaryKeyChangeModels.Label(value: ["code": "a"])
        try realm.write {
            try realm.add(item)
            try realm.add(label)
        }
        return (realm, item, label)
    }

    /// Runs `change` in a write that also renames the item, expects the commit to throw the
    /// primary-key error, and checks that nothing changed.
    private func expectRejected(
        _ realm: Realm, _ item: PrimaryKeyChangeModels.Item, _ label: PrimaryKeyChangeModels.Label, sourceLocation: SourceLocation = #_sourceLocation,
        _ change: () -> Void
    ) {
        do {
            try realm.write {
                item.name = "renamed"
                change()
            }
            Issue.record("changing a primary key committed", sourceLocation: sourceLocation)
        } catch let error as RealmError {
            #expect(error.description.contains(Self.reason), "\(error.description)", sourceLocation: sourceLocation)
            #expect(error.code == .invalidArgument, sourceLocation: sourceLocation)
        } catch {
            Issue.record("not a RealmError: \(error)", sourceLocation: sourceLocation)
        }
        #expect(!realm.isInWriteTransaction, sourceLocation: sourceLocation)
        #expect(item.id == 1 && item.name == "one" && label.code == "a", sourceLocation: sourceLocation)
        #expect(realm.object(ofType: PrimaryKeyChangeModels.Item.self, forPrimaryKey: 1)?.name == "one", sourceLocation: sourceLocation)
        #expect(realm.object(ofType: PrimaryKeyChangeModels.Item.self, forPrimaryKey: 2) == nil, sourceLocation: sourceLocation)
        #expect(
            realm.objects(PrimaryKeyChangeModels.Item.self).count == 1 && realm.objects(PrimaryKeyChangeModels.Label.self).count == 1,
            sourceLocation: sourceLocation)
        #expect(realm.object(ofType: PrimaryKeyChangeModels.Label.self, forPrimaryKey: "a") != nil, sourceLocation: sourceLocation)
    }

    @Test func testAssigningANewPrimaryKeyFailsTheCommitAndChangesNothing() throws {
        let (realm, item, label) = try realmWithObjects()
        expectRejected(realm, item, label) { item.id = 2 }
        expectRejected(realm, item, label) { label.code = "b" }
        expectRejected(realm, item, label) { label.code = nil }
    }

    @Test func testKeyValueCodingCannotChangeAPrimaryKey() throws {
        let (realm, item, label) = try realmWithObjects()
        expectRejected(realm, item, label) { item.setValue(2, forKey: "id") }
        expectRejected(realm, item, label) { item["id"] = 2 }
        expectRejected(realm, item, label) { label["code"] = "b" }
        expectRejected(realm, item, label) { realm.objects(PrimaryKeyChangeModels.Item.self).setValue(2, forKey: "id") }
    }

    @Test func testTheSamePrimaryKeyAndUpdatesByPrimaryKeyAreNotChanges() throws {
        let (realm, item, label) = try realmWithObjects()
        try realm.write {
            item.id = 1
            item["id"] = 1
            label.code = "a"
            try realm.create(PrimaryKeyChangeModels.Item.self, value: ["id": 1, "name": "updated"], update: .modified)
            try realm.add(PrimaryKeyChangeModels.Label(value: ["code": "a", "uses": 5]), update: .all)
        }
        #expect(item.name == "updated" && label.uses == 5)
        #expect(realm.objects(PrimaryKeyChangeModels.Item.self).count == 1 && realm.objects(PrimaryKeyChangeModels.Label.self).count == 1)
    }

    @Test func testAnUnmanagedObjectsPrimaryKeyCanChange() throws {
        let realm = try Realm(configuration: temporaryInMemoryConfiguration())
        let item = PrimaryKeyChangeModels.Item(value: ["id": 1])
        item.id = 2
        item["id"] = 3
        try realm.write { try realm.add(item) }
        #expect(realm.object(ofType: PrimaryKeyChangeModels.Item.self, forPrimaryKey: 3) != nil)
    }

    /// A file of items 1, 2 and 3 at schema version 1.
    private func itemsFile() throws -> Realm.Configuration {
        var v1 = temporaryConfiguration()
        v1.objectTypes = [PrimaryKeyChangeModels.Item.self]
        v1.schemaVersion = 1
        let realm = try Realm(configuration: v1)
        try realm.write {
            for id in 1...3 { try realm.add(PrimaryKeyChangeModels.Item(value: ["id": id, "name": "item \(id)"])) }
        }
        return v1
    }

    @Test func testAMigrationCanChangePrimaryKeys() throws {
        var v2 = try itemsFile()
        v2.schemaVersion = 2
        v2.migrationBlock = { migration, _ in
            migration.enumerateObjects(ofType: PrimaryKeyChangeModels.Item.className()) { _, newObject in
                newObject!["id"] = (newObject!["id"] as! Int) * 100
            }
        }
        let realm = try Realm(configuration: v2)
        #expect(realm.objects(PrimaryKeyChangeModels.Item.self).sorted(byKeyPath: "id").map(\.id) == [100, 200, 300])
        #expect(realm.object(ofType: PrimaryKeyChangeModels.Item.self, forPrimaryKey: 200)?.name == "item 2")
        #expect(realm.object(ofType: PrimaryKeyChangeModels.Item.self, forPrimaryKey: 2) == nil)
        // The old keys are free again, and the new ones taken; outside a migration keys stay.
        try realm.write {
            try realm.add(PrimaryKeyChangeModels.Item(value: ["id": 2, "name": "new 2"]))
            #expect(throws: RealmError.self) { try realm.add(PrimaryKeyChangeModels.Item(value: ["id": 300])) }
        }
        #expect(realm.object(ofType: PrimaryKeyChangeModels.Item.self, forPrimaryKey: 2)?.name == "new 2")
        #expect(realm.object(ofType: PrimaryKeyChangeModels.Item.self, forPrimaryKey: 200)?.name == "item 2")
        #expect(realm.objects(PrimaryKeyChangeModels.Item.self).count == 4)
        let item = try #require(realm.object(ofType: PrimaryKeyChangeModels.Item.self, forPrimaryKey: 100))
        #expect(throws: RealmError.self) { try realm.write { item.id = 1 } }
        _ = try realm.storage.snapshot().verify()
    }

    @Test func testAMigrationGivingAnExistingPrimaryKeyFailsAndLeavesTheFile() throws {
        let v1 = try itemsFile()
        var v2 = v1
        v2.schemaVersion = 2
        v2.migrationBlock = { migration, _ in
            migration.enumerateObjects(ofType: PrimaryKeyChangeModels.Item.className()) { _, newObject in
                if newObject!["id"] as! Int == 1 { newObject!["id"] = 3 }
            }
        }
        #expect {
            _ = try Realm(configuration: v2)
        } throws: { error in
            (error as? RealmError)?.code == .primaryKeyExists
        }
        let realm = try Realm(configuration: v1)
        #expect(realm.objects(PrimaryKeyChangeModels.Item.self).sorted(byKeyPath: "id").map(\.name) == ["item 1", "item 2", "item 3"])
    }
}
