import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

@Suite(.temporaryDirectory) struct RealmWriteTests {
    @Test func testAddedObjectsAreReadBackAfterReopen() throws {
        let config = temporaryConfiguration()
        let id: ObjectId
        do {
            let realm = try Realm(configuration: config)
            let dog = CommonModels.Dog(value: ["name": "Rex", "age": 3, "color": "brown"])
            id = dog._id
            try realm.write {
                try realm.add(dog)
                dog.favoriteToy = CommonModels.DogToy(value: ["name": "Wubba"])
                dog.companion = .string("cat")
            }
            #expect(dog.realm === realm)
            #expect(realm.objects(CommonModels.Dog.self).count == 1)
            #expect(realm.objects(CommonModels.DogToy.self).count == 1)
        }
        let realm = try Realm(configuration: config)
        let dog = try #require(realm.object(ofType: CommonModels.Dog.self, forPrimaryKey: id))
        #expect(dog.name == "Rex")
        #expect(dog.age == 3)
        #expect(dog.color == "brown")
        #expect(dog.favoriteToy?.name == "Wubba")
        #expect(dog.companion == .string("cat"))
    }

    @Test func testEveryScalarTypeRoundTrips() throws {
        let config = temporaryConfiguration()
        let date = Date(timeIntervalSince1970: 1_700_000_000.25)
        let oid = ObjectId.generate()
        let uuid = UUID()
        do {
            let realm = try Realm(configuration: config)
            try realm.write {
                let o = ObjectSuiteModels.RTEverything()
                o.id = "k"
                o.bool = true
                o.int = -5
                o.int8 = -8
                o.int16 = 16
                o.int32 = -32
                o.int64 = .max
                o.float = 1.5
                o.double = -2.25
                o.string = "héllo"
                o.data = Data([0, 1, 2, 255])
                o.date = date
                o.objectId = oid
                o.uuid = uuid
                o.decimal = Decimal128(12345)
                o.mood = .wild
                o.optInt = 7
                o.optString = nil
                o.optDate = date
                o.ints.append(objectsIn: [3, 1, 2])
                o.any = .int(42)
                try realm.add(o)
            }
        }
        let realm = try Realm(configuration: config)
        let o = try #require(realm.object(ofType: ObjectSuiteModels.RTEverything.self, forPrimaryKey: "k"))
        #expect(o.bool == true)
        #expect(o.int == -5)
        #expect(o.int8 == -8)
        #expect(o.int16 == 16)
        #expect(o.int32 == -32)
        #expect(o.int64 == .max)
        #expect(o.float == 1.5)
        #expect(o.double == -2.25)
        #expect(o.string == "héllo")
        #expect(o.data == Data([0, 1, 2, 255]))
        #expect(o.date == date)
        #expect(o.objectId == oid)
        #expect(o.uuid == uuid)
        #expect(o.decimal == Decimal128(12345))
        #expect(o.mood == .wild)
        #expect(o.optInt == 7)
        #expect(o.optString == nil)
        #expect(o.optDate == date)
        #expect(Array(o.ints) == [3, 1, 2])
        #expect(o.any == .int(42))
    }

