import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// One rung-to-rung migration of the ladder: a file of release `from` opened by release `to`.
struct LadderStep: Sendable, CustomTestStringConvertible {
    let from: Int
    let to: Int
    /// Whether both releases set `objectTypes` (otherwise it is nil, and the classes are the
    /// ones the code uses).
    let withObjectTypes: Bool

    var testDescription: String { "v\(from) to v\(to), \(withObjectTypes ? "with" : "without") objectTypes" }

    /// Every pair of releases `from < to`, both ways.
    static let all: [LadderStep] = [true, false].flatMap { withObjectTypes in
        (0..<ladder.count).flatMap { from in
            (from + 1..<ladder.count).map { LadderStep(from: from, to: $0, withObjectTypes: withObjectTypes) }
        }
    }
}

/// A way for a migration block to fail after it did all its work: the error the migration
/// records makes opening throw.
enum LadderFailure: String, Sendable, CaseIterable, CustomTestStringConvertible {
    /// A string set into `Person.age`, an integer.
    case valueOfTheWrongType
    /// A rename of a property the file never had.
    case renameOfAPropertyTheFileNeverHad
    /// An object created from a value that does not fit its class.
    case createFromAValueThatDoesNotFit
    /// An object created of a class the realm is not opened with.
    case createOfAClassTheRealmDoesNotHave

    var testDescription: String { rawValue }

    /// The code of the error that opening throws.
    var code: RealmError.Code {
        self == .createOfAClassTheRealmDoesNotHave ? .schemaMismatch : .invalidArgument
    }

    func apply(_ migration: Migration) {
        switch self {
        case .valueOfTheWrongType:
            migration.enumerateObjects(ofType: "Person") { _, newObject in newObject!["age"] = "forty-two" }
        case .renameOfAPropertyTheFileNeverHad:
            migration.renameProperty(onType: "Person", from: "nickname", to: "fullName")
        case .createFromAValueThatDoesNotFit:
            migration.create("Pet", value: ["name": 7])
        case .createOfAClassTheRealmDoesNotHave:
            migration.create("Dog", value: ["name": "Rex"])
        }
    }
}

/// realm-swift's migration example, v0 to v5 (MigrationLadderModels.swift): a file of every
/// release opened by every later one, with and without `objectTypes`; the class renamed from
/// Dog to Pet read through old lists of links; and failed or trapping migrations leaving the
/// file as it was.
@Suite(.temporaryDirectory) struct MigrationLadderTests {
    /// A configuration of `release` for the file at `url`: its schema version, its migration
    /// block, and its classes when `withObjectTypes`.
    static func configuration(_ release: any LadderRelease.Type, at url: URL, withObjectTypes: Bool) -> Realm.Configuration {
        var config = Realm.Configuration(fileURL: url)
        config.schemaVersion = release.schemaVersion
        config.migrationBlock = release.migrationBlock
        config.objectTypes = withObjectTypes ? release.objectTypes : nil
        return config
    }

    /// A new file written by `release` with its example data, closed again.
    static func file(of release: any LadderRelease.Type, withObjectTypes: Bool, _ name: String = #function) throws -> URL {
        let url = try #require(temporaryConfiguration(name).fileURL)
        let config = configuration(release, at: url, withObjectTypes: withObjectTypes)
        do {
            let realm = try Realm(configuration: config)
            try realm.write { try release.exampleData(realm) }
            // The file's own release reads it as it wrote it.
            release.migrationCheck(realm, sourceLocation: #_sourceLocation)
        }
        #expect(try schemaVersionAtURL(url) == release.schemaVersion, "a new file records the configured schema version")
        return url
    }

    // MARK: Every release to every later one

    /// A file of release `from`, opened by release `to` with its migration block, holds what
    /// release `to`'s own example data would: every value is checked as the example checks it.
    /// `Realm.performMigration(for:)` migrates it first, as the example's app does.
    ///
    /// Without `objectTypes`, the realm's classes are the program's (those in the default
    /// schema), and this program keeps six releases of them: each such case runs in a child
    /// process whose default schema is release `to`'s.
    @Test(arguments: LadderStep.all)
    func testEveryReleaseMigratesToEveryLaterOne(_ step: LadderStep) async throws {
        let url = try Self.file(of: ladder[step.from], withObjectTypes: step.withObjectTypes)
        if step.withObjectTypes {
            try Self.migrate(url, from: step.from, to: step.to, withObjectTypes: true)
            return
        }
        await #expect(processExitsWith: .success) { [path = url.path as String, from = step.from as Int, to = step.to as Int] in
            LadderDefaultSchema.release.store(to, ordering: .relaxed)
            try MigrationLadderTests.migrate(URL(fileURLWithPath: path), from: from, to: to, withObjectTypes: false)
        }
    }

