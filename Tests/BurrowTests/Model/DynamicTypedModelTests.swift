import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// The model of `DynamicTypedModelTests`, stored under the name it had before it was namespaced.
enum DynamicTypedModels {
    final class Item: Object {
        override class func _realmObjectName() -> String? { "DTMItem" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var flag = false
        @Persisted var count = 0
        @Persisted var small: Int16?
        @Persisted var ratio = 0.0
        @Persisted var score: Float?
        @Persisted var name = ""
        @Persisted var note: String?
        @Persisted var blob: Data?
        @Persisted var when = Date(timeIntervalSince1970: 0)
        @Persisted var oid: ObjectId?
        @Persisted var uid = DynamicTypedModels.Item.zeroUUID
        @Persisted var amount: Decimal128?
        @Persisted var tiny: Int8 = 0
        @Persisted var mid: Int32?
        @Persisted var big: Int64 = 0
        @Persisted var maybe: Bool?
        @Persisted var precise: Double?
        @Persisted var stamp: Date?
        @Persisted var ident: UUID?
        @Persisted var code = ObjectId()
        @Persisted var bytes = Data()
        @Persisted var price = Decimal128(0)
        @Persisted var any: AnyRealmValue
        @Persisted var partner: DynamicTypedModels.Item?
        @Persisted var friends: List<DynamicTypedModels.Item>
        @Persisted var numbers: List<Int>
        @Persisted var labels: List<String?>
        @Persisted var tags: MutableSet<String>
        @Persisted var scores: Map<String, Int>

        static let zeroUUID = UUID(uuidString: "00000000-0000-0000-0000-000000000000")!
    }
}

/// What an `AnyRealmValue` of the model holds: a link is the id of the item it points to.
enum DTMAny: Equatable {
    case none
    case int(Int)
    case string(String)
    case date(Date)
    case link(Int)
}

/// One `DynamicTypedModels.Item` as plain Swift values: links are ids.
/// The scalar properties the typed item and its model share, set by name in one place.
protocol DTMScalars {
    var flag: Bool { get set }
    var count: Int { get set }
    var small: Int16? { get set }
    var ratio: Double { get set }
    var score: Float? { get set }
    var name: String { get set }
    var note: String? { get set }
    var blob: Data? { get set }
    var when: Date { get set }
    var oid: ObjectId? { get set }
    var uid: UUID { get set }
    var amount: Decimal128? { get set }
    var tiny: Int8 { get set }
    var mid: Int32? { get set }
    var big: Int64 { get set }
    var maybe: Bool? { get set }
    var precise: Double? { get set }
    var stamp: Date? { get set }
    var ident: UUID? { get set }
    var code: ObjectId { get set }
    var bytes: Data { get set }
    var price: Decimal128 { get set }
}

extension DynamicTypedModels.Item: DTMScalars {}

struct DTMItemModel: Equatable, DTMScalars {
    var flag = false
    var count = 0
    var small: Int16?
    var ratio = 0.0
    var score: Float?
    var name = ""
    var note: String?
    var blob: Data?
    var when = Date(timeIntervalSince1970: 0)
    var oid: ObjectId?
    var uid = DynamicTypedModels.Item.zeroUUID
    var amount: Decimal128?
    var tiny: Int8 = 0
    var mid: Int32?
    var big: Int64 = 0
    var maybe: Bool?
    var precise: Double?
    var stamp: Date?
    var ident: UUID?
    var code = ObjectId()
    var bytes = Data()
    var price = Decimal128(0)
    var any = DTMAny.none
    var partner: Int?
    var friends: [Int] = []
    var numbers: [Int] = []
    var labels: [String?] = []
    var tags: Set<String> = []
    var scores: [String: Int] = [:]
}

/// The dynamic API against the typed API on one file: random writes through one, every object
/// read back through both after each step and compared with a plain-Swift model of the data.
@Suite(.temporaryDirectory) struct DynamicTypedModelTests {
    private var steps: Int { TestEnvironment.count("BURROW_DYNAMIC_STEPS", default: 300) }

    /// The scalar properties a step may set, each with a random value of its type.
    private static let scalarNames = [
        "flag", "count", "small", "ratio", "score", "name", "note", "blob", "when", "oid", "uid", "amount",
        "tiny", "mid", "big", "maybe", "precise", "stamp", "ident", "code", "bytes", "price", "any",
    ]

