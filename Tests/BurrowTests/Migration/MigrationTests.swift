import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// The models of `MigrationTests`, stored under the names they had before they were namespaced.
enum MigrationModels {
    // Two releases of an app's classes. Release 2 of `MigPerson` joins the names into `fullName`,
    // renames `age` to `years` and drops `nickname`; `MigCard` is gone. Only MigrationTests use them.
    final class PersonV1: Object {
        override class func _realmObjectName() -> String? { "MigPerson" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var firstName = ""
        @Persisted var lastName = ""
        @Persisted var age = 0
        @Persisted var nickname: String?
        @Persisted var tags: List<String>
        @Persisted var friend: MigrationModels.PersonV1?
    }

    final class CardV1: Object {
        override class func _realmObjectName() -> String? { "MigCard" }
        @Persisted var text = ""
    }

    final class PersonV2: Object {
        override class func _realmObjectName() -> String? { "MigPerson" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var fullName = ""
        @Persisted var years = 0
        @Persisted var tags: List<String>
        @Persisted var friend: MigrationModels.PersonV2?
    }

    /// Release 2 as another app writes it: `tags` becomes `labels`, a list under a new name, which
    /// the migration block fills from the old list.
    final class PersonLabels: Object {
        override class func _realmObjectName() -> String? { "MigPerson" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var labels: List<String>
        @Persisted var friend: MigrationModels.PersonLabels?
    }

    /// An owner of embedded homes, before and after `homes` became `places`.
    final class Home: EmbeddedObject {
        override class func _realmObjectName() -> String? { "MigHome" }
        @Persisted var street = ""
        @Persisted var rooms: List<MigrationModels.Room>
    }

    final class Room: EmbeddedObject {
        override class func _realmObjectName() -> String? { "MigRoom" }
        @Persisted var name = ""
    }

    final class OwnerV1: Object {
        override class func _realmObjectName() -> String? { "MigOwner" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var homes: List<MigrationModels.Home>
        @Persisted var office: MigrationModels.Home?
    }

    final class OwnerV2: Object {
        override class func _realmObjectName() -> String? { "MigOwner" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var places: List<MigrationModels.Home>
    }
}

/// RealmSwift's migration API: old and new objects by name, renaming, deleting a class's data,
/// creating and deleting objects in the migration, and a failing migration leaving the file as it was.
@Suite(.temporaryDirectory) struct MigrationTests {
    /// A file of release 1: Ada (with a long nickname, kept outside her row), Alan (Ada's friend)
    /// and three cards.
    private func releaseOne() throws -> Realm.Configuration {
        var v1 = temporaryConfiguration()
        v1.objectTypes = [MigrationModels.PersonV1.self, MigrationModels.CardV1.self]
        v1.schemaVersion = 1
        let realm = try Realm(configuration: v1)
        try realm.write {
            let ada = try realm.create(
                MigrationModels.PersonV1.self,
                value: [
                    "id": 1, "firstName": "Ada", "lastName": "Lovelace", "age": 36,
                    "nickname": String(repeating: "Enchantress of Numbers ", count: 400), "tags": ["math", "poetry"],
                ])
            try realm.create(MigrationModels.PersonV1.self, value: ["id": 2, "firstName": "Alan", "lastName": "Turing", "age": 41, "friend": ada])
            for i in 0..<3 { try realm.add(MigrationModels.CardV1(value: ["text": "card \(i)"])) }
        }
        return v1
    }

    private func releaseTwo(_ v1: Realm.Configuration, _ block: @escaping MigrationBlock) -> Realm.Configuration {
        var v2 = v1
        v2.objectTypes = [MigrationModels.PersonV2.self]
        v2.schemaVersion = 2
        v2.migrationBlock = block
        return v2
    }

