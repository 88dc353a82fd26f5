import BurrowTestSupport
import Foundation

@testable import Burrow

/// The models of the query suites, stored under the names they had before they were namespaced
/// (which start with Q, apart from other suites' models).
enum QueryTestModels {
    final class Tag: Object {
        override class func _realmObjectName() -> String? { "QTag" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var label = ""
        @Persisted var weight = 0
        @Persisted(originProperty: "links") var owners: LinkingObjects<QueryTestModels.Item>
    }

    /// One property of every kind a query can test; indexed properties have unindexed twins where
    /// a test compares index and scan.
    final class Item: Object {
        override class func _realmObjectName() -> String? { "QItem" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted(indexed: true) var name = ""
        @Persisted var plainName = ""
        @Persisted(indexed: true) var rank = 0
        @Persisted var score = 0.0
        @Persisted var ratio: Float = 0
        @Persisted var flag = false
        @Persisted(indexed: true) var when = Date(timeIntervalSince1970: 0)
        @Persisted var amount = Decimal128()
        @Persisted var oid = ObjectId()
        @Persisted(indexed: true) var uid = UUID()
        @Persisted var blob = Data()
        @Persisted var optInt: Int?
        @Persisted(indexed: true) var optName: String?
        @Persisted var level = QLevel.low
        @Persisted var any: AnyRealmValue
        @Persisted var tags: List<String>
        @Persisted var numbers: List<Int>
        @Persisted var numberSet: MutableSet<Int>
        @Persisted var map: Map<String, Int>
        @Persisted var link: QueryTestModels.Tag?
        @Persisted var links: List<QueryTestModels.Tag>
    }

    /// A set of objects, for queries on `MutableSet`.
    final class Shelf: Object {
        override class func _realmObjectName() -> String? { "QShelf" }
        @Persisted var tags: MutableSet<QueryTestModels.Tag>
    }
}

enum QLevel: Int, PersistableEnum {
    case low, mid, high
}

/// The plain Swift values of one `QueryTestModels.Item`, which the model evaluates conditions on.
struct QItemModel {
    var id = 0
    var name = ""
    var rank = 0
    var score = 0.0
    var ratio: Float = 0
    var flag = false
    var when = Date(timeIntervalSince1970: 0)
    var amount = Decimal128()
    var oid = ObjectId()
    var uid = UUID()
    var blob = Data()
    var optInt: Int?
    var optName: String?
    var level = QLevel.low
    var any = AnyRealmValue.none
    var tags: [String] = []
    var numbers: [Int] = []
    var numberSet: Set<Int> = []
    var map: [String: Int] = [:]
    var link: Int?
    var links: [Int] = []
}

/// Random query data: small domains, so that equal values are common, with the strings a
/// query treats specially (case and diacritic variants, wildcards, long strings sharing
/// their first 256 bytes).
enum QData {
    static let longPrefix = String(repeating: "p", count: 300)
    static let names = [
        "Rex", "rex", "RÉX", "réx", "Rover", "rover", "Bella", "bélla", "Ñandú", "nandu", "", "a*b", "a?b",
        "Fido", "fido dido", "Zed", longPrefix + "a", longPrefix + "b", longPrefix + "ab", longPrefix, "Ünïcode ✓",
    ]
    static let labels = ["red", "green", "blue", "Blue"]
    static let tagWords = ["x", "y", "z", "X"]
    static let base = Date(timeIntervalSinceReferenceDate: 700_000_000)
    static let oids = (0..<5).map { try! ObjectId(string: String(format: "%024x", $0 * 7919 + 1)) }
    static let uuids = (0..<5).map { UUID(uuidString: String(format: "00000000-0000-0000-0000-%012x", $0 * 31 + 1))! }
    static let decimals: [Decimal128] = [Decimal128(-2), Decimal128(0), Decimal128(1.5), Decimal128(3), try! Decimal128(string: "12.25")]
    static let blobs = [Data(), Data([1]), Data([1, 2]), Data([2, 0, 1]), Data([0])]

