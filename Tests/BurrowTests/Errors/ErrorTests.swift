import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// The models of `ErrorTests`, stored under the names they had before they were namespaced.
enum ErrorModels {
    // Two versions of one stored class, for schema mismatch and migration. Only ErrorTests use them.
    final class MigrationV1: Object {
        override class func _realmObjectName() -> String? { "ErrMigrationItem" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var obsolete = 0
    }

    final class MigrationV2: Object {
        override class func _realmObjectName() -> String? { "ErrMigrationItem" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var addedInt: Int
        @Persisted var addedString: String
        @Persisted var addedDate: Date
        @Persisted var addedOptional: String?
        @Persisted var addedList: List<Int>
    }

    // The same, for the default configuration (objectTypes nil). Only the test that uses them may
    // touch them: it relies on the new version not having been used in the process yet, as after an
    // app update.
    final class LazyMigrationV1: Object {
        override class func _realmObjectName() -> String? { "ErrLazyMigrationItem" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
    }

    final class LazyMigrationV2: Object {
        override class func _realmObjectName() -> String? { "ErrLazyMigrationItem" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var addedInt: Int
    }
}

/// Expects `body` to throw a `RealmError` with `code` whose message contains every one of
/// `words` (case-insensitively), and returns it.
@discardableResult
func expectRealmError(
    _ code: RealmError.Code, mentioning words: [String], sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Void
) -> RealmError? {
    let error = #expect(throws: RealmError.self, sourceLocation: sourceLocation) { try body() }
    guard let error else { return nil }
    #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
    for word in words {
        #expect(
            error.description.lowercased().contains(word.lowercased()), "the message names \"\(word)\": \(error.description)",
            sourceLocation: sourceLocation)
    }
    return error
}

/// Two classes of one name in different scopes, as in two modules: both are stored as
/// `ErrTwin`.
enum ErrKennelA {
    final class ErrTwin: Object {
        @Persisted var name = ""
    }
}

enum ErrKennelB {
    final class ErrTwin: Object {
        @Persisted var name = ""
        @Persisted var age = 0
    }
}

@Suite(.temporaryDirectory) struct ErrorTests {
    // MARK: Primary keys

    @Test func testDuplicatePrimaryKeyUnderErrorPolicyThrowsAndChangesNothing() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        let original = ObjectSuiteModels.RTNode(value: ["name": "rex", "weight": 1])
        try realm.write { try realm.add(original) }
        let duplicate = ObjectSuiteModels.RTNode(value: ["name": "rex", "weight": 2])
        try realm.write {
            expectRealmError(.primaryKeyExists, mentioning: ["RTNode", "rex", "update"]) {
                try realm.add(duplicate)
            }
            expectRealmError(.primaryKeyExists, mentioning: ["RTNode", "rex"]) {
                try realm.create(ObjectSuiteModels.RTNode.self, value: ["name": "rex", "weight": 3])
            }
            expectRealmError(.primaryKeyExists, mentioning: ["RTNode", "rex"]) {
                try realm.add(duplicate, update: .error)
            }
            // A failure before anything changed leaves the transaction usable.
            try realm.add(ObjectSuiteModels.RTNode(value: ["name": "other"]))
        }
        #expect(duplicate.realm == nil)
        #expect(duplicate.weight == 2)
        #expect(original.weight == 1)
        #expect(Set(realm.objects(ObjectSuiteModels.RTNode.self).map(\.name)) == ["rex", "other"])
    }

    @Test func testDuplicatePrimaryKeyWithinOneTransactionThrows() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        try realm.write {
            try realm.add(ObjectSuiteModels.RTTarget(value: ["id": 5, "label": "first"]))
            expectRealmError(.primaryKeyExists, mentioning: ["RTTarget", "5"]) {
                try realm.add(ObjectSuiteModels.RTTarget(value: ["id": 5, "label": "second"]))
            }
        }
        #expect(realm.objects(ObjectSuiteModels.RTTarget.self).map(\.label) == ["first"])
    }