    /// A random value for scalar property `name`, as the model holds it (`DTMAny` for `any`,
    /// nil for an optional left empty).
    private static func randomValue(_ name: String, ids: [Int], _ random: inout TestRandom) -> Any? {
        // An optional property is left empty one time in four (a plain nil, not an empty
        // optional inside `Any`).
        let optionals = ["small", "score", "note", "blob", "oid", "amount", "mid", "maybe", "precise", "stamp", "ident"]
        if optionals.contains(name), random.next(upperBound: 4) == 0 { return nil }
        switch name {
        case "flag": return random.next(upperBound: 2) == 0
        case "count": return random.next(upperBound: 2_000_001) - 1_000_000
        case "small": return Int16(truncatingIfNeeded: random.next(upperBound: 65_536))
        case "ratio": return Double(random.next(upperBound: 100_001) - 50_000) / 8
        case "score": return Float(random.next(upperBound: 1_001)) / 4
        case "name": return "n\(random.next(upperBound: 1_000))" + (random.next(upperBound: 5) == 0 ? "ü" : "")
        case "note": return String(repeating: "x", count: random.next(upperBound: 40))
        case "blob": return Data((0..<random.next(upperBound: 20)).map { _ in UInt8(random.next(upperBound: 256)) })
        case "when": return Date(timeIntervalSince1970: Double(random.next(upperBound: 4_000_000_000) - 2_000_000_000))
        case "oid":
            return try! ObjectId(string: String(format: "%024x", random.next(upperBound: Int.max)))
        case "uid":
            return UUID(
                uuid: (UInt8(random.next(upperBound: 256)), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, UInt8(random.next(upperBound: 256))))
        case "amount": return Decimal128(random.next(upperBound: 1_000_000) - 500_000)
        case "tiny": return Int8(truncatingIfNeeded: random.next(upperBound: 256))
        case "mid": return Int32(truncatingIfNeeded: random.next(upperBound: Int.max))
        case "big": return Int64(bitPattern: random.next())
        case "maybe": return random.next(upperBound: 2) == 0
        case "precise": return Double(bitPattern: 0x3FF0_0000_0000_0000 | (random.next() >> 12))
        case "stamp": return Date(timeIntervalSince1970: Double(random.next(upperBound: 2_000_000_000)) + 0.5)
        case "ident": return UUID(uuid: (9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, UInt8(random.next(upperBound: 256))))
        case "code": return try! ObjectId(string: String(format: "%024x", random.next(upperBound: Int.max)))
        case "bytes": return Data((0..<random.next(upperBound: 300)).map { _ in UInt8(random.next(upperBound: 256)) })
        case "price": return try! Decimal128(string: "\(random.next(upperBound: 100_000)).\(random.next(upperBound: 100))")
        case "any":
            switch random.next(upperBound: 5) {
            case 0: return DTMAny.none
            case 1: return DTMAny.int(random.next(upperBound: 1_000))
            case 2: return DTMAny.string("s\(random.next(upperBound: 100))")
            case 3: return DTMAny.date(Date(timeIntervalSince1970: Double(random.next(upperBound: 1_000_000))))
            default: return ids.isEmpty ? DTMAny.none : DTMAny.link(ids[random.next(upperBound: ids.count)])
            }
        default: preconditionFailure(name)
        }
    }

    private static func apply(_ name: String, _ value: Any?, to item: inout DTMItemModel) {
        if name == "any" {
            item.any = value as! DTMAny
        } else {
            assignScalar(name, value, to: &item)
        }
    }

    /// Sets scalar `name` (not `any`) of the model or of the typed item, which have the same
    /// scalar properties (`DTMScalars`).
    private static func assignScalar<Item: DTMScalars>(_ name: String, _ value: Any?, to item: inout Item) {
        switch name {
        case "flag": item.flag = value as! Bool
        case "count": item.count = value as! Int
        case "small": item.small = value as! Int16?
        case "ratio": item.ratio = value as! Double
        case "score": item.score = value as! Float?
        case "name": item.name = value as! String
        case "note": item.note = value as! String?
        case "blob": item.blob = value as! Data?
        case "when": item.when = value as! Date
        case "oid": item.oid = value as! ObjectId?
        case "uid": item.uid = value as! UUID
        case "amount": item.amount = value as! Decimal128?
        case "tiny": item.tiny = value as! Int8
        case "mid": item.mid = value as! Int32?
        case "big": item.big = value as! Int64
        case "maybe": item.maybe = value as! Bool?
        case "precise": item.precise = value as! Double?
        case "stamp": item.stamp = value as! Date?
        case "ident": item.ident = value as! UUID?
        case "code": item.code = value as! ObjectId
        case "bytes": item.bytes = value as! Data
        case "price": item.price = value as! Decimal128
        default: preconditionFailure(name)
        }
    }

    // MARK: Writes

