import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// The models of `DynamicObjectTests`, stored under the names they had before they were namespaced.
enum DynamicObjectModels {
    final class BoolHolder: Object {
        override class func _realmObjectName() -> String? { "DynBool" }
        @Persisted var boolCol = false
    }

    final class Embedded: EmbeddedObject {
        override class func _realmObjectName() -> String? { "DynEmbedded" }
        @Persisted var value = 0
        @Persisted var note: String?
    }

    /// One property of every type the dynamic API reads and writes.
    final class AllTypes: Object {
        override class func _realmObjectName() -> String? { "DynAllTypes" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var boolCol = false
        @Persisted var intCol = 0
        @Persisted var int8Col: Int8 = 0
        @Persisted var int16Col: Int16 = 0
        @Persisted var int32Col: Int32 = 0
        @Persisted var int64Col: Int64 = 0
        @Persisted var floatCol: Float = 0
        @Persisted var doubleCol = 0.0
        @Persisted var stringCol = ""
        @Persisted var binaryCol = Data()
        @Persisted var dateCol = Date(timeIntervalSince1970: 0)
        @Persisted var objectIdCol = ObjectId()
        @Persisted var uuidCol = UUID(uuidString: "00000000-0000-0000-0000-000000000000")!
        @Persisted var decimalCol = Decimal128(0)
        @Persisted var enumCol = DynStatus.idle
        @Persisted var optBoolCol: Bool?
        @Persisted var optIntCol: Int?
        @Persisted var optInt8Col: Int8?
        @Persisted var optInt16Col: Int16?
        @Persisted var optInt32Col: Int32?
        @Persisted var optInt64Col: Int64?
        @Persisted var optFloatCol: Float?
        @Persisted var optDoubleCol: Double?
        @Persisted var optStringCol: String?
        @Persisted var optBinaryCol: Data?
        @Persisted var optDateCol: Date?
        @Persisted var optObjectIdCol: ObjectId?
        @Persisted var optUuidCol: UUID?
        @Persisted var optDecimalCol: Decimal128?
        @Persisted var anyCol: AnyRealmValue
        @Persisted var objectCol: DynamicObjectModels.BoolHolder?
        @Persisted var arrayCol: List<DynamicObjectModels.BoolHolder>
        @Persisted var setCol: MutableSet<DynamicObjectModels.BoolHolder>
        @Persisted var mapCol: Map<String, DynamicObjectModels.BoolHolder?>
        @Persisted var intList: List<Int>
        @Persisted var optStringList: List<String?>
        @Persisted var stringSet: MutableSet<String>
        @Persisted var intMap: Map<String, Int>
        @Persisted var optDoubleMap: Map<String, Double?>
        @Persisted var embeddedCol: DynamicObjectModels.Embedded?
        @Persisted var embeddedList: List<DynamicObjectModels.Embedded>
    }

    final class StringKeyed: Object {
        override class func _realmObjectName() -> String? { "DynStringKeyed" }
        @Persisted(primaryKey: true) var key = ""
        @Persisted var count = 0
        @Persisted var label = "default label"
        @Persisted var optCount: Int?
    }

    /// A chain of links and lists, for values nested far deeper than a stack could recurse.
    final class Chain: Object {
        override class func _realmObjectName() -> String? { "DynChain" }
        @Persisted var index = 0
        @Persisted var next: DynamicObjectModels.Chain?
        @Persisted var children: List<DynamicObjectModels.Chain>
    }
}

enum DynStatus: Int, PersistableEnum {
    case idle = 0
    case busy = 7
}

/// `DynamicObject`, `Realm.dynamicObjects(_:)`, `dynamicObject(ofType:forPrimaryKey:)` and
/// `dynamicCreate(_:value:update:)`: every property type read and written by name, with
/// RealmSwift's meaning.
@Suite(.temporaryDirectory) struct DynamicObjectTests {
    static let types: [ObjectBase.Type] = [
        DynamicObjectModels.AllTypes.self, DynamicObjectModels.BoolHolder.self, DynamicObjectModels.Embedded.self,
        DynamicObjectModels.StringKeyed.self, DynamicObjectModels.Chain.self,
    ]

    /// An in-memory realm of the suite's classes; exit tests, whose child process has no test
    /// directory, use it.
    static func inMemoryRealm(_ identifier: String) throws -> Realm {
        var configuration = Realm.Configuration(inMemoryIdentifier: identifier)
        configuration.objectTypes = types
        return try Realm(configuration: configuration)
    }

    private func realm(_ name: String = #function) throws -> Realm {
        var configuration = temporaryConfiguration(name)
        configuration.objectTypes = Self.types
        return try Realm(configuration: configuration)
    }

    /// A realm holding one `DynAllTypes` (id 1) with a value other than the default in every
    /// non-optional property and nil in every optional one, and its dynamic object.
    private func seeded(_ name: String = #function) throws -> (Realm, DynamicObjectModels.AllTypes, DynamicObject) {
        let realm = try realm(name)
        let typed = DynamicObjectModels.AllTypes(value: [
            "id": 1, "boolCol": true, "intCol": 42, "int8Col": Int8(-8), "int16Col": Int16(1_616), "int32Col": Int32(-323_232),
            "int64Col": Int64.max, "floatCol": Float(2.5), "doubleCol": 6.25, "stringCol": "héllo", "binaryCol": Data([0, 1, 2, 255]),
            "dateCol": Date(timeIntervalSince1970: 1_000_000), "objectIdCol": try ObjectId(string: "6553f100a1b2c3d4e5f60718"),
            "uuidCol": UUID(uuidString: "137DECC8-B300-4954-A233-F89909F4FD89")!, "decimalCol": Decimal128(12345),
            "enumCol": DynStatus.busy,
        ])
        try realm.write { try realm.add(typed) }
        let dynamic = try #require(realm.dynamicObjects("DynAllTypes").first)
        return (realm, typed, dynamic)
    }

    // MARK: Values