    @Test func testUpdatePolicyOnAClassWithoutPrimaryKeyThrowsAndChangesNothing() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        try realm.write { try realm.add(ObjectSuiteModels.RTNote(value: ["text": "existing"])) }
        let note = ObjectSuiteModels.RTNote(value: ["text": "new"])
        try realm.write {
            for policy in [UpdatePolicy.modified, .all] {
                expectRealmError(.invalidArgument, mentioning: ["RTNote", "primary key"]) {
                    try realm.add(note, update: policy)
                }
                expectRealmError(.invalidArgument, mentioning: ["RTNote", "primary key"]) {
                    try realm.create(ObjectSuiteModels.RTNote.self, value: ["text": "created"], update: policy)
                }
            }
        }
        #expect(note.realm == nil)
        #expect(realm.objects(ObjectSuiteModels.RTNote.self).map(\.text) == ["existing"])
    }

    @Test func testChangingAPrimaryKeyFailsTheCommitAndChangesNothing() throws {
        let config = temporaryConfiguration()
        do {
            let realm = try Realm(configuration: config)
            let node = ObjectSuiteModels.RTNode(value: ["name": "before", "weight": 1])
            try realm.write { try realm.add(node) }
            expectRealmError(.invalidArgument, mentioning: ["name", "RTNode", "primary key"]) {
                try realm.write {
                    node.weight = 2
                    node.name = "after"
                }
            }
            #expect(node.name == "before")
            #expect(node.weight == 1)
            expectRealmError(.invalidArgument, mentioning: ["name", "RTNode", "primary key"]) {
                try realm.write { node.setValue("after", forKey: "name") }
            }
            #expect(realm.object(ofType: ObjectSuiteModels.RTNode.self, forPrimaryKey: "after") == nil)
            #expect(realm.object(ofType: ObjectSuiteModels.RTNode.self, forPrimaryKey: "before")?.weight == 1)
            // Setting the key to the value it has is not a change.
            try realm.write { node.name = "before" }
        }
        let reopened = try Realm(configuration: config)
        #expect(reopened.objects(ObjectSuiteModels.RTNode.self).map(\.name) == ["before"])
    }

    // MARK: Objects of other realms, deleted, frozen, embedded

    @Test func testAddingAnObjectManagedByAnotherRealmThrowsUseCreate() throws {
        let first = try Realm(configuration: temporaryConfiguration())
        let second = try Realm(configuration: temporaryConfiguration())
        let node = ObjectSuiteModels.RTNode(value: ["name": "first's"])
        try first.write { try first.add(node) }
        try second.write {
            expectRealmError(.invalidObject, mentioning: ["RTNode", "another Realm", "create"]) { try second.add(node) }
            expectRealmError(.invalidObject, mentioning: ["RTNode", "another Realm"]) { try second.delete(node) }
        }
        #expect(node.realm === first)
        #expect(second.objects(ObjectSuiteModels.RTNode.self).isEmpty)
        // Linking it from an object of the second realm fails that transaction's commit.
        let holder = ObjectSuiteModels.RTNode(value: ["name": "holder"])
        try second.write { try second.add(holder) }
        expectRealmError(.invalidObject, mentioning: ["RTNode", "another Realm", "create"]) {
            try second.write {
                holder.weight = 10
                holder.next = node
            }
        }
        #expect(holder.weight == 0)
        #expect(holder.next == nil)
        // create copies it, as the message says.
        let copy = try second.write { try second.create(ObjectSuiteModels.RTNode.self, value: node) }
        #expect(copy.realm === second)
        #expect(copy.name == "first's")
        #expect(first.objects(ObjectSuiteModels.RTNode.self).count == 1)
    }