    /// Sets scalar `name` of the typed item.
    private static func setTyped(_ name: String, _ value: Any?, on item: DynamicTypedModels.Item, in realm: Realm) {
        guard name == "any" else {
            var item = item
            return assignScalar(name, value, to: &item)
        }
        switch value as! DTMAny {
        case .none: item.any = .none
        case .int(let v): item.any = .int(v)
        case .string(let v): item.any = .string(v)
        case .date(let v): item.any = .date(v)
        case .link(let id): item.any = .object(realm.object(ofType: DynamicTypedModels.Item.self, forPrimaryKey: id)!)
        }
    }

    /// The value the dynamic API is given for scalar `name` (a link as a dynamic object).
    private static func dynamicValue(_ name: String, _ value: Any?, in realm: Realm) -> Any? {
        guard name == "any" else { return value }
        switch value as! DTMAny {
        case .none: return nil
        case .int(let v): return v
        case .string(let v): return v
        case .date(let v): return v
        case .link(let id): return realm.dynamicObject(ofType: "DTMItem", forPrimaryKey: id)!
        }
    }

    // MARK: Reads

    /// The typed item as the model holds it.
    private static func readTyped(_ item: DynamicTypedModels.Item) -> DTMItemModel {
        let any: DTMAny
        switch item.any {
        case .none: any = .none
        case .int(let v): any = .int(v)
        case .string(let v): any = .string(v)
        case .date(let v): any = .date(v)
        case .object(let o): any = .link((o as? DynamicTypedModels.Item)?.id ?? -1)
        default: any = .string("unexpected \(item.any)")
        }
        return DTMItemModel(
            flag: item.flag, count: item.count, small: item.small, ratio: item.ratio, score: item.score, name: item.name,
            note: item.note, blob: item.blob, when: item.when, oid: item.oid, uid: item.uid, amount: item.amount,
            tiny: item.tiny, mid: item.mid, big: item.big, maybe: item.maybe, precise: item.precise, stamp: item.stamp,
            ident: item.ident, code: item.code, bytes: item.bytes, price: item.price, any: any,
            partner: item.partner?.id, friends: item.friends.map(\.id), numbers: Array(item.numbers), labels: Array(item.labels),
            tags: Set(item.tags), scores: Dictionary(uniqueKeysWithValues: item.scores.map { ($0.key, $0.value) }))
    }

    /// Property `name` of `object` as a `T`, recording an issue (and giving nil) if it is
    /// something else.
    private static func read<T>(_ object: DynamicObject, _ name: String, as _: T.Type, seed: UInt64) -> T? {
        let value = object[name]
        guard let value else { return nil }
        guard let typed = value as? T else {
            Issue.record("seed \(seed): \(name) reads as \(type(of: value)), not \(T.self)")
            return nil
        }
        return typed
    }

    /// The dynamic object as the model holds it.
    private static func readDynamic(_ object: DynamicObject, seed: UInt64) -> DTMItemModel {
        func id(_ linked: DynamicObject?) -> Int? { linked.flatMap { $0["id"] as? Int } }
        let any: DTMAny
        switch object["any"] {
        case nil: any = .none
        case let v as Int: any = .int(v)
        case let v as String: any = .string(v)
        case let v as Date: any = .date(v)
        case let v as DynamicObject: any = .link(id(v) ?? -1)
        case let v?: any = .string("unexpected \(type(of: v))")
        }
        return DTMItemModel(
            flag: read(object, "flag", as: Bool.self, seed: seed) ?? false,
            count: read(object, "count", as: Int.self, seed: seed) ?? -1,
            small: read(object, "small", as: Int.self, seed: seed).map { Int16($0) },
            ratio: read(object, "ratio", as: Double.self, seed: seed) ?? -1,
            score: read(object, "score", as: Float.self, seed: seed),
            name: read(object, "name", as: String.self, seed: seed) ?? "<nil>",
            note: read(object, "note", as: String.self, seed: seed),
            blob: read(object, "blob", as: Data.self, seed: seed),
            when: read(object, "when", as: Date.self, seed: seed) ?? .distantPast,
            oid: read(object, "oid", as: ObjectId.self, seed: seed),
            uid: read(object, "uid", as: UUID.self, seed: seed) ?? UUID(),
            amount: read(object, "amount", as: Decimal128.self, seed: seed),
            tiny: read(object, "tiny", as: Int.self, seed: seed).flatMap { Int8(exactly: $0) } ?? -1,
            mid: read(object, "mid", as: Int.self, seed: seed).flatMap { Int32(exactly: $0) },
            big: read(object, "big", as: Int.self, seed: seed).map { Int64($0) } ?? -1,
            maybe: read(object, "maybe", as: Bool.self, seed: seed),
            precise: read(object, "precise", as: Double.self, seed: seed),
            stamp: read(object, "stamp", as: Date.self, seed: seed),
            ident: read(object, "ident", as: UUID.self, seed: seed),
            code: read(object, "code", as: ObjectId.self, seed: seed) ?? ObjectId.generate(),
            bytes: read(object, "bytes", as: Data.self, seed: seed) ?? Data([1]),
            price: read(object, "price", as: Decimal128.self, seed: seed) ?? Decimal128(-1),
            any: any,
            partner: id(read(object, "partner", as: DynamicObject.self, seed: seed)),
            friends: read(object, "friends", as: List<DynamicObject>.self, seed: seed)?.map { id($0) ?? -1 } ?? [-1],
            numbers: read(object, "numbers", as: List<Int>.self, seed: seed).map(Array.init) ?? [-1],
            labels: read(object, "labels", as: List<String?>.self, seed: seed).map(Array.init) ?? ["<not a list>"],
            tags: read(object, "tags", as: MutableSet<String>.self, seed: seed).map(Set.init) ?? ["<not a set>"],
            scores: read(object, "scores", as: Map<String, Int>.self, seed: seed).map {
                Dictionary(uniqueKeysWithValues: $0.map { ($0.key, $0.value) })
            } ?? ["<not a map>": 0])
    }

