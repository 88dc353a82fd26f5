import BurrowStorage
import Foundation

/// A value as a row field, a collection element or an `AnyRealmValue` holds it: null, a value
/// of one of the stored types, or a link. This is the one list of the stored types, which every
/// layer uses: `Link` is how the layer holding the value refers to an object. The store and its
/// queries use `ObjectLink` (the object's class id and object key), so that what they hold is
/// keys and values alone; the API uses the object itself. Lists and dictionaries are the
/// collections an `AnyRealmValue` may hold, nested up to `NestedValues.maximumDepth`.
public enum StoredValue<Link> {
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
    case object(Link)
    /// A list inside an `AnyRealmValue`: its elements, each an `AnyRealmValue`'s value.
    case list([StoredValue<Link>])
    /// A dictionary inside an `AnyRealmValue`: string keys to `AnyRealmValue` values.
    case dictionary([String: StoredValue<Link>])
}

extension StoredValue: Sendable where Link: Sendable {}
extension StoredValue: Equatable where Link: Equatable {}
extension StoredValue: Hashable where Link: Hashable {}

extension StoredValue {
    /// Whether this is `.null`. (Not part of Burrow's API.)
    @inlinable public var _isNull: Bool {
        if case .null = self { true } else { false }
    }

    /// (Not part of Burrow's API.) The same value with its link (if it is one) in another form; `transform` returns nil
    /// for a link that has none, which becomes `.null`.
    @inlinable public func _mapLink<Other, E: Error>(_ transform: (Link) throws(E) -> Other?) throws(E) -> StoredValue<Other> {
        switch self {
        case .null: .null
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
        case .object(let link): try transform(link).map { .object($0) } ?? .null
        case .list, .dictionary: try _mapNestedLinks(transform)
        }
    }

    /// `_mapLink` of a list or dictionary, rebuilt without recursion.
    @usableFromInline
    func _mapNestedLinks<Other, E: Error>(_ transform: (Link) throws(E) -> Other?) throws(E) -> StoredValue<Other> {
        try NestedValues.fold(
            self, shape: { (value: StoredValue) throws(E) in value.nestedShape },
            leaf: { (value: StoredValue) throws(E) in try value._mapLink(transform) },
            list: { (elements: [StoredValue<Other>]) throws(E) in .list(elements) },
            dictionary: { (entries: [(key: String, value: StoredValue<Other>)]) throws(E) in
                .dictionary(Dictionary(entries.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 }))
            })
    }

    /// The plain Swift value (integers as `Int`, as key-value coding reads them); nil for null
    /// and for a link, which has no plain value.
    package var plainValue: (any Sendable)? {
        switch self {
        case .null, .object, .list, .dictionary: nil
        case .bool(let v): v
        case .int(let v): Int(v)
        case .float(let v): v
        case .double(let v): v
        case .string(let v): v
        case .data(let v): v
        case .date(let v): v
        case .objectId(let v): v
        case .uuid(let v): v
        case .decimal128(let v): v
        }
    }
}

extension StoredValue: CustomStringConvertible {
    /// The value as a query prints it: strings quoted, nil as `nil`, a link as its link form.
    public var description: String {
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
        case .object(let link): "\(link)"
        case .list, .dictionary:
            NestedValues.fold(
                self, shape: \.nestedShape, leaf: \.description, list: { "[\($0.joined(separator: ", "))]" },
                dictionary: { "[\($0.isEmpty ? ":" : $0.map { "'\($0.key)': \($0.value)" }.joined(separator: ", "))]" })
        }
    }
}

/// An object as the store refers to it: its class's id and its object key.
@usableFromInline
package struct ObjectLink: Hashable, Sendable, CustomStringConvertible {
    @usableFromInline package let table: UInt32
    @usableFromInline package let key: ObjectKey

    @inlinable package init(table: UInt32, key: ObjectKey) {
        self.table = table
        self.key = key
    }

    @usableFromInline package var description: String { "\(key) of class #\(table)" }
}

/// A link as the codecs write it: the linked object's class id and key, or nil for an object
/// not stored yet (the API's unmanaged objects), which an index key records as a bare link tag.
@usableFromInline
package protocol StoredLink {
    var objectLink: ObjectLink? { get }
}

extension ObjectLink: StoredLink {
    @inlinable package var objectLink: ObjectLink? { self }
}

/// A value as the store holds it: a link is the linked object's class id and key.
@usableFromInline
package typealias StoreValue = StoredValue<ObjectLink>

extension StoredValue {
    /// The zero value of `type`: `false`, 0, the empty string or data, the reference date, the
    /// all-zero `ObjectId` and `UUID`, 0 as a `Decimal128`; nil for a link, `AnyRealmValue`
    /// and `LinkingObjects`, which have none.
    package static func zero(of type: PropertyType) -> StoredValue? {
        switch type {
        case .bool: .bool(false)
        case .int: .int(0)
        case .float: .float(0)
        case .double: .double(0)
        case .string: .string("")
        case .data: .data(Data())
        case .date: .date(Date(timeIntervalSinceReferenceDate: 0))
        case .objectId: .objectId(ObjectId.zero)
        case .uuid: .uuid(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        case .decimal128: .decimal128(Decimal128(0))
        case .object, .any, .linkingObjects: nil
        }
    }

    /// The type of the value's case; nil for null, for a link and for a list or dictionary.
    package var valueType: PropertyType? {
        switch self {
        case .null, .object, .list, .dictionary: nil
        case .bool: .bool
        case .int: .int
        case .float: .float
        case .double: .double
        case .string: .string
        case .data: .data
        case .date: .date
        case .objectId: .objectId
        case .uuid: .uuid
        case .decimal128: .decimal128
        }
    }
}
