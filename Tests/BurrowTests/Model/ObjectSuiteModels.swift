import Burrow
import Foundation
import Testing

// Models shared by CloseAndReopenTests, RollbackTests, ErrorTests, TrapTests,
// ConcurrencyStressTests and FrozenTests. Every class name here is distinct from the models in
// CommonModels.swift, and none is stored under another class's name.

enum RTColor: Int, PersistableEnum {
    case red = 1
    case green = 2
    case blue = 3
}
enum RTMood: String, PersistableEnum { case calm, wild, sleepy }

/// The models of the object suites. They keep their RT names, which the suites' messages show
/// (`Property 'next' links to RTNode`), and so are stored under the names they had at the top level.
enum ObjectSuiteModels {
    /// A link target, with the inverse of both kinds of link to it.
    final class RTTarget: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var label = ""
        @Persisted(originProperty: "link") var linkedFrom: LinkingObjects<ObjectSuiteModels.RTEverything>
        @Persisted(originProperty: "targets") var listedIn: LinkingObjects<ObjectSuiteModels.RTEverything>
    }

    /// An embedded object with a value, an optional and a list of its own.
    final class RTPlace: EmbeddedObject {
        @Persisted var street = ""
        @Persisted var number: Int?
        @Persisted var tags: List<String>
    }

    /// One property of every type the object layer stores: every scalar, the optional of every
    /// scalar, `AnyRealmValue`, lists of scalars, optionals and mixed values, a to-one link, a list
    /// of links, an embedded object and a list of embedded objects.
    final class RTEverything: Object {
        @Persisted(primaryKey: true) var id = ""
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
        @Persisted var uuid = UUID()
        @Persisted var decimal = Decimal128()
        @Persisted var color = RTColor.red
        @Persisted var mood = RTMood.calm

        @Persisted var optBool: Bool?
        @Persisted var optInt: Int?
        @Persisted var optInt8: Int8?
        @Persisted var optInt16: Int16?
        @Persisted var optInt32: Int32?
        @Persisted var optInt64: Int64?
        @Persisted var optFloat: Float?
        @Persisted var optDouble: Double?
        @Persisted var optString: String?
        @Persisted var optData: Data?
        @Persisted var optDate: Date?
        @Persisted var optObjectId: ObjectId?
        @Persisted var optUUID: UUID?
        @Persisted var optDecimal: Decimal128?
        @Persisted var optColor: RTColor?
        @Persisted var optMood: RTMood?

        @Persisted var any: AnyRealmValue

        @Persisted var bools: List<Bool>
        @Persisted var ints: List<Int>
        @Persisted var int8s: List<Int8>
        @Persisted var int64s: List<Int64>
        @Persisted var floats: List<Float>
        @Persisted var doubles: List<Double>
        @Persisted var strings: List<String>
        @Persisted var datas: List<Data>
        @Persisted var dates: List<Date>
        @Persisted var objectIds: List<ObjectId>
        @Persisted var uuids: List<UUID>
        @Persisted var decimals: List<Decimal128>
        @Persisted var colors: List<RTColor>
        @Persisted var optInts: List<Int?>
        @Persisted var optStrings: List<String?>
        @Persisted var anys: List<AnyRealmValue>

        @Persisted var link: ObjectSuiteModels.RTTarget?
        @Persisted var targets: List<ObjectSuiteModels.RTTarget>
        @Persisted var place: ObjectSuiteModels.RTPlace?
        @Persisted var places: List<ObjectSuiteModels.RTPlace>
    }

    /// An `AnyRealmValue` holder, one object per case.
    final class RTMixed: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var value: AnyRealmValue
    }

    /// A node of a graph: links to itself allow chains and cycles.
    final class RTNode: Object {
        @Persisted(primaryKey: true) var name = ""
        @Persisted var weight = 0
        @Persisted var next: ObjectSuiteModels.RTNode?
        @Persisted var children: List<ObjectSuiteModels.RTNode>
        @Persisted var home: ObjectSuiteModels.RTPlace?
        @Persisted(originProperty: "next") var previous: LinkingObjects<ObjectSuiteModels.RTNode>
    }

    /// A class without a primary key.
    final class RTNote: Object {
        @Persisted var text = ""
        @Persisted var stars = 0
    }

    /// Sets and maps of values, optionals, mixed values, links and embedded objects.
    final class RTCollections: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var strings: MutableSet<String>
        @Persisted var ints: MutableSet<Int>
        @Persisted var datas: MutableSet<Data>
        @Persisted var dates: MutableSet<Date>
        @Persisted var uuids: MutableSet<UUID>
        @Persisted var optInts: MutableSet<Int?>
        @Persisted var anys: MutableSet<AnyRealmValue>
        @Persisted var targets: MutableSet<ObjectSuiteModels.RTTarget>
        @Persisted var scores: Map<String, Int>
        @Persisted var nicknames: Map<String, String?>
        @Persisted var mixed: Map<String, AnyRealmValue>
        @Persisted var linked: Map<String, ObjectSuiteModels.RTTarget?>
        @Persisted var places: Map<String, ObjectSuiteModels.RTPlace?>
    }

    /// Primary keys of every key type, and indexed properties.
    final class RTIntKey: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var value = ""
    }

    final class RTStringKey: Object {
        @Persisted(primaryKey: true) var id = ""
        @Persisted var value = 0
    }

    final class RTObjectIdKey: Object {
        @Persisted(primaryKey: true) var id: ObjectId
        @Persisted var value = 0
    }

    final class RTUUIDKey: Object {
        @Persisted(primaryKey: true) var id: UUID
        @Persisted var value = 0
    }

    final class RTOptionalKey: Object {
        @Persisted(primaryKey: true) var id: Int?
        @Persisted var value = 0
    }

    final class RTIndexed: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted(indexed: true) var text = ""
        @Persisted(indexed: true) var when = Date(timeIntervalSince1970: 0)
        @Persisted(indexed: true) var flag = false
        @Persisted(indexed: true) var count: Int?
    }

    /// Large values.
    final class RTBlob: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var data = Data()
        @Persisted var text = ""
        @Persisted var numbers: List<Int>
        @Persisted var blobs: List<Data>
    }
}

