import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// The misuses Swift gives no way to throw from (property setters and getters), which trap as
/// they do in RealmSwift. Each runs in a child process (a Swift Testing exit test) and must end
/// it with a failure whose message says what went wrong; each has a twin doing the same without
/// the misuse that must exit successfully, so that a trap in the setup cannot pass for the one
/// under test.
@Suite(.temporaryDirectory) struct TrapTests {
    // MARK: Assigning a managed property outside a write

    @Test func testAssigningAManagedPropertyOutsideAWriteTraps() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "trap-outside-write"))
            let node = ObjectSuiteModels.RTNode(value: ["name": "n"])
            try realm.write { try realm.add(node) }
            node.weight = 1
        }
        #expect(standardError(of: result).contains("outside of a write transaction"), "\(standardError(of: result))")
    }

    @Test func testAssigningAManagedPropertyInsideAWriteExitsCleanly() async throws {
        await #expect(processExitsWith: .success) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "trap-inside-write"))
            let node = ObjectSuiteModels.RTNode(value: ["name": "n"])
            try realm.write { try realm.add(node) }
            try realm.write { node.weight = 1 }
            guard node.weight == 1 else { exit(3) }
        }
    }

    @Test func testChangingAManagedListOutsideAWriteTraps() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "trap-list-outside-write"))
            let node = ObjectSuiteModels.RTNode(value: ["name": "n"])
            try realm.write { try realm.add(node) }
            node.children.append(ObjectSuiteModels.RTNode(value: ["name": "child"]))
        }
        #expect(standardError(of: result).contains("outside of a write transaction"), "\(standardError(of: result))")
    }

    @Test func testSetValueForKeyOnAManagedObjectOutsideAWriteTraps() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "trap-kvc-outside-write"))
            let node = ObjectSuiteModels.RTNode(value: ["name": "n"])
            try realm.write { try realm.add(node) }
            node.setValue(3, forKey: "weight")
        }
        #expect(standardError(of: result).contains("outside of a write transaction"), "\(standardError(of: result))")
    }

    // MARK: Reading a deleted object

    @Test func testReadingADeletedObjectsPropertyTraps() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "trap-read-deleted"))
            let node = ObjectSuiteModels.RTNode(value: ["name": "n", "weight": 4])
            try realm.write { try realm.add(node) }
            try realm.write { try realm.delete(node) }
            print(node.weight)
        }
        let message = standardError(of: result)
        #expect(message.contains("deleted or invalidated"), "\(message)")
        #expect(message.contains("RTNode"), "\(message)")
    }

    @Test func testReadingAnObjectDeletedInTheSameWriteTraps() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "trap-read-deleted-in-write"))
            let node = ObjectSuiteModels.RTNode(value: ["name": "n", "weight": 4])
            try realm.write { try realm.add(node) }
            try realm.write {
                try realm.delete(node)
                print(node.name)
            }
        }
        #expect(standardError(of: result).contains("deleted or invalidated"), "\(standardError(of: result))")
    }

    @Test func testReadingAnObjectBeforeItsDeletionAndCheckingIsInvalidatedAfterExitsCleanly() async throws {
        await #expect(processExitsWith: .success) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "trap-read-before-delete"))
            let node = ObjectSuiteModels.RTNode(value: ["name": "n", "weight": 4])
            try realm.write { try realm.add(node) }
            guard node.weight == 4 else { exit(3) }
            try realm.write { try realm.delete(node) }
            guard node.isInvalidated else { exit(4) }
        }
    }

    // MARK: Modifying a frozen object

    @Test func testModifyingAFrozenObjectTraps() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "trap-modify-frozen"))
            let node = ObjectSuiteModels.RTNode(value: ["name": "n"])
            try realm.write { try realm.add(node) }
            let frozen = try node.freeze().frozenObject
            try realm.write { frozen.weight = 2 }
        }
        #expect(standardError(of: result).contains("Cannot modify a frozen object"), "\(standardError(of: result))")
    }

    @Test func testModifyingAFrozenObjectsListTraps() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "trap-modify-frozen-list"))
            let node = ObjectSuiteModels.RTNode(value: ["name": "n"])
            try realm.write { try realm.add(node) }
            let frozen = try node.freeze()
            try realm.write { frozen.children.append(ObjectSuiteModels.RTNode(value: ["name": "child"])) }
        }
        #expect(standardError(of: result).contains("frozen"), "\(standardError(of: result))")
    }

    @Test func testModifyingTheThawedObjectOfAFrozenOneExitsCleanly() async throws {
        await #expect(processExitsWith: .success) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "trap-modify-thawed"))
            let node = ObjectSuiteModels.RTNode(value: ["name": "n"])
            try realm.write { try realm.add(node) }
            let frozen = try node.freeze()
            guard let thawed = realm.thaw(frozen) else { exit(3) }
            try realm.write { thawed.weight = 2 }
            guard node.weight == 2, frozen.weight == 0 else { exit(4) }
        }
    }

    // MARK: Looking up by primary key wrongly

    @Test func testLookingUpAClassWithoutPrimaryKeyByKeyTraps() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "trap-lookup-no-pk"))
            try realm.write { try realm.add(ObjectSuiteModels.RTNote(value: ["text": "n"])) }
            _ = realm.object(ofType: ObjectSuiteModels.RTNote.self, forPrimaryKey: 1)
        }
        #expect(standardError(of: result).contains("RTNote has no primary key"), "\(standardError(of: result))")
    }

    @Test func testLookingUpByAKeyOfTheWrongTypeTraps() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "trap-lookup-wrong-type"))
            try realm.write { try realm.add(ObjectSuiteModels.RTNode(value: ["name": "n"])) }
            _ = realm.object(ofType: ObjectSuiteModels.RTNode.self, forPrimaryKey: 42)
        }
        let message = standardError(of: result)
        #expect(message.contains("'name'") && message.contains("RTNode") && message.contains("42"), "\(message)")
    }
}
