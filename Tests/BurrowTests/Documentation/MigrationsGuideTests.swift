import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

// The examples of Sources/Burrow/Burrow.docc/Migrations.md, compiled and run. The guide's whole
// example is release 5 of the migration ladder
// (Tests/BurrowTests/Realm/MigrationLadderModels.swift); the guide's shorter examples are the
// bodies below, written in the ladder's releases so that `Person`, `Pet` and `Address` are the
// guide's classes. `testTheGuideShowsTheCompiledCode` checks that each of the guide's code blocks
// is here, line for line.

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
        migrationBlock(migration, oldSchemaVersion)
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
        migrationBlock(migration, oldSchemaVersion)
        migration.deleteData(forType: "Dog")
    }
}

extension LadderV1 {
    /// "Renaming, creating and deleting": had release 1 only renamed `firstName`.
    static let renamingBlock: MigrationBlock = { migration, _ in
        migration.renameProperty(onType: Person.className(), from: "firstName", to: "fullName")
    }
}

/// "`objectTypes`, and why it matters on Linux": an older version of a model, kept beside the
/// new one and left out of the default schema.
final class GuideKeptPersonV0: Object {
    override class func _realmObjectName() -> String? { "Person" }
    override class func shouldIncludeInDefaultSchema() -> Bool { false }
    @Persisted var firstName = ""
}

@Suite(.temporaryDirectory) struct MigrationsGuideTests {
    @Test func testAKeptModelIsLeftOutOfTheDefaultSchema() {
        #expect(!GuideKeptPersonV0.shouldIncludeInDefaultSchema())
        #expect(!(ProgramClasses.byStoredName["Person"] ?? []).contains { $0 == GuideKeptPersonV0.self })
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

    // MARK: The guide and the code

    /// Each ```swift block of Migrations.md appears, line for line (blank lines and indentation
    /// aside), in this file or in the ladder's models. In the test sources, the classes' stored
    /// names (`_realmObjectName`), their place in the default schema (`shouldIncludeInDefaultSchema`)
    /// and `static` are what the ladder adds to the guide's code.
    @Test func testTheGuideShowsTheCompiledCode() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let guide = try String(contentsOf: root.appendingPathComponent("Sources/Burrow/Burrow.docc/Migrations.md"), encoding: .utf8)
        let sources = try ["Tests/BurrowTests/Documentation/MigrationsGuideTests.swift", "Tests/BurrowTests/Realm/MigrationLadderModels.swift"].map {
            try String(contentsOf: root.appendingPathComponent($0), encoding: .utf8)
        }
        let compiled = sources.map { source in
            Self.codeLines(source).filter { !$0.contains("_realmObjectName") && !$0.contains("LadderDefaultSchema") }.map {
                $0.hasPrefix("static ") ? String($0.dropFirst(7)) : $0
            }
        }
        let blocks = Self.swiftBlocks(of: guide)
        #expect(blocks.count >= 8)
        for block in blocks {
            let lines = Self.codeLines(block)
            let found = compiled.contains { source in
                source.indices.contains { start in source[start...].starts(with: lines) }
            }
            #expect(found, "Migrations.md shows code that no test compiles:\n\(block)")
        }
    }

    /// The contents of the ```swift blocks of `markdown`.
    static func swiftBlocks(of markdown: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, trimmed == "```swift" {
                current = []
            } else if current != nil, trimmed == "```" {
                blocks.append(current!.joined(separator: "\n"))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    /// The non-blank lines of `code`, without indentation.
    static func codeLines(_ code: String) -> [String] {
        code.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