    /// Every item read through both APIs equals the model.
    private static func check(_ realm: Realm, _ model: [Int: DTMItemModel], step: Int, seed: UInt64) {
        let typed = realm.objects(DynamicTypedModels.Item.self)
        let dynamic = realm.dynamicObjects("DTMItem")
        #expect(typed.count == model.count, "seed \(seed) step \(step): typed count")
        #expect(dynamic.count == model.count, "seed \(seed) step \(step): dynamic count")
        #expect(Set(dynamic.compactMap { $0["id"] as? Int }) == Set(model.keys), "seed \(seed) step \(step): dynamic ids")
        for (id, expected) in model {
            guard let item = realm.object(ofType: DynamicTypedModels.Item.self, forPrimaryKey: id) else {
                Issue.record("seed \(seed) step \(step): typed item \(id) missing")
                continue
            }
            #expect(readTyped(item) == expected, "seed \(seed) step \(step): typed item \(id)")
            guard let object = realm.dynamicObject(ofType: "DTMItem", forPrimaryKey: id) else {
                Issue.record("seed \(seed) step \(step): dynamic item \(id) missing")
                continue
            }
            #expect(readDynamic(object, seed: seed) == expected, "seed \(seed) step \(step): dynamic item \(id)")
        }
    }

    @Test func testRandomWritesThroughOneAPIReadTheSameThroughTheOther() throws {
        let seed = TestSeed.make("DynamicTypedModelTests, \(steps) steps")
        var random = TestRandom(seed: seed)
        var configuration = temporaryConfiguration()
        configuration.objectTypes = [DynamicTypedModels.Item.self]
        let realm = try Realm(configuration: configuration)
        var model: [Int: DTMItemModel] = [:]
        var nextId = 1

        for step in 0..<steps {
            let dynamic = random.next(upperBound: 2) == 0
            let ids = model.keys.sorted()
            let target = ids.isEmpty ? nil : ids[random.next(upperBound: ids.count)]
            let operation = ids.count < 3 ? 0 : random.next(upperBound: 12)
            try realm.write {
                guard operation != 0, let id = target else {
                    // Create an item with a few random scalars and numbers.
                    var item = DTMItemModel()
                    var values: [String: Any] = ["id": nextId]
                    for name in Self.scalarNames where random.next(upperBound: 3) == 0 && name != "any" {
                        let value = Self.randomValue(name, ids: ids, &random)
                        Self.apply(name, value, to: &item)
                        if let value { values[name] = value }
                    }
                    item.numbers = (0..<random.next(upperBound: 4)).map { _ in random.next(upperBound: 100) }
                    values["numbers"] = item.numbers
                    item.tags = Set((0..<random.next(upperBound: 3)).map { _ in "t\(random.next(upperBound: 5))" })
                    values["tags"] = Array(item.tags)
                    if dynamic {
                        try realm.dynamicCreate("DTMItem", value: values)
                    } else {
                        try realm.create(DynamicTypedModels.Item.self, value: values)
                    }
                    model[nextId] = item
                    nextId += 1
                    return
                }
                let typed = realm.object(ofType: DynamicTypedModels.Item.self, forPrimaryKey: id)!
                let object = realm.dynamicObject(ofType: "DTMItem", forPrimaryKey: id)!
                switch operation {
                case 1, 2, 3:
                    let name = Self.scalarNames[random.next(upperBound: Self.scalarNames.count)]
                    let value = Self.randomValue(name, ids: ids, &random)
                    Self.apply(name, value, to: &model[id]!)
                    if dynamic {
                        object[name] = Self.dynamicValue(name, value, in: realm)
                    } else {
                        Self.setTyped(name, value, on: typed, in: realm)
                    }
                case 4:
                    let partner = random.next(upperBound: 4) == 0 ? nil : ids[random.next(upperBound: ids.count)]
                    model[id]!.partner = partner
                    if dynamic {
                        object["partner"] = partner.map { realm.dynamicObject(ofType: "DTMItem", forPrimaryKey: $0)! }
                    } else {
                        typed.partner = partner.map { realm.object(ofType: DynamicTypedModels.Item.self, forPrimaryKey: $0)! }
                    }
                case 5:
                    let count = model[id]!.friends.count
                    if count > 0 && random.next(upperBound: 3) == 0 {
                        let index = random.next(upperBound: count)
                        model[id]!.friends.remove(at: index)
                        if dynamic { (object["friends"] as! List<DynamicObject>).remove(at: index) } else { typed.friends.remove(at: index) }
                    } else {
                        let friend = ids[random.next(upperBound: ids.count)]
                        let index = random.next(upperBound: count + 1)
                        model[id]!.friends.insert(friend, at: index)
                        if dynamic {
                            (object["friends"] as! List<DynamicObject>).insert(
                                realm.dynamicObject(ofType: "DTMItem", forPrimaryKey: friend)!, at: index)
                        } else {
                            typed.friends.insert(realm.object(ofType: DynamicTypedModels.Item.self, forPrimaryKey: friend)!, at: index)
                        }
                    }
                case 6:
                    let friends = (0..<random.next(upperBound: 4)).map { _ in ids[random.next(upperBound: ids.count)] }
                    model[id]!.friends = friends
                    if dynamic {
                        object["friends"] = friends.map { realm.dynamicObject(ofType: "DTMItem", forPrimaryKey: $0)! }
                    } else {
                        typed.friends.removeAll()
                        typed.friends.append(objectsIn: friends.map { realm.object(ofType: DynamicTypedModels.Item.self, forPrimaryKey: $0)! })
                    }
                case 7:
                    let count = model[id]!.numbers.count
                    let value = random.next(upperBound: 1_000)
                    if count > 0 && random.next(upperBound: 2) == 0 {
                        let index = random.next(upperBound: count)
                        if random.next(upperBound: 2) == 0 {
                            model[id]!.numbers.remove(at: index)
                            if dynamic { (object["numbers"] as! List<Int>).remove(at: index) } else { typed.numbers.remove(at: index) }
                        } else {
                            model[id]!.numbers[index] = value
                            if dynamic { (object["numbers"] as! List<Int>)[index] = value } else { typed.numbers[index] = value }
                        }
                    } else {
                        model[id]!.numbers.append(value)
                        if dynamic { (object["numbers"] as! List<Int>).append(value) } else { typed.numbers.append(value) }
                    }
                case 8:
                    let label: String? = random.next(upperBound: 3) == 0 ? nil : "l\(random.next(upperBound: 50))"
                    if random.next(upperBound: 4) == 0 {
                        model[id]!.labels = [label]
                        if dynamic {
                            object["labels"] = [label]
                        } else {
                            typed.labels.removeAll()
                            typed.labels.append(label)
                        }
                    } else {
                        model[id]!.labels.append(label)
                        if dynamic { (object["labels"] as! List<String?>).append(label) } else { typed.labels.append(label) }
                    }
                case 9:
                    let tag = "t\(random.next(upperBound: 6))"
                    if model[id]!.tags.contains(tag) {
                        model[id]!.tags.remove(tag)
                        if dynamic { (object["tags"] as! MutableSet<String>).remove(tag) } else { typed.tags.remove(tag) }
                    } else {
                        model[id]!.tags.insert(tag)
                        if dynamic { (object["tags"] as! MutableSet<String>).insert(tag) } else { typed.tags.insert(tag) }
                    }
                case 10:
                    let key = "k\(random.next(upperBound: 5))"
                    if random.next(upperBound: 3) == 0 {
                        model[id]!.scores[key] = nil
                        if dynamic { (object["scores"] as! Map<String, Int>).removeObject(for: key) } else { typed.scores.removeObject(for: key) }
                    } else {
                        let value = random.next(upperBound: 100)
                        model[id]!.scores[key] = value
                        if dynamic { (object["scores"] as! Map<String, Int>)[key] = value } else { typed.scores[key] = value }
                    }
                default:
                    if random.next(upperBound: 2) == 0 {
                        // Delete: links to the item become nil, lists lose it, as in RealmSwift.
                        model[id] = nil
                        for other in model.keys {
                            if model[other]!.partner == id { model[other]!.partner = nil }
                            model[other]!.friends.removeAll { $0 == id }
                            if model[other]!.any == .link(id) { model[other]!.any = .none }
                        }
                        if dynamic { try realm.delete(object) } else { try realm.delete(typed) }
                    } else {
                        // An update of some properties by primary key keeps the others.
                        let name = Self.scalarNames[random.next(upperBound: Self.scalarNames.count - 1)]
                        let value = Self.randomValue(name, ids: ids, &random)
                        Self.apply(name, value, to: &model[id]!)
                        // A property set to nil is given as NSNull, as in a dictionary decoded from JSON.
                        let given: Any
                        if let value { given = value } else { given = NSNull() }
                        let values: [String: Any] = ["id": id, name: given]
                        let policy: UpdatePolicy = random.next(upperBound: 2) == 0 ? .modified : .all
                        if dynamic {
                            try realm.dynamicCreate("DTMItem", value: values, update: policy)
                        } else {
                            try realm.create(DynamicTypedModels.Item.self, value: values, update: policy)
                        }
                    }
                }
            }
            Self.check(realm, model, step: step, seed: seed)
        }
        _ = try realm.storage.snapshot().verify()
        let objectFindings = try ObjectVerifier.verify(realm.storage.snapshot()).findings.map(\.description)
        #expect(objectFindings == [], "seed \(seed)")
    }
}

// MARK: A file read by a program that declares none of its classes

enum DRKind: String, PersistableEnum { case dog, cat }

/// The classes of the file `DynamicReader` reads, stored under the names they had before they were namespaced.
enum DynamicReaderModels {
    final class Address: EmbeddedObject {
        override class func _realmObjectName() -> String? { "DRAddress" }
        @Persisted var street = ""
        @Persisted var number: Int?
    }