    @Test func testEveryRequiredValueReadsAsItsPlainValue() throws {
        let (_, _, object) = try seeded()
        #expect(object["id"] as? Int == 1)
        #expect(object["boolCol"] as? Bool == true)
        #expect(object["intCol"] as? Int == 42)
        #expect(object["int8Col"] as? Int == -8, "every integer width reads as Int")
        #expect(object["int16Col"] as? Int == 1_616)
        #expect(object["int32Col"] as? Int == -323_232)
        #expect(object["int64Col"] as? Int == Int.max)
        #expect(object["floatCol"] as? Float == 2.5)
        #expect(object["doubleCol"] as? Double == 6.25)
        #expect(object["stringCol"] as? String == "héllo")
        #expect(object["binaryCol"] as? Data == Data([0, 1, 2, 255]))
        #expect(object["dateCol"] as? Date == Date(timeIntervalSince1970: 1_000_000))
        #expect(object["objectIdCol"] as? ObjectId == (try ObjectId(string: "6553f100a1b2c3d4e5f60718")))
        #expect(object["uuidCol"] as? UUID == UUID(uuidString: "137DECC8-B300-4954-A233-F89909F4FD89"))
        #expect(object["decimalCol"] as? Decimal128 == Decimal128(12345))
        #expect(object["enumCol"] as? Int == 7, "an enum reads as its stored raw value")
        // Members read the same values as the subscript.
        #expect(object.intCol as? Int == 42)
        #expect(object.stringCol as? String == "héllo")
        #expect(object.objectIdCol as? ObjectId == (try ObjectId(string: "6553f100a1b2c3d4e5f60718")))
    }

    @Test func testOptionalValuesReadAsNilOrTheirValue() throws {
        let (realm, typed, object) = try seeded()
        for name in [
            "optBoolCol", "optIntCol", "optInt8Col", "optInt16Col", "optInt32Col", "optInt64Col", "optFloatCol", "optDoubleCol",
            "optStringCol", "optBinaryCol", "optDateCol", "optObjectIdCol", "optUuidCol", "optDecimalCol", "objectCol", "embeddedCol",
        ] {
            #expect(object[name] == nil, "\(name) is nil")
        }
        #expect(object["anyCol"] == nil, "an AnyRealmValue holding .none reads as nil")
        try realm.write {
            typed.optBoolCol = false
            typed.optIntCol = -1
            typed.optInt8Col = 8
            typed.optInt16Col = 16
            typed.optInt32Col = 32
            typed.optInt64Col = 64
            typed.optFloatCol = 0.5
            typed.optDoubleCol = -0.25
            typed.optStringCol = ""
            typed.optBinaryCol = Data()
            typed.optDateCol = Date(timeIntervalSince1970: -86_400)
            typed.optObjectIdCol = try ObjectId(string: "000000000000000000000001")
            typed.optUuidCol = UUID(uuidString: "00000000-0000-0000-0000-000000000001")
            typed.optDecimalCol = Decimal128(-3)
        }
        #expect(object["optBoolCol"] as? Bool == false)
        #expect(object["optIntCol"] as? Int == -1)
        #expect(object["optInt8Col"] as? Int == 8)
        #expect(object["optInt16Col"] as? Int == 16)
        #expect(object["optInt32Col"] as? Int == 32)
        #expect(object["optInt64Col"] as? Int == 64)
        #expect(object["optFloatCol"] as? Float == 0.5)
        #expect(object["optDoubleCol"] as? Double == -0.25)
        #expect(object["optStringCol"] as? String == "", "an empty string is not nil")
        #expect(object["optBinaryCol"] as? Data == Data(), "empty data is not nil")
        #expect(object["optDateCol"] as? Date == Date(timeIntervalSince1970: -86_400))
        #expect(object["optObjectIdCol"] as? ObjectId == (try ObjectId(string: "000000000000000000000001")))
        #expect(object["optUuidCol"] as? UUID == UUID(uuidString: "00000000-0000-0000-0000-000000000001"))
        #expect(object["optDecimalCol"] as? Decimal128 == Decimal128(-3))
    }

    @Test func testEveryValueWrittenByNameReadsBackThroughTheTypedObject() throws {
        let (realm, typed, object) = try seeded()
        let id = try ObjectId(string: "0123456789abcdef01234567")
        let uuid = UUID(uuidString: "137DECC8-B300-4954-A233-F89909F4FD8A")!
        try realm.write {
            object["boolCol"] = false
            object["intCol"] = 321
            object["int8Col"] = Int8(1)
            object["int16Col"] = Int16(321)
            object["int32Col"] = Int32(321)
            object["int64Col"] = Int64(321)
            object["floatCol"] = Float(32.5)
            object["doubleCol"] = 3.21
            object["stringCol"] = "z"
            object["binaryCol"] = Data("z".utf8)
            object["dateCol"] = Date(timeIntervalSince1970: 333)
            object["objectIdCol"] = id
            object["uuidCol"] = uuid
            object["decimalCol"] = Decimal128(99)
            object["enumCol"] = 0
        }
        #expect(typed.boolCol == false && typed.intCol == 321 && typed.int8Col == 1 && typed.int16Col == 321)
        #expect(typed.int32Col == 321 && typed.int64Col == 321 && typed.floatCol == 32.5 && typed.doubleCol == 3.21)
        #expect(typed.stringCol == "z" && typed.binaryCol == Data("z".utf8) && typed.dateCol == Date(timeIntervalSince1970: 333))
        #expect(typed.objectIdCol == id && typed.uuidCol == uuid && typed.decimalCol == Decimal128(99) && typed.enumCol == .idle)

        // Members write as the subscript does; an Int fits any integer width.
        try realm.write {
            object.int8Col = 5
            object.int16Col = -5
            object.optIntCol = 12
            object.optStringCol = "set"
            object.optDateCol = Date(timeIntervalSince1970: 5)
            object.optDecimalCol = Decimal128(1)
            object.optFloatCol = Float(1.5)
        }
        #expect(typed.int8Col == 5 && typed.int16Col == -5 && typed.optIntCol == 12 && typed.optStringCol == "set")
        #expect(typed.optDateCol == Date(timeIntervalSince1970: 5) && typed.optDecimalCol == Decimal128(1) && typed.optFloatCol == 1.5)
        #expect(object.int8Col as? Int == 5 && object["optStringCol"] as? String == "set")

        // Nil clears an optional value.
        try realm.write {
            object["optIntCol"] = nil
            object.optStringCol = nil
            object["optDateCol"] = nil
        }
        #expect(typed.optIntCol == nil && typed.optStringCol == nil && typed.optDateCol == nil)
        #expect(object["optIntCol"] == nil && object.optStringCol == nil)
    }

