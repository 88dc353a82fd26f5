import BurrowStorage
import BurrowStore
import Foundation

/// A value a query compares: a constant of the query, or a value read from a row. Unlike
/// `_StoredValue` it holds no objects (a link is its table and object key), so queries are
/// `Sendable` and evaluating one creates no objects.
enum QueryValue: Sendable, Hashable, CustomStringConvertible {
    case null
    case bool(Bool)
    case int(Int64)
    case float(Float)
    case double(Double)
    case string(String)
    case data(Data)
    case date(Date)
    case objectId(ObjectId)
    case uuid(UUID)
    case decimal128(Decimal128)
    /// A link read from a row: the target's table id and object key.
    case link(table: UInt32, key: UInt64)
    /// An object given as a query argument: its class's stored name and object key. Executing
    /// a query resolves it to `.link` in the version read.
    case object(className: String, key: UInt64)

    /// The query form of a stored value. Throws for an unmanaged object, which has no key to
    /// compare.
    init(_ value: _StoredValue) throws(RealmError) {
        switch value {
        case .null: self = .null
        case .bool(let v): self = .bool(v)
        case .int(let v): self = .int(v)
        case .float(let v): self = .float(v)
        case .double(let v): self = .double(v)
        case .string(let v): self = .string(v)
        case .data(let v): self = .data(v)
        case .date(let v): self = .date(v)
        case .objectId(let v): self = .objectId(v)
        case .uuid(let v): self = .uuid(v)
        case .decimal128(let v): self = .decimal128(v)
        case .object(let object):
            guard let state = object._state else {
                throw RealmError(
                    .invalidArgument,
                    "A query compared with an unmanaged \(type(of: object)) object; only objects in a realm can be compared with links. Add it to the realm first."
                )
            }
            self = .object(className: state.table.name, key: state.key.rawValue)
        }
    }

    /// A value from a row, decoded by `ValueCodec` (links are decoded separately, never here).
    init(decoded value: _StoredValue) {
        self = (try? QueryValue(value)) ?? .null
    }

    /// The query form of an argument given to `filter(_:_:)`: a Swift value of a stored type,
    /// an `AnyRealmValue`, an enum of a persistable raw type, or a managed object. Nil for a
    /// value of a type queries cannot compare.
    static func argument(_ value: Any) throws(RealmError) -> QueryValue? {
        switch value {
        // The commonest arguments first, cast to their concrete types: the cast to the
        // existential `_Persistable` below looks the conformance up at run time.
        case let v as String: return .string(v)
        case let v as QueryValue: return v
        case let v as any _Persistable: return try QueryValue(v._storedAny)
        case let v as ObjectBase: return try QueryValue(.object(v))
        case let v as Int: return .int(Int64(v))
        case let v as NSNumber: return .double(v.doubleValue)
        default: break
        }
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional {
            guard let wrapped = mirror.children.first?.value else { return .null }
            return try argument(wrapped)
        }
        return nil
    }

    var isNull: Bool { if case .null = self { true } else { false } }

    /// What kind of value this is, for messages and type checks.
    var typeName: String {
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
        case .link, .object: "object"
        }
    }

    var isNumeric: Bool {
        switch self {
        case .int, .float, .double, .decimal128: true
        default: false
        }
    }

    var description: String {
        switch self {
        case .null: "nil"
        case .bool(let v): "\(v)"
        case .int(let v): "\(v)"
        case .float(let v): "\(v)"
        case .double(let v): "\(v)"
        case .string(let v): "'\(v)'"
        case .data(let v): "<data \(counted(v.count, "byte"))>"
        case .date(let v): "\(v)"
        case .objectId(let v): "oid(\(v))"
        case .uuid(let v): "uuid(\(v.uuidString))"
        case .decimal128(let v): "\(v)"
        case .link(let table, let key): "link(\(table), #\(key))"
        case .object(let name, let key): "\(name) #\(key)"
        }
    }

    /// The value as `_StoredValue` (links excluded), for conversions back to Swift types.
    var stored: _StoredValue {
        switch self {
        case .null, .link, .object: .null
        case .bool(let v): .bool(v)
        case .int(let v): .int(v)
        case .float(let v): .float(v)
        case .double(let v): .double(v)
        case .string(let v): .string(v)
        case .data(let v): .data(v)
        case .date(let v): .date(v)
        case .objectId(let v): .objectId(v)
        case .uuid(let v): .uuid(v)
        case .decimal128(let v): .decimal128(v)
        }
    }
}

extension _Persistable {
    /// `_stored`, reachable through an existential.
    var _storedAny: _StoredValue { _stored }
}

// MARK: - Comparing

extension QueryValue {
    /// Numbers as `Double`, for comparing numbers of different types.
    var doubleValue: Double? {
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
    static func order(_ a: QueryValue, _ b: QueryValue) -> Int? {
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
    var decimalValue: Decimal128? {
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
    static func equal(_ a: QueryValue, _ b: QueryValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.null, _), (_, .null): return false
        case (.bool(let x), .bool(let y)): return x == y
        case (.link(let t1, let k1), .link(let t2, let k2)): return t1 == t2 && k1 == k2
        case (.string(let x), .string(let y)): return x.utf8.elementsEqual(y.utf8)
        default: return order(a, b) == 0
        }
    }

    static func bytewise<A: Sequence<UInt8>, B: Sequence<UInt8>>(_ a: A, _ b: B) -> Int {
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
    static func sortOrder(_ a: QueryValue, _ b: QueryValue) -> Int {
        let ra = a.sortRank
        let rb = b.sortRank
        if ra != rb { return ra < rb ? -1 : 1 }
        if let o = order(a, b) { return o }
        switch (a, b) {
        case (.bool(let x), .bool(let y)): return x == y ? 0 : (x ? 1 : -1)
        case (.link(let t1, let k1), .link(let t2, let k2)): return t1 != t2 ? (t1 < t2 ? -1 : 1) : (k1 == k2 ? 0 : (k1 < k2 ? -1 : 1))
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
        case .link, .object: 8
        }
    }
}