    @Test func testOldAndNewObjectsByNameRenamingAndDeletingData() throws {
        let v1 = try releaseOne()
        let cardID = try #require(try Realm(configuration: v1).currentFileSchema.classes["MigCard"]?.id)
        let seen = LockedBox<[String]>([])
        let v2 = releaseTwo(v1) { migration, oldVersion in
            #expect(oldVersion == 1)
            migration.enumerateObjects(ofType: MigrationModels.PersonV2.className()) { oldObject, newObject in
                let first = oldObject!["firstName"] as! String
                let last = oldObject!["lastName"] as! String
                newObject!["fullName"] = "\(first) \(last)"
                // The old object keeps its values whatever the new one becomes.
                newObject!["tags"] = ["changed"]
                let nickname = (oldObject!["nickname"] as? String).map { "\($0.count) characters" } ?? "none"
                // Old links are old objects, read dynamically, as in RealmSwift.
                let friend = (oldObject!["friend"] as? DynamicObject)?["id"] as? Int
                seen.withLock {
                    $0.append(
                        "\(first): nickname \(nickname), friend \(friend.map(String.init) ?? "none"), age \(oldObject!["age"] as! Int), \(oldObject!["fullName"] == nil ? "no fullName before" : "fullName?")"
                    )
                }
                #expect(oldObject!["missing"] == nil)
                #expect(newObject!.realm === migration.realm && !newObject!.isFrozen && oldObject!.isFrozen)
            }
            migration.renameProperty(onType: "MigPerson", from: "age", to: "years")
            #expect(migration.deleteData(forType: "MigCard"))
            #expect(!migration.deleteData(forType: "NoSuchClass"))
            migration.create("MigPerson", value: ["id": 3, "fullName": "Grace Hopper", "years": 85])
            // Deleting Alan: enumeration still gives his old object, with no new one.
            migration.enumerateObjects(ofType: "MigPerson") { oldObject, newObject in
                if oldObject!["firstName"] as? String == "Alan" { migration.delete(newObject!) }
            }
            migration.enumerateObjects(ofType: "MigPerson") { oldObject, newObject in
                seen.withLock { $0.append("\(oldObject!["firstName"] as! String) now \(newObject == nil ? "deleted" : "kept")") }
            }
            // A class no longer declared: its old objects, with no new ones.
            migration.enumerateObjects(ofType: "MigCard") { oldObject, newObject in
                #expect(newObject == nil)
                seen.withLock { $0.append(oldObject!["text"] as! String) }
            }
        }
        let realm = try Realm(configuration: v2)
        #expect(
            seen.withLock { $0 } == [
                "Ada: nickname 9200 characters, friend none, age 36, no fullName before",
                "Alan: nickname none, friend 1, age 41, no fullName before",
                "Ada now kept", "Alan now deleted", "card 0", "card 1", "card 2",
            ])
        let people = realm.objects(MigrationModels.PersonV2.self).sorted(byKeyPath: "id")
        #expect(people.map(\.fullName) == ["Ada Lovelace", "Grace Hopper"])
        #expect(people.map(\.years) == [36, 85])
        #expect(Array(people[0].tags) == ["changed"])
        #expect(realm.currentFileSchema.classes["MigCard"] == nil, "the dropped class is gone from the file")
        let cardTrees = try realm.storage.snapshot().treeNames().filter { $0.split(separator: "/").dropFirst().first == "\(cardID)" }
        #expect(cardTrees.isEmpty, "its trees too: \(cardTrees)")
        #expect(realm.currentFileSchema.info.schemaVersion == 2)
        _ = try realm.storage.snapshot().verify()
        let objectFindings = try ObjectVerifier.verify(realm.storage.snapshot()).findings.map(\.description)
        #expect(objectFindings == [], "the dropped nickname's long value is gone with it")
    }

    @Test func testCollectionsAndLinksFollowTheirFieldsToNewPositions() throws {
        // Release 2 drops three properties before `tags` and `friend`: their fields move from
        // positions 5 and 6 to 3 and 4, and so must the list's elements and the link's backlink.
        let v1 = try releaseOne()
        var v2 = v1
        v2.objectTypes = [MigrationModels.PersonV2.self]
        v2.schemaVersion = 2
        let realm = try Realm(configuration: v2)
        let ada = try #require(realm.object(ofType: MigrationModels.PersonV2.self, forPrimaryKey: 1))
        let alan = try #require(realm.object(ofType: MigrationModels.PersonV2.self, forPrimaryKey: 2))
        #expect(Array(ada.tags) == ["math", "poetry"])
        #expect(alan.tags.isEmpty)
        #expect(alan.friend?.id == 1)
        try realm.write {
            ada.tags.append("engines")
            try realm.delete(ada)
        }
        #expect(alan.friend == nil, "deleting the linked object clears the link at its new position")
        #expect(alan.years == 0 && alan.fullName.isEmpty, "without renameProperty, a new name is a new property")
        _ = try realm.storage.snapshot().verify()
        let objectFindings = try ObjectVerifier.verify(realm.storage.snapshot()).findings.map(\.description)
        #expect(objectFindings == [])
    }

