import Burrow
import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

/// Models whose properties the file stores under other names (`propertiesMapping()`), as
/// RealmSwift's `CustomColumnNameTests` declare them: every kind of property mapped.
enum CustomColumnModels {
    enum Mood: Int, PersistableEnum {
        case calm, busy, wild
    }

    final class Custom: Object {
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted(primaryKey: true) var pk = 0
        @Persisted(indexed: true) var intCol = 0
        @Persisted var stringCol = ""
        @Persisted var anyCol: AnyRealmValue
        @Persisted var mood: Mood = .calm
        @Persisted var objectCol: Custom?
        @Persisted var arrayCol: List<Custom>
        @Persisted var setCol: MutableSet<Custom>
        @Persisted var mapCol: Map<String, Custom?>
        @Persisted var embeddedObject: EmbeddedCustom?
        @Persisted var arrayIntCol: List<Int>
        @Persisted var setIntCol: MutableSet<Int>
        @Persisted var mapIntCol: Map<String, Int>
        @Persisted(originProperty: "objectCol") var linkedFrom: LinkingObjects<Custom>

        override class func propertiesMapping() -> [String: String] {
            [
                "pk": "custom_pk", "intCol": "custom_intCol", "anyCol": "custom_anyCol", "mood": "custom_mood",
                "objectCol": "custom_objectCol", "arrayCol": "custom_arrayCol", "setCol": "custom_setCol", "mapCol": "custom_mapCol",
                "embeddedObject": "custom_embeddedObject", "arrayIntCol": "custom_arrayIntCol", "setIntCol": "custom_setIntCol",
                "mapIntCol": "custom_mapIntCol",
            ]
        }
    }

    final class EmbeddedCustom: EmbeddedObject {
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted var intCol = 0

        override class func propertiesMapping() -> [String: String] { ["intCol": "custom_intCol"] }
    }

    static let types: [ObjectBase.Type] = [Custom.self, EmbeddedCustom.self]

    /// Two releases of one class: the first stores `count` as `count`, the second keeps the
    /// Swift name and stores it as `item_count`.
    final class CounterV1: Object {
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        override class func _realmObjectName() -> String? { "Counter" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var count = 0
    }

    final class CounterV2: Object {
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        override class func _realmObjectName() -> String? { "Counter" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var count = 0

        override class func propertiesMapping() -> [String: String] { ["count": "item_count"] }
    }

    /// Mappings that cannot be stored.
    final class UnknownName: Object {
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted var name = ""

        override class func propertiesMapping() -> [String: String] { ["nmae": "the_name"] }
    }

    final class SharedColumn: Object {
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted var first = ""
        @Persisted var second = ""

        override class func propertiesMapping() -> [String: String] { ["second": "first"] }
    }

    final class SwappedColumns: Object {
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted var first = ""
        @Persisted var second = 0

        override class func propertiesMapping() -> [String: String] { ["first": "second", "second": "first"] }
    }
}

/// Properties stored under other names than their Swift names, as RealmSwift's
/// `CustomColumnNameTests` and `MigrationTests.testCustomColumnRenamePropertyToCustom` assert:
/// the program names them by their Swift names everywhere, the file by the mapped names.
@Suite(.temporaryDirectory) struct CustomColumnNameTests {
    typealias Custom = CustomColumnModels.Custom
    typealias EmbeddedCustom = CustomColumnModels.EmbeddedCustom

    private func configuration() -> Realm.Configuration {
        var configuration = temporaryConfiguration()
        configuration.objectTypes = CustomColumnModels.types
        return configuration
    }