    /// `value(forKey:)` and `setValue(_:forKey:)` read and write a dynamic object's stored
    /// properties, as the subscript does (RealmSwift's `testSetValueForKey` runs its every-type
    /// check through them on a migration object).
    @Test func testKeyValueCodingReadsAndWritesTheStoredProperties() throws {
        let (realm, typed, object) = try seeded()
        #expect(object.value(forKey: "intCol") as? Int == 42)
        #expect(object.value(forKey: "stringCol") as? String == "héllo")
        #expect(object.value(forKey: "arrayCol") is List<DynamicObject>)
        try realm.write {
            object.setValue(7, forKey: "intCol")
            object.setValue("kvc", forKey: "optStringCol")
            object.setValue([["boolCol": true]], forKey: "arrayCol")
        }
        #expect(typed.intCol == 7 && typed.optStringCol == "kvc" && typed.arrayCol.map(\.boolCol) == [true])
    }

    // MARK: Links

    @Test func testALinkReadsAsADynamicObjectAndTakesOne() throws {
        let (realm, typed, object) = try seeded()
        let linked = DynamicObjectModels.BoolHolder(value: [true])
        try realm.write { typed.objectCol = linked }
        let read = try #require(object["objectCol"] as? DynamicObject)
        #expect(read.isSameObject(as: linked))
        #expect(read["boolCol"] as? Bool == true)
        #expect((object.objectCol as? DynamicObject)?.boolCol as? Bool == true)

        let other = try realm.write { try realm.dynamicCreate("DynBool", value: ["boolCol": false]) }
        try realm.write { object["objectCol"] = other }
        #expect(typed.objectCol?.boolCol == false)
        #expect(typed.objectCol?.isSameObject(as: other) == true)
        #expect((object["objectCol"] as? DynamicObject)?.isSameObject(as: other) == true)

        // A typed object of the linked class is accepted too.
        try realm.write { object.objectCol = linked }
        #expect(typed.objectCol?.isSameObject(as: linked) == true)

        try realm.write { object["objectCol"] = nil }
        #expect(typed.objectCol == nil && object["objectCol"] == nil)
        #expect(realm.objects(DynamicObjectModels.BoolHolder.self).count == 2, "clearing a link deletes nothing")
    }

    @Test func testAListOfLinksIsAListOfDynamicObjects() throws {
        let (realm, typed, object) = try seeded()
        let first = DynamicObjectModels.BoolHolder(value: [true])
        try realm.write { typed.arrayCol.append(first) }
        let list = try #require(object["arrayCol"] as? List<DynamicObject>)
        #expect(list.count == 1 && list.first?.isSameObject(as: first) == true)
        #expect(list[0]["boolCol"] as? Bool == true)

        let second = try realm.write { try realm.dynamicCreate("DynBool", value: [false]) }
        try realm.write { list.append(second) }
        #expect(typed.arrayCol.map(\.boolCol) == [true, false])
        #expect(list.map { $0["boolCol"] as? Bool } == [true, false])

        // An array sets the list; nil empties it; a list of dynamic objects sets it too.
        try realm.write { object["arrayCol"] = [second, second, first] }
        #expect(typed.arrayCol.map(\.boolCol) == [false, false, true])
        try realm.write { object["arrayCol"] = nil }
        #expect(typed.arrayCol.isEmpty && (object["arrayCol"] as? List<DynamicObject>)?.count == 0)
        try realm.write { object.arrayCol = [first] }
        #expect(typed.arrayCol.count == 1 && typed.arrayCol[0].isSameObject(as: first))
        try realm.write {
            let current = object["arrayCol"] as! List<DynamicObject>
            current.removeAll()
            object["arrayCol"] = current
        }
        #expect(typed.arrayCol.isEmpty)
        #expect(realm.objects(DynamicObjectModels.BoolHolder.self).count == 2, "emptying a list deletes nothing")
    }

    @Test func testASetAndAMapOfLinksHoldDynamicObjects() throws {
        let (realm, typed, object) = try seeded()
        let yes = DynamicObjectModels.BoolHolder(value: [true])
        let no = DynamicObjectModels.BoolHolder(value: [false])
        try realm.write {
            typed.setCol.insert(yes)
            typed.mapCol["yes"] = yes
            typed.mapCol["none"] = .some(nil)
        }
        let set = try #require(object["setCol"] as? MutableSet<DynamicObject>)
        #expect(set.count == 1 && set[0].isSameObject(as: yes))
        let map = try #require(object["mapCol"] as? Map<String, DynamicObject?>)
        #expect(map.count == 2)
        #expect(map["yes"]??.isSameObject(as: yes) == true)
        #expect(map["none"] == .some(nil), "a key holding nil is kept")
        #expect(map["missing"] == nil)

        try realm.write {
            try realm.add(no)
            set.insert(realm.dynamicObjects("DynBool").filter { $0["boolCol"] as? Bool == false }[0])
            set.insert(set[0])
            map["no"] = realm.dynamicObjects("DynBool").first { $0["boolCol"] as? Bool == false }
            map.removeObject(for: "yes")
        }
        #expect(Set(typed.setCol.map(\.boolCol)) == [true, false] && typed.setCol.count == 2, "a set holds an object once")
        #expect(typed.mapCol.keys.sorted() == ["no", "none"])
        #expect(typed.mapCol["no"]??.isSameObject(as: no) == true)

        try realm.write {
            object["setCol"] = [no]
            object["mapCol"] = ["only": yes]
        }
        #expect(typed.setCol.count == 1 && typed.setCol[0].isSameObject(as: no))
        #expect(typed.mapCol.keys == ["only"] && typed.mapCol["only"]??.isSameObject(as: yes) == true)
        try realm.write { object["setCol"] = nil }
        #expect(typed.setCol.isEmpty)
    }