    @Test func testDuplicatePrimaryKeyThrowsAndUpsertUpdates() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        try realm.write {
            try realm.add(CommonModels.Person(value: ["id": 1234, "name": "Jones"]), update: .modified)
            try realm.add(CommonModels.Person(value: ["id": 1234, "name": "Bowie"]), update: .modified)
        }
        #expect(realm.objects(CommonModels.Person.self).count == 1)
        #expect(realm.object(ofType: CommonModels.Person.self, forPrimaryKey: 1234)?.name == "Bowie")
        let error = #expect(throws: RealmError.self) {
            try realm.write { try realm.add(CommonModels.Person(value: ["id": 1234, "name": "Again"])) }
        }
        #expect(error?.code == .primaryKeyExists)
        #expect(realm.object(ofType: CommonModels.Person.self, forPrimaryKey: 1234)?.name == "Bowie")
    }

    @Test func testPartialUpdateByPrimaryKeyKeepsOtherProperties() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        try realm.write {
            try realm.add(CommonModels.Person(value: ["id": 123, "name": "Ali"]))
            try realm.create(CommonModels.Person.self, value: ["id": 123, "dogs": [["name": "Buster", "age": 5]]], update: .modified)
        }
        let person = try #require(realm.object(ofType: CommonModels.Person.self, forPrimaryKey: 123))
        #expect(person.name == "Ali")
        #expect(person.dogs.count == 1)
        #expect(person.dogs[0].name == "Buster")
        #expect(person.dogs[0].owners.count == 1)
    }

    @Test func testThrowingWriteLeavesNoTraceAndUnmanagesAddedObjects() throws {
        struct Stop: Error {}
        let realm = try Realm(configuration: temporaryConfiguration())
        let dog = CommonModels.Dog(value: ["name": "Rex"])
        #expect(throws: Stop.self) {
            try realm.write {
                try realm.add(dog)
                dog.age = 9
                throw Stop()
            }
        }
        #expect(dog.realm == nil)
        #expect(dog.name == "Rex")
        #expect(realm.objects(CommonModels.Dog.self).count == 0)
        #expect(!realm.isInWriteTransaction)
    }

    @Test func testDeleteNullsLinksAndRemovesFromLists() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        let person = CommonModels.Person(value: ["id": 1, "name": "Ali", "dogs": [["name": "A"], ["name": "B"]]])
        try realm.write { try realm.add(person) }
        let a = person.dogs[0]
        try realm.write { try realm.delete(a) }
        #expect(a.isInvalidated)
        #expect(person.dogs.count == 1)
        #expect(person.dogs[0].name == "B")
        #expect(realm.objects(CommonModels.Dog.self).count == 1)
    }

    @Test func testEmbeddedObjectsGoWithTheirParent() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        let person = CommonModels.Person(value: ["id": 1, "address": ["street": "1 Main", "city": "Anytown"]])
        try realm.write { try realm.add(person) }
        #expect(person.address?.city == "Anytown")
        try realm.write { person.address?.city = "Othertown" }
        #expect(person.address?.city == "Othertown")
        #expect(realm.objects(CommonModels.Address.self).count == 1)
        try realm.write {
            let replacement = CommonModels.Address()
            replacement.street = "789 Any Street"
            person.address = replacement
        }
        #expect(realm.objects(CommonModels.Address.self).count == 1)
        #expect(person.address?.street == "789 Any Street")
        try realm.write { try realm.delete(person) }
        #expect(realm.objects(CommonModels.Address.self).count == 0)
    }

    @Test func testMisusesThrowActionableErrors() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        #expect(throws: RealmError.self) { try realm.commitWrite() }
        #expect(throws: RealmError.self) { try realm.cancelWrite() }
        #expect(throws: RealmError.self) { try realm.add(CommonModels.Dog()) }
        try realm.beginWrite()
        #expect(throws: RealmError.self) { try realm.beginWrite() }
        #expect(throws: RealmError.self) { try realm.add(CommonModels.DogToy(), update: .modified) }
        #expect(throws: RealmError.self) { try realm.create(CommonModels.Dog.self, value: ["nonsense": 1]) }
        #expect(throws: RealmError.self) { try realm.create(CommonModels.Dog.self, value: ["age": "old"]) }
        try realm.cancelWrite()
        let bad = CommonModels.Dog(value: ["age": "old"])
        let error = #expect(throws: RealmError.self) { try realm.write { try realm.add(bad) } }
        #expect(error?.description.contains("age") == true)
    }

    @Test func testObjectFromAnotherRealmMustBeCopiedWithCreate() throws {
        let first = try Realm(configuration: temporaryConfiguration())
        let second = try Realm(configuration: temporaryConfiguration())
        let toy = CommonModels.DogToy(value: ["name": "Wubba"])
        try first.write { try first.add(toy) }
        let error = #expect(throws: RealmError.self) { try second.write { try second.add(toy) } }
        #expect(error?.description.contains("Use create") == true)
        let copy = try second.write { try second.create(CommonModels.DogToy.self, value: toy) }
        #expect(copy.name == "Wubba")
        #expect(copy.realm === second)
    }

    @Test func testKeyValueCodingUpdatesInBulk() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        try realm.write {
            for name in ["A", "B", "C"] { try realm.add(CommonModels.Dog(value: ["name": name, "currentCity": "Paris"])) }
        }
        try realm.write {
            realm.objects(CommonModels.Dog.self).first?.setValue("Sparky", forKey: "name")
            realm.objects(CommonModels.Dog.self).setValue("Toronto", forKey: "currentCity")
        }
        #expect(realm.objects(CommonModels.Dog.self).allSatisfy { $0.currentCity == "Toronto" })
        #expect(realm.objects(CommonModels.Dog.self).first?.name == "Sparky")
        #expect(realm.objects(CommonModels.Dog.self).first?["age"] as? Int == 0)
    }

    @Test func testFrozenObjectsAreReadableFromOtherTasks() async throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        let dog = CommonModels.Dog(value: ["name": "Wolfie", "age": 2])
        try realm.write { try realm.add(dog) }
        let frozen = try dog.freeze()
        try realm.write { dog.age = 3 }
        let age = await Task.detached { frozen.age }.value
        #expect(age == 2)
        #expect(realm.thaw(frozen)?.age == 3)
        let results = try realm.objects(CommonModels.Dog.self).freeze()
        let names = await Task.detached { results.map(\.name) }.value
        #expect(names == ["Wolfie"])
    }

    @Test func testRealmActorWritesAndReturnsFrozenValues() async throws {
        let db = try await RealmActor(configuration: temporaryConfiguration())
        try await db.asyncWrite { realm in
            try realm.add(CommonModels.Dog(value: ["name": "Rex", "age": 1]))
        }
        let dogs = try await db.objects(CommonModels.Dog.self)
        #expect(dogs.count == 1)
        let id = try #require(dogs.first)._id
        try await db.asyncWrite { realm in
            guard let dog = realm.object(ofType: CommonModels.Dog.self, forPrimaryKey: id) else { return }
            dog.age += 1
        }
        #expect(try await db.object(ofType: CommonModels.Dog.self, forPrimaryKey: id)?.age == 2)
    }

    // Concurrent increments of one counter from many actors: ConcurrencyStressTests'
    // testConcurrentIncrementsOfOneCounterFromManyActorsLoseNoUpdate.
}