    /// A realm holding object 1 (intCol 123, with everything set) linking to object 2.
    private func filledRealm() throws -> Realm {
        let realm = try Realm(configuration: configuration())
        try realm.write {
            let nested = Custom(value: ["pk": 2, "intCol": 7, "stringCol": "nested"])
            let object = Custom(value: ["pk": 1, "intCol": 123, "stringCol": "root", "mood": CustomColumnModels.Mood.busy])
            object.anyCol = .object(nested)
            object.objectCol = nested
            object.arrayCol.append(nested)
            object.setCol.insert(nested)
            object.mapCol["key"] = nested
            object.embeddedObject = EmbeddedCustom(value: ["intCol": 5])
            object.arrayIntCol.append(objectsIn: [1, 2])
            object.setIntCol.insert(3)
            object.mapIntCol["key"] = 4
            try realm.add(object)
        }
        return realm
    }

    @Test func theSchemaGivesEachPropertyItsColumnName() throws {
        let mapping = Custom.propertiesMapping()
        let schema = try #require(try filledRealm().schema["Custom"])
        for property in schema.properties {
            #expect(property.columnName == mapping[property.name] ?? property.name, "\(property.name)")
        }
        #expect(schema["intCol"]?.columnName == "custom_intCol")
        #expect(schema["custom_intCol"] == nil)
        #expect(schema["stringCol"]?.columnName == "stringCol")
        #expect(schema.primaryKeyProperty?.name == "pk")
        #expect(Custom().objectSchema["embeddedObject"]?.columnName == "custom_embeddedObject")
        #expect(EmbeddedCustom().objectSchema["intCol"]?.columnName == "custom_intCol")
        #expect(schema["intCol"]?.description == "intCol: int (indexed) (stored as 'custom_intCol')")
    }

    @Test func theFileStoresTheColumnNames() throws {
        let realm = try filledRealm()
        let stored = try #require(realm.currentFileSchema.classes["Custom"])
        let expected = Set(Custom.propertiesMapping().values).union(["stringCol"])
        #expect(Set(stored.properties.map(\.name)) == expected)
        // Dynamic objects read the file: they name the properties as it stores them.
        let dynamic = try #require(try realm.dynamicObjects("Custom").filter("custom_pk == 1").first)
        #expect(dynamic["custom_intCol"] as? Int == 123)
        #expect(dynamic["stringCol"] as? String == "root")
        #expect((dynamic["custom_objectCol"] as? DynamicObject)?["custom_intCol"] as? Int == 7)
        #expect((dynamic["custom_embeddedObject"] as? DynamicObject)?["custom_intCol"] as? Int == 5)
        #expect(dynamic.objectSchema["custom_intCol"]?.columnName == "custom_intCol")
        try realm.write { dynamic["custom_intCol"] = 124 }
        #expect(realm.object(ofType: Custom.self, forPrimaryKey: 1)?.intCol == 124)
    }

    @Test func typedObjectsReadAndWriteEveryKindOfMappedProperty() throws {
        let realm = try filledRealm()
        let object = try #require(realm.object(ofType: Custom.self, forPrimaryKey: 1))
        let nested = try #require(realm.object(ofType: Custom.self, forPrimaryKey: 2))
        #expect(object.intCol == 123 && object.stringCol == "root" && object.mood == .busy)
        #expect(object.anyCol.object(Custom.self)?.pk == 2)
        #expect(object.objectCol?.pk == 2)
        #expect(object.arrayCol.map(\.pk) == [2] && object.setCol.map(\.pk) == [2] && object.mapCol["key"]??.pk == 2)
        #expect(object.embeddedObject?.intCol == 5)
        #expect(Array(object.arrayIntCol) == [1, 2] && Array(object.setIntCol) == [3] && object.mapIntCol["key"] == 4)
        #expect(nested.linkedFrom.map(\.pk) == [1])
        #expect(try nested.linkedFrom.filter("intCol == 123").count == 1)
        try realm.write {
            object.intCol = 321
            object.embeddedObject?.intCol = 6
            object.arrayIntCol.append(9)
            object.mapIntCol["other"] = 8
        }
        #expect(object.intCol == 321 && object.embeddedObject?.intCol == 6)
        #expect(Array(object.arrayIntCol) == [1, 2, 9] && object.mapIntCol["other"] == 8)
        // Created from a dictionary by Swift names.
        try realm.write {
            _ = try realm.create(Custom.self, value: ["pk": 3, "intCol": 30, "arrayIntCol": [5], "embeddedObject": ["intCol": 1]])
        }
        #expect(realm.object(ofType: Custom.self, forPrimaryKey: 3)?.embeddedObject?.intCol == 1)
        #expect(realm.dynamicObject(ofType: "Custom", forPrimaryKey: 3)?["custom_intCol"] as? Int == 30)
        #expect(object.value(forKey: "intCol") as? Int == 321)
    }