    final class Person: Object {
        override class func _realmObjectName() -> String? { "DRPerson" }
        @Persisted var name = ""
        @Persisted var age: Int?
        @Persisted var pets: List<DynamicReaderModels.Pet>
        @Persisted var home: DynamicReaderModels.Address?
    }

    final class Pet: Object {
        override class func _realmObjectName() -> String? { "DRPet" }
        @Persisted(primaryKey: true) var tag = ""
        @Persisted var kind = DRKind.dog
        @Persisted var weight: Double?
        @Persisted var owner: DynamicReaderModels.Person?
        @Persisted(originProperty: "pets") var keepers: LinkingObjects<DynamicReaderModels.Person>
    }

    /// Stored under another name than its Swift class's.
    final class RenamedTag: Object {
        @Persisted var label = ""
        @Persisted var pet: DynamicReaderModels.Pet?
        override class func _realmObjectName() -> String? { "DRTag" }
    }

    final class Values: Object {
        override class func _realmObjectName() -> String? { "DRValues" }
        @Persisted(primaryKey: true) var id = ObjectId()
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
        @Persisted var uuid = DynamicTypedModels.Item.zeroUUID
        @Persisted var decimal = Decimal128(0)
        @Persisted var optInt: Int?
        @Persisted var optString: String?
        @Persisted var optDate: Date?
        @Persisted var optUUID: UUID?
        @Persisted var optBool: Bool?
        @Persisted var optFloat: Float?
        @Persisted var optObjectId: ObjectId?
        @Persisted var any: AnyRealmValue
        @Persisted var ints: List<Int>
        @Persisted var optStrings: List<String?>
        @Persisted var uuids: List<UUID>
        @Persisted var stringSet: MutableSet<String>
        @Persisted var optIntMap: Map<String, Int?>
        @Persisted var pets: List<DynamicReaderModels.Pet>
        @Persisted var petSet: MutableSet<DynamicReaderModels.Pet>
        @Persisted var petMap: Map<String, DynamicReaderModels.Pet?>
        @Persisted var addresses: List<DynamicReaderModels.Address>
    }
}

/// A file written with Swift classes, read by another program (`Tests/DynamicReader`) that
/// declares none of them and opens the file without `objectTypes`: every class, property,
/// object and value it prints must be what this process wrote; what it writes through the
/// dynamic API, this process then reads through its classes.
@Suite(.temporaryDirectory, .ownThread) struct DynamicReaderTests {
    @Test func testAProgramWithoutTheClassesReadsEveryClassObjectAndValue() throws {
        let directory = try testDirectory()
        var configuration = Realm.Configuration(fileURL: directory.fileURL("pets.burrow"))
        configuration.objectTypes = [
            DynamicReaderModels.Address.self, DynamicReaderModels.Person.self, DynamicReaderModels.Pet.self, DynamicReaderModels.RenamedTag.self,
            DynamicReaderModels.Values.self,
        ]
        let first = try ObjectId(string: "65a000000000000000000001")
        let second = try ObjectId(string: "65a000000000000000000002")
        let uuidA = UUID(uuidString: "AAAAAAAA-0000-4000-8000-000000000001")!
        let uuidB = UUID(uuidString: "BBBBBBBB-0000-4000-8000-000000000002")!
        let decimal = try Decimal128(string: "1234.5678")
        let schemaLines: [String]
        do {
            let realm = try Realm(configuration: configuration)
            try realm.write {
                let ann = try realm.create(
                    DynamicReaderModels.Person.self, value: ["name": "Ann", "age": 41, "home": ["street": "1 Main St", "number": 5]])
                try realm.create(DynamicReaderModels.Person.self, value: ["name": "Bo"])
                let rex = try realm.create(DynamicReaderModels.Pet.self, value: ["tag": "rex", "kind": DRKind.dog, "weight": 12.5, "owner": ann])
                let tom = try realm.create(DynamicReaderModels.Pet.self, value: ["tag": "tom", "kind": DRKind.cat])
                ann.pets.append(objectsIn: [rex, tom])
                try realm.create(
                    DynamicReaderModels.Values.self,
                    value: [
                        "id": first, "bool": true, "int": -5, "int8": Int8(8), "int16": Int16(-16), "int32": Int32(32), "int64": Int64.min,
                        "float": Float(1.25), "double": -2.5, "string": "ü \"q\"", "data": Data([0xde, 0xad, 0]),
                        "date": Date(timeIntervalSince1970: 1234.5), "uuid": uuidA, "decimal": decimal,
                        "optInt": 7, "optDate": Date(timeIntervalSince1970: -1), "optUUID": uuidB, "optBool": false, "optFloat": Float(-0.5),
                        "optObjectId": second, "any": AnyRealmValue.object(rex),
                        "ints": [3, 1, 3], "optStrings": ["a", nil] as [String?], "uuids": [uuidA, uuidB], "stringSet": ["y", "x"],
                        "optIntMap": ["a": 1, "n": nil] as [String: Int?], "pets": [tom, rex, tom], "petSet": [rex],
                        "petMap": ["best": rex, "none": nil] as [String: DynamicReaderModels.Pet?], "addresses": [["street": "2 Side St"]],
                    ] as [String: Any])
                try realm.create(DynamicReaderModels.Values.self, value: ["id": second, "any": AnyRealmValue.string("text")])
                try realm.create(DynamicReaderModels.RenamedTag.self, value: ["label": "good", "pet": tom])
            }
            schemaLines = realm.schema.objectSchema.sorted { $0.className < $1.className }.map {
                "class \($0.className)\($0.isEmbedded ? " embedded" : "") \($0.properties.map(\.description).joined(separator: "; "))"
            }
        }

        let reader = try ChildProcess.run(
            ChildProcess.executable("DynamicReader", overriddenBy: "BURROW_DYNAMIC_READER"), arguments: [configuration.fileURL!.path, "--add"],
            directory: directory.path, label: "reader", workingDirectory: directory.path)
        #expect(reader.status == 0, "\(reader.errors)")
        let printed = reader.output.split(separator: "\n").map(String.init)
        let zero = "00000000-0000-0000-0000-000000000000"
        let expected = [
            schemaLines[0],
            schemaLines[1],
            #"DRPerson#0 name="Ann" age=41 pets=[DRPet#0, DRPet#1] home={street="1 Main St" number=5}"#,
            #"DRPerson#1 name="Bo" age=nil pets=[] home=nil"#,
            schemaLines[2],
            #"DRPet#0 tag="rex" kind="dog" weight=d12.5 owner=DRPerson#0"#,
            #"DRPet#1 tag="tom" kind="cat" weight=nil owner=nil"#,
            schemaLines[3],
            #"DRTag#0 label="good" pet=DRPet#1"#,
            schemaLines[4],
            #"DRValues#0 id=oid(65a000000000000000000001) bool=true int=-5 int8=8 int16=-16 int32=32 int64=-9223372036854775808"#
                + #" float=f1.25 double=d-2.5 string="ü \"q\"" data=data(dead00) date=date(1234.5)"#
                + " uuid=uuid(\(uuidA.uuidString)) decimal=dec(\(decimal))"
                + " optInt=7 optString=nil optDate=date(-1.0) optUUID=uuid(\(uuidB.uuidString)) optBool=false optFloat=f-0.5"
                + " optObjectId=oid(65a000000000000000000002) any=DRPet#0"
                + #" ints=[3, 1, 3] optStrings=["a", nil] uuids=[uuid(\#(uuidA.uuidString)), uuid(\#(uuidB.uuidString))] stringSet={"x", "y"}"#
                + #" optIntMap=["a": 1, "n": nil] pets=[DRPet#1, DRPet#0, DRPet#1] petSet={DRPet#0} petMap=["best": DRPet#0, "none": nil]"#
                + #" addresses=[{street="2 Side St" number=nil}]"#,
            #"DRValues#1 id=oid(65a000000000000000000002) bool=false int=0 int8=0 int16=0 int32=0 int64=0"#
                + #" float=f0.0 double=d0.0 string="" data=data() date=date(0.0)"#
                + " uuid=uuid(\(zero)) decimal=dec(\(Decimal128(0)))"
                + " optInt=nil optString=nil optDate=nil optUUID=nil optBool=nil optFloat=nil optObjectId=nil any=\"text\""
                + #" ints=[] optStrings=[] uuids=[] stringSet={} optIntMap=[] pets=[] petSet={} petMap=[] addresses=[]"#,
            "added",
        ]
        #expect(schemaLines.count == 5)
        #expect(schemaLines[3] == "class DRTag label: string; pet: DRPet?", "the class is stored under its stored name")
        #expect(printed.count == expected.count, "\(printed)")
        for (line, (printed, wanted)) in zip(printed, expected).enumerated() {
            #expect(printed == wanted, "line \(line)")
        }

        // What the other program wrote through the dynamic API, read through the classes.
        let realm = try Realm(configuration: configuration)
        let kit = try #require(realm.object(ofType: DynamicReaderModels.Pet.self, forPrimaryKey: "kit"))
        #expect(kit.kind == .cat && kit.weight == 0.5 && kit.owner?.name == "Bo")
        #expect(realm.objects(DynamicReaderModels.Person.self).map { $0.pets.map(\.tag) } == [["rex", "tom"], ["kit"]])
        #expect(kit.keepers.map(\.name) == ["Bo"])
        #expect(realm.objects(DynamicReaderModels.Pet.self).count == 3)
    }