    static func date(_ i: Int) -> Date { base.addingTimeInterval(Double(i) * 0.3) }

    static func anyValue(_ r: inout TestRandom) -> AnyRealmValue {
        switch r.next(upperBound: 6) {
        case 0: .none
        case 1: .int(r.next(upperBound: 5))
        case 2: .double(Double(r.next(upperBound: 5)) + 0.5)
        case 3: .string(names[r.next(upperBound: 6)])
        case 4: .bool(r.next(upperBound: 2) == 0)
        default: .int(2)
        }
    }

    /// Writes `count` random items (ids 0..<count, in order) and `tags` tags; returns the model.
    static func populate(_ realm: Realm, count: Int, seed: UInt64) throws -> (items: [QItemModel], tags: [(label: String, weight: Int)]) {
        var r = TestRandom(seed: seed)
        var tagModels: [(String, Int)] = []
        var items: [QItemModel] = []
        try realm.write {
            var tags: [QueryTestModels.Tag] = []
            for id in 0..<6 {
                let tag = QueryTestModels.Tag()
                tag.id = id
                tag.label = labels[r.next(upperBound: labels.count)]
                tag.weight = r.next(upperBound: 10)
                try realm.add(tag)
                tags.append(tag)
                tagModels.append((tag.label, tag.weight))
            }
            for id in 0..<count {
                var m = QItemModel()
                m.id = id
                m.name = names[r.next(upperBound: names.count)]
                m.rank = r.next(upperBound: 12) - 3
                m.score = Double(r.next(upperBound: 9)) / 2 - 1
                m.ratio = Float(r.next(upperBound: 7)) / 4
                m.flag = r.next(upperBound: 2) == 0
                m.when = date(r.next(upperBound: 8))
                m.amount = decimals[r.next(upperBound: decimals.count)]
                m.oid = oids[r.next(upperBound: oids.count)]
                m.uid = uuids[r.next(upperBound: uuids.count)]
                m.blob = blobs[r.next(upperBound: blobs.count)]
                m.optInt = r.next(upperBound: 3) == 0 ? nil : r.next(upperBound: 6)
                m.optName = r.next(upperBound: 3) == 0 ? nil : names[r.next(upperBound: 8)]
                m.level = QLevel(rawValue: r.next(upperBound: 3))!
                m.any = anyValue(&r)
                m.tags = (0..<r.next(upperBound: 4)).map { _ in tagWords[r.next(upperBound: tagWords.count)] }
                m.numbers = (0..<r.next(upperBound: 4)).map { _ in r.next(upperBound: 10) }
                m.numberSet = Set((0..<r.next(upperBound: 4)).map { _ in r.next(upperBound: 6) })
                for _ in 0..<r.next(upperBound: 3) { m.map[["a", "b", "c"][r.next(upperBound: 3)]] = r.next(upperBound: 5) }
                m.link = r.next(upperBound: 3) == 0 ? nil : r.next(upperBound: tags.count)
                m.links = (0..<r.next(upperBound: 4)).map { _ in r.next(upperBound: tags.count) }

                let item = QueryTestModels.Item()
                item.id = m.id
                item.name = m.name
                item.plainName = m.name
                item.rank = m.rank
                item.score = m.score
                item.ratio = m.ratio
                item.flag = m.flag
                item.when = m.when
                item.amount = m.amount
                item.oid = m.oid
                item.uid = m.uid
                item.blob = m.blob
                item.optInt = m.optInt
                item.optName = m.optName
                item.level = m.level
                item.any = m.any
                item.tags.append(objectsIn: m.tags)
                item.numbers.append(objectsIn: m.numbers)
                for n in m.numberSet { item.numberSet.insert(n) }
                for (k, v) in m.map { item.map[k] = v }
                item.link = m.link.map { tags[$0] }
                for l in m.links { item.links.append(tags[l]) }
                try realm.add(item)
                items.append(m)
            }
        }
        return (items, tagModels)
    }
}
