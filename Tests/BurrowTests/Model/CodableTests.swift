import Burrow
import BurrowTestTraits
import Foundation
import Testing

// Models declared as a RealmSwift user declares them: `Codable`, with nothing written by hand.
// This file imports Burrow without @testable, so it compiles only against the public API.

enum CodableColor: String, PersistableEnum, Codable {
    case brown, black, white
}

/// The models of `CodableTests`, stored under the names they had before they were namespaced.
enum CodableModels {
    final class Toy: Object, Codable {
        override class func _realmObjectName() -> String? { "CodableToy" }
        @Persisted var name = ""
    }

    final class Address: EmbeddedObject, Codable {
        override class func _realmObjectName() -> String? { "CodableAddress" }
        @Persisted var street = ""
        @Persisted var city: String?
    }

    final class Dog: Object, Codable {
        override class func _realmObjectName() -> String? { "CodableDog" }
        @Persisted(primaryKey: true) var _id: ObjectId
        @Persisted(indexed: true) var name = ""
        @Persisted var age = 0
        @Persisted var color: CodableColor?
        @Persisted var birthday: Date?
        @Persisted var adopted: Date
        @Persisted var photo: Data
        @Persisted var weight: Decimal128
        @Persisted var favoriteToy: CodableModels.Toy?
        @Persisted var toys: List<CodableModels.Toy>
        @Persisted var nicknames: MutableSet<String>
        @Persisted var scores: Map<String, Int?>
        @Persisted var address: CodableModels.Address?
        @Persisted(originProperty: "dogs") var owners: LinkingObjects<CodableModels.Owner>
    }

    final class Owner: Object, Codable {
        override class func _realmObjectName() -> String? { "CodableOwner" }
        @Persisted(primaryKey: true) var name = ""
        @Persisted var dogs: List<CodableModels.Dog>
    }

    /// A model that encodes itself, as the error for managed objects advises: its `encode(to:)`
    /// reads the properties through `self`, so managed and frozen objects encode too.
    final class SelfEncodingDog: Object, Codable {
        @Persisted(primaryKey: true) var name = ""
        @Persisted var age = 0

        private enum CodingKeys: String, CodingKey { case name, age }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(age, forKey: .age)
        }
    }
}

@Suite("Codable models", .temporaryDirectory)
struct CodableTests {
    static let id = try! ObjectId(string: "5f1d7a3e2b4c6d8e9f0a1b2c")

    static let json = """
        {
          "_id": "5f1d7a3e2b4c6d8e9f0a1b2c",
          "name": "Rex",
          "age": 3,
          "color": "brown",
          "birthday": 700000000,
          "weight": "12.5",
          "favoriteToy": { "name": "ball" },
          "toys": [{ "name": "rope" }, { "name": "bone" }],
          "nicknames": ["rexy", "T-Rex"],
          "scores": { "agility": 7, "obedience": null },
          "address": { "street": "1 Main Street", "city": null },
          "owners": [{ "name": "ignored" }]
        }
        """

    @Test func decodingMakesAnUnmanagedObjectWithEveryValue() throws {
        let dog = try JSONDecoder().decode(CodableModels.Dog.self, from: Data(Self.json.utf8))
        #expect(dog.realm == nil)
        #expect(dog._id == Self.id)
        #expect(dog.name == "Rex" && dog.age == 3 && dog.color == .brown)
        #expect(dog.birthday == Date(timeIntervalSinceReferenceDate: 700_000_000))
        #expect(dog.weight == Decimal128(stringLiteral: "12.5"))
        #expect(dog.favoriteToy?.name == "ball")
        #expect(dog.toys.map(\.name) == ["rope", "bone"])
        #expect(Set(dog.nicknames) == ["rexy", "T-Rex"])
        #expect(dog.scores["agility"] == .some(7))
        #expect(dog.scores["obedience"] == .some(nil), "a null value is kept under its key")
        #expect(dog.scores.count == 2)
        #expect(dog.address?.street == "1 Main Street" && dog.address?.city == nil)
        #expect(dog.owners.isEmpty, "linking objects are computed, never decoded")
    }