    @Test func testOldCollectionsReadAsTheyWereAndMoveToARenamedProperty() throws {
        let v1 = try releaseOne()
        var v2 = v1
        v2.objectTypes = [MigrationModels.PersonLabels.self]
        v2.schemaVersion = 2
        v2.migrationBlock = { migration, _ in
            migration.enumerateObjects(ofType: "MigPerson") { oldObject, newObject in
                // The old list is read from the version the migration started from, although
                // the new schema has no `tags` any more.
                newObject!["labels"] = oldObject!["tags"]
                newObject!["labels"] = Array(oldObject!["tags"] as! List<String>) + ["moved"]
            }
        }
        let realm = try Realm(configuration: v2)
        #expect(Array(try #require(realm.object(ofType: MigrationModels.PersonLabels.self, forPrimaryKey: 1)).labels) == ["math", "poetry", "moved"])
        #expect(Array(try #require(realm.object(ofType: MigrationModels.PersonLabels.self, forPrimaryKey: 2)).labels) == ["moved"])
        _ = try realm.storage.snapshot().verify()

        // renameProperty does the same for a list.
        var renamed = try releaseOne()
        renamed.objectTypes = [MigrationModels.PersonLabels.self]
        renamed.schemaVersion = 2
        renamed.migrationBlock = { migration, _ in migration.renameProperty(onType: "MigPerson", from: "tags", to: "labels") }
        let other = try Realm(configuration: renamed)
        #expect(Array(try #require(other.object(ofType: MigrationModels.PersonLabels.self, forPrimaryKey: 1)).labels) == ["math", "poetry"])
        #expect(try #require(other.object(ofType: MigrationModels.PersonLabels.self, forPrimaryKey: 2)).labels.isEmpty)
        _ = try other.storage.snapshot().verify()
    }

    @Test func testEmbeddedObjectsMoveByTheirValues() throws {
        var v1 = temporaryConfiguration()
        v1.objectTypes = [MigrationModels.OwnerV1.self, MigrationModels.Home.self, MigrationModels.Room.self]
        v1.schemaVersion = 1
        do {
            let realm = try Realm(configuration: v1)
            try realm.write {
                try realm.create(
                    MigrationModels.OwnerV1.self,
                    value: [
                        "id": 1, "homes": [["street": "Elm", "rooms": [["name": "hall"], ["name": "attic"]]], ["street": "Oak"]],
                        "office": ["street": "Main", "rooms": [["name": "desk"]]],
                    ])
            }
        }
        var renaming = v1
        renaming.objectTypes = [MigrationModels.OwnerV2.self, MigrationModels.Home.self, MigrationModels.Room.self]
        renaming.schemaVersion = 2
        renaming.migrationBlock = { migration, _ in migration.renameProperty(onType: "MigOwner", from: "homes", to: "places") }
        do {
            let renamed = try Realm(configuration: renaming)
            #expect(try #require(renamed.object(ofType: MigrationModels.OwnerV2.self, forPrimaryKey: 1)).places.map(\.street) == ["Elm", "Oak"])
            #expect(renamed.objects(MigrationModels.Home.self).map(\.street).sorted() == ["Elm", "Oak"], "the dropped homes and office went")
            #expect(renamed.object(ofType: MigrationModels.OwnerV2.self, forPrimaryKey: 1)?.places.first?.rooms.map(\.name) == ["hall", "attic"])
            #expect(
                renamed.objects(MigrationModels.Room.self).map(\.name).sorted() == ["attic", "hall"],
                "embedded in embedded: copied, and the originals went")
        }
        // The same by hand, from a second copy of release 1's file.
        var copying = renaming
        copying.fileURL = try configurationWithOneOwner(like: v1).fileURL
        copying.migrationBlock = { migration, _ in
            migration.enumerateObjects(ofType: "MigOwner") { oldObject, newObject in
                let homes = oldObject!["homes"] as! List<DynamicObject>
                #expect(homes.count == 2 && homes.allSatisfy(\.isFrozen), "old embedded objects are the objects as they were")
                // Setting them on a new object copies their values: the originals stay with
                // their old parent, and go with the field the migration drops.
                newObject!["places"] = homes
            }
        }
        let realm = try Realm(configuration: copying)
        #expect(try #require(realm.object(ofType: MigrationModels.OwnerV2.self, forPrimaryKey: 1)).places.map(\.street) == ["Elm", "Oak"])
        // The embedded objects of the dropped `homes` and `office` went with their fields.
        #expect(realm.objects(MigrationModels.Home.self).map(\.street).sorted() == ["Elm", "Oak"])
        _ = try realm.storage.snapshot().verify()
        // Without a block (the class migrated on open, nothing copied), they go too.
        var dropping = renaming
        dropping.migrationBlock = nil
        dropping.fileURL = try configurationWithOneOwner(like: v1).fileURL
        let dropped = try Realm(configuration: dropping)
        #expect(dropped.objects(MigrationModels.Home.self).isEmpty && dropped.objects(MigrationModels.OwnerV2.self).count == 1)
    }

