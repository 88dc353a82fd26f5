import BurrowStore
import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// Object keys derived from primary keys (`ObjectKey(derivedFrom:)`): lookups, uniqueness, and
/// the objects whose derived key another object holds.
@Suite(.temporaryDirectory) struct PrimaryKeyTests {
    private func key(_ object: ObjectBase) -> ObjectKey { object._state!.key }

    /// `count` ids that all derive the same object key: the same second and counter, with
    /// random middles that fold to the same byte.
    static func collidingIds(_ count: Int) -> [ObjectId] {
        var byDerived: [ObjectKey: [ObjectId]] = [:]
        for a in 0..<256 {
            for b in 0..<8 {
                let hex = "65a1b2c3" + String(format: "%02x%02x000000", a, b) + "00002a"
                let id = try! ObjectId(string: hex)
                byDerived[ObjectKey(derivedFrom: StoreValue.objectId(id)), default: []].append(id)
                if let ids = byDerived[ObjectKey(derivedFrom: StoreValue.objectId(id))], ids.count == count { return ids }
            }
        }
        preconditionFailure("no \(count) colliding ids")
    }

    @Test func objectsWhoseDerivedKeysCollideAreAllFoundAndStayUnique() throws {
        let ids = Self.collidingIds(3)
        #expect(Set(ids).count == 3)
        let config = temporaryConfiguration()
        do {
            let realm = try Realm(configuration: config)
            let objects = ids.enumerated().map { ObjectSuiteModels.RTObjectIdKey(value: ["id": $0.element, "value": $0.offset]) }
            try realm.write { try realm.add(objects) }
            #expect(key(objects[0]) == ObjectKey(derivedFrom: StoreValue.objectId(ids[0])), "the first takes the derived key")
            #expect(Set(objects.map(key)).count == 3, "the others get keys of their own")
            for (value, id) in ids.enumerated() {
                #expect(realm.object(ofType: ObjectSuiteModels.RTObjectIdKey.self, forPrimaryKey: id)?.value == value)
            }
            // Each is still unique: adding any of them again fails and changes nothing.
            for id in ids {
                do {
                    try realm.write { try realm.add(ObjectSuiteModels.RTObjectIdKey(value: ["id": id, "value": 99])) }
                    Issue.record("a duplicate primary key was added")
                } catch let error as RealmError {
                    #expect(error.code == .primaryKeyExists)
                }
            }
            #expect(realm.objects(ObjectSuiteModels.RTObjectIdKey.self).count == 3)
            // Updating by primary key finds the object behind a collision.
            try realm.write { _ = try realm.create(ObjectSuiteModels.RTObjectIdKey.self, value: ["id": ids[2], "value": 20], update: .modified) }
            #expect(realm.object(ofType: ObjectSuiteModels.RTObjectIdKey.self, forPrimaryKey: ids[2])?.value == 20)
            #expect(realm.objects(ObjectSuiteModels.RTObjectIdKey.self).count == 3)
            // Deleting the holder of the derived key leaves the others reachable.
            try realm.write { try realm.delete(objects[0]) }
            #expect(realm.object(ofType: ObjectSuiteModels.RTObjectIdKey.self, forPrimaryKey: ids[0]) == nil)
            #expect(realm.object(ofType: ObjectSuiteModels.RTObjectIdKey.self, forPrimaryKey: ids[1])?.value == 1)
            #expect(realm.object(ofType: ObjectSuiteModels.RTObjectIdKey.self, forPrimaryKey: ids[2])?.value == 20)
            // An object whose primary key has a mapped key elsewhere is not added twice when the
            // derived key is free again.
            do {
                try realm.write { try realm.add(ObjectSuiteModels.RTObjectIdKey(value: ["id": ids[1], "value": 77])) }
                Issue.record("a duplicate primary key was added")
            } catch let error as RealmError {
                #expect(error.code == .primaryKeyExists)
            }
            try realm.write { try realm.add(ObjectSuiteModels.RTObjectIdKey(value: ["id": ids[0], "value": 10])) }
            try realm.write { try realm.delete(realm.object(ofType: ObjectSuiteModels.RTObjectIdKey.self, forPrimaryKey: ids[1])!) }
            _ = try realm.storage.snapshot().verify()
            let objectFindings = try ObjectVerifier.verify(realm.storage.snapshot()).findings.map(\.description)
            #expect(objectFindings == [])
        }
        let realm = try Realm(configuration: config)
        #expect(realm.object(ofType: ObjectSuiteModels.RTObjectIdKey.self, forPrimaryKey: ids[0])?.value == 10)
        #expect(realm.object(ofType: ObjectSuiteModels.RTObjectIdKey.self, forPrimaryKey: ids[1]) == nil)
        #expect(realm.object(ofType: ObjectSuiteModels.RTObjectIdKey.self, forPrimaryKey: ids[2])?.value == 20)
        #expect(realm.objects(ObjectSuiteModels.RTObjectIdKey.self).count == 2)
        let frozen = try realm.freeze()
        #expect(frozen.object(ofType: ObjectSuiteModels.RTObjectIdKey.self, forPrimaryKey: ids[2])?.value == 20)
    }

