import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// The models of `SchemaDescriptionTests`, stored under the names they had before they were namespaced.
enum SchemaDescriptionModels {
    final class Address: EmbeddedObject {
        override class func _realmObjectName() -> String? { "SDAddress" }
        @Persisted var street = ""
    }

    final class Dog: Object {
        override class func _realmObjectName() -> String? { "SDDog" }
        @Persisted(primaryKey: true) var name = ""
        @Persisted(indexed: true) var age = 0
        @Persisted(originProperty: "dogs") var owners: LinkingObjects<SchemaDescriptionModels.Person>
        @Persisted var nickname: String?
    }

    final class Person: Object {
        override class func _realmObjectName() -> String? { "SDPerson" }
        @Persisted var name = ""
        @Persisted var dogs: List<SchemaDescriptionModels.Dog>
        @Persisted var address: SchemaDescriptionModels.Address?
    }
}

/// `Realm.schema`, `Object.sharedSchema()` and `objectSchema` describe the classes as RealmSwift
/// does: stored properties in `properties`, `LinkingObjects` apart in `computedProperties`.
@Suite(.temporaryDirectory) struct SchemaDescriptionTests {
    private func realm(_ name: String = #function) throws -> Realm {
        var configuration = temporaryConfiguration(name)
        configuration.objectTypes = [SchemaDescriptionModels.Dog.self, SchemaDescriptionModels.Person.self, SchemaDescriptionModels.Address.self]
        return try Realm(configuration: configuration)
    }

    @Test func linkingObjectsAreComputedPropertiesNotProperties() throws {
        let schema = try #require(SchemaDescriptionModels.Dog.sharedSchema())
        #expect(schema.className == "SDDog")
        #expect(schema.properties.map(\.name) == ["name", "age", "nickname"])
        #expect(schema.computedProperties.map(\.name) == ["owners"])
        #expect(schema.computedProperties.first?.type == .linkingObjects)
        #expect(schema.computedProperties.first?.objectClassName == "SDPerson")
        #expect(schema.computedProperties.first?.linkOriginPropertyName == "dogs")
        #expect(schema["owners"]?.type == .linkingObjects, "the subscript finds computed properties too")
        #expect(schema.primaryKeyProperty?.name == "name")
        #expect(schema["age"]?.isIndexed == true && schema["nickname"]?.isOptional == true)
        #expect(SchemaDescriptionModels.Dog().objectSchema == schema)
    }

    @Test func sharedSchemaIsNilForTheBaseClasses() {
        #expect(Object.sharedSchema() == nil)
        #expect(EmbeddedObject.sharedSchema() == nil)
        #expect(SchemaDescriptionModels.Address.sharedSchema()?.isEmbedded == true)
    }

    @Test func realmSchemaListsTheConfiguredClassesByName() throws {
        let realm = try realm()
        let schema = realm.schema
        #expect(schema.objectSchema.map(\.className) == ["SDAddress", "SDDog", "SDPerson"])
        #expect(schema["SDDog"] == SchemaDescriptionModels.Dog.sharedSchema())
        #expect(schema["SDPerson"]?["dogs"]?.isArray == true)
        #expect(schema["SDPerson"]?["dogs"]?.objectClassName == "SDDog")
        #expect(schema["SDPerson"]?["address"]?.type == .object)
        #expect(schema["Nope"] == nil)
        #expect(schema.description.contains("SDDog {") && schema.description.contains("owners: LinkingObjects<SDPerson>(dogs)"))
    }

