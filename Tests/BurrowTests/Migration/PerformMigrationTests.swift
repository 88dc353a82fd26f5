import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// `Realm.performMigration(for:)` migrates the file when called, as RealmSwift's does: the block
/// runs once, there and not at the next open; a migration that cannot run throws and leaves the
/// file as it was. `MigrationBlock` is the block's type.
@Suite(.temporaryDirectory) struct PerformMigrationTests {
    private func releaseOne() throws -> Realm.Configuration {
        var v1 = temporaryConfiguration()
        v1.objectTypes = [MigrationModels.PersonV1.self]
        v1.schemaVersion = 1
        let realm = try Realm(configuration: v1)
        try realm.write { try realm.add(MigrationModels.PersonV1(value: ["id": 1, "firstName": "Ann", "lastName": "Lee"])) }
        return v1
    }

    @Test func migratesWhenCalledAndNotAgainAtTheNextOpen() throws {
        var v2 = try releaseOne()
        v2.objectTypes = [MigrationModels.PersonV2.self]
        v2.schemaVersion = 2
        let runs = LockedBox(0)
        let block: MigrationBlock = { migration, _ in
            runs.withLock { $0 += 1 }
            migration.enumerateObjects(ofType: "MigPerson") { old, new in
                new!["fullName"] = "\(old!["firstName"] as! String) \(old!["lastName"] as! String)"
            }
        }
        v2.migrationBlock = block
        try Realm.performMigration(for: v2)
        #expect(runs.withLock { $0 } == 1)
        let realm = try Realm(configuration: v2)
        #expect(runs.withLock { $0 } == 1, "the file was migrated already")
        #expect(realm.objects(MigrationModels.PersonV2.self).first?.fullName == "Ann Lee")
        #expect(realm.currentFileSchema.info.schemaVersion == 2)
    }

    @Test func aMigrationThatCannotRunThrowsAndChangesNothing() throws {
        var unraised = try releaseOne()
        unraised.objectTypes = [MigrationModels.PersonV2.self]
        #expect(throws: RealmError.self) { try Realm.performMigration(for: unraised) }
        var v1 = unraised
        v1.objectTypes = [MigrationModels.PersonV1.self]
        let realm = try Realm(configuration: v1)
        #expect(realm.objects(MigrationModels.PersonV1.self).first?.firstName == "Ann")
    }
}