    @Test func queriesSortsAndAggregatesUseTheSwiftNames() throws {
        let realm = try filledRealm()
        let all = realm.objects(Custom.self)
        #expect(try all.filter("intCol == 123").count == 1)
        #expect(try all.filter("intCol == %@", 7).first?.pk == 2)
        #expect(all.where { $0.intCol == 123 }.first?.pk == 1)
        #expect(try all.filter("objectCol.intCol == 7").first?.pk == 1)
        #expect(try all.filter("ANY arrayCol.intCol == 7").count == 1)
        #expect(try all.filter("ANY setCol.intCol == 7").count == 1)
        #expect(try all.filter("mapCol['key'].intCol == 7").count == 1)
        #expect(try all.filter("embeddedObject.intCol == 5").count == 1)
        #expect(try all.filter("ANY arrayIntCol == 2").count == 1)
        #expect(try all.filter("mapIntCol['key'] == 4").count == 1)
        #expect(try all.filter("mood == %@", CustomColumnModels.Mood.busy).count == 1)
        #expect(try all.filter("linkedFrom.@count == 1").first?.pk == 2)
        #expect(try all.filter("ANY @links.Custom.objectCol.pk == 1").first?.pk == 2)
        #expect(all.sorted(byKeyPath: "intCol").map(\.pk) == [2, 1])
        #expect(all.sorted(by: \.intCol, ascending: false).map(\.pk) == [1, 2])
        #expect(all.distinct(by: ["intCol"]).count == 2)
        #expect(all.sum(ofProperty: "intCol") as Int == 130)
        #expect(all.max(of: \.intCol) == 123)
        #expect(try all.index(matching: "intCol == 7") == all.firstIndex { $0.pk == 2 })
        #expect((all.value(forKey: "intCol") as? [Int])?.sorted() == [7, 123])
        try realm.write { all.setValue(5, forKey: "intCol") }
        #expect(all.map(\.intCol) == [5, 5])
        #expect(try realm.object(ofType: Custom.self, forPrimaryKey: 1)?.arrayCol.filter("intCol == 5").count == 1)
        // The column name is not a Swift name: a query naming it is an error that says so.
        #expect(throws: RealmError.self) { try all.filter("custom_intCol == 5").count }
    }

    @Test func changeStreamsNameTheSwiftProperties() async throws {
        let realm = try filledRealm()
        let object = try #require(realm.object(ofType: Custom.self, forPrimaryKey: 1))
        var changes = object.changes(keyPaths: ["intCol"]).makeAsyncIterator()
        try realm.write { object.stringCol = "not observed" }
        try realm.write { object.intCol = 1 }
        guard case .change(_, let properties)? = await changes.next() else {
            Issue.record("expected a change")
            return
        }
        #expect(properties.map(\.name) == ["intCol"])
        #expect(properties.first?.newValue as? Int == 1)
        var unknown = object.changes(keyPaths: ["custom_intCol"]).makeAsyncIterator()
        guard case .error(let error)? = await unknown.next() else {
            Issue.record("a key path naming the column is not a property")
            return
        }
        #expect(error.localizedDescription.contains("'custom_intCol' is not a property of Custom"))
    }