@Suite(.temporaryDirectory) struct RealmWriteCopyTests {
    @Test func testWriteCopyHoldsEveryObject() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        try realm.write {
            for i in 0..<50 { try realm.add(CommonModels.Person(value: ["id": i, "name": "P\(i)", "dogs": [["name": "D\(i)"]]])) }
        }
        let copyURL = temporaryConfiguration().fileURL!
        try realm.writeCopy(toFile: copyURL)
        #expect(throws: RealmError.self) { try realm.writeCopy(toFile: copyURL) }
        let copy = try Realm(configuration: Realm.Configuration(fileURL: copyURL))
        #expect(copy.objects(CommonModels.Person.self).count == 50)
        #expect(copy.object(ofType: CommonModels.Person.self, forPrimaryKey: 7)?.dogs.first?.name == "D7")
        #expect(copy.object(ofType: CommonModels.Person.self, forPrimaryKey: 7)?.dogs.first?.owners.first?.name == "P7")
    }
}

@Suite(.temporaryDirectory) struct ObjectKeyTests {
    private func key(_ object: ObjectBase) -> UInt64 { object._state!.key.rawValue }

    @Test func testObjectKeysAreNeverReused() throws {
        let config = temporaryConfiguration()
        var keys: [UInt64] = []
        do {
            let realm = try Realm(configuration: config)
            let a = CommonModels.DogToy(value: ["name": "a"])
            let b = CommonModels.DogToy(value: ["name": "b"])
            try realm.write { try realm.add([a, b]) }
            keys += [key(a), key(b)]
            try realm.write { try realm.delete(b) }  // the largest key goes
        }
        let realm = try Realm(configuration: config)
        let c = CommonModels.DogToy(value: ["name": "c"])
        try realm.write { try realm.add(c) }
        #expect(key(c) > keys.max()!, "a deleted object's key is not handed out again, even after reopening")
        keys.append(key(c))
        try realm.write { try realm.deleteAll() }
        let d = CommonModels.DogToy(value: ["name": "d"])
        try realm.write { try realm.add(d) }
        #expect(key(d) > keys.max()!, "nor after deleteAll")
        struct Stop: Error {}
        let e = CommonModels.DogToy(value: ["name": "e"])
        #expect(throws: Stop.self) {
            try realm.write {
                try realm.add(e)
                throw Stop()
            }
        }
        let f = CommonModels.DogToy(value: ["name": "f"])
        try realm.write { try realm.add(f) }
        #expect(key(f) > key(d))
    }
}
