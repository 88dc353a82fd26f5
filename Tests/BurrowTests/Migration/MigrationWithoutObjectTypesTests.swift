import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// The models of `MigrationWithoutObjectTypesTests`, stored under the names they had before they were namespaced.
enum MigrationWithoutObjectTypesModels {
    /// Release 1 of a model the program has since changed: kept in the program but out of its
    /// default schema, as RealmSwift programs keep older models.
    final class PersonV1: Object {
        override class func _realmObjectName() -> String? { "SoloPerson" }
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted var firstName = ""
        @Persisted var lastName = ""
        @Persisted var pets: List<MigrationWithoutObjectTypesModels.Pet>
    }

    /// The program's `SoloPerson` now: the only class of the default schema stored under that name.
    final class Person: Object {
        override class func _realmObjectName() -> String? { "SoloPerson" }
        @Persisted var fullName = ""
        @Persisted var pets: List<MigrationWithoutObjectTypesModels.Pet>
    }

    final class Pet: Object {
        override class func _realmObjectName() -> String? { "SoloPet" }
        @Persisted var name = ""
    }

    /// Two classes the program keeps under one name, both in its default schema: which one a file
    /// means cannot be told.
    final class TwinCardA: Object {
        override class func _realmObjectName() -> String? { "TwinCard" }
        @Persisted var text = ""
    }

    final class TwinCardB: Object {
        override class func _realmObjectName() -> String? { "TwinCard" }
        @Persisted var text = ""
        @Persisted var added = 7
    }
}

enum SoloNamespace {
    final class Nested: Object {
        @Persisted var value = 0
    }
}

