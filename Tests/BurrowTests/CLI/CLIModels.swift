import Foundation
import Testing

@testable import Burrow

/// The classes the tool's tests write, outside the test program's default schema: a pet
/// shop with every kind of link (to classes with and without primary keys, embedded objects
/// in embedded objects, links inside embedded objects) and a class with every property type.
/// Each is stored under the name it had before it was namespaced, which the tool shows.
enum CLIModels {
    final class Owner: Object {
        override class func _realmObjectName() -> String? { "CLIOwner" }
        @Persisted(primaryKey: true) var name = ""
        @Persisted var age: Int?
        @Persisted(indexed: true) var city = ""
        @Persisted var pets: List<CLIModels.Pet>
        @Persisted var home: CLIModels.Address?
        @Persisted var badge: CLIModels.Badge?
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
    }

    final class Pet: Object {
        override class func _realmObjectName() -> String? { "CLIPet" }
        @Persisted(primaryKey: true) var _id: ObjectId
        @Persisted var name = ""
        @Persisted var weight = 0.0
        @Persisted var owner: CLIModels.Owner?
        @Persisted var badges: List<CLIModels.Badge>
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
    }

    /// A class without a primary key, linked from others and linking back.
    final class Badge: Object {
        override class func _realmObjectName() -> String? { "CLIBadge" }
        @Persisted var label = ""
        @Persisted var pet: CLIModels.Pet?
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
    }

    final class Address: EmbeddedObject {
        override class func _realmObjectName() -> String? { "CLIAddress" }
        @Persisted var street = ""
        @Persisted var number: Int?
        @Persisted var resident: CLIModels.Pet?
        @Persisted var badge: CLIModels.Badge?
        @Persisted var previous: CLIModels.Address?
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
    }

    final class Values: Object {
        override class func _realmObjectName() -> String? { "CLIValues" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var bool = false
        @Persisted var int = 0
        @Persisted var int8: Int8 = 0
        @Persisted var int16: Int16 = 0
        @Persisted var int32: Int32 = 0
        @Persisted var int64: Int64 = 0
        @Persisted var float: Float = 0
        @Persisted var double = 0.0
        @Persisted var string = ""
        @Persisted var data = Data()
        @Persisted var date = Date(timeIntervalSince1970: 0)
        @Persisted var objectId = ObjectId()
        @Persisted var uuid = UUID(uuidString: "00000000-0000-0000-0000-000000000000")!
        @Persisted var decimal = Decimal128(0)
        @Persisted var optBool: Bool?
        @Persisted var optInt: Int?
        @Persisted var optFloat: Float?
        @Persisted var optDouble: Double?
        @Persisted var optString: String?
        @Persisted var optData: Data?
        @Persisted var optDate: Date?
        @Persisted var optObjectId: ObjectId?
        @Persisted var optUUID: UUID?
        @Persisted var optDecimal: Decimal128?
        @Persisted var any: AnyRealmValue
        @Persisted var ints: List<Int>
        @Persisted var optStrings: List<String?>
        @Persisted var dates: List<Date>
        @Persisted var datas: List<Data>
        @Persisted var decimals: List<Decimal128>
        @Persisted var anys: List<AnyRealmValue>
        @Persisted var stringSet: MutableSet<String>
        @Persisted var uuidSet: MutableSet<UUID>
        @Persisted var doubleMap: Map<String, Double?>
        @Persisted var anyMap: Map<String, AnyRealmValue>
        @Persisted var pet: CLIModels.Pet?
        @Persisted var badge: CLIModels.Badge?
        @Persisted var petSet: MutableSet<CLIModels.Pet>
        @Persisted var petMap: Map<String, CLIModels.Pet?>
        @Persisted var badges: List<CLIModels.Badge>
        @Persisted var addresses: List<CLIModels.Address>
        @Persisted var addressMap: Map<String, CLIModels.Address?>
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
    }
}

/// The pet shop the tests write, and what they expect to read back.
enum CLIShop {
    static let types: [ObjectBase.Type] = [
        CLIModels.Owner.self, CLIModels.Pet.self, CLIModels.Badge.self, CLIModels.Address.self, CLIModels.Values.self,
    ]
    static let rexId = try! ObjectId(string: "65a000000000000000000001")
    static let tomId = try! ObjectId(string: "65a000000000000000000002")
    static let kitId = try! ObjectId(string: "65a000000000000000000003")
    /// Seconds since 2001 that no millisecond rounding keeps.
    static let oddDate = Date(timeIntervalSinceReferenceDate: 123_456_789.123_456_78)
    static let oldDate = Date(timeIntervalSinceReferenceDate: -3_000_000_000.5)
    static let uuidA = UUID(uuidString: "AAAAAAAA-0000-4000-8000-000000000001")!
    static let uuidB = UUID(uuidString: "BBBBBBBB-0000-4000-8000-000000000002")!

