import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// `Object.isSameObject(as:)` compares stored objects, as RealmSwift does, and `ObjectId("…")`
/// takes an id written in code, trapping on one that is not an ObjectId.
@Suite(.temporaryDirectory) struct ObjectIdentityTests {
    private func configuration() -> Realm.Configuration {
        var config = temporaryConfiguration()
        config.objectTypes = [RealmCollectionModels.RCDog.self, RealmCollectionModels.RCOwner.self, RealmCollectionModels.RCKennel.self]
        return config
    }

    @Test func testTwoReadsOfOneRowAreTheSameObject() throws {
        let realm = try Realm(configuration: configuration())
        let fido = RealmCollectionModels.RCDog(value: ["name": "Fido"])
        let rex = RealmCollectionModels.RCDog(value: ["name": "Rex"])
        try realm.write {
            try realm.add(fido)
            try realm.add(rex)
        }
        let read = realm.objects(RealmCollectionModels.RCDog.self).first!
        #expect(read !== fido)
        #expect(read.isSameObject(as: fido))
        #expect(fido.isSameObject(as: read))
        #expect(!read.isSameObject(as: rex))
        #expect(!read.isSameObject(as: nil))
    }

    @Test func testUnmanagedObjectsAreOnlyThemselves() {
        let a = RealmCollectionModels.RCDog(value: ["name": "Twin"])
        let b = RealmCollectionModels.RCDog(value: ["name": "Twin"])
        #expect(a.isSameObject(as: a))
        #expect(!a.isSameObject(as: b))
    }

    @Test func testObjectsOfAnotherFileOrKindOfRealmAreNotTheSame() throws {
        let realm = try Realm(configuration: configuration())
        let other = try Realm(configuration: configuration())
        try realm.write { try realm.add(RealmCollectionModels.RCDog(value: ["name": "Here"])) }
        try other.write { try other.add(RealmCollectionModels.RCDog(value: ["name": "There"])) }
        let here = realm.objects(RealmCollectionModels.RCDog.self)[0]
        let there = other.objects(RealmCollectionModels.RCDog.self)[0]
        // Same class and object key, other file.
        #expect(!here.isSameObject(as: there))
        // A live object and a frozen one of its row are not the same; two frozen of one version are.
        let frozenRealm = try realm.freeze()
        let frozen = frozenRealm.objects(RealmCollectionModels.RCDog.self)[0]
        #expect(!here.isSameObject(as: frozen))
        #expect(frozen.isSameObject(as: frozenRealm.objects(RealmCollectionModels.RCDog.self)[0]))
        try realm.write { try realm.add(RealmCollectionModels.RCDog(value: ["name": "Later"])) }
        let laterFrozen = try realm.freeze().objects(RealmCollectionModels.RCDog.self)[0]
        #expect(!frozen.isSameObject(as: laterFrozen))
    }

    @Test func testADeletedObjectIsNoLongerTheSame() throws {
        let realm = try Realm(configuration: configuration())
        let dog = RealmCollectionModels.RCDog(value: ["name": "Gone"])
        try realm.write { try realm.add(dog) }
        let read = realm.objects(RealmCollectionModels.RCDog.self)[0]
        try realm.write { try realm.delete(dog) }
        #expect(!read.isSameObject(as: dog))
        #expect(dog.isSameObject(as: dog))
    }

    @Test func testObjectIdFromALiteral() throws {
        let literal = ObjectId("6154e59c5e31b1a2c3d4e5f6")
        #expect(literal == (try ObjectId(string: "6154e59c5e31b1a2c3d4e5f6")))
        #expect(ObjectId("6154E59C5E31B1A2C3D4E5F6") == literal)
        #expect(ObjectId("000000000000000000000001") < ObjectId("000000000000000000000002"))
    }

    @Test func testAnInvalidObjectIdLiteralTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let id = ObjectId("6154e59c5e31b1a2c3d4e5fz")
            print(id)
        }
        let message = standardError(of: result)
        #expect(message.contains("Invalid ObjectId literal") && message.contains("character 24"), "\(message)")
    }

    @Test func testAValidObjectIdLiteralExitsCleanly() async {
        await #expect(processExitsWith: .success) {
            let id = ObjectId("6154e59c5e31b1a2c3d4e5f6")
            guard id.stringValue == "6154e59c5e31b1a2c3d4e5f6" else { exit(3) }
        }
    }
}