    @Test func copiesMatchPropertiesByColumn() throws {
        let realm = try filledRealm()
        // A dynamic object made from a typed one takes its values column by column.
        try realm.write {
            _ = try realm.dynamicCreate("Custom", value: Custom(value: ["pk": 9, "intCol": 90, "embeddedObject": ["intCol": 3]]))
        }
        #expect(realm.object(ofType: Custom.self, forPrimaryKey: 9)?.intCol == 90)
        #expect(realm.object(ofType: Custom.self, forPrimaryKey: 9)?.embeddedObject?.intCol == 3)
        // And a typed copy of a managed object, into another realm.
        let other = try Realm(configuration: configuration())
        let source = try #require(realm.object(ofType: Custom.self, forPrimaryKey: 1))
        try other.write { _ = try other.create(Custom.self, value: source) }
        #expect(other.object(ofType: Custom.self, forPrimaryKey: 1)?.objectCol?.intCol == 7)
        #expect(other.object(ofType: Custom.self, forPrimaryKey: 1)?.mapIntCol["key"] == 4)
    }

    @Test func aMappingThatCannotBeStoredIsASchemaError() throws {
        for (type, words) in [
            (CustomColumnModels.UnknownName.self as ObjectBase.Type, "'nmae', which is not a property"),
            (CustomColumnModels.SharedColumn.self, "'first' and 'second' would both be stored as 'first'"),
        ] {
            var configuration = temporaryConfiguration()
            configuration.objectTypes = [type]
            let error = #expect(throws: RealmError.self) { try Realm(configuration: configuration) }
            #expect(error?.code == .schemaMismatch)
            #expect(error?.localizedDescription.contains(words) == true, "\(error?.localizedDescription ?? "")")
        }
        // Swapping two names is a mapping like any other.
        var configuration = temporaryConfiguration()
        configuration.objectTypes = [CustomColumnModels.SwappedColumns.self]
        let realm = try Realm(configuration: configuration)
        try realm.write { try realm.add(CustomColumnModels.SwappedColumns(value: ["first": "a", "second": 2])) }
        let stored = try #require(realm.dynamicObjects("SwappedColumns").first)
        #expect(stored["second"] as? String == "a" && stored["first"] as? Int == 2)
        #expect(try realm.objects(CustomColumnModels.SwappedColumns.self).filter("first == 'a' AND second == 2").count == 1)
    }

    @Test func mappingAPropertyIsASchemaChangeThatRenamePropertyMigrates() throws {
        var v1 = temporaryConfiguration()
        v1.objectTypes = [CustomColumnModels.CounterV1.self]
        do {
            let realm = try Realm(configuration: v1)
            try realm.write { try realm.add(CustomColumnModels.CounterV1(value: ["id": 1, "count": 42])) }
        }
        var v2 = v1
        v2.objectTypes = [CustomColumnModels.CounterV2.self]
        let error = #expect(throws: RealmError.self) { try Realm(configuration: v2) }
        #expect(error?.localizedDescription.contains("'count' (stored as 'item_count') was added") == true, "\(error?.localizedDescription ?? "")")
        #expect(error?.localizedDescription.contains("'count' was removed") == true, "\(error?.localizedDescription ?? "")")

        v2.schemaVersion = 1
        v2.migrationBlock = { migration, _ in
            #expect(migration.oldSchema["Counter"]?["count"] != nil)
            #expect(migration.newSchema["Counter"]?["count"]?.columnName == "item_count")
            migration.renameProperty(onType: "Counter", from: "count", to: "item_count")
            // The old and new objects name properties as the file stores them.
            migration.enumerateObjects(ofType: "Counter") { oldObject, newObject in
                #expect(oldObject?["count"] as? Int == 42)
                #expect(newObject?["item_count"] as? Int == 42)
                newObject?["item_count"] = 43
            }
        }
        let realm = try Realm(configuration: v2)
        #expect(realm.object(ofType: CustomColumnModels.CounterV2.self, forPrimaryKey: 1)?.count == 43)
        #expect(realm.currentFileSchema.classes["Counter"]?.properties.map(\.name) == ["id", "item_count"])
    }
}
