import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// The models of `DynamicSmokeTests`, stored under the names they had before they were namespaced.
enum DynamicSmokeModels {
    final class Toy: Object {
        override class func _realmObjectName() -> String? { "DynSmokeToy" }
        @Persisted var name = ""
    }

    final class Address: EmbeddedObject {
        override class func _realmObjectName() -> String? { "DynSmokeAddress" }
        @Persisted var city = ""
    }

    final class Dog: Object {
        override class func _realmObjectName() -> String? { "DynSmokeDog" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var weight: Double?
        @Persisted var toy: DynamicSmokeModels.Toy?
        @Persisted var toys: List<DynamicSmokeModels.Toy>
        @Persisted var tags: List<String>
        @Persisted var scores: MutableSet<Int>
        @Persisted var notes: Map<String, String?>
        @Persisted var address: DynamicSmokeModels.Address?
        @Persisted var anything: AnyRealmValue
    }
}

@Suite(.temporaryDirectory) struct DynamicSmokeTests {
    @Test func typedWritesReadDynamically() throws {
        let configuration = temporaryConfiguration()
        let realm = try Realm(configuration: configuration)
        try realm.write {
            let dog = DynamicSmokeModels.Dog()
            dog.id = 1
            dog.name = "Rex"
            dog.weight = 12.5
            dog.toy = DynamicSmokeModels.Toy(value: ["name": "ball"])
            dog.toys.append(DynamicSmokeModels.Toy(value: ["name": "rope"]))
            dog.tags.append(objectsIn: ["a", "b"])
            dog.scores.insert(7)
            dog.notes["x"] = "y"
            dog.address = DynamicSmokeModels.Address(value: ["city": "Oslo"])
            dog.anything = .int(5)
            try realm.add(dog)
        }
        let dogs = realm.dynamicObjects("DynSmokeDog")
        #expect(dogs.count == 1)
        let dog = try #require(dogs.first)
        #expect(dog["name"] as? String == "Rex")
        #expect(dog.weight as? Double == 12.5)
        #expect((dog["toy"] as? DynamicObject)?["name"] as? String == "ball")
        let toys = try #require(dog["toys"] as? List<DynamicObject>)
        #expect(toys.map { $0["name"] as? String } == ["rope"])
        #expect((dog["tags"] as? List<String>).map(Array.init) == ["a", "b"])
        #expect((dog["scores"] as? MutableSet<Int>)?.contains(7) == true)
        #expect((dog["notes"] as? Map<String, String?>)?["x"] == .some("y"))
        #expect((dog["address"] as? DynamicObject)?["city"] as? String == "Oslo")
        #expect(dog["anything"] as? Int == 5)
        #expect(realm.dynamicObject(ofType: "DynSmokeDog", forPrimaryKey: 1)?["name"] as? String == "Rex")
        #expect(try dogs.filter("name == 'Rex'").count == 1)
        #expect(try dogs.filter("toy.name == 'ball'").count == 1)
        #expect(dogs.sorted(byKeyPath: "name").first?["id"] as? Int == 1)
    }

    @Test func dynamicWritesReadTyped() throws {
        let configuration = temporaryConfiguration()
        let realm = try Realm(configuration: configuration)
        try realm.write { try realm.add(DynamicSmokeModels.Dog(value: ["id": 9])) }
        try realm.write {
            let dog = try realm.dynamicCreate(
                "DynSmokeDog",
                value: [
                    "id": 2, "name": "Fido", "toy": ["name": "stick"], "toys": [["name": "a"], ["name": "b"]],
                    "tags": ["t"], "address": ["city": "Rome"], "notes": ["k": "v"],
                ])
            dog["weight"] = 3.0
            dog.anything = "text"
        }
        let dog = try #require(realm.object(ofType: DynamicSmokeModels.Dog.self, forPrimaryKey: 2))
        #expect(dog.name == "Fido")
        #expect(dog.weight == 3.0)
        #expect(dog.toy?.name == "stick")
        #expect(dog.toys.map(\.name) == ["a", "b"])
        #expect(Array(dog.tags) == ["t"])
        #expect(dog.address?.city == "Rome")
        #expect(dog.notes["k"] == .some("v"))
        #expect(dog.anything == .string("text"))
        #expect(realm.objects(DynamicSmokeModels.Toy.self).count == 3)
        try realm.write {
            try realm.dynamicCreate("DynSmokeDog", value: ["id": 2, "name": "Fido II"], update: .modified)
        }
        #expect(dog.name == "Fido II")
        #expect(dog.weight == 3.0)
        #expect(throws: RealmError.self) {
            try realm.write { try realm.dynamicCreate("DynSmokeDog", value: ["id": 3, "name": 5]) }
        }
        #expect(realm.objects(DynamicSmokeModels.Dog.self).count == 2)
    }
}

@Suite(.temporaryDirectory) struct AnyRealmValueDynamicObjectTests {
    @Test func anObjectInAnAnyRealmValueReadsAsADynamicObject() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        try realm.write {
            let toy = DynamicSmokeModels.Toy(value: ["name": "ball"])
            try realm.add(DynamicSmokeModels.Dog(value: ["id": 1, "anything": AnyRealmValue.object(toy)]))
            try realm.add(DynamicSmokeModels.Dog(value: ["id": 2, "anything": AnyRealmValue.int(3)]))
        }
        let dog = try #require(realm.object(ofType: DynamicSmokeModels.Dog.self, forPrimaryKey: 1))
        let dynamic = try #require(dog.anything.dynamicObject)
        #expect(dynamic["name"] as? String == "ball" && dynamic.objectSchema.className == "DynSmokeToy")
        #expect(dynamic.objectKeyIdentity == dog.anything.objectValue?.objectKeyIdentity, "the same row")
        #expect(realm.object(ofType: DynamicSmokeModels.Dog.self, forPrimaryKey: 2)?.anything.dynamicObject == nil)
        #expect(AnyRealmValue.object(DynamicSmokeModels.Toy()).dynamicObject == nil, "an unmanaged object has no stored class to read by")
        let frozen = try dog.freeze()
        #expect(frozen.frozenObject.anything.dynamicObject?["name"] as? String == "ball")
    }
}

@Suite(.temporaryDirectory) struct DynamicResultsSetValueTests {
    @Test func dynamicResultsSetAPropertyOnEveryObject() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        try realm.write {
            for id in 1...3 { try realm.add(DynamicSmokeModels.Dog(value: ["id": id, "name": "d\(id)"])) }
        }
        let dogs = realm.dynamicObjects("DynSmokeDog")
        try realm.write {
            dogs.setValue("same", forKey: "name")
            dogs.setValue(2.5, forKey: "weight")
        }
        #expect(realm.objects(DynamicSmokeModels.Dog.self).map(\.name) == ["same", "same", "same"])
        #expect(realm.objects(DynamicSmokeModels.Dog.self).map(\.weight) == [2.5, 2.5, 2.5])
        #expect(throws: RealmError.self, "a wrong value fails the write") {
            try realm.write { dogs.setValue("heavy", forKey: "weight") }
        }
        #expect(realm.objects(DynamicSmokeModels.Dog.self).map(\.weight) == [2.5, 2.5, 2.5])
    }
}