    /// A new file of `configuration`'s classes holding one MigOwnerV1 with two homes and an office.
    private func configurationWithOneOwner(like configuration: Realm.Configuration) throws -> Realm.Configuration {
        var v1 = temporaryConfiguration(UUID().uuidString)
        v1.objectTypes = configuration.objectTypes
        v1.schemaVersion = configuration.schemaVersion
        let realm = try Realm(configuration: v1)
        try realm.write {
            try realm.create(
                MigrationModels.OwnerV1.self,
                value: [
                    "id": 1, "homes": [["street": "Elm", "rooms": [["name": "hall"], ["name": "attic"]]], ["street": "Oak"]],
                    "office": ["street": "Main", "rooms": [["name": "desk"]]],
                ])
        }
        return v1
    }

    @Test func testAFailingMigrationThrowsAndLeavesTheFileAsItWas() throws {
        let v1 = try releaseOne()
        let v2 = releaseTwo(v1) { migration, _ in
            migration.enumerateObjects(ofType: "MigPerson") { _, newObject in newObject!["years"] = "forty" }
        }
        expectRealmError(.invalidArgument, mentioning: ["years"]) { _ = try Realm(configuration: v2) }
        let renaming = releaseTwo(v1) { migration, _ in migration.renameProperty(onType: "MigPerson", from: "tags", to: "years") }
        expectRealmError(.invalidArgument, mentioning: ["tags", "years", "different types"]) { _ = try Realm(configuration: renaming) }
        let toOptional = releaseTwo(v1) { migration, _ in migration.renameProperty(onType: "MigPerson", from: "nickname", to: "fullName") }
        expectRealmError(.invalidArgument, mentioning: ["nickname", "fullName", "different types"]) { _ = try Realm(configuration: toOptional) }
        let undeclared = releaseTwo(v1) { migration, _ in migration.renameProperty(onType: "MigPerson", from: "firstName", to: "alias") }
        expectRealmError(.invalidArgument, mentioning: ["alias", "declares no property"]) { _ = try Realm(configuration: undeclared) }
        let creating = releaseTwo(v1) { migration, _ in migration.create("MigCard", value: ["text": "new"]) }
        expectRealmError(.schemaMismatch, mentioning: ["MigCard", "objectTypes"]) { _ = try Realm(configuration: creating) }
        let unknown = releaseTwo(v1) { migration, _ in migration.renameProperty(onType: "MigPerson", from: "surname", to: "fullName") }
        expectRealmError(.invalidArgument, mentioning: ["surname", "MigPerson"]) { _ = try Realm(configuration: unknown) }
        // Release 1 still reads its file, untouched.
        let realm = try Realm(configuration: v1)
        #expect(realm.objects(MigrationModels.PersonV1.self).map(\.firstName).sorted() == ["Ada", "Alan"])
        #expect(realm.objects(MigrationModels.CardV1.self).count == 3)
        #expect(realm.currentFileSchema.info.schemaVersion == 1)
    }

    /// The blocks may throw: throwing calls take `try`, and a thrown error fails the migration
    /// as a recorded one does.
    @Test func testABlockThatThrowsFailsTheMigrationAndLeavesTheFileAsItWas() throws {
        struct NoTitle: Error, CustomStringConvertible {
            let id: Int
            var description: String { "person \(id) has no title" }
        }
        let v1 = try releaseOne()
        let throwing = releaseTwo(v1) { migration, _ in
            try migration.enumerateObjects(ofType: "MigPerson") { oldObject, newObject in
                newObject!["fullName"] = oldObject!["firstName"]
                if oldObject!["id"] as? Int == 2 { throw NoTitle(id: 2) }
            }
        }
        expectRealmError(.fail, mentioning: ["migration block threw", "person 2 has no title"]) { _ = try Realm(configuration: throwing) }
        // A RealmError a throwing call inside the block throws comes out as it is.
        let duplicate = releaseTwo(v1) { migration, _ in
            try migration.realm.create(MigrationModels.PersonV2.self, value: ["id": 1, "fullName": "again"])
        }
        expectRealmError(.primaryKeyExists, mentioning: []) { _ = try Realm(configuration: duplicate) }
        do {
            let realm = try Realm(configuration: v1)
            #expect(realm.currentFileSchema.info.schemaVersion == 1)
            #expect(realm.objects(MigrationModels.PersonV1.self).map(\.firstName).sorted() == ["Ada", "Alan"])
        }

        // A block that throws nothing migrates, with `try` where the calls throw.
        let working = releaseTwo(v1) { migration, _ in
            migration.enumerateObjects(ofType: "MigPerson") { oldObject, newObject in
                newObject!["fullName"] = "\(oldObject!["firstName"] as! String) \(oldObject!["lastName"] as! String)"
            }
            try migration.realm.create(MigrationModels.PersonV2.self, value: ["id": 3, "fullName": "Grace Hopper"])
        }
        let migrated = try Realm(configuration: working)
        #expect(migrated.objects(MigrationModels.PersonV2.self).map(\.fullName).sorted() == ["Ada Lovelace", "Alan Turing", "Grace Hopper"])
    }
}