    /// Migrates the file at `url`, of release `from`, to release `to`, and checks it.
    static func migrate(_ url: URL, from: Int, to: Int, withObjectTypes: Bool) throws {
        let old = ladder[from]
        let new = ladder[to]
        var config = configuration(new, at: url, withObjectTypes: withObjectTypes)
        let runs = LockedBox<[UInt64]>([])
        config.migrationBlock = { migration, oldSchemaVersion in
            runs.withLock { $0.append(oldSchemaVersion) }
            try new.migrationBlock(migration, oldSchemaVersion)
        }
        try Realm.performMigration(for: config)
        #expect(runs.withLock { $0 } == [old.schemaVersion], "performMigration ran the block once, from the file's version")
        #expect(try schemaVersionAtURL(url) == new.schemaVersion)
        do {
            let realm = try Realm(configuration: config)
            new.migrationCheck(realm, sourceLocation: #_sourceLocation)
            #expect(try schemaVersionAtURL(url) == new.schemaVersion)
            _ = try realm.storage.snapshot().verify()
            let findings = try ObjectVerifier.verify(realm.storage.snapshot()).findings.map(\.description)
            #expect(findings == [])
        }
        // Opened again, the file is release `to`'s: nothing more to migrate.
        let again = try Realm(configuration: config)
        new.migrationCheck(again, sourceLocation: #_sourceLocation)
        #expect(runs.withLock { $0 } == [old.schemaVersion], "no second migration")
    }

    // MARK: The renamed class

    /// Release 3 renamed Dog to Pet, so the releases after 2 declare no Dog. A migration from a
    /// version-2 file still reads each person's old list of dogs, as DynamicObjects of the old
    /// class with their names, and enumerates every old dog (with no new object), so that the
    /// dog nobody owns survives as a pet. Without `objectTypes`, in a child process whose
    /// default schema is release `to`'s.
    @Test(arguments: [3, 4, 5], [true, false])
    func testOldListsOfLinksReadTheRenamedClassAsTheFileHadIt(to: Int, withObjectTypes: Bool) async throws {
        let url = try Self.file(of: LadderV2.self, withObjectTypes: withObjectTypes)
        if withObjectTypes {
            try Self.migrateReadingTheOldDogs(url, to: to, withObjectTypes: true)
            return
        }
        await #expect(processExitsWith: .success) { [path = url.path as String, to = to as Int] in
            LadderDefaultSchema.release.store(to, ordering: .relaxed)
            try MigrationLadderTests.migrateReadingTheOldDogs(URL(fileURLWithPath: path), to: to, withObjectTypes: false)
        }
    }

    static func migrateReadingTheOldDogs(_ url: URL, to: Int, withObjectTypes: Bool) throws {
        let release = ladder[to]
        var config = configuration(release, at: url, withObjectTypes: withObjectTypes)
        let seen = LockedBox<[String]>([])
        config.migrationBlock = { migration, oldSchemaVersion in
            #expect(migration.oldSchema["Dog"]?.properties.map(\.name) == ["name"])
            #expect(migration.oldSchema["Person"]?["dogs"]?.objectClassName == "Dog")
            migration.enumerateObjects(ofType: "Person") { oldObject, _ in
                let dogs = oldObject!["dogs"] as! List<DynamicObject>
                let names = dogs.map { $0["name"] as! String }
                #expect(dogs.allSatisfy { $0.objectSchema.className == "Dog" }, "old links lead to the old class")
                seen.withLock { $0.append("\(oldObject!["fullName"] as! String): \(names.joined(separator: ", "))") }
            }
            migration.enumerateObjects(ofType: "Dog") { oldObject, newObject in
                seen.withLock { $0.append("dog \(oldObject!["name"] as! String)\(newObject == nil ? "" : " with a new object")") }
            }
            try release.migrationBlock(migration, oldSchemaVersion)
        }
        let realm = try Realm(configuration: config)
        release.migrationCheck(realm, sourceLocation: #_sourceLocation)
        #expect(
            seen.withLock { $0 } == [
                "John Doe: Marley, Lassie", "Jane Doe: Toto", "John Smith: ",
                // In the order the file has them: release 2's data adds Slinkey before the others.
                "dog Slinkey", "dog Marley", "dog Lassie", "dog Toto",
            ])
    }

    /// Once the dogs are copied into pets, the migration may delete the old class
    /// (`deleteData(forType: "Dog")`, which the example leaves out): the file loses Dog and
    /// the pets, with their owners' lists, stay.
    @Test func testTheRenamedClassCanBeDeletedAfterItsObjectsAreCopied() throws {
        let url = try Self.file(of: LadderV2.self, withObjectTypes: true)
        var config = Self.configuration(LadderV3.self, at: url, withObjectTypes: true)
        let deleted = LockedBox<Bool?>(nil)
        config.migrationBlock = { migration, oldSchemaVersion in
            try LadderV3.migrationBlock(migration, oldSchemaVersion)
            let hadDogs = migration.deleteData(forType: "Dog")
            deleted.withLock { $0 = hadDogs }
        }
        let realm = try Realm(configuration: config)
        LadderV3.migrationCheck(realm, sourceLocation: #_sourceLocation)
        #expect(deleted.withLock { $0 } == true)
        #expect(realm.schema["Dog"] == nil)
        _ = try realm.storage.snapshot().verify()
        let findings = try ObjectVerifier.verify(realm.storage.snapshot()).findings.map(\.description)
        #expect(findings == [])
    }

    // MARK: The class that becomes embedded

    /// Release 5 turns Address into an embedded object. In the example each address has one
    /// resident; as in RealmSwift, an address nobody lives at goes, and one two people share is
    /// copied into each of them, so that every embedded address has exactly one parent.
    @Test func testAnAddressBecomesEmbeddedInEachOfItsResidents() throws {
        let url = try Self.file(of: LadderV4.self, withObjectTypes: true)
        do {
            let realm = try Realm(configuration: Self.configuration(LadderV4.self, at: url, withObjectTypes: true))
            try realm.write {
                let persons = realm.objects(LadderV4.Person.self)
                persons[1].address = persons[0].address
                try realm.add(LadderV4.Address(street: "Nowhere", city: "Atlantis"))
            }
        }
        let realm = try Realm(configuration: Self.configuration(LadderV5.self, at: url, withObjectTypes: true))
        let persons = realm.objects(LadderV5.Person.self)
        #expect(persons.map { $0.address?.street } == ["Broadway", "Broadway", nil])
        #expect(persons[0].address?.residents.map(\.fullName) == ["John Doe"])
        #expect(persons[1].address?.residents.map(\.fullName) == ["Jane Doe"])
        #expect(realm.objects(LadderV5.Address.self).map(\.street) == ["Broadway", "Broadway"], "the address nobody lived at went")
        let findings = try ObjectVerifier.verify(realm.storage.snapshot()).findings.map(\.description)
        #expect(findings == [])
    }

    // MARK: Failures

    /// A migration block that does all of release 5's work and then fails makes opening (and
    /// `performMigration`) throw, and leaves the file byte for byte as it was: its schema
    /// version, and the objects its own release reads. The right block then migrates it.
    @Test(arguments: 0..<5, LadderFailure.allCases)
    func testAFailedMigrationLeavesTheFileAsItWas(from: Int, failure: LadderFailure) throws {
        let old = ladder[from]
        let url = try Self.file(of: old, withObjectTypes: true)
        let bytes = try Data(contentsOf: url)

        var failing = Self.configuration(LadderV5.self, at: url, withObjectTypes: true)
        failing.migrationBlock = { migration, oldSchemaVersion in
            try LadderV5.migrationBlock(migration, oldSchemaVersion)
            failure.apply(migration)
        }
        let opening = #expect(throws: RealmError.self) { _ = try Realm(configuration: failing) }
        #expect(opening?.code == failure.code, "\(String(describing: opening))")
        #expect(throws: RealmError.self) { try Realm.performMigration(for: failing) }

        try #require(try Data(contentsOf: url) == bytes, "the file is byte for byte as it was")
        #expect(try schemaVersionAtURL(url) == old.schemaVersion)
        do {
            let realm = try Realm(configuration: Self.configuration(old, at: url, withObjectTypes: true))
            old.migrationCheck(realm, sourceLocation: #_sourceLocation)
        }
        let migrated = try Realm(configuration: Self.configuration(LadderV5.self, at: url, withObjectTypes: true))
        LadderV5.migrationCheck(migrated, sourceLocation: #_sourceLocation)
    }

    /// A migration block that traps, after doing all of release 5's work, ends its process; the
    /// file stays as release 2 wrote it, and release 5 then migrates it.
    @Test(arguments: [true, false])
    func testAMigrationThatTrapsLeavesTheFileAsItWas(withObjectTypes: Bool) async throws {
        let url = try Self.file(of: LadderV2.self, withObjectTypes: withObjectTypes)
        let bytes = try Data(contentsOf: url)
        let path = url.path
        await #expect(processExitsWith: .failure) { [path = path as String, withObjectTypes = withObjectTypes as Bool] in
            LadderDefaultSchema.release.store(5, ordering: .relaxed)
            var config = MigrationLadderTests.configuration(LadderV5.self, at: URL(fileURLWithPath: path), withObjectTypes: withObjectTypes)
            config.migrationBlock = { migration, oldSchemaVersion in
                try LadderV5.migrationBlock(migration, oldSchemaVersion)
                preconditionFailure("the migration traps after its work")
            }
            let realm = try Realm(configuration: config)
            _ = realm.objects(LadderV5.Person.self).count
        }
        // (Required: reading a changed file with release 2's classes would trap.)
        try #require(try Data(contentsOf: url) == bytes, "the file is byte for byte as it was")
        #expect(try schemaVersionAtURL(url) == 2)
        do {
            let realm = try Realm(configuration: Self.configuration(LadderV2.self, at: url, withObjectTypes: withObjectTypes))
            LadderV2.migrationCheck(realm, sourceLocation: #_sourceLocation)
        }
        // (With objectTypes: in this process the default schema has no release.)
        let migrated = try Realm(configuration: Self.configuration(LadderV5.self, at: url, withObjectTypes: true))
        LadderV5.migrationCheck(migrated, sourceLocation: #_sourceLocation)
    }
}