/// Fixed values that every suite writes and expects back.
enum RTFixture {
    static let date = Date(timeIntervalSince1970: 1_700_000_000.123_456)
    static let otherDate = Date(timeIntervalSinceReferenceDate: -123_456_789.5)
    static let objectId = try! ObjectId(string: "6553f100a1b2c3d4e5f60718")
    static let otherObjectId = try! ObjectId(string: "000000000000000000000001")
    static let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
    static let otherUUID = UUID(uuidString: "00000000-0000-0000-0000-000000000001")!
    static let decimal = try! Decimal128(string: "-12345.678901234567890123456789")
    static let otherDecimal = Decimal128(42)
    static let data = Data([0, 1, 2, 0x7F, 0x80, 0xFE, 0xFF])
    static let bigData = Data((0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
    static let string = "héllo wörld ✓ 日本語 🐕"
    static let longString = String(repeating: "abcdefghij", count: 1_000)

    /// An unmanaged object with every property set to a non-default value (optionals non-nil),
    /// linking to two new targets and holding new embedded objects.
    static func full(id: String, targetBase: Int = 0) -> ObjectSuiteModels.RTEverything {
        let o = ObjectSuiteModels.RTEverything()
        o.id = id
        o.bool = true
        o.int = Int.min
        o.int8 = .min
        o.int16 = .max
        o.int32 = .min
        o.int64 = .max
        o.float = -3.4e38
        o.double = .leastNonzeroMagnitude
        o.string = string
        o.data = bigData
        o.date = date
        o.objectId = objectId
        o.uuid = uuid
        o.decimal = decimal
        o.color = .blue
        o.mood = .wild

        o.optBool = false
        o.optInt = 0
        o.optInt8 = .max
        o.optInt16 = .min
        o.optInt32 = .max
        o.optInt64 = .min
        o.optFloat = .infinity
        o.optDouble = -0.0
        o.optString = ""
        o.optData = Data()
        o.optDate = otherDate
        o.optObjectId = otherObjectId
        o.optUUID = otherUUID
        o.optDecimal = otherDecimal
        o.optColor = .green
        o.optMood = .sleepy

        o.any = .string("mixed")

        o.bools.append(objectsIn: [true, false, true])
        o.ints.append(objectsIn: [3, -1, 3, Int.max])
        o.int8s.append(objectsIn: [Int8.min, 0, Int8.max])
        o.int64s.append(objectsIn: [Int64.min, Int64.max])
        o.floats.append(objectsIn: [1.5, -0.25])
        o.doubles.append(objectsIn: [.pi, -.infinity, 1e-300])
        o.strings.append(objectsIn: ["", "a", string, longString])
        o.datas.append(objectsIn: [Data(), data])
        o.dates.append(objectsIn: [date, otherDate, .distantPast, .distantFuture])
        o.objectIds.append(objectsIn: [objectId, otherObjectId])
        o.uuids.append(objectsIn: [uuid, otherUUID])
        o.decimals.append(objectsIn: [decimal, otherDecimal, Decimal128(0)])
        o.colors.append(objectsIn: [.green, .red, .green])
        o.optInts.append(objectsIn: [1, nil, 3])
        o.optStrings.append(objectsIn: [nil, "", "x"])
        o.anys.append(objectsIn: [
            .none, .int(7), .string("s"), .double(2.5), .bool(true), .data(data), .date(date),
            .objectId(objectId), .uuid(uuid), .decimal128(decimal), .float(0.5),
        ])

        o.link = ObjectSuiteModels.RTTarget(value: ["id": targetBase + 1, "label": "one"])
        o.targets.append(objectsIn: [
            ObjectSuiteModels.RTTarget(value: ["id": targetBase + 2, "label": "two"]),
            ObjectSuiteModels.RTTarget(value: ["id": targetBase + 3, "label": "three"]),
        ])
        let place = ObjectSuiteModels.RTPlace()
        place.street = "1 Main Street"
        place.number = 12
        place.tags.append(objectsIn: ["corner", "red door"])
        o.place = place
        let first = ObjectSuiteModels.RTPlace()
        first.street = "First"
        let second = ObjectSuiteModels.RTPlace()
        second.street = "Second"
        second.number = -2
        o.places.append(objectsIn: [first, second])
        return o
    }

    /// Expects `o` to hold exactly what `full(id:targetBase:)` put in it (managed or not).
    static func expectFull(_ o: ObjectSuiteModels.RTEverything, id: String, targetBase: Int = 0, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(o.id == id, sourceLocation: sourceLocation)
        #expect(o.bool == true, sourceLocation: sourceLocation)
        #expect(o.int == Int.min, sourceLocation: sourceLocation)
        #expect(o.int8 == .min, sourceLocation: sourceLocation)
        #expect(o.int16 == .max, sourceLocation: sourceLocation)
        #expect(o.int32 == .min, sourceLocation: sourceLocation)
        #expect(o.int64 == .max, sourceLocation: sourceLocation)
        #expect(o.float == -3.4e38, sourceLocation: sourceLocation)
        #expect(o.double == .leastNonzeroMagnitude, sourceLocation: sourceLocation)
        #expect(o.string == string, sourceLocation: sourceLocation)
        #expect(o.data == bigData, sourceLocation: sourceLocation)
        #expect(o.date == date, sourceLocation: sourceLocation)
        #expect(o.objectId == objectId, sourceLocation: sourceLocation)
        #expect(o.uuid == uuid, sourceLocation: sourceLocation)
        #expect(o.decimal == decimal, sourceLocation: sourceLocation)
        #expect(o.color == .blue, sourceLocation: sourceLocation)
        #expect(o.mood == .wild, sourceLocation: sourceLocation)

        #expect(o.optBool == false, sourceLocation: sourceLocation)
        #expect(o.optInt == 0, sourceLocation: sourceLocation)
        #expect(o.optInt8 == .max, sourceLocation: sourceLocation)
        #expect(o.optInt16 == .min, sourceLocation: sourceLocation)
        #expect(o.optInt32 == .max, sourceLocation: sourceLocation)
        #expect(o.optInt64 == .min, sourceLocation: sourceLocation)
        #expect(o.optFloat == .infinity, sourceLocation: sourceLocation)
        #expect(o.optDouble == 0 && o.optDouble?.sign == .minus, "-0.0 keeps its sign", sourceLocation: sourceLocation)
        #expect(o.optString == "", "an empty string is not nil", sourceLocation: sourceLocation)
        #expect(o.optData == Data(), "empty data is not nil", sourceLocation: sourceLocation)
        #expect(o.optDate == otherDate, sourceLocation: sourceLocation)
        #expect(o.optObjectId == otherObjectId, sourceLocation: sourceLocation)
        #expect(o.optUUID == otherUUID, sourceLocation: sourceLocation)
        #expect(o.optDecimal == otherDecimal, sourceLocation: sourceLocation)
        #expect(o.optColor == .green, sourceLocation: sourceLocation)
        #expect(o.optMood == .sleepy, sourceLocation: sourceLocation)

        #expect(o.any == .string("mixed"), sourceLocation: sourceLocation)

        #expect(Array(o.bools) == [true, false, true], sourceLocation: sourceLocation)
        #expect(Array(o.ints) == [3, -1, 3, Int.max], sourceLocation: sourceLocation)
        #expect(Array(o.int8s) == [Int8.min, 0, Int8.max], sourceLocation: sourceLocation)
        #expect(Array(o.int64s) == [Int64.min, Int64.max], sourceLocation: sourceLocation)
        #expect(Array(o.floats) == [1.5, -0.25], sourceLocation: sourceLocation)
        #expect(Array(o.doubles) == [.pi, -.infinity, 1e-300], sourceLocation: sourceLocation)
        #expect(Array(o.strings) == ["", "a", string, longString], sourceLocation: sourceLocation)
        #expect(Array(o.datas) == [Data(), data], sourceLocation: sourceLocation)
        #expect(Array(o.dates) == [date, otherDate, .distantPast, .distantFuture], sourceLocation: sourceLocation)
        #expect(Array(o.objectIds) == [objectId, otherObjectId], sourceLocation: sourceLocation)
        #expect(Array(o.uuids) == [uuid, otherUUID], sourceLocation: sourceLocation)
        #expect(Array(o.decimals) == [decimal, otherDecimal, Decimal128(0)], sourceLocation: sourceLocation)
        #expect(Array(o.colors) == [.green, .red, .green], sourceLocation: sourceLocation)
        #expect(Array(o.optInts) == [1, nil, 3], sourceLocation: sourceLocation)
        #expect(Array(o.optStrings) == [nil, "", "x"], sourceLocation: sourceLocation)
        #expect(
            Array(o.anys) == [
                .none, .int(7), .string("s"), .double(2.5), .bool(true), .data(data), .date(date),
                .objectId(objectId), .uuid(uuid), .decimal128(decimal), .float(0.5),
            ], sourceLocation: sourceLocation)

        #expect(o.link?.id == targetBase + 1, sourceLocation: sourceLocation)
        #expect(o.link?.label == "one", sourceLocation: sourceLocation)
        #expect(o.targets.map(\.id) == [targetBase + 2, targetBase + 3], sourceLocation: sourceLocation)
        #expect(o.targets.map(\.label) == ["two", "three"], sourceLocation: sourceLocation)
        #expect(o.place?.street == "1 Main Street", sourceLocation: sourceLocation)
        #expect(o.place?.number == 12, sourceLocation: sourceLocation)
        #expect(o.place.map { Array($0.tags) } == ["corner", "red door"], sourceLocation: sourceLocation)
        #expect(o.places.map(\.street) == ["First", "Second"], sourceLocation: sourceLocation)
        #expect(o.places.map(\.number) == [nil, -2], sourceLocation: sourceLocation)
    }

    /// Expects `o` to hold the declared defaults: optionals nil, lists empty, links nil.
    static func expectDefaults(_ o: ObjectSuiteModels.RTEverything, id: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(o.id == id, sourceLocation: sourceLocation)
        #expect(o.bool == false && o.int == 0 && o.int8 == 0 && o.int16 == 0 && o.int32 == 0 && o.int64 == 0, sourceLocation: sourceLocation)
        #expect(o.float == 0 && o.double == 0 && o.string == "" && o.data == Data(), sourceLocation: sourceLocation)
        #expect(o.date == Date(timeIntervalSince1970: 0), sourceLocation: sourceLocation)
        #expect(o.decimal == Decimal128(), sourceLocation: sourceLocation)
        #expect(o.color == .red && o.mood == .calm, sourceLocation: sourceLocation)
        #expect(o.optBool == nil, sourceLocation: sourceLocation)
        #expect(o.optInt == nil, sourceLocation: sourceLocation)
        #expect(o.optInt8 == nil, sourceLocation: sourceLocation)
        #expect(o.optInt16 == nil, sourceLocation: sourceLocation)
        #expect(o.optInt32 == nil, sourceLocation: sourceLocation)
        #expect(o.optInt64 == nil, sourceLocation: sourceLocation)
        #expect(o.optFloat == nil, sourceLocation: sourceLocation)
        #expect(o.optDouble == nil, sourceLocation: sourceLocation)
        #expect(o.optString == nil, sourceLocation: sourceLocation)
        #expect(o.optData == nil, sourceLocation: sourceLocation)
        #expect(o.optDate == nil, sourceLocation: sourceLocation)
        #expect(o.optObjectId == nil, sourceLocation: sourceLocation)
        #expect(o.optUUID == nil, sourceLocation: sourceLocation)
        #expect(o.optDecimal == nil, sourceLocation: sourceLocation)
        #expect(o.optColor == nil, sourceLocation: sourceLocation)
        #expect(o.optMood == nil, sourceLocation: sourceLocation)
        #expect(o.any == .none, sourceLocation: sourceLocation)
        #expect(o.bools.isEmpty && o.ints.isEmpty && o.int8s.isEmpty && o.int64s.isEmpty && o.floats.isEmpty, sourceLocation: sourceLocation)
        #expect(o.doubles.isEmpty && o.strings.isEmpty && o.datas.isEmpty && o.dates.isEmpty, sourceLocation: sourceLocation)
        #expect(o.objectIds.isEmpty && o.uuids.isEmpty && o.decimals.isEmpty && o.colors.isEmpty, sourceLocation: sourceLocation)
        #expect(o.optInts.isEmpty && o.optStrings.isEmpty && o.anys.isEmpty, sourceLocation: sourceLocation)
        #expect(o.link == nil && o.targets.isEmpty && o.place == nil && o.places.isEmpty, sourceLocation: sourceLocation)
    }
}