    @Test func aRealmOpenedWithoutClassesDescribesWhatTheFileStores() throws {
        var configuration = temporaryConfiguration()
        configuration.objectTypes = [SchemaDescriptionModels.Dog.self, SchemaDescriptionModels.Person.self, SchemaDescriptionModels.Address.self]
        do {
            let realm = try Realm(configuration: configuration)
            try realm.write { _ = try realm.create(SchemaDescriptionModels.Dog.self, value: ["name": "Rex"]) }
        }
        configuration.objectTypes = nil
        let reopened = try Realm(configuration: configuration)
        let dog = try #require(reopened.schema["SDDog"])
        #expect(dog.properties.map(\.name) == ["name", "age", "nickname"])
        #expect(dog.primaryKeyProperty?.name == "name")
        #expect(reopened.schema["SDPerson"]?["dogs"]?.isArray == true)
    }

    /// The file records a class's `LinkingObjects`, so that a realm without the Swift class
    /// (the dynamic API, the `burrow` tool) describes, reads and queries them by name.
    @Test func aRealmOpenedWithoutClassesReadsTheLinkingObjectsTheFileRecords() throws {
        var configuration = temporaryConfiguration()
        configuration.objectTypes = [SchemaDescriptionModels.Dog.self, SchemaDescriptionModels.Person.self, SchemaDescriptionModels.Address.self]
        do {
            let realm = try Realm(configuration: configuration)
            try realm.write {
                let rex = try realm.create(SchemaDescriptionModels.Dog.self, value: ["name": "Rex"])
                _ = try realm.create(SchemaDescriptionModels.Dog.self, value: ["name": "Fido"])
                _ = try realm.create(SchemaDescriptionModels.Person.self, value: ["name": "Ali", "dogs": [rex]])
            }
        }
        configuration.objectTypes = nil
        let reopened = try Realm(configuration: configuration)
        #expect(reopened.schema["SDDog"]?.computedProperties == SchemaDescriptionModels.Dog.sharedSchema()?.computedProperties)
        #expect(reopened.schema["SDDog"]?.properties.map(\.name) == ["name", "age", "nickname"])
        let rex = try #require(reopened.dynamicObject(ofType: "SDDog", forPrimaryKey: "Rex"))
        let owners = try #require(rex["owners"] as? Results<DynamicObject>)
        #expect(owners.map { $0["name"] as? String } == ["Ali"])
        let frozen = try #require(rex.freeze()["owners"] as? Results<DynamicObject>)
        try reopened.write { _ = try reopened.dynamicCreate("SDPerson", value: ["name": "Bo", "dogs": [rex]]) }
        #expect(owners.map { $0["name"] as? String } == ["Ali", "Bo"], "live, as LinkingObjects are")
        #expect(frozen.count == 1, "frozen at the version it was read in")
        #expect(try reopened.dynamicObjects("SDDog").filter("owners.@count > 1").map { $0["name"] as? String } == ["Rex"])
        #expect((reopened.dynamicObject(ofType: "SDDog", forPrimaryKey: "Fido")?["owners"] as? Results<DynamicObject>)?.count == 0)
        #expect(rex["nope"] == nil)
    }

    @Test func whatNeedsLinkingObjectsStillFindsThem() throws {
        let realm = try realm()
        try realm.write {
            let rex = try realm.create(SchemaDescriptionModels.Dog.self, value: ["name": "Rex", "age": 3])
            _ = try realm.create(SchemaDescriptionModels.Person.self, value: ["name": "Ali", "dogs": [rex]])
            _ = try realm.create(SchemaDescriptionModels.Dog.self, value: ["name": "Fido", "age": 1])
        }
        let rex = try #require(realm.object(ofType: SchemaDescriptionModels.Dog.self, forPrimaryKey: "Rex"))
        #expect(rex.owners.map(\.name) == ["Ali"])
        #expect((rex.value(forKey: "owners") as? LinkingObjects<SchemaDescriptionModels.Person>)?.count == 1)
        #expect(try realm.objects(SchemaDescriptionModels.Dog.self).filter("owners.@count > 0").map(\.name) == ["Rex"])
        #expect(try realm.objects(SchemaDescriptionModels.Dog.self).filter("ANY owners.name == 'Ali'").map(\.name) == ["Rex"])
        #expect(rex.description.contains("owners"))
    }
}