@Suite(.temporaryDirectory) struct MigrationWithoutObjectTypesTests {
    @Test func theProgramsModelClassesAreFound() {
        #expect(
            ProgramClasses.uniqueClass(named: "SoloPerson") == MigrationWithoutObjectTypesModels.Person.self,
            "the older model is out of the default schema")
        #expect(ProgramClasses.uniqueClass(named: "SoloPet") == MigrationWithoutObjectTypesModels.Pet.self)
        #expect(ProgramClasses.uniqueClass(named: "Nested") == SoloNamespace.Nested.self, "a class nested in an enum")
        #expect(ProgramClasses.byStoredName["TwinCard"]?.count == 2)
        #expect(ProgramClasses.uniqueClass(named: "TwinCard") == nil, "two classes of one name: unknown")
        #expect(ProgramClasses.byStoredName["DynamicObject"] == nil && ProgramClasses.byStoredName["Object"] == nil)
        #expect(ProgramClasses.byStoredName.keys.allSatisfy { !$0.hasPrefix("Inside") }, "a class in a generic type is skipped")
    }

    /// Writes release 1's file: two people, one with a pet, and two cards.
    private func releaseOne() throws -> Realm.Configuration {
        var config = temporaryConfiguration()
        config.objectTypes = [
            MigrationWithoutObjectTypesModels.PersonV1.self, MigrationWithoutObjectTypesModels.Pet.self,
            MigrationWithoutObjectTypesModels.TwinCardA.self,
        ]
        let realm = try Realm(configuration: config)
        try realm.write {
            let ada = MigrationWithoutObjectTypesModels.PersonV1(value: ["firstName": "Ada", "lastName": "Lovelace"])
            ada.pets.append(MigrationWithoutObjectTypesModels.Pet(value: ["name": "Rex"]))
            try realm.add(ada)
            try realm.add(MigrationWithoutObjectTypesModels.PersonV1(value: ["firstName": "Alan", "lastName": "Turing"]))
            try realm.add(MigrationWithoutObjectTypesModels.TwinCardA(value: ["text": "one"]))
        }
        config.objectTypes = nil
        return config
    }

    @Test func aRaisedVersionRunsTheBlockWithTheProgramsClasses() throws {
        var config = try releaseOne()
        config.schemaVersion = 1
        let seen = LockedBox<[String]>([])
        config.migrationBlock = { migration, oldVersion in
            #expect(oldVersion == 0)
            migration.enumerateObjects(ofType: MigrationWithoutObjectTypesModels.Person.className()) { oldObject, newObject in
                let first = oldObject!["firstName"] as! String
                let last = oldObject!["lastName"] as! String
                newObject!["fullName"] = "\(first) \(last)"
                let pets = oldObject!["pets"] as! List<DynamicObject>
                seen.withLock { $0.append("\(first): \(pets.map { $0["name"] as! String })") }
            }
            // The class the program cannot tell: its new object is the class as stored.
            migration.enumerateObjects(ofType: "TwinCard") { oldObject, newObject in
                #expect(newObject?["added"] == nil)
                newObject!["text"] = (oldObject!["text"] as! String) + "!"
            }
        }
        let realm = try Realm(configuration: config)
        #expect(seen.withLock { $0 }.sorted() == ["Ada: [\"Rex\"]", "Alan: []"])
        #expect(realm.objects(MigrationWithoutObjectTypesModels.Person.self).map(\.fullName).sorted() == ["Ada Lovelace", "Alan Turing"])
        #expect(realm.objects(MigrationWithoutObjectTypesModels.Person.self).first { $0.fullName.hasPrefix("Ada") }?.pets.map(\.name) == ["Rex"])
        #expect(realm.currentFileSchema.classes["SoloPerson"]?.fieldIndex(of: "firstName") == nil, "dropped after the block ran")
        #expect(realm.currentFileSchema.info.pendingClasses == ["TwinCard"])
        // First used through one of its classes, the pending class migrates to it then.
        #expect(realm.objects(MigrationWithoutObjectTypesModels.TwinCardB.self).map(\.text) == ["one!"])
        #expect(
            realm.objects(MigrationWithoutObjectTypesModels.TwinCardB.self).map(\.added) == [0],
            "an added property starts at its type's default, as any migration gives it")
        #expect(realm.currentFileSchema.info.pendingClasses == nil)
        #expect(try schemaVersionAtURL(config.fileURL!) == 1)
    }

    @Test func aFailingBlockLeavesTheFileAsItWas() throws {
        var config = try releaseOne()
        config.schemaVersion = 1
        config.migrationBlock = { migration, _ in
            migration.enumerateObjects(ofType: "SoloPerson") { _, newObject in
                newObject!["fullName"] = 42
            }
        }
        #expect(throws: RealmError.self) { _ = try Realm(configuration: config) }
        #expect(try schemaVersionAtURL(config.fileURL!) == 0)
        var again = config
        again.schemaVersion = 0
        again.migrationBlock = nil
        again.objectTypes = [
            MigrationWithoutObjectTypesModels.PersonV1.self, MigrationWithoutObjectTypesModels.Pet.self,
            MigrationWithoutObjectTypesModels.TwinCardA.self,
        ]
        let realm = try Realm(configuration: again)
        #expect(realm.objects(MigrationWithoutObjectTypesModels.PersonV1.self).map(\.firstName).sorted() == ["Ada", "Alan"])
    }

    @Test func anOldListSetOnTheNewObjectOfTheSameKeyGivesItsElements() throws {
        var config = try releaseOne()
        config.schemaVersion = 1
        config.migrationBlock = { migration, _ in
            migration.enumerateObjects(ofType: "SoloPerson") { oldObject, newObject in
                (newObject!["pets"] as! List<DynamicObject>).removeAll()
                newObject!["pets"] = oldObject!["pets"]
                newObject!["fullName"] = oldObject!["firstName"]
            }
        }
        let realm = try Realm(configuration: config)
        #expect(realm.objects(MigrationWithoutObjectTypesModels.Person.self).first { $0.fullName == "Ada" }?.pets.map(\.name) == ["Rex"])
    }

    @Test func anOldObjectTheMigrationDeletedCannotBeLinked() throws {
        var config = try releaseOne()
        config.schemaVersion = 1
        config.migrationBlock = { migration, _ in
            migration.enumerateObjects(ofType: "SoloPet") { _, newObject in migration.delete(newObject!) }
            migration.enumerateObjects(ofType: "SoloPerson") { oldObject, newObject in
                newObject!["pets"] = oldObject!["pets"]
            }
        }
        let error = #expect(throws: RealmError.self) { _ = try Realm(configuration: config) }
        #expect(error?.description.contains("was deleted by this migration") == true, "\(String(describing: error))")
        #expect(try schemaVersionAtURL(config.fileURL!) == 0)
    }

    @Test func aStoredClassNoProgramClassMatchesStays() throws {
        var config = temporaryConfiguration()
        config.objectTypes = [MigrationWithoutObjectTypesModels.TwinCardA.self, MigrationWithoutObjectTypesModels.Pet.self]
        do {
            let realm = try Realm(configuration: config)
            try realm.write {
                try realm.add(MigrationWithoutObjectTypesModels.TwinCardA(value: ["text": "kept"]))
                try realm.add(MigrationWithoutObjectTypesModels.Pet(value: ["name": "Tom"]))
            }
        }
        config.objectTypes = nil
        config.schemaVersion = 2
        let realm = try Realm(configuration: config)
        #expect(realm.dynamicObjects("TwinCard").map { $0["text"] as? String } == ["kept"])
        #expect(realm.currentFileSchema.classes["TwinCard"]?.properties.map(\.name) == ["text"])
        #expect(realm.objects(MigrationWithoutObjectTypesModels.Pet.self).map(\.name) == ["Tom"])
    }
}

/// A model class nested in a generic type, which the program's class list cannot name.
struct SoloGenericBox<T> {
    final class Inside: Object {
        @Persisted var value = 0
    }
}
