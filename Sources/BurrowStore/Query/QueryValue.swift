import BurrowStorage
import Foundation

/// How a query value refers to an object.
package enum QueryLink: Sendable, Hashable {
    /// A link read from a row: the target's table id and object key.
    case stored(table: UInt32, key: UInt64)
    /// An object given as a query argument: its class's stored name and object key. Executing
    /// a query resolves it to `.stored` in the version read.
    case named(className: String, key: UInt64)
}

extension QueryLink: CustomStringConvertible, StoredLink {
    package var description: String {
        switch self {
        case .stored(let table, let key): "link(\(table), #\(key))"
        case .named(let name, let key): "\(name) #\(key)"
        }
    }

    /// A link read from a row as the codecs write it; an object named by its class is
    /// resolved before a query writes it.
    @usableFromInline package var objectLink: ObjectLink? {
        guard case .stored(let table, let key) = self else { return nil }
        return ObjectLink(table: table, key: ObjectKey(key))
    }
}

/// A value a query compares: a constant of the query, or a value read from a row. It holds no
/// objects (a link is a `QueryLink`), so queries are `Sendable` and evaluating one creates no
/// objects.
package typealias QueryValue = StoredValue<QueryLink>

extension StoredValue where Link == QueryLink {
    package var isNull: Bool { if case .null = self { true } else { false } }

    /// What kind of value this is, for messages and type checks.
    package var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "bool"
        case .int: "int"
        case .float: "float"
        case .double: "double"
        case .string: "string"
        case .data: "data"
        case .date: "date"
        case .objectId: "objectId"
        case .uuid: "uuid"
        case .decimal128: "decimal128"
        case .object: "object"
        case .list: "list"
        case .dictionary: "dictionary"
        }
    }

    package var isNumeric: Bool {
        switch self {
        case .int, .float, .double, .decimal128: true
        default: false
        }
    }

}

extension StoredValue where Link == QueryLink {
    /// The value as the store holds it, a link excluded (as null): what primary keys and index
    /// keys are made of.
    package var storeValue: StoreValue { _mapLink { _ in nil } }
}

// MARK: - Comparing

extension QueryValue {
    /// Numbers as `Double`, for comparing numbers of different types.
    package var doubleValue: Double? {
        switch self {
        case .int(let v): Double(v)
        case .float(let v): Double(v)
        case .double(let v): v
        case .decimal128(let v): v.doubleValue
        default: nil
        }
    }

    /// The order of `a` and `b` (-1, 0, 1), or nil if they cannot be ordered: different kinds,
    /// null, NaN, or kinds without an order (bools, links). Strings and data order by their
    /// bytes (for strings, their UTF-8 bytes: the order of Unicode scalars), as indexes do.
    package static func order(_ a: QueryValue, _ b: QueryValue) -> Int? {
        switch (a, b) {
        case (.int(let x), .int(let y)): return x < y ? -1 : (x == y ? 0 : 1)
        case (.string(let x), .string(let y)): return bytewise(x.utf8, y.utf8)
        case (.data(let x), .data(let y)): return bytewise(x, y)
        case (.date(let x), .date(let y)): return x < y ? -1 : (x == y ? 0 : 1)
        case (.objectId(let x), .objectId(let y)): return x < y ? -1 : (x == y ? 0 : 1)
        case (.uuid(let x), .uuid(let y)):
            return withUnsafeBytes(of: x.uuid) { xb in withUnsafeBytes(of: y.uuid) { yb in bytewise(xb, yb) } }
        case (.decimal128(let x), .decimal128(let y)):
            guard !x.isNaN, !y.isNaN else { return nil }
            return x < y ? -1 : (x == y ? 0 : 1)
        case (.decimal128(let x), _) where b.isNumeric:
            guard let y = b.decimalValue, !x.isNaN, !y.isNaN else { return nil }
            return x < y ? -1 : (x == y ? 0 : 1)
        case (_, .decimal128(let y)) where a.isNumeric:
            guard let x = a.decimalValue, !x.isNaN, !y.isNaN else { return nil }
            return x < y ? -1 : (x == y ? 0 : 1)
        default:
            guard a.isNumeric, b.isNumeric, let x = a.doubleValue, let y = b.doubleValue, !x.isNaN, !y.isNaN else { return nil }
            return x < y ? -1 : (x == y ? 0 : 1)
        }
    }

    /// Numbers as `Decimal128`, for comparing and adding numbers with decimals among them.
    package var decimalValue: Decimal128? {
        switch self {
        case .int(let v): Decimal128(v)
        case .float(let v): Decimal128(v)
        case .double(let v): Decimal128(v)
        case .decimal128(let v): v
        default: nil
        }
    }

    /// Whether `a` equals `b`: numbers by value whatever their types, other kinds by value,
    /// null only to null.
    package static func equal(_ a: QueryValue, _ b: QueryValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.null, _), (_, .null): return false
        case (.bool(let x), .bool(let y)): return x == y
        // Links read from rows, or (in a query of values held in memory) named links.
        case (.object(let x), .object(let y)): return x == y
        case (.string(let x), .string(let y)): return x.utf8.elementsEqual(y.utf8)
        default: return order(a, b) == 0
        }
    }

    package static func bytewise<A: Sequence<UInt8>, B: Sequence<UInt8>>(_ a: A, _ b: B) -> Int {
        var i = a.makeIterator()
        var j = b.makeIterator()
        while true {
            switch (i.next(), j.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case (let x?, let y?): if x != y { return x < y ? -1 : 1 }
            }
        }
    }

    /// A total order for sorting: null first, then by kind (numbers together), then by value.
    package static func sortOrder(_ a: QueryValue, _ b: QueryValue) -> Int {
        let ra = a.sortRank
        let rb = b.sortRank
        if ra != rb { return ra < rb ? -1 : 1 }
        if let o = order(a, b) { return o }
        switch (a, b) {
        case (.bool(let x), .bool(let y)): return x == y ? 0 : (x ? 1 : -1)
        case (.object(.stored(let t1, let k1)), .object(.stored(let t2, let k2))):
            return t1 != t2 ? (t1 < t2 ? -1 : 1) : (k1 == k2 ? 0 : (k1 < k2 ? -1 : 1))
        default:
            // NaNs: before every number, equal to each other.
            let an = a.doubleValue?.isNaN ?? false
            let bn = b.doubleValue?.isNaN ?? false
            return an == bn ? 0 : (an ? -1 : 1)
        }
    }

    private var sortRank: Int {
        switch self {
        case .null: 0
        case .bool: 1
        case .int, .float, .double, .decimal128: 2
        case .string: 3
        case .data: 4
        case .date: 5
        case .objectId: 6
        case .uuid: 7
        case .object: 8
        case .list: 9
        case .dictionary: 10
        }
    }
}
