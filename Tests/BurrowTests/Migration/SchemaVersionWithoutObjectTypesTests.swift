import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// A file made without `objectTypes` records the configured schema version, so that the next
/// release, raising it, migrates from the version its objects were written at (RealmSwift's
/// migration example starts so: a file made at version 1, read at version 2 with a block).
@Suite(.temporaryDirectory) struct SchemaVersionWithoutObjectTypesTests {
    @Test func aNewFileRecordsTheConfiguredSchemaVersion() throws {
        var v1 = temporaryConfiguration()
        v1.schemaVersion = 1
        do {
            let realm = try Realm(configuration: v1)
            try realm.write { try realm.add(MigrationModels.PersonV1(value: ["id": 1, "firstName": "Ann", "lastName": "Lee", "age": 30])) }
            #expect(realm.currentFileSchema.info.schemaVersion == 1)
        }

        var v2 = v1
        v2.schemaVersion = 2
        v2.objectTypes = [MigrationModels.PersonV2.self]
        let oldVersions = LockedBox<[UInt64]>([])
        v2.migrationBlock = { migration, oldVersion in
            oldVersions.withLock { $0.append(oldVersion) }
            migration.enumerateObjects(ofType: "MigPerson") { old, new in
                new!["fullName"] = "\(old!["firstName"] as! String) \(old!["lastName"] as! String)"
            }
        }
        let realm = try Realm(configuration: v2)
        #expect(oldVersions.withLock { $0 } == [1])
        #expect(realm.objects(MigrationModels.PersonV2.self).first?.fullName == "Ann Lee")
    }

    @Test func aRaisedVersionMigratesAtOpenAndTheBlockRuns() throws {
        var v1 = temporaryConfiguration()
        v1.schemaVersion = 1
        do {
            let realm = try Realm(configuration: v1)
            try realm.write { try realm.add(MigrationModels.CardV1(value: ["text": "a"])) }
        }
        var v3 = v1
        v3.schemaVersion = 3
        let oldVersions = LockedBox<[UInt64]>([])
        v3.migrationBlock = { migration, oldVersion in
            oldVersions.withLock { $0.append(oldVersion) }
            migration.enumerateObjects(ofType: "MigCard") { old, new in
                #expect(old?["text"] as? String == "a")
                new?["text"] = "b"
            }
        }
        let realm = try Realm(configuration: v3)
        #expect(oldVersions.withLock { $0 } == [1], "the block runs once, from the file's version")
        #expect(realm.currentFileSchema.info.schemaVersion == 3)
        try realm.write { try realm.add(MigrationModels.PersonV1(value: ["id": 1])) }
        #expect(realm.currentFileSchema.info.schemaVersion == 3)
        #expect(realm.objects(MigrationModels.CardV1.self).map(\.text) == ["b"])
        _ = try Realm(configuration: v3)
        #expect(oldVersions.withLock { $0 } == [1], "and not again")
    }
}
