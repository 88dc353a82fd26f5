import Burrow
import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

/// The models of `DeleteRealmIfMigrationNeededTests`, stored under the names they had before they were namespaced.
enum DeleteRealmIfMigrationNeededModels {
    /// The class of the first release, kept out of the program's default schema.
    final class ItemV1: Object {
        override class func _realmObjectName() -> String? { "DRMNItem" }
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
    }

    /// The class of the next release, which adds a property: the program's class stored as
    /// `DRMNItem` (it stays in the default schema, so a realm without `objectTypes` knows it).
    final class ItemV2: Object {
        override class func _realmObjectName() -> String? { "DRMNItem" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var score = 0
    }
}

/// `deleteRealmIfMigrationNeeded`, as RealmSwift's configuration documents it: the file is
/// emptied wherever a migration would otherwise be required or executed (its schema version
/// differs from the configured one, or its classes from the program's), and the migration
/// block does not run.
@Suite(.temporaryDirectory) struct DeleteRealmIfMigrationNeededTests {
    /// A file of release 1 holding two items, at `schemaVersion`.
    private func releaseOneFile(schemaVersion: UInt64 = 0) throws -> Realm.Configuration {
        var configuration = temporaryConfiguration()
        configuration.objectTypes = [DeleteRealmIfMigrationNeededModels.ItemV1.self]
        configuration.schemaVersion = schemaVersion
        let realm = try Realm(configuration: configuration)
        try realm.write {
            try realm.add(DeleteRealmIfMigrationNeededModels.ItemV1(value: ["id": 1, "name": "one"]))
            try realm.add(DeleteRealmIfMigrationNeededModels.ItemV1(value: ["id": 2, "name": "two"]))
        }
        return configuration
    }

    /// `configuration` with a migration block that counts its runs in `runs`.
    private func counting(_ configuration: Realm.Configuration, _ runs: LockedBox<Int>) -> Realm.Configuration {
        var counted = configuration
        counted.migrationBlock = { _, _ in runs.withLock { $0 += 1 } }
        return counted
    }

    @Test func aRaisedSchemaVersionEmptiesTheFileInsteadOfMigrating() throws {
        let v1 = try releaseOneFile()
        let runs = LockedBox(0)
        var next = counting(v1, runs)
        next.schemaVersion = 1
        next.deleteRealmIfMigrationNeeded = true
        let realm = try Realm(configuration: next)
        #expect(realm.objects(DeleteRealmIfMigrationNeededModels.ItemV1.self).isEmpty)
        #expect(runs.withLock { $0 } == 0)
        #expect(try schemaVersionAtURL(try #require(next.fileURL)) == 1)
        try realm.write { try realm.add(DeleteRealmIfMigrationNeededModels.ItemV1(value: ["id": 3, "name": "three"])) }
        #expect(realm.objects(DeleteRealmIfMigrationNeededModels.ItemV1.self).map { $0.id } == [3])
    }

    @Test func aRaisedSchemaVersionWithChangedClassesEmptiesTheFile() throws {
        let v1 = try releaseOneFile()
        let runs = LockedBox(0)
        var next = counting(v1, runs)
        next.objectTypes = [DeleteRealmIfMigrationNeededModels.ItemV2.self]
        next.schemaVersion = 2
        next.deleteRealmIfMigrationNeeded = true
        let realm = try Realm(configuration: next)
        #expect(realm.objects(DeleteRealmIfMigrationNeededModels.ItemV2.self).isEmpty)
        #expect(runs.withLock { $0 } == 0)
        #expect(realm.schema["DRMNItem"]?.properties.map { $0.name } == ["id", "name", "score"])
    }

    @Test func aLoweredSchemaVersionEmptiesTheFileInsteadOfThrowing() throws {
        let v3 = try releaseOneFile(schemaVersion: 3)
        var older = v3
        older.schemaVersion = 2
        expectRealmError(.schemaMismatch, mentioning: ["newer"]) { _ = try Realm(configuration: older) }
        older.deleteRealmIfMigrationNeeded = true
        let realm = try Realm(configuration: older)
        #expect(realm.objects(DeleteRealmIfMigrationNeededModels.ItemV1.self).isEmpty)
        #expect(try schemaVersionAtURL(try #require(older.fileURL)) == 2)
    }

    @Test func theSameVersionAndClassesKeepEveryObject() throws {
        var same = try releaseOneFile(schemaVersion: 4)
        same.deleteRealmIfMigrationNeeded = true
        let realm = try Realm(configuration: same)
        #expect(realm.objects(DeleteRealmIfMigrationNeededModels.ItemV1.self).map { $0.name } == ["one", "two"])
    }

    @Test func withoutObjectTypesAClassOfTheProgramThatChangedEmptiesTheFile() throws {
        let v1 = try releaseOneFile()
        var next = v1
        next.objectTypes = nil
        next.deleteRealmIfMigrationNeeded = true
        let realm = try Realm(configuration: next)
        #expect(realm.objects(DeleteRealmIfMigrationNeededModels.ItemV2.self).isEmpty)
        try realm.write { try realm.add(DeleteRealmIfMigrationNeededModels.ItemV2(value: ["id": 1, "score": 9])) }
        #expect(realm.objects(DeleteRealmIfMigrationNeededModels.ItemV2.self).map { $0.score } == [9])
    }

    @Test func withoutObjectTypesARaisedVersionEmptiesTheFileAndSkipsTheBlock() throws {
        let v1 = try releaseOneFile()
        let runs = LockedBox(0)
        var next = counting(v1, runs)
        next.objectTypes = nil
        next.schemaVersion = 1
        next.deleteRealmIfMigrationNeeded = true
        let realm = try Realm(configuration: next)
        #expect(realm.dynamicObjects("DRMNItem").isEmpty)
        #expect(runs.withLock { $0 } == 0)
        // Without objectTypes, an emptied file stores its classes, and the configured schema
        // version with them, as they are first used.
        try realm.write { try realm.add(DeleteRealmIfMigrationNeededModels.ItemV2(value: ["id": 5])) }
        #expect(try schemaVersionAtURL(try #require(next.fileURL)) == 1)
    }

    @Test func aReadOnlyRealmNeverEmptiesTheFile() throws {
        let v1 = try releaseOneFile()
        var readOnly = v1
        readOnly.objectTypes = [DeleteRealmIfMigrationNeededModels.ItemV2.self]
        readOnly.schemaVersion = 1
        readOnly.readOnly = true
        readOnly.deleteRealmIfMigrationNeeded = true
        expectRealmError(.schemaMismatch, mentioning: ["read-only"]) { _ = try Realm(configuration: readOnly) }
        let realm = try Realm(configuration: v1)
        #expect(realm.objects(DeleteRealmIfMigrationNeededModels.ItemV1.self).count == 2)
    }
}
