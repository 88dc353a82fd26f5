import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// `Realm.Configuration` as RealmSwift code calls it, and when `migrationBlock` runs.
@Suite(.temporaryDirectory) struct ConfigurationTests {
    // MARK: RealmSwift's initializer

    @Test func testRealmSwiftOrderedInitializerCallsCompileAndSetEveryProperty() throws {
        // Calls as RealmSwift code writes them, in RealmSwift's parameter order.
        let readOnly = Realm.Configuration(readOnly: true, schemaVersion: 1)
        #expect(readOnly.readOnly && readOnly.schemaVersion == 1 && readOnly.fileURL == Realm.Configuration.defaultFileURL)
        let typed = Realm.Configuration(schemaVersion: 1, migrationBlock: nil, objectTypes: [CommonModels.Person.self])
        #expect(typed.schemaVersion == 1 && typed.migrationBlock == nil && typed.objectTypes?.count == 1)
        let url = temporaryConfiguration().fileURL!
        let ran = LockedBox(0)
        let every = Realm.Configuration(
            fileURL: url, inMemoryIdentifier: nil, readOnly: false, schemaVersion: 3,
            migrationBlock: { _, _ in ran.withLock { $0 += 1 } }, deleteRealmIfMigrationNeeded: true,
            objectTypes: [CommonModels.Dog.self, CommonModels.DogToy.self, CommonModels.Person.self, CommonModels.Address.self], durability: .normal)
        #expect(every.fileURL == url && every.inMemoryIdentifier == nil && !every.readOnly && every.schemaVersion == 3)
        #expect(every.migrationBlock != nil && every.deleteRealmIfMigrationNeeded && every.objectTypes?.count == 4)
        #expect(every.durability == .normal, "Burrow's own parameter comes last")
        let memory = Realm.Configuration(inMemoryIdentifier: "configuration-tests", schemaVersion: 2)
        #expect(memory.fileURL == nil && memory.inMemoryIdentifier == "configuration-tests" && memory.durability == .full)
        let realm = try Realm(configuration: every)
        #expect(realm.configuration.schemaVersion == 3 && realm.configuration.durability == .normal)
        #expect(ran.withLock { $0 } == 0)
    }

    // MARK: migrationBlock and new files

    @Test func testTheMigrationBlockDoesNotRunForANewFile() throws {
        let calls = LockedBox<[UInt64]>([])
        var config = temporaryConfiguration()
        config.objectTypes = [ErrorModels.MigrationV1.self]
        config.schemaVersion = 3
        config.migrationBlock = { _, oldVersion in calls.withLock { $0.append(oldVersion) } }
        do {
            let realm = try Realm(configuration: config)
            #expect(realm.objects(ErrorModels.MigrationV1.self).isEmpty)
            try realm.write { try realm.add(ErrorModels.MigrationV1(value: ["id": 1, "name": "a"])) }
        }
        #expect(calls.withLock { $0 } == [], "a new file gets the current schema, unmigrated")
        // The new file was given schema version 3: opening it at 3 again migrates nothing…
        _ = try Realm(configuration: config)
        #expect(calls.withLock { $0 } == [])
        // …a lower version is refused…
        var lower = config
        lower.schemaVersion = 2
        expectRealmError(.schemaMismatch, mentioning: ["schema version 3"]) { _ = try Realm(configuration: lower) }
        // …and a higher one migrates from 3.
        var v4 = config
        v4.objectTypes = [ErrorModels.MigrationV2.self]
        v4.schemaVersion = 4
        let realm = try Realm(configuration: v4)
        #expect(calls.withLock { $0 } == [3])
        #expect(realm.objects(ErrorModels.MigrationV2.self).map(\.id) == [1])
    }

    @Test func testTheMigrationBlockDoesNotRunForANewInMemoryRealm() throws {
        let calls = LockedBox(0)
        var config = Realm.Configuration(inMemoryIdentifier: "new-in-memory-\(UUID().uuidString)", schemaVersion: 5)
        config.objectTypes = [ErrorModels.MigrationV1.self]
        config.migrationBlock = { _, _ in calls.withLock { $0 += 1 } }
        let realm = try Realm(configuration: config)
        try realm.write { try realm.add(ErrorModels.MigrationV1(value: ["id": 1])) }
        #expect(calls.withLock { $0 } == 0)
    }
}
