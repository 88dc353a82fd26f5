import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

// The samples of Sources/Burrow/Burrow.docc/Migrations.md, compiled and run. The page's whole
// example is release 5 of the migration ladder
// (Tests/BurrowTests/Migration/MigrationLadderModels.swift); the page's shorter samples are the
// bodies below, written in the ladder's releases so that `Person`, `Pet` and `Address` are the
// page's classes. DocumentationSamplesTests checks that each of the page's samples is here or in
// the ladder, line for line.

extension LadderV5 {
    /// "The migration block": opening release 5 with its block.
    static func openedAsTheGuideShows(_ url: URL) throws -> Realm {
        var config = Realm.Configuration(fileURL: url)
        config.objectTypes = [Person.self, Pet.self, Address.self]
        config.schemaVersion = 5
        config.migrationBlock = migrationBlock
        let realm = try Realm(configuration: config)
        return realm
    }

    /// "Renaming, creating and deleting": release 5's block, then people over 43 deleted.
    static let deletingBlock: MigrationBlock = { migration, oldSchemaVersion in
        try migrationBlock(migration, oldSchemaVersion)
        migration.enumerateObjects(ofType: Person.className()) { oldObject, newObject in
            if oldObject!["age"] as! Int > 43 {
                migration.delete(newObject!)
            }
        }
    }

    /// "Migrating ahead of time, and reading the version".
    static func migratedAheadOfTime(_ url: URL) throws -> UInt64 {
        let version = try schemaVersionAtURL(url)
        if version < 5 {
            print("this file will be migrated from version \(version)")
        }
        let config = Realm.Configuration(fileURL: url, schemaVersion: 5, migrationBlock: migrationBlock, objectTypes: objectTypes)
        try Realm.performMigration(for: config)
        return version
    }

    /// "Migrating ahead of time, and reading the version": a cache emptied instead of migrated.
    static func cacheConfiguration(_ url: URL) -> Realm.Configuration {
        var cache = Realm.Configuration(fileURL: url, deleteRealmIfMigrationNeeded: true)
        cache.schemaVersion = 5
        cache.objectTypes = objectTypes
        return cache
    }
}

extension LadderV3 {
    /// "Renaming, creating and deleting": release 3's block, then the old class removed.
    static let blockRemovingDogs: MigrationBlock = { migration, oldSchemaVersion in
        try migrationBlock(migration, oldSchemaVersion)
        migration.deleteData(forType: "Dog")
    }
}

extension LadderV1 {
    /// "Renaming, creating and deleting": had release 1 only renamed `firstName`.
    static let renamingBlock: MigrationBlock = { migration, _ in
        migration.renameProperty(onType: Person.className(), from: "firstName", to: "fullName")
    }
}

/// The page's models that the migration ladder does not declare.
enum MigrationsPage {
    /// "`objectTypes`, and why it matters on Linux": an older version of a model, kept beside the
    /// new one and left out of the default schema.
    final class KeptPersonV0: Object {
        override class func _realmObjectName() -> String? { "Person" }
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted var firstName = ""
    }
}

@Suite(.temporaryDirectory) struct MigrationsGuideTests {
    @Test func testAKeptModelIsLeftOutOfTheDefaultSchema() {
        #expect(!MigrationsPage.KeptPersonV0.shouldIncludeInDefaultSchema())
        #expect(!(ProgramClasses.byStoredName["Person"] ?? []).contains { $0 == MigrationsPage.KeptPersonV0.self })
        #expect(LadderV5.Person.shouldIncludeInDefaultSchema() == LadderDefaultSchema.includes(5))
    }

    /// A file of `release` with its example data, with `objectTypes`.
    private func file(of release: any LadderRelease.Type, _ name: String = #function) throws -> URL {
        try MigrationLadderTests.file(of: release, withObjectTypes: true, name)
    }

    @Test func testTheMigrationBlock() throws {
        let url = try file(of: LadderV0.self)
        let realm = try LadderV5.openedAsTheGuideShows(url)
        LadderV5.migrationCheck(realm, sourceLocation: #_sourceLocation)
    }

    @Test func testRenameProperty() throws {
        let url = try file(of: LadderV0.self)
        var config = MigrationLadderTests.configuration(LadderV1.self, at: url, withObjectTypes: true)
        config.migrationBlock = LadderV1.renamingBlock
        let realm = try Realm(configuration: config)
        #expect(realm.objects(LadderV1.Person.self).map(\.fullName) == ["John", "Jane", "John"])
        #expect(realm.objects(LadderV1.Person.self).map(\.age) == [42, 43, 44])
    }

    @Test func testDelete() throws {
        let url = try file(of: LadderV1.self)
        var config = MigrationLadderTests.configuration(LadderV5.self, at: url, withObjectTypes: true)
        config.migrationBlock = LadderV5.deletingBlock
        let realm = try Realm(configuration: config)
        #expect(realm.objects(LadderV5.Person.self).map(\.fullName) == ["John Doe", "Jane Doe"])
        #expect(realm.objects(LadderV5.Pet.self).count == 4, "their pets stay")
    }

    @Test func testDeleteData() throws {
        let url = try file(of: LadderV2.self)
        var config = MigrationLadderTests.configuration(LadderV3.self, at: url, withObjectTypes: true)
        config.migrationBlock = LadderV3.blockRemovingDogs
        let realm = try Realm(configuration: config)
        LadderV3.migrationCheck(realm, sourceLocation: #_sourceLocation)
        #expect(realm.schema["Dog"] == nil)
    }

    @Test func testPerformMigrationAndSchemaVersionAtURL() throws {
        let url = try file(of: LadderV3.self)
        #expect(try LadderV5.migratedAheadOfTime(url) == 3)
        #expect(try schemaVersionAtURL(url) == 5)
        let realm = try Realm(configuration: MigrationLadderTests.configuration(LadderV5.self, at: url, withObjectTypes: true))
        LadderV5.migrationCheck(realm, sourceLocation: #_sourceLocation)
    }

    @Test func testDeleteRealmIfMigrationNeeded() throws {
        // Release 4's classes written at version 5, the cache's version: opening with release
        // 5's classes (Address now embedded) empties the file instead of throwing.
        let url = try #require(temporaryConfiguration().fileURL)
        do {
            var v4 = MigrationLadderTests.configuration(LadderV4.self, at: url, withObjectTypes: true)
            v4.schemaVersion = 5
            let realm = try Realm(configuration: v4)
            try realm.write { try LadderV4.exampleData(realm) }
        }
        var strict = LadderV5.cacheConfiguration(url)
        strict.deleteRealmIfMigrationNeeded = false
        expectRealmError(.schemaMismatch, mentioning: ["Address"]) { _ = try Realm(configuration: strict) }
        let realm = try Realm(configuration: LadderV5.cacheConfiguration(url))
        #expect(realm.objects(LadderV5.Person.self).isEmpty)
        #expect(realm.objects(LadderV5.Pet.self).isEmpty)
        #expect(try schemaVersionAtURL(url) == 5)
    }

    @Test func testDeleteRealmIfMigrationNeededEmptiesAnOlderVersion() throws {
        // A file of release 3 would be migrated to version 5: the cache is emptied instead.
        let url = try file(of: LadderV3.self)
        let realm = try Realm(configuration: LadderV5.cacheConfiguration(url))
        #expect(realm.objects(LadderV5.Person.self).isEmpty)
        #expect(realm.objects(LadderV5.Pet.self).isEmpty)
        #expect(try schemaVersionAtURL(url) == 5)
    }
}