    @Test func testDynamicListSetAndMapReadATypedObjectsLinks() throws {
        let (realm, typed, _) = try seeded()
        let one = DynamicObjectModels.BoolHolder(value: [true])
        let two = DynamicObjectModels.BoolHolder(value: [false])
        try realm.write {
            typed.arrayCol.append(objectsIn: [one, two])
            typed.setCol.insert(one)
            typed.mapCol["two"] = two
        }
        let list = typed.dynamicList("arrayCol")
        #expect(list.count == 2 && list[0].isSameObject(as: one) && list[1].isSameObject(as: two))
        #expect(list[1]["boolCol"] as? Bool == false)
        #expect(typed.dynamicMutableSet("setCol").count == 1 && typed.dynamicMutableSet("setCol")[0].isSameObject(as: one))
        #expect(typed.dynamicMap("mapCol")["two"]??.isSameObject(as: two) == true)
        // Writing through them writes the typed object's collections.
        try realm.write { list.remove(at: 0) }
        #expect(typed.arrayCol.count == 1 && typed.arrayCol[0].isSameObject(as: two))
    }

    @Test func testDynamicListOfAPropertyThatIsNoListOfLinksTraps() async {
        let missing = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try DynamicObjectTests.inMemoryRealm("dyn-list-trap")
            let object = try realm.write { try realm.create(DynamicObjectModels.AllTypes.self, value: ["id": 1]) }
            _ = object.dynamicList("noSuchList")
        }
        let missingMessage = standardError(of: missing)
        #expect(missingMessage.contains("noSuchList"), "\(missingMessage)")
        let values = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try DynamicObjectTests.inMemoryRealm("dyn-list-trap-2")
            let object = try realm.write { try realm.create(DynamicObjectModels.AllTypes.self, value: ["id": 1]) }
            _ = object.dynamicList("intList")
        }
        let valuesMessage = standardError(of: values)
        #expect(valuesMessage.contains("intList"), "a list of values is no list of links: \(valuesMessage)")
    }

    // MARK: Collections of values

    @Test func testCollectionsOfValuesHaveTheirStoredElementType() throws {
        let (realm, typed, object) = try seeded()
        try realm.write {
            typed.intList.append(objectsIn: [3, 1, 2])
            typed.optStringList.append(objectsIn: ["a", nil])
            typed.stringSet.insert(objectsIn: ["x", "y"])
            typed.intMap["k"] = 1
            typed.optDoubleMap["n"] = .some(nil)
            typed.optDoubleMap["d"] = 1.5
        }
        let ints = try #require(object["intList"] as? List<Int>)
        #expect(Array(ints) == [3, 1, 2])
        let strings = try #require(object["optStringList"] as? List<String?>)
        #expect(Array(strings) == ["a", nil])
        let set = try #require(object["stringSet"] as? MutableSet<String>)
        #expect(Set(set) == ["x", "y"])
        let map = try #require(object["intMap"] as? Map<String, Int>)
        #expect(map["k"] == 1 && map.count == 1)
        let doubles = try #require(object["optDoubleMap"] as? Map<String, Double?>)
        #expect(doubles["n"] == .some(nil) && doubles["d"] == 1.5)

        try realm.write {
            ints.append(4)
            ints.remove(at: 0)
            strings[1] = "b"
            set.remove("x")
            map["j"] = 2
            doubles.removeObject(for: "n")
        }
        #expect(Array(typed.intList) == [1, 2, 4])
        #expect(Array(typed.optStringList) == ["a", "b"])
        #expect(Set(typed.stringSet) == ["y"])
        #expect(typed.intMap.keys.sorted() == ["j", "k"] && typed.intMap["j"] == 2)
        #expect(typed.optDoubleMap.keys == ["d"])

        // Arrays and dictionaries set them whole.
        try realm.write {
            object["intList"] = [9, 8]
            object["optStringList"] = [nil, "c"]
            object["stringSet"] = ["p", "q", "p"]
            object["intMap"] = ["z": 26]
        }
        #expect(Array(typed.intList) == [9, 8] && Array(typed.optStringList) == [nil, "c"])
        #expect(Set(typed.stringSet) == ["p", "q"] && typed.stringSet.count == 2)
        #expect(typed.intMap.keys == ["z"] && typed.intMap["z"] == 26)
    }

    // MARK: AnyRealmValue

    @Test func testAnAnyRealmValueReadsAsWhatItHoldsAndALinkAsADynamicObject() throws {
        let (realm, typed, object) = try seeded()
        let linked = DynamicObjectModels.BoolHolder(value: [true])
        try realm.write { typed.anyCol = .object(linked) }
        let held = try #require(object["anyCol"] as? DynamicObject)
        #expect(held.isSameObject(as: linked) && held["boolCol"] as? Bool == true)
        #expect((object.anyCol as? DynamicObject)?.boolCol as? Bool == true)

        try realm.write { object["anyCol"] = "hello" }
        #expect(typed.anyCol == .string("hello") && object["anyCol"] as? String == "hello")
        try realm.write { object.anyCol = 12345 }
        #expect(typed.anyCol == .int(12345) && object.anyCol as? Int == 12345)
        try realm.write { object["anyCol"] = Decimal128(5) }
        #expect(typed.anyCol == .decimal128(Decimal128(5)))

        let dynamicBool = try #require(realm.dynamicObjects("DynBool").first)
        try realm.write { object["anyCol"] = dynamicBool }
        guard case .object(let stored) = typed.anyCol else {
            Issue.record("expected a link, got \(typed.anyCol)")
            return
        }
        #expect(stored.isSameObject(as: linked))
        try realm.write { object["anyCol"] = nil }
        #expect(typed.anyCol == .none && object["anyCol"] == nil)
    }

    /// As RealmSwift's `testDynamicObjectAccessor`: a file holds a link (in an `AnyRealmValue`)
    /// to an object of a class the realm is later opened without; the link reads as a
    /// `DynamicObject` of the stored class.
    @Test func testALinkToAClassLeftOutOfObjectTypesReadsAsADynamicObject() throws {
        var configuration = temporaryConfiguration()
        configuration.objectTypes = Self.types
        do {
            let realm = try Realm(configuration: configuration)
            try realm.write {
                let keyed = try realm.create(DynamicObjectModels.StringKeyed.self, value: ["key": "k", "count": 3])
                try realm.create(DynamicObjectModels.AllTypes.self, value: ["id": 1, "anyCol": AnyRealmValue.object(keyed)])
            }
        }
        configuration.objectTypes = [DynamicObjectModels.AllTypes.self, DynamicObjectModels.BoolHolder.self, DynamicObjectModels.Embedded.self]
        let realm = try Realm(configuration: configuration)
        #expect((realm.dynamicObjects("DynAllTypes").first?["anyCol"] as? DynamicObject)?["count"] as? Int == 3)
        let typed = try #require(realm.objects(DynamicObjectModels.AllTypes.self).first)
        let held = try #require(typed.anyCol.object(DynamicObject.self), "\(typed.anyCol)")
        #expect(held["key"] as? String == "k" && held.count as? Int == 3)
        #expect(held.objectSchema.className == "DynStringKeyed")
    }

    // MARK: Observing one object

    @Test func testADynamicObjectsStreamNamesTheChangedPropertiesThenEndsWithItsDeletion() async throws {
        let (realm, typed, object) = try seeded()
        let changes = object.changes().makeAsyncIterator()
        try realm.write { typed.intCol = 43 }
        guard case .change(let frozen, let properties) = await next(changes) else {
            Issue.record("expected a change")
            return
        }
        #expect(frozen.frozenObject["intCol"] as? Int == 43)
        #expect(properties.map(\.name) == ["intCol"])
        #expect(properties.first?.oldValue as? Int == 42 && properties.first?.newValue as? Int == 43)

        try realm.write { object["stringCol"] = "changed by name" }
        guard case .change(_, let named) = await next(changes) else {
            Issue.record("expected a change")
            return
        }
        #expect(named.map(\.name) == ["stringCol"] && named.first?.newValue as? String == "changed by name")

        try realm.write { try realm.delete(typed) }
        guard case .deleted = await next(changes) else {
            Issue.record("expected deleted")
            return
        }
        #expect(object.isInvalidated)
    }

    // MARK: Embedded objects

    @Test func testEmbeddedObjectsReadAsDynamicObjectsAndAreSetFromValues() throws {
        let (realm, typed, object) = try seeded()
        try realm.write {
            typed.embeddedCol = DynamicObjectModels.Embedded(value: ["value": 5, "note": "five"])
            typed.embeddedList.append(DynamicObjectModels.Embedded(value: ["value": 9]))
        }
        let embedded = try #require(object["embeddedCol"] as? DynamicObject)
        #expect(embedded["value"] as? Int == 5 && embedded["note"] as? String == "five")
        #expect(embedded.objectSchema.isEmbedded)
        let list = try #require(object["embeddedList"] as? List<DynamicObject>)
        #expect(list.count == 1 && list[0]["value"] as? Int == 9 && list[0]["note"] == nil)

        try realm.write {
            embedded["value"] = 6
            object["embeddedList"] = [["value": 1], ["value": 2, "note": "two"]]
        }
        #expect(typed.embeddedCol?.value == 6)
        #expect(typed.embeddedList.map(\.value) == [1, 2] && typed.embeddedList[1].note == "two")
        try realm.write { object["embeddedCol"] = ["value": 7] }
        #expect(typed.embeddedCol?.value == 7 && typed.embeddedCol?.note == nil)
        #expect(realm.dynamicObjects("DynEmbedded").count == 3, "a replaced embedded object is deleted with its parent's link")
    }

    @Test func testDynamicCreateOfAnEmbeddedClassThrows() throws {
        let realm = try realm()
        try realm.write {
            let error = #expect(throws: RealmError.self) { try realm.dynamicCreate("DynEmbedded", value: ["value": 1]) }
            #expect(error?.code == .invalidArgument)
        }
        #expect(realm.dynamicObjects("DynEmbedded").count == 0)
    }

    // MARK: Results

    @Test func testDynamicObjectsCountFilterSortAndIterate() throws {
        let realm = try realm()
        try realm.write {
            for (key, count) in [("b", 200), ("a", 100), ("c", 300)] {
                try realm.create(DynamicObjectModels.StringKeyed.self, value: ["key": key, "count": count])
            }
        }
        let objects = realm.dynamicObjects("DynStringKeyed")
        #expect(objects.count == 3)
        #expect(realm.dynamicObjects("DynBool").count == 0, "a class with no objects yet")
        #expect(Set(objects.map { $0["key"] as? String }) == ["a", "b", "c"])
        var seen: [String] = []
        for object in objects { seen.append(object["key"] as! String) }
        #expect(seen == objects.map { $0["key"] as! String }, "iterating gives the results in their order")
        #expect(objects[0].isSameObject(as: objects.first) && objects[2].isSameObject(as: objects.last))
        let big = try objects.filter("count > %@", 150)
        #expect(big.count == 2)
        #expect(big.sorted(byKeyPath: "count", ascending: false).map { $0["key"] as? String } == ["c", "b"])
        #expect(objects.sorted(byKeyPath: "key").map { $0["count"] as? Int } == [100, 200, 300])
        #expect(objects.max(ofProperty: "count") as Int? == 300)
        #expect(objects.first?.objectSchema.className == "DynStringKeyed")
        #expect(objects.first?.objectSchema.primaryKeyProperty?.name == "key")

        // The results are live: a typed write shows in them.
        try realm.write { try realm.create(DynamicObjectModels.StringKeyed.self, value: ["key": "d", "count": 400]) }
        #expect(objects.count == 4 && big.count == 3)

        // They delete like any results.
        try realm.write { try realm.delete(try objects.filter("count >= %@", 300)) }
        #expect(Set(realm.objects(DynamicObjectModels.StringKeyed.self).map(\.key)) == ["a", "b"] && big.count == 1)
    }

    @Test func testDynamicObjectsStreamReportsEachCommit() async throws {
        let realm = try realm()
        try realm.write { try realm.dynamicCreate("DynStringKeyed", value: ["key": "a", "count": 1]) }
        let changes = realm.dynamicObjects("DynStringKeyed").sorted(byKeyPath: "key").changes().makeAsyncIterator()
        guard case .initial(let initial) = await next(changes) else {
            Issue.record("no initial element")
            return
        }
        #expect(initial.map { $0.frozenObject["key"] as? String } == ["a"])

        try realm.write { try realm.dynamicCreate("DynStringKeyed", value: ["key": "b", "count": 2]) }
        guard case .update(let inserted, let deletions, let insertions, _) = await next(changes) else {
            Issue.record("no update")
            return
        }
        #expect(inserted.map { $0.frozenObject["key"] as? String } == ["a", "b"] && insertions == [1] && deletions == [])

        try realm.write { realm.dynamicObject(ofType: "DynStringKeyed", forPrimaryKey: "a")!["count"] = 10 }
        guard case .update(let modified, _, _, let modifications) = await next(changes) else {
            Issue.record("no update")
            return
        }
        #expect(modifications == [0] && modified.first?.frozenObject["count"] as? Int == 10)

        try realm.write { try realm.delete(realm.dynamicObject(ofType: "DynStringKeyed", forPrimaryKey: "a")!) }
        guard case .update(let remaining, let deleted, _, _) = await next(changes) else {
            Issue.record("no update")
            return
        }
        #expect(deleted == [0] && remaining.map { $0.frozenObject["key"] as? String } == ["b"])
    }

    @Test func testDynamicObjectForPrimaryKeyFindsTheObjectOrNil() throws {
        let realm = try realm()
        try realm.write {
            try realm.create(DynamicObjectModels.StringKeyed.self, value: ["key": "a", "count": 1])
            try realm.create(DynamicObjectModels.StringKeyed.self, value: ["key": "b", "count": 2])
            try realm.create(DynamicObjectModels.AllTypes.self, value: ["id": 7])
        }
        let a = try #require(realm.dynamicObject(ofType: "DynStringKeyed", forPrimaryKey: "a"))
        #expect(a["count"] as? Int == 1 && a["key"] as? String == "a")
        #expect(realm.dynamicObject(ofType: "DynStringKeyed", forPrimaryKey: "z") == nil)
        #expect(realm.dynamicObject(ofType: "DynAllTypes", forPrimaryKey: 7)?["id"] as? Int == 7)
        #expect(realm.dynamicObject(ofType: "DynAllTypes", forPrimaryKey: 8) == nil)
        #expect(a.isSameObject(as: realm.object(ofType: DynamicObjectModels.StringKeyed.self, forPrimaryKey: "a")))
    }

    // MARK: dynamicCreate

    @Test func testDynamicCreateTakesADictionaryOrAnArray() throws {
        let realm = try realm()
        let (fromDictionary, fromArray) = try realm.write {
            (
                try realm.dynamicCreate("DynStringKeyed", value: ["key": "d", "count": 4]),
                try realm.dynamicCreate("DynStringKeyed", value: ["e", 5, "given"])
            )
        }
        #expect(fromDictionary["key"] as? String == "d" && fromDictionary["count"] as? Int == 4)
        #expect(fromDictionary["label"] as? String == "default label", "a property not given takes the Swift class's default")
        #expect(fromArray["key"] as? String == "e" && fromArray["count"] as? Int == 5 && fromArray["label"] as? String == "given")
        #expect(fromDictionary.realm != nil && fromArray.realm != nil)
        #expect(Set(realm.objects(DynamicObjectModels.StringKeyed.self).map(\.key)) == ["d", "e"])
        #expect(realm.object(ofType: DynamicObjectModels.StringKeyed.self, forPrimaryKey: "e")?.label == "given")

        // Outside a write it throws, as every change does.
        let outside = #expect(throws: RealmError.self) { try realm.dynamicCreate("DynStringKeyed", value: ["key": "f"]) }
        #expect(outside?.code == .wrongState)
        #expect(realm.objects(DynamicObjectModels.StringKeyed.self).count == 2)
    }

    @Test func testDynamicCreateUpdatePolicies() throws {
        let realm = try realm()
        try realm.write { try realm.dynamicCreate("DynStringKeyed", value: ["key": "a", "count": 1, "label": "first"]) }

        let duplicate = #expect(throws: RealmError.self) {
            try realm.write { try realm.dynamicCreate("DynStringKeyed", value: ["key": "a", "count": 2]) }
        }
        #expect(duplicate?.code == .primaryKeyExists)
        let stored = try #require(realm.object(ofType: DynamicObjectModels.StringKeyed.self, forPrimaryKey: "a"))
        #expect(stored.count == 1 && stored.label == "first")

        // .modified and .all update the existing object with the properties given, and keep the rest.
        let modified = try realm.write { try realm.dynamicCreate("DynStringKeyed", value: ["key": "a", "count": 2], update: .modified) }
        #expect(modified.isSameObject(as: stored) && stored.count == 2 && stored.label == "first")
        try realm.write { try realm.dynamicCreate("DynStringKeyed", value: ["key": "a", "label": "all"], update: .all) }
        #expect(stored.count == 2 && stored.label == "all")
        // With no object of that key they create one.
        try realm.write { try realm.dynamicCreate("DynStringKeyed", value: ["key": "b"], update: .modified) }
        #expect(realm.objects(DynamicObjectModels.StringKeyed.self).count == 2)
        #expect(realm.object(ofType: DynamicObjectModels.StringKeyed.self, forPrimaryKey: "b")?.label == "default label")
    }

    @Test func testNestedDictionariesAndArraysCreateTheLinkedObjects() throws {
        let realm = try realm()
        let created = try realm.write {
            try realm.dynamicCreate(
                "DynAllTypes",
                value: [
                    "id": 9,
                    "objectCol": ["boolCol": true],
                    "arrayCol": [["boolCol": true], [false]],
                    "setCol": [[true]],
                    "mapCol": ["k": ["boolCol": false]],
                    "embeddedCol": ["value": 3],
                    "embeddedList": [[4, "four"]],
                    "intList": [1, 2],
                ] as [String: Any])
        }
        #expect(realm.objects(DynamicObjectModels.BoolHolder.self).count == 5)
        let typed = try #require(realm.object(ofType: DynamicObjectModels.AllTypes.self, forPrimaryKey: 9))
        #expect(typed.isSameObject(as: created))
        #expect(typed.objectCol?.boolCol == true)
        #expect(typed.arrayCol.map(\.boolCol) == [true, false])
        #expect(typed.setCol.count == 1 && typed.mapCol["k"]??.boolCol == false)
        #expect(typed.embeddedCol?.value == 3 && typed.embeddedList.first?.note == "four")
        #expect(Array(typed.intList) == [1, 2])
        #expect((created["objectCol"] as? DynamicObject)?["boolCol"] as? Bool == true)

        // Setting a dictionary on a dynamic object's link creates the linked object too.
        try realm.write { created["objectCol"] = ["boolCol": false] }
        #expect(typed.objectCol?.boolCol == false && realm.objects(DynamicObjectModels.BoolHolder.self).count == 6)
    }

    @Test func testADeepChainOfNestedDictionariesDoesNotOverflowTheStack() async {
        await #expect(processExitsWith: .success) {
            let depth = DeepNestedValueTests.depth
            let value = DeepNestedValueTests.links(depth)
            let realm = try DynamicObjectTests.inMemoryRealm("dyn-deep-chain")
            let head = try realm.write { try realm.dynamicCreate("DynChain", value: value) }
            guard realm.dynamicObjects("DynChain").count == depth else { exit(3) }
            var current = head
            var steps = 0
            while let next = current["next"] as? DynamicObject {
                guard next["index"] as? Int == steps + 1 else { exit(4) }
                current = next
                steps += 1
            }
            guard steps == depth - 1 else { exit(5) }
            // A deep chain of lists too.
            let lists = DeepNestedValueTests.lists(depth)
            _ = try realm.write { try realm.dynamicCreate("DynChain", value: lists) }
            guard realm.dynamicObjects("DynChain").count == 2 * depth else { exit(6) }
        }
    }

    // MARK: Errors

    @Test func testAWrongValueThrowsAndChangesNothing() throws {
        let (realm, typed, object) = try seeded()
        let bools = realm.objects(DynamicObjectModels.BoolHolder.self).count
        try realm.write {
            for value in [
                ["id": 2, "intCol": "not a number"],
                ["id": 2, "objectCol": ["boolCol": "not a bool"]],
                ["id": 2, "arrayCol": [["boolCol": true], ["boolCol": 3.5]]],
                ["id": 2, "stringCol": NSNull()],
                ["id": 2, "objectCol": DynamicObjectModels.StringKeyed(value: ["key": "wrong class"])],
                ["id": 2, "noSuchProperty": 1],
            ] as [[String: Any]] {
                let error = #expect(throws: RealmError.self, "\(value)") { try realm.dynamicCreate("DynAllTypes", value: value) }
                #expect(error?.code == .invalidArgument, "\(value)")
            }
        }
        #expect(realm.objects(DynamicObjectModels.AllTypes.self).count == 1, "no object was created")
        #expect(realm.objects(DynamicObjectModels.BoolHolder.self).count == bools, "no linked object was created either")
        #expect(realm.objects(DynamicObjectModels.StringKeyed.self).count == 0)

        // A wrong value set by name fails the write's commit, which keeps none of its changes.
        for (name, value) in [
            ("intCol", "x" as Any?), ("stringCol", nil), ("objectCol", DynamicObjectModels.StringKeyed(value: ["key": "k"])),
            ("intList", ["a"]), ("noSuchProperty", 1),
        ] {
            let error = #expect(throws: RealmError.self, "\(name)") {
                try realm.write {
                    object["boolCol"] = false
                    object[name] = value
                }
            }
            #expect(error != nil, "\(name)")
            #expect(typed.boolCol == true, "\(name): the write's other change was not kept")
        }
        #expect(typed.intCol == 42 && typed.stringCol == "héllo" && typed.objectCol == nil && typed.intList.isEmpty)
    }

    /// A nil given as `NSNull`, or as an empty optional inside `Any` (as a `[String: Any]`
    /// built from optionals holds one), sets an optional property to nil, in a new object and
    /// in an update, as `create(_:value:update:)` does.
    @Test(arguments: ["NSNull", "empty optional"])
    func testNilInADictionaryOfValuesClearsAnOptionalProperty(_ shape: String) throws {
        let realm = try realm()
        try realm.write { try realm.create(DynamicObjectModels.StringKeyed.self, value: ["key": "a", "optCount": 1]) }
        let none: Int? = nil
        let nothing: Any = shape == "NSNull" ? NSNull() : none as Any
        do {
            try realm.write { try realm.dynamicCreate("DynStringKeyed", value: ["key": "b", "optCount": nothing]) }
        } catch {
            Issue.record("\(shape) in a new object: \(error)")
        }
        #expect(realm.object(ofType: DynamicObjectModels.StringKeyed.self, forPrimaryKey: "b")?.optCount == nil)
        for policy in [UpdatePolicy.modified, .all] {
            try realm.write { realm.object(ofType: DynamicObjectModels.StringKeyed.self, forPrimaryKey: "a")?.optCount = 2 }
            do {
                try realm.write { try realm.dynamicCreate("DynStringKeyed", value: ["key": "a", "optCount": nothing], update: policy) }
            } catch {
                Issue.record("\(shape) in an update (\(policy)): \(error)")
            }
            #expect(realm.object(ofType: DynamicObjectModels.StringKeyed.self, forPrimaryKey: "a")?.optCount == nil, "\(policy)")
        }
        // The typed API takes the same values.
        try realm.write { try realm.create(DynamicObjectModels.StringKeyed.self, value: ["key": "t", "optCount": nothing]) }
        #expect(realm.object(ofType: DynamicObjectModels.StringKeyed.self, forPrimaryKey: "t")?.optCount == nil)
    }

    @Test func testAPropertyTheClassLacksReadsAsNil() throws {
        let (_, _, object) = try seeded()
        #expect(object["noSuchProperty"] == nil)
        #expect(object.noSuchProperty == nil)
    }

    @Test func testDynamicCreateOfAClassTheFileLacksThrows() throws {
        let realm = try realm()
        try realm.write {
            let error = #expect(throws: RealmError.self) { try realm.dynamicCreate("NoSuchClass", value: [:] as [String: Any]) }
            #expect(error?.code == .invalidArgument)
        }
    }

    @Test func testDynamicObjectsOfAClassTheFileLacksTraps() async {
        let results = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try DynamicObjectTests.inMemoryRealm("dyn-unknown-class")
            _ = realm.dynamicObjects("NoSuchClass")
        }
        let resultsMessage = standardError(of: results)
        #expect(resultsMessage.contains("NoSuchClass"), "\(resultsMessage)")
        let byKey = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try DynamicObjectTests.inMemoryRealm("dyn-unknown-class-2")
            _ = realm.dynamicObject(ofType: "NoSuchClass", forPrimaryKey: 1)
        }
        let byKeyMessage = standardError(of: byKey)
        #expect(byKeyMessage.contains("NoSuchClass"), "\(byKeyMessage)")
    }

    /// RealmSwift throws an Objective-C exception (a crash in Swift) when a primary key cannot
    /// be of the key's type, or the class has no primary key.
    @Test func testLookingUpByAPrimaryKeyOfTheWrongTypeOrWithoutOneTraps() async {
        let wrongType = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try DynamicObjectTests.inMemoryRealm("dyn-wrong-key")
            _ = realm.dynamicObject(ofType: "DynStringKeyed", forPrimaryKey: 1)
        }
        let wrongTypeMessage = standardError(of: wrongType)
        #expect(wrongTypeMessage.contains("DynStringKeyed"), "\(wrongTypeMessage)")
        let noKey = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try DynamicObjectTests.inMemoryRealm("dyn-no-key")
            _ = realm.dynamicObject(ofType: "DynBool", forPrimaryKey: 1)
        }
        let noKeyMessage = standardError(of: noKey)
        #expect(noKeyMessage.contains("primary key"), "\(noKeyMessage)")
    }

    /// Changing a managed dynamic object outside a write transaction, or a frozen one, traps,
    /// as it does for any object (and in RealmSwift).
    @Test func testChangingOutsideAWriteOrWhileFrozenTraps() async {
        await #expect(processExitsWith: .failure) {
            let realm = try DynamicObjectTests.inMemoryRealm("dyn-outside-write")
            let object = try realm.write { try realm.dynamicCreate("DynStringKeyed", value: ["key": "a"]) }
            object["count"] = 1
        }
        await #expect(processExitsWith: .failure) {
            let realm = try DynamicObjectTests.inMemoryRealm("dyn-frozen-write")
            let object = try realm.write { try realm.dynamicCreate("DynStringKeyed", value: ["key": "a"]) }
            let frozen = try object.freeze().frozenObject
            try realm.write { frozen["count"] = 1 }
        }
    }

    // MARK: Freezing

    @Test func testAFrozenDynamicObjectKeepsItsVersion() throws {
        let realm = try realm()
        try realm.write {
            try realm.create(
                DynamicObjectModels.AllTypes.self, value: ["id": 1, "intCol": 1, "arrayCol": [[true]], "setCol": [[true]], "objectCol": [true]])
        }
        let live = try #require(realm.dynamicObjects("DynAllTypes").first)
        let frozen = try live.freeze()
        let object = frozen.frozenObject
        #expect(object.isFrozen && !live.isFrozen)
        #expect(object.dynamicList("arrayCol").isFrozen)
        #expect(object.dynamicList("arrayCol").first?.isFrozen == true)
        #expect(object.dynamicMutableSet("setCol").isFrozen)
        #expect(object.dynamicMutableSet("setCol").first?.isFrozen == true)
        #expect((object["objectCol"] as? DynamicObject)?.isFrozen == true)
        #expect((object["arrayCol"] as? List<DynamicObject>)?.isFrozen == true)

        try realm.write {
            live["intCol"] = 2
            (live["arrayCol"] as! List<DynamicObject>).removeAll()
        }
        #expect(object["intCol"] as? Int == 1, "a frozen object reads the version it was frozen at")
        #expect(object.dynamicList("arrayCol").count == 1)
        #expect(live["intCol"] as? Int == 2)

        let frozenResults = try realm.dynamicObjects("DynAllTypes").freeze()
        #expect(frozenResults.first?.frozenObject["intCol"] as? Int == 2)

        // A frozen realm's dynamic objects are frozen too.
        let frozenRealm = try realm.freeze()
        let fromFrozenRealm = try #require(frozenRealm.dynamicObjects("DynAllTypes").first)
        #expect(fromFrozenRealm.isFrozen && fromFrozenRealm["intCol"] as? Int == 2)
        try realm.write { live["intCol"] = 3 }
        #expect(fromFrozenRealm["intCol"] as? Int == 2 && frozenRealm.dynamicObjects("DynAllTypes").count == 1)
    }
}