    @Test func everyPrimaryKeyTypeIsFoundAfterReopening() throws {
        let config = temporaryConfiguration()
        let ints = [0, 1, -1, Int.max, Int.min, 42]
        let strings = ["", "a", "ünïcødé", String(repeating: "long ", count: 400)]
        let uuids = (0..<5).map { _ in UUID() }
        let objectIds = (0..<5).map { _ in ObjectId.generate() }
        let optionals: [Int?] = [nil, 0, 7]
        do {
            let realm = try Realm(configuration: config)
            try realm.write {
                for (i, id) in ints.enumerated() { try realm.add(ObjectSuiteModels.RTIntKey(value: ["id": id, "value": "\(i)"])) }
                for (i, id) in strings.enumerated() { try realm.add(ObjectSuiteModels.RTStringKey(value: ["id": id, "value": i])) }
                for (i, id) in uuids.enumerated() { try realm.add(ObjectSuiteModels.RTUUIDKey(value: ["id": id, "value": i])) }
                for (i, id) in objectIds.enumerated() { try realm.add(ObjectSuiteModels.RTObjectIdKey(value: ["id": id, "value": i])) }
                for (i, id) in optionals.enumerated() { try realm.add(ObjectSuiteModels.RTOptionalKey(value: ["id": id as Any, "value": i])) }
            }
        }
        let realm = try Realm(configuration: config)
        for (i, id) in ints.enumerated() { #expect(realm.object(ofType: ObjectSuiteModels.RTIntKey.self, forPrimaryKey: id)?.value == "\(i)") }
        for (i, id) in strings.enumerated() { #expect(realm.object(ofType: ObjectSuiteModels.RTStringKey.self, forPrimaryKey: id)?.value == i) }
        for (i, id) in uuids.enumerated() { #expect(realm.object(ofType: ObjectSuiteModels.RTUUIDKey.self, forPrimaryKey: id)?.value == i) }
        for (i, id) in objectIds.enumerated() { #expect(realm.object(ofType: ObjectSuiteModels.RTObjectIdKey.self, forPrimaryKey: id)?.value == i) }
        for (i, id) in optionals.enumerated() { #expect(realm.object(ofType: ObjectSuiteModels.RTOptionalKey.self, forPrimaryKey: id)?.value == i) }
        #expect(realm.object(ofType: ObjectSuiteModels.RTIntKey.self, forPrimaryKey: 5) == nil)
        #expect(realm.object(ofType: ObjectSuiteModels.RTStringKey.self, forPrimaryKey: "b") == nil)
        #expect(realm.object(ofType: ObjectSuiteModels.RTUUIDKey.self, forPrimaryKey: UUID()) == nil)
        #expect(realm.object(ofType: ObjectSuiteModels.RTObjectIdKey.self, forPrimaryKey: ObjectId.generate()) == nil)
        #expect(realm.object(ofType: ObjectSuiteModels.RTOptionalKey.self, forPrimaryKey: 8) == nil)
        for id in ints {
            do {
                try realm.write { try realm.add(ObjectSuiteModels.RTIntKey(value: ["id": id])) }
                Issue.record("a duplicate primary key \(id) was added")
            } catch let error as RealmError {
                #expect(error.code == .primaryKeyExists)
            }
        }
        #expect(realm.objects(ObjectSuiteModels.RTIntKey.self).count == ints.count)
    }

    @Test func integerPrimaryKeysListInKeyOrder() throws {
        let realm = try Realm(configuration: temporaryInMemoryConfiguration())
        try realm.write {
            for id in [3, -1, 2, Int.min, 0] { try realm.add(ObjectSuiteModels.RTIntKey(value: ["id": id])) }
        }
        #expect(realm.objects(ObjectSuiteModels.RTIntKey.self).map(\.id) == [Int.min, -1, 0, 2, 3])
    }

    @Test func anObjectAddedAgainWithADeletedPrimaryKeyIsWhatOldReferencesReach() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        let first = ObjectSuiteModels.RTIntKey(value: ["id": 1, "value": "first"])
        try realm.write { try realm.add(first) }
        let frozen = try first.freeze()
        try realm.write { try realm.delete(first) }
        #expect(first.isInvalidated)
        #expect(realm.thaw(frozen) == nil)
        try realm.write { try realm.add(ObjectSuiteModels.RTIntKey(value: ["id": 1, "value": "second"])) }
        #expect(!first.isInvalidated, "the key names the object with that primary key")
        #expect(first.value == "second")
        #expect(realm.thaw(frozen)?.value == "second")
        #expect(frozen.value == "first", "a frozen value still reads its own version")
    }

    /// Random adds, upserts, deletes and lookups over a small pool of primary keys (with
    /// colliding derived keys among them), checked against a dictionary after every write.
    @Test func randomOperationsMatchADictionary() throws {
        let seed = TestSeed.make("PrimaryKeyTests.randomOperationsMatchADictionary")
        var random = TestRandom(seed: seed)
        let operations = TestEnvironment.count("BURROW_MODEL_OPS", default: 400)
        let pool = Self.collidingIds(4) + (0..<12).map { _ in ObjectId.generate() }
        let config = temporaryConfiguration()
        var model: [ObjectId: Int] = [:]
        var realm: Realm? = try Realm(configuration: config)
        for step in 0..<operations {
            let id = pool[random.next(upperBound: pool.count)]
            let value = step
            let live = realm!
            switch random.next(upperBound: 10) {
            case 0..<4:
                do {
                    try live.write { try live.add(ObjectSuiteModels.RTObjectIdKey(value: ["id": id, "value": value])) }
                    #expect(model[id] == nil, "added a duplicate at step \(step)")
                    model[id] = value
                } catch let error as RealmError {
                    #expect(error.code == .primaryKeyExists && model[id] != nil, "step \(step): \(error)")
                }
            case 4..<6:
                try live.write { try live.add(ObjectSuiteModels.RTObjectIdKey(value: ["id": id, "value": value]), update: .modified) }
                model[id] = value
            case 6..<8:
                if let object = live.object(ofType: ObjectSuiteModels.RTObjectIdKey.self, forPrimaryKey: id) {
                    try live.write { try live.delete(object) }
                }
                model[id] = nil
            case 8:
                realm = nil
                realm = try Realm(configuration: config)
            default:
                break
            }
            let current = realm!
            #expect(current.object(ofType: ObjectSuiteModels.RTObjectIdKey.self, forPrimaryKey: id)?.value == model[id], "step \(step)")
            #expect(current.objects(ObjectSuiteModels.RTObjectIdKey.self).count == model.count, "step \(step)")
        }
        let final = realm!
        for id in pool { #expect(final.object(ofType: ObjectSuiteModels.RTObjectIdKey.self, forPrimaryKey: id)?.value == model[id]) }
        #expect(Dictionary(uniqueKeysWithValues: final.objects(ObjectSuiteModels.RTObjectIdKey.self).map { ($0.id, $0.value) }) == model)
        _ = try final.storage.snapshot().verify()
        let objectFindings = try ObjectVerifier.verify(final.storage.snapshot()).findings.map(\.description)
        #expect(objectFindings == [])
    }
}