    static func configuration(_ path: String) -> Realm.Configuration {
        var configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: path))
        configuration.objectTypes = types
        return configuration
    }

    /// Writes the shop to a new file at `path` and closes it (the tool opens it next).
    static func write(to path: String) throws {
        let realm = try Realm(configuration: configuration(path))
        try realm.write {
            let ann = try realm.create(CLIModels.Owner.self, value: ["name": "Ann", "age": 41, "city": "Oslo"])
            let bo = try realm.create(CLIModels.Owner.self, value: ["name": "Bo", "age": 29, "city": "Bergen"])
            let cy = try realm.create(CLIModels.Owner.self, value: ["name": "Cy", "city": "Oslo, \"Norway\""])
            let rex = try realm.create(CLIModels.Pet.self, value: ["_id": rexId, "name": "Rex", "weight": 12.5, "owner": ann])
            let tom = try realm.create(CLIModels.Pet.self, value: ["_id": tomId, "name": "Tom", "weight": 4.25, "owner": ann])
            let kit = try realm.create(CLIModels.Pet.self, value: ["_id": kitId, "name": "Kit", "weight": 0.5, "owner": bo])
            let gold = try realm.create(CLIModels.Badge.self, value: ["label": "gold", "pet": rex])
            let silver = try realm.create(CLIModels.Badge.self, value: ["label": "silver"])
            ann.pets.append(objectsIn: [rex, tom])
            bo.pets.append(kit)
            rex.badges.append(objectsIn: [gold, silver, gold])
            ann.badge = silver
            ann.home = CLIModels.Address(value: [
                "street": "1 Main St", "number": 5, "resident": tom, "badge": gold,
                "previous": ["street": "2 Old Rd", "resident": kit, "previous": ["street": "3 First Ln"]],
            ])
            _ = cy
            try realm.create(
                CLIModels.Values.self,
                value: [
                    "id": 1, "bool": true, "int": -5, "int8": Int8(-8), "int16": Int16(16), "int32": Int32(-32), "int64": Int64.min,
                    "float": Float(1.1), "double": 0.1 + 0.2, "string": "ü \"q\", line\nbreak", "data": Data([0xde, 0xad, 0, 0xff]),
                    "date": oddDate, "objectId": rexId, "uuid": uuidA, "decimal": try Decimal128(string: "-1234.5678e-3"),
                    "optBool": false, "optInt": Int.max, "optFloat": Float.infinity, "optDouble": Double.nan, "optString": "",
                    "optData": Data(), "optDate": oldDate, "optObjectId": tomId, "optUUID": uuidB, "optDecimal": Decimal128(7),
                    "any": AnyRealmValue.object(kit),
                    "ints": [3, -1, 3], "optStrings": ["a", nil, ""] as [String?], "dates": [oddDate, oldDate],
                    "datas": [Data([1]), Data()], "decimals": [Decimal128(1), try Decimal128(string: "0.001")],
                    "anys": [
                        AnyRealmValue.none, .int(7), .bool(true), .float(2.5), .double(3.0), .double(-.infinity), .string("s"),
                        .data(Data([9, 8])), .date(oddDate), .objectId(tomId), .uuid(uuidB), .decimal128(Decimal128(12)),
                        .object(gold), .object(ann),
                    ],
                    "stringSet": ["y", "x"], "uuidSet": [uuidA], "doubleMap": ["a": 1.5, "n": nil] as [String: Double?],
                    "anyMap": ["i": AnyRealmValue.int(1), "p": .object(rex), "s": .string("t")],
                    "pet": tom, "badge": gold, "petSet": [rex, kit], "petMap": ["best": rex, "none": nil] as [String: CLIModels.Pet?],
                    "badges": [silver, gold],
                    "addresses": [
                        ["street": "4 List St", "resident": rex], ["street": "5 List St", "previous": ["street": "6 Inner St", "badge": silver]],
                    ],
                    "addressMap": ["home": ["street": "7 Map St", "number": 7, "resident": kit] as [String: Any], "none": NSNull()] as [String: Any],
                ] as [String: Any])
            // An AnyRealmValue holding a dictionary that holds a list, a link among its values.
            try realm.create(
                CLIModels.Values.self,
                value: [
                    "id": 2,
                    "any": AnyRealmValue.fromDictionary([
                        "pets": .fromArray([.object(rex), .none, .fromArray([])]), "deep": .fromDictionary(["n": .int(-1)]),
                    ]),
                ])
        }
    }
}