    @Test func missingOrNullKeysGiveTheTypesDefault() throws {
        let dog = try JSONDecoder().decode(CodableModels.Dog.self, from: Data(#"{"name": "Spot", "color": null}"#.utf8))
        #expect(dog.name == "Spot")
        #expect(dog.age == 0 && dog.color == nil && dog.birthday == nil && dog.favoriteToy == nil)
        #expect(dog.toys.isEmpty && dog.nicknames.isEmpty && dog.scores.count == 0)
        #expect(dog.weight == Decimal128(0))
        let other = try JSONDecoder().decode(CodableModels.Dog.self, from: Data(#"{"name": "Fido"}"#.utf8))
        #expect(dog._id != other._id, "each decoded object without an _id gets a new ObjectId")
    }

    @Test func theCodersStrategiesApplyToDatesAndData() throws {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let json = #"{"name": "Rex", "adopted": "2024-01-01T00:00:00Z", "birthday": "2020-06-01T12:00:00Z", "photo": "AQID"}"#
        let dog = try decoder.decode(CodableModels.Dog.self, from: Data(json.utf8))
        #expect(dog.adopted == Date(timeIntervalSince1970: 1_704_067_200))
        #expect(dog.birthday == Date(timeIntervalSince1970: 1_591_012_800))
        #expect(dog.photo == Data([1, 2, 3]), "data decodes from base64, the decoder's default")
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let text = String(decoding: try encoder.encode(dog), as: UTF8.self)
        #expect(text.contains(#""adopted":"2024-01-01T00:00:00Z""#) && text.contains(#""photo":"AQID""#))
    }

    @Test func aValueOfTheWrongTypeThrowsADecodingError() {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(CodableModels.Dog.self, from: Data(#"{"name": "Rex", "age": "three"}"#.utf8))
        }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(CodableModels.Dog.self, from: Data(#"{"toys": [{"name": 1}]}"#.utf8))
        }
    }

    @Test func decodedObjectsAreAddedAsAnyOther() throws {
        let realm = try Realm(configuration: temporaryInMemoryConfiguration())
        let dog = try JSONDecoder().decode(CodableModels.Dog.self, from: Data(Self.json.utf8))
        let owner = try JSONDecoder().decode(CodableModels.Owner.self, from: Data(#"{"name": "Ali", "dogs": []}"#.utf8))
        try realm.write {
            try realm.add(dog)
            owner.dogs.append(dog)
            try realm.add(owner)
        }
        // The primary key is still the class's primary key: decoding replaced the property's
        // wrapper, not the schema.
        let found = try #require(realm.object(ofType: CodableModels.Dog.self, forPrimaryKey: Self.id))
        #expect(found.name == "Rex" && found.toys.map { $0.name } == ["rope", "bone"] && found.scores["agility"] == .some(7))
        #expect(found.address?.street == "1 Main Street")
        #expect(found.owners.map { $0.name } == ["Ali"])
        #expect(realm.objects(CodableModels.Toy.self).count == 3)
        let duplicate = try JSONDecoder().decode(CodableModels.Dog.self, from: Data(Self.json.utf8))
        #expect(throws: RealmError.self) {
            try realm.write { try realm.add(duplicate) }
        }
    }

    @Test func unmanagedObjectsEncodeAndDecodeToTheSameValues() throws {
        let dog = try JSONDecoder().decode(CodableModels.Dog.self, from: Data(Self.json.utf8))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = try encoder.encode(dog)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["_id"] as? String == "5f1d7a3e2b4c6d8e9f0a1b2c")
        #expect(object["name"] as? String == "Rex")
        #expect((object["toys"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["rope", "bone"])
        #expect((object["scores"] as? [String: Any])?["agility"] as? Int == 7)
        #expect(object["owners"] as? [Any] != nil)
        let again = try JSONDecoder().decode(CodableModels.Dog.self, from: data)
        #expect(again._id == dog._id && again.name == dog.name && again.age == dog.age && again.color == dog.color)
        #expect(again.birthday == dog.birthday && again.weight == dog.weight && again.favoriteToy?.name == "ball")
        #expect(again.toys.map(\.name) == ["rope", "bone"] && Set(again.nicknames) == Set(dog.nicknames))
        #expect(again.scores["agility"] == .some(7) && again.scores["obedience"] == .some(nil))
        #expect(again.address?.street == "1 Main Street")
        #expect(try encoder.encode(again) == data)
    }

    @Test func managedObjectsThrowFromTheSynthesizedEncode() throws {
        let realm = try Realm(configuration: temporaryInMemoryConfiguration())
        let dog = try JSONDecoder().decode(CodableModels.Dog.self, from: Data(Self.json.utf8))
        try realm.write { try realm.add(dog) }
        do {
            _ = try JSONEncoder().encode(dog)
            Issue.record("encoding a managed object did not throw")
        } catch EncodingError.invalidValue(_, let context) {
            #expect(context.debugDescription.contains("encode(to:)"))
        }
        #expect(throws: EncodingError.self) { try JSONEncoder().encode(dog.freeze()) }
        #expect(throws: EncodingError.self) { try JSONEncoder().encode(realm.objects(CodableModels.Dog.self)) }
        // A collection of values reads through its binding, so a managed or frozen one encodes.
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(String(decoding: try encoder.encode(dog.scores), as: UTF8.self) == #"{"agility":7,"obedience":null}"#)
        #expect(String(decoding: try encoder.encode(try dog.scores.freeze()), as: UTF8.self) == #"{"agility":7,"obedience":null}"#)
        #expect(Set(try JSONDecoder().decode([String].self, from: try encoder.encode(try dog.nicknames.freeze()))) == ["rexy", "T-Rex"])
    }

    @Test func aHandWrittenEncodeEncodesManagedAndFrozenObjects() throws {
        let realm = try Realm(configuration: temporaryInMemoryConfiguration())
        try realm.write {
            try realm.add(CodableModels.SelfEncodingDog(value: ["name": "Maui", "age": 3]))
            try realm.add(CodableModels.SelfEncodingDog(value: ["name": "Rex", "age": 1]))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let all = realm.objects(CodableModels.SelfEncodingDog.self).sorted(byKeyPath: "name")
        #expect(String(decoding: try encoder.encode(all), as: UTF8.self) == #"[{"age":3,"name":"Maui"},{"age":1,"name":"Rex"}]"#)
        let frozen = try #require(all.first).freeze()
        #expect(String(decoding: try encoder.encode(frozen), as: UTF8.self) == #"{"age":3,"name":"Maui"}"#)
    }
}