    @Test func testAddingOrLinkingADeletedObjectThrowsAndChangesNothing() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        let node = ObjectSuiteModels.RTNode(value: ["name": "gone"])
        let holder = ObjectSuiteModels.RTNode(value: ["name": "holder"])
        try realm.write { try realm.add([node, holder]) }
        try realm.write { try realm.delete(node) }
        #expect(node.isInvalidated)
        try realm.write {
            expectRealmError(.invalidObject, mentioning: ["RTNode", "deleted"]) { try realm.add(node) }
        }
        expectRealmError(.invalidObject, mentioning: ["RTNode", "deleted"]) {
            try realm.write {
                holder.weight = 3
                holder.children.append(node)
            }
        }
        #expect(holder.weight == 0)
        #expect(holder.children.isEmpty)
        #expect(realm.objects(ObjectSuiteModels.RTNode.self).map(\.name) == ["holder"])
    }

    @Test func testAddingOrDeletingAFrozenObjectThrowsAndChangesNothing() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        let node = ObjectSuiteModels.RTNode(value: ["name": "ice", "weight": 1])
        try realm.write { try realm.add(node) }
        let frozen = try node.freeze().frozenObject
        #expect(frozen.isFrozen)
        try realm.write {
            expectRealmError(.invalidObject, mentioning: ["frozen", "RTNode", "thaw"]) { try realm.add(frozen) }
            expectRealmError(.invalidObject, mentioning: ["frozen", "RTNode", "thaw"]) { try realm.add(frozen, update: .modified) }
            expectRealmError(.invalidObject, mentioning: ["frozen", "RTNode", "thaw"]) { try realm.delete(frozen) }
        }
        let holder = ObjectSuiteModels.RTNode(value: ["name": "holder"])
        try realm.write { try realm.add(holder) }
        expectRealmError(.invalidObject, mentioning: ["frozen", "RTNode", "thaw"]) {
            try realm.write { holder.next = frozen }
        }
        #expect(holder.next == nil)
        #expect(!node.isInvalidated)
        #expect(Set(realm.objects(ObjectSuiteModels.RTNode.self).map(\.name)) == ["ice", "holder"])
    }

    @Test func testWritingToAFrozenRealmThrowsWrongState() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        try realm.write { try realm.add(ObjectSuiteModels.RTNote(value: ["text": "a"])) }
        let frozenRealm = try realm.freeze()
        #expect(frozenRealm.isFrozen)
        expectRealmError(.wrongState, mentioning: ["frozen"]) { try frozenRealm.write { try frozenRealm.add(ObjectSuiteModels.RTNote()) } }
        expectRealmError(.wrongState, mentioning: ["frozen"]) { try frozenRealm.beginWrite() }
        #expect(!frozenRealm.isInWriteTransaction)
        #expect(frozenRealm.objects(ObjectSuiteModels.RTNote.self).count == 1)
        #expect(realm.objects(ObjectSuiteModels.RTNote.self).count == 1)
    }

    @Test func testAddingAnEmbeddedObjectOnItsOwnThrows() throws {
        // The public `add` and `create` take `Object`, so Swift rejects an EmbeddedObject at
        // compile time; the runtime guard below is what any other route into the realm meets.
        let realm = try Realm(configuration: temporaryConfiguration())
        try realm.write { try realm.add(ObjectSuiteModels.RTNote(value: ["text": "schema"])) }
        let place = ObjectSuiteModels.RTPlace(value: ["street": "Nowhere"])
        try realm.beginWrite()
        let write = try #require(realm.write)
        expectRealmError(.invalidArgument, mentioning: ["RTPlace", "EmbeddedObject", "parent"]) {
            _ = try realm.addObject(place, update: .error, in: write)
        }
        try realm.commitWrite()
        #expect(place.realm == nil)
        #expect(realm.objects(ObjectSuiteModels.RTPlace.self).isEmpty)
    }

    @Test func testGivingAnEmbeddedObjectASecondParentThrows() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        let first = ObjectSuiteModels.RTNode(value: ["name": "first", "home": ["street": "Shared"]])
        let second = ObjectSuiteModels.RTNode(value: ["name": "second"])
        try realm.write { try realm.add([first, second]) }
        let home = try #require(first.home)
        expectRealmError(.invalidArgument, mentioning: ["RTPlace", "home", "parent"]) {
            try realm.write {
                second.weight = 9
                second.home = home
            }
        }
        #expect(second.home == nil)
        #expect(second.weight == 0)
        #expect(first.home?.street == "Shared")
        #expect(realm.objects(ObjectSuiteModels.RTPlace.self).count == 1)
    }

    // MARK: Transactions

    @Test func testANestedWriteThrowsAndTheOuterWriteStillCommits() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        try realm.write {
            try realm.add(ObjectSuiteModels.RTNote(value: ["text": "outer"]))
            expectRealmError(.wrongState, mentioning: ["nested", "write transaction"]) {
                try realm.write { try realm.add(ObjectSuiteModels.RTNote(value: ["text": "inner"])) }
            }
            expectRealmError(.wrongState, mentioning: ["nested"]) { try realm.beginWrite() }
            #expect(realm.isInWriteTransaction)
        }
        #expect(realm.objects(ObjectSuiteModels.RTNote.self).map(\.text) == ["outer"])
    }

    @Test func testANestedAsyncWriteThrows() async throws {
        let db = try await RealmActor(configuration: temporaryConfiguration())
        let message = try await db.asyncWrite { realm -> String in
            try realm.add(ObjectSuiteModels.RTNote(value: ["text": "outer"]))
            do {
                try realm.beginWrite()
                return "no error"
            } catch let error as RealmError {
                return "\(error.code): \(error.description)"
            }
        }
        #expect(message.hasPrefix("wrongState"))
        #expect(message.contains("nested"))
        #expect(try await db.objects(ObjectSuiteModels.RTNote.self).map(\.text) == ["outer"])
    }

    @Test func testCommitOrCancelWithNoWriteTransactionThrows() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        try realm.write { try realm.add(ObjectSuiteModels.RTNote(value: ["text": "a"])) }
        let version = realm.version
        expectRealmError(.wrongState, mentioning: ["commitWrite", "no write transaction"]) { try realm.commitWrite() }
        expectRealmError(.wrongState, mentioning: ["cancelWrite", "no write transaction"]) { try realm.cancelWrite() }
        try realm.write {}
        expectRealmError(.wrongState, mentioning: ["commitWrite"]) { try realm.commitWrite() }
        #expect(realm.version >= version)
        #expect(!realm.isInWriteTransaction)
        #expect(realm.objects(ObjectSuiteModels.RTNote.self).map(\.text) == ["a"])
    }

    @Test func testChangesOutsideAWriteThatCanThrowDoThrowWrongState() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        let note = ObjectSuiteModels.RTNote(value: ["text": "a"])
        expectRealmError(.wrongState, mentioning: ["write transaction"]) { try realm.add(note) }
        expectRealmError(.wrongState, mentioning: ["write transaction"]) { try realm.create(ObjectSuiteModels.RTNote.self, value: ["text": "b"]) }
        expectRealmError(.wrongState, mentioning: ["write transaction"]) { try realm.deleteAll() }
        #expect(note.realm == nil)
        try realm.write { try realm.add(note) }
        expectRealmError(.wrongState, mentioning: ["write transaction"]) { try realm.delete(note) }
        #expect(realm.objects(ObjectSuiteModels.RTNote.self).count == 1)
    }

    @Test func testWritingToAReadOnlyRealmThrowsWrongState() throws {
        var config = temporaryConfiguration()
        do {
            let realm = try Realm(configuration: config)
            try realm.write { try realm.add(ObjectSuiteModels.RTNote(value: ["text": "a"])) }
        }
        config.readOnly = true
        let readOnly = try Realm(configuration: config)
        expectRealmError(.wrongState, mentioning: ["read-only"]) { try readOnly.write { try readOnly.add(ObjectSuiteModels.RTNote()) } }
        #expect(readOnly.objects(ObjectSuiteModels.RTNote.self).map(\.text) == ["a"])
    }

    // MARK: Values that do not fit

    @Test func testWrongValueTypeInInitValueThrowsWhenAdded() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        try realm.write { try realm.add(ObjectSuiteModels.RTNode(value: ["name": "existing"])) }
        let wrongType = ObjectSuiteModels.RTNode(value: ["name": "w", "weight": "heavy"])
        let unknownKey = ObjectSuiteModels.RTNode(value: ["name": "u", "colour": "red"])
        let tooMany = ObjectSuiteModels.RTNote(value: ["text", 1, "extra"])
        let notAContainer = ObjectSuiteModels.RTNote(value: 42)
        let nilForNonOptional = ObjectSuiteModels.RTNote(value: ["text": NSNull()])
        let outOfRange = ObjectSuiteModels.RTEverything(value: ["id": "r", "int8": 300])
        let badEnum = ObjectSuiteModels.RTEverything(value: ["id": "e", "color": 9])
        let badNested = ObjectSuiteModels.RTNode(value: ["name": "n", "next": ["name": "inner", "weight": "x"]])
        let wrongLinkClass = ObjectSuiteModels.RTNode(value: ["name": "l", "next": ObjectSuiteModels.RTNote()])
        let listOfWrongElements = ObjectSuiteModels.RTEverything(value: ["id": "l", "ints": [1, "two", 3]])
        try realm.write {
            expectRealmError(.invalidArgument, mentioning: ["weight", "heavy"]) { try realm.add(wrongType) }
            expectRealmError(.invalidArgument, mentioning: ["RTNode", "colour"]) { try realm.add(unknownKey) }
            expectRealmError(.invalidArgument, mentioning: ["RTNote", "3"]) { try realm.add(tooMany) }
            expectRealmError(.invalidArgument, mentioning: ["RTNote"]) { try realm.add(notAContainer) }
            expectRealmError(.invalidArgument, mentioning: ["text", "nil"]) { try realm.add(nilForNonOptional) }
            expectRealmError(.invalidArgument, mentioning: ["int8", "300"]) { try realm.add(outOfRange) }
            expectRealmError(.invalidArgument, mentioning: ["color", "RTColor"]) { try realm.add(badEnum) }
            expectRealmError(.invalidArgument, mentioning: ["weight"]) { try realm.add(badNested) }
            expectRealmError(.invalidArgument, mentioning: ["next", "RTNode", "RTNote"]) { try realm.add(wrongLinkClass) }
            expectRealmError(.invalidArgument, mentioning: ["ints", "two"]) { try realm.add(listOfWrongElements) }
        }
        for object in [
            wrongType, unknownKey, tooMany, notAContainer, nilForNonOptional, outOfRange, badEnum, badNested, wrongLinkClass, listOfWrongElements,
        ] as [Object] {
            #expect(object.realm == nil)
        }
        #expect(realm.objects(ObjectSuiteModels.RTNode.self).map(\.name) == ["existing"])
        #expect(realm.objects(ObjectSuiteModels.RTNote.self).isEmpty)
        #expect(realm.objects(ObjectSuiteModels.RTEverything.self).isEmpty)
    }

    @Test func testWrongValueTypeOrUnknownKeyInCreateThrowsBeforeAnythingChanges() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        try realm.write {
            try realm.add(ObjectSuiteModels.RTNode(value: ["name": "existing", "weight": 1]))
            expectRealmError(.invalidArgument, mentioning: ["weight", "heavy"]) {
                try realm.create(ObjectSuiteModels.RTNode.self, value: ["name": "w", "weight": "heavy"])
            }
            expectRealmError(.invalidArgument, mentioning: ["RTNode", "colour"]) {
                try realm.create(ObjectSuiteModels.RTNode.self, value: ["name": "u", "colour": "red"])
            }
            expectRealmError(.invalidArgument, mentioning: ["weight", "heavy"]) {
                try realm.create(ObjectSuiteModels.RTNode.self, value: ["name": "existing", "weight": "heavy"], update: .modified)
            }
            expectRealmError(.invalidArgument, mentioning: ["RTNote"]) {
                try realm.create(ObjectSuiteModels.RTNote.self, value: ["too", 1, "many"])
            }
            expectRealmError(.invalidArgument, mentioning: ["RTNote"]) {
                try realm.create(ObjectSuiteModels.RTNote.self, value: "not a dictionary")
            }
            expectRealmError(.invalidArgument, mentioning: ["int16", "70000"]) {
                try realm.create(ObjectSuiteModels.RTEverything.self, value: ["id": "r", "int16": 70_000])
            }
            expectRealmError(.invalidArgument, mentioning: ["text", "nil"]) {
                try realm.create(ObjectSuiteModels.RTNote.self, value: ["text": NSNull()])
            }
            expectRealmError(.invalidArgument, mentioning: ["label"]) {
                try realm.create(ObjectSuiteModels.RTEverything.self, value: ["id": "nested", "link": ["id": 1, "label": 5]])
            }
            expectRealmError(.invalidArgument, mentioning: ["targets"]) {
                try realm.create(ObjectSuiteModels.RTEverything.self, value: ["id": "list", "targets": "not a list"])
            }
            expectRealmError(.invalidArgument, mentioning: ["mood", "RTMood"]) {
                try realm.create(ObjectSuiteModels.RTEverything.self, value: ["id": "enum", "mood": "grumpy"])
            }
            expectRealmError(.invalidArgument, mentioning: ["linkedFrom"]) {
                try realm.create(ObjectSuiteModels.RTTarget.self, value: ["id": 2, "linkedFrom": []])
            }
            // The transaction is still usable: nothing was written by the failed calls.
            try realm.create(ObjectSuiteModels.RTNote.self, value: ["text": "fine"])
        }
        #expect(realm.objects(ObjectSuiteModels.RTNode.self).map(\.name) == ["existing"])
        #expect(realm.object(ofType: ObjectSuiteModels.RTNode.self, forPrimaryKey: "existing")?.weight == 1)
        #expect(realm.objects(ObjectSuiteModels.RTNote.self).map(\.text) == ["fine"])
        #expect(realm.objects(ObjectSuiteModels.RTEverything.self).isEmpty)
        #expect(realm.objects(ObjectSuiteModels.RTTarget.self).isEmpty)
    }

    @Test func testWrongValueTypeOrUnknownKeyThroughKeyValueCodingFailsTheCommit() throws {
        let config = temporaryConfiguration()
        do {
            let realm = try Realm(configuration: config)
            let node = ObjectSuiteModels.RTNode(value: ["name": "kvc", "weight": 1])
            try realm.write { try realm.add(node) }
            expectRealmError(.invalidArgument, mentioning: ["weight", "heavy"]) {
                try realm.write {
                    try realm.add(ObjectSuiteModels.RTNote(value: ["text": "added in the failing write"]))
                    node.setValue(5, forKey: "weight")
                    node.setValue("heavy", forKey: "weight")
                }
            }
            #expect(node.weight == 1)
            #expect(realm.objects(ObjectSuiteModels.RTNote.self).isEmpty)
            expectRealmError(.invalidArgument, mentioning: ["RTNode", "colour"]) {
                try realm.write { node["colour"] = "red" }
            }
            expectRealmError(.invalidArgument, mentioning: ["weight", "nil"]) {
                try realm.write { node.setValue(nil, forKey: "weight") }
            }
            expectRealmError(.invalidArgument, mentioning: ["weight"]) {
                try realm.write { realm.objects(ObjectSuiteModels.RTNode.self).setValue("heavy", forKey: "weight") }
            }
            #expect(node.weight == 1)
            // On an unmanaged object the error waits for add.
            let unmanaged = ObjectSuiteModels.RTNode(value: ["name": "unmanaged"])
            unmanaged.setValue(Date(), forKey: "weight")
            unmanaged["nonsense"] = 1
            try realm.write {
                expectRealmError(.invalidArgument, mentioning: ["weight"]) { try realm.add(unmanaged) }
            }
            #expect(unmanaged.realm == nil)
            #expect(realm.objects(ObjectSuiteModels.RTNode.self).count == 1)
        }
        let reopened = try Realm(configuration: config)
        #expect(reopened.objects(ObjectSuiteModels.RTNode.self).map(\.weight) == [1])
        #expect(reopened.objects(ObjectSuiteModels.RTNote.self).isEmpty)
    }

    // MARK: Schema

    @Test func testAFileWhoseSchemaDiffersWithoutMigrationThrowsSchemaMismatchAndIsLeftAsItWas() throws {
        var v1 = temporaryConfiguration()
        v1.objectTypes = [ErrorModels.MigrationV1.self]
        do {
            let realm = try Realm(configuration: v1)
            try realm.write {
                try realm.add(ErrorModels.MigrationV1(value: ["id": 1, "name": "one", "obsolete": 11]))
                try realm.add(ErrorModels.MigrationV1(value: ["id": 2, "name": "two", "obsolete": 22]))
            }
        }
        var v2 = v1
        v2.objectTypes = [ErrorModels.MigrationV2.self]
        expectRealmError(.schemaMismatch, mentioning: ["ErrMigrationItem", "addedInt", "obsolete", "schemaVersion"]) {
            _ = try Realm(configuration: v2)
        }
        // Nothing changed: the old classes still open the file, with their data.
        do {
            let realm = try Realm(configuration: v1)
            #expect(realm.currentFileSchema.info.schemaVersion == 0)
            #expect(realm.objects(ErrorModels.MigrationV1.self).map(\.obsolete) == [11, 22])
        }

        // Raising the schema version migrates: data kept, added properties get their defaults.
        v2.schemaVersion = 1
        do {
            let realm = try Realm(configuration: v2)
            let items = realm.objects(ErrorModels.MigrationV2.self)
            #expect(items.map(\.id) == [1, 2])
            #expect(items.map(\.name) == ["one", "two"])
            #expect(items.allSatisfy { $0.addedInt == 0 })
            #expect(items.allSatisfy { $0.addedString == "" })
            #expect(items.allSatisfy { $0.addedDate == Date(timeIntervalSince1970: 0) })
            #expect(items.allSatisfy { $0.addedOptional == nil })
            #expect(items.allSatisfy { $0.addedList.isEmpty })
            #expect(realm.object(ofType: ErrorModels.MigrationV2.self, forPrimaryKey: 2)?.name == "two", "the primary key index survives")
            #expect(realm.currentFileSchema.info.schemaVersion == 1)
            #expect(realm.currentFileSchema.classes["ErrMigrationItem"]?.fieldIndex(of: "obsolete") == nil)
            try realm.write {
                realm.objects(ErrorModels.MigrationV2.self).first!.addedList.append(5)
                try realm.add(ErrorModels.MigrationV2(value: ["id": 3, "name": "three", "addedInt": 3]))
            }
        }
        // The migrated file reopens with the new classes, and no longer with the old ones.
        do {
            let realm = try Realm(configuration: v2)
            #expect(realm.objects(ErrorModels.MigrationV2.self).map(\.addedInt) == [0, 0, 3])
            #expect(Array(realm.objects(ErrorModels.MigrationV2.self).first!.addedList) == [5])
        }
        var oldAgain = v1
        oldAgain.schemaVersion = 1
        expectRealmError(.schemaMismatch, mentioning: ["ErrMigrationItem"]) { _ = try Realm(configuration: oldAgain) }
        var lower = v2
        lower.schemaVersion = 0
        expectRealmError(.schemaMismatch, mentioning: ["schema version"]) { _ = try Realm(configuration: lower) }
    }

    @Test func testTwoClassesStoredUnderOneNameInOneRealmThrowSchemaMismatch() throws {
        let words = ["ErrKennelA.ErrTwin", "ErrKennelB.ErrTwin", "'ErrTwin'", "_realmObjectName"]
        // Listed together in objectTypes: refused at open.
        var listed = temporaryInMemoryConfiguration()
        listed.objectTypes = [ErrKennelA.ErrTwin.self, ErrKennelB.ErrTwin.self]
        expectRealmError(.schemaMismatch, mentioning: words) { _ = try Realm(configuration: listed) }
        // Discovered one after the other: the second is refused, and the first keeps its objects.
        let realm = try Realm(configuration: temporaryInMemoryConfiguration())
        try realm.write { try realm.add(ErrKennelA.ErrTwin()) }
        expectRealmError(.schemaMismatch, mentioning: words) { try realm.write { try realm.add(ErrKennelB.ErrTwin()) } }
        #expect(realm.objects(ErrKennelA.ErrTwin.self).count == 1)
        // Another realm may store the other class under that name.
        let other = try Realm(configuration: temporaryInMemoryConfiguration())
        try other.write { try other.add(ErrKennelB.ErrTwin()) }
        #expect(other.objects(ErrKennelB.ErrTwin.self).count == 1)
    }

    @Test func testTheMigrationBlockRunsOnceWithTheOldVersionAndItsChangesAreKept() throws {
        var v1 = temporaryConfiguration()
        v1.objectTypes = [ErrorModels.MigrationV1.self]
        do {
            let realm = try Realm(configuration: v1)
            try realm.write {
                for i in 1...3 { try realm.add(ErrorModels.MigrationV1(value: ["id": i, "name": "n\(i)", "obsolete": i * 100])) }
            }
        }
        let calls = LockedBox<[UInt64]>([])
        var v2 = v1
        v2.objectTypes = [ErrorModels.MigrationV2.self]
        v2.schemaVersion = 4
        v2.migrationBlock = { migration, oldVersion in
            calls.withLock { $0.append(oldVersion) }
            for item in migration.realm.objects(ErrorModels.MigrationV2.self) { item.addedInt = item.id * 10 }
        }
        do {
            let realm = try Realm(configuration: v2)
            #expect(realm.objects(ErrorModels.MigrationV2.self).map(\.addedInt) == [10, 20, 30])
        }
        _ = try Realm(configuration: v2)
        #expect(calls.withLock { $0 } == [0], "runs once, for the migration, with the file's old version")
    }

    @Test func testDeleteRealmIfMigrationNeededStartsEmptyInsteadOfThrowing() throws {
        var v1 = temporaryConfiguration()
        v1.objectTypes = [ErrorModels.MigrationV1.self]
        do {
            let realm = try Realm(configuration: v1)
            try realm.write { try realm.add(ErrorModels.MigrationV1(value: ["id": 1])) }
        }
        var v2 = v1
        v2.objectTypes = [ErrorModels.MigrationV2.self]
        v2.deleteRealmIfMigrationNeeded = true
        let realm = try Realm(configuration: v2)
        #expect(realm.objects(ErrorModels.MigrationV2.self).isEmpty)
        try realm.write { try realm.add(ErrorModels.MigrationV2(value: ["id": 1, "addedInt": 1])) }
        #expect(realm.objects(ErrorModels.MigrationV2.self).map(\.addedInt) == [1])
    }

    @Test func testRaisingSchemaVersionWithDefaultObjectTypesMigratesAChangedClass() async throws {
        // The default configuration (objectTypes nil), as an app uses it after an update that
        // changed a class: the new class has not been used in the process before the open. Run
        // in a child process, so that a trap there cannot end the other tests.
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            // The child process runs outside the test, so it makes its own directory.
            let directory = try TemporaryDirectory("lazy-migration")
            let v1 = Realm.Configuration(fileURL: directory.fileURL("test.burrow"))
            do {
                let realm = try Realm(configuration: v1)
                try realm.write { try realm.add(ErrorModels.LazyMigrationV1(value: ["id": 1, "name": "kept"])) }
            }
            var v2 = v1
            v2.schemaVersion = 1
            let realm = try Realm(configuration: v2)
            let items = realm.objects(ErrorModels.LazyMigrationV2.self)
            guard items.count == 1 else { exit(2) }
            guard items.first?.name == "kept", items.first?.addedInt == 0 else { exit(3) }
            try realm.write { try realm.add(ErrorModels.LazyMigrationV2(value: ["id": 2, "name": "new"])) }
            guard realm.objects(ErrorModels.LazyMigrationV2.self).count == 2 else { exit(4) }
        }
        let stderr = standardError(of: result)
        #expect(!stderr.contains("Fatal error"), "the object written before the update is readable through the new class: \(stderr)")
    }
}