    /// A realm opened with no `objectTypes` in a fresh process describes the stored classes in
    /// `realm.schema` and reads them through the dynamic API: one child process writes the
    /// file, another opens it and never names a Swift class. (This test binary has the classes
    /// compiled in; `DynamicReader`, above, is the program that has none.)
    @Test func testARealmOpenedWithoutObjectTypesDescribesTheStoredClasses() async throws {
        // The child processes run outside the test; the test's directory outlives them.
        let path = try testDirectory().file("people.burrow")
        await #expect(processExitsWith: .success) { [path = path as String] in
            var configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: path))
            configuration.objectTypes = [DynamicReaderModels.Address.self, DynamicReaderModels.Person.self, DynamicReaderModels.Pet.self]
            let realm = try Realm(configuration: configuration)
            try realm.write {
                try realm.create(
                    DynamicReaderModels.Pet.self, value: ["tag": "rex", "weight": 3.5, "owner": ["name": "Ann", "home": ["street": "s"]]])
            }
        }
        await #expect(processExitsWith: .success) { [path = path as String] in
            let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path)))
            let names = realm.schema.objectSchema.map(\.className).sorted()
            guard names == ["DRAddress", "DRPerson", "DRPet"] else { exit(3) }
            guard realm.schema["DRPet"]?.properties.map(\.name) == ["tag", "kind", "weight", "owner"],
                realm.schema["DRPet"]?.primaryKeyProperty?.name == "tag",
                realm.schema["DRPerson"]?["pets"]?.objectClassName == "DRPet",
                realm.schema["DRAddress"]?.isEmbedded == true
            else { exit(4) }
            guard let rex = realm.dynamicObject(ofType: "DRPet", forPrimaryKey: "rex"),
                rex["weight"] as? Double == 3.5, rex["kind"] as? String == "dog",
                let owner = rex["owner"] as? DynamicObject, owner["name"] as? String == "Ann",
                (owner["home"] as? DynamicObject)?["street"] as? String == "s",
                realm.dynamicObjects("DRPerson").count == 1
            else { exit(5) }
        }
    }
}
