import BurrowStore
import Foundation

// The protocols below connect `@Persisted` properties to storage. They are public because Swift
// requires a public generic's constraints to be public, but they are implementation details:
// their underscored members are not part of Burrow's API and may change in any release.

/// A value in memory as a row field, a collection element or an `AnyRealmValue` holds it.
/// Objects appear as themselves; the realm turns them into object keys when it stores them.
public typealias _StoredValue = StoredValue<ObjectBase>

/// What a property type looks like to the schema.
public struct _PropertyShape: Sendable {
    let type: PropertyType
    let isOptional: Bool
    let collection: CollectionKind
    /// The linked class, for links, collections of links and `LinkingObjects`.
    let objectType: ObjectBase.Type?
    /// Whether the Swift type reads a nil link as a value of its own (a `CustomPersistable`
    /// stored as an embedded object): then a link property, or a map's values, are optional
    /// in the schema even where the Swift type is not, as in RealmSwift.
    let readsNilLink: Bool
    /// Whether the Swift type is a `Projection` of `objectType`, which results can hold but no
    /// property can store.
    let isProjection: Bool

    init(
        _ type: PropertyType, optional: Bool = false, collection: CollectionKind = .single, objectType: ObjectBase.Type? = nil,
        readsNilLink: Bool = false, isProjection: Bool = false
    ) {
        self.type = type
        self.isOptional = optional
        self.collection = collection
        self.objectType = objectType
        self.readsNilLink = readsNilLink
        self.isProjection = isProjection
    }

    func with(optional: Bool) -> _PropertyShape {
        _PropertyShape(
            type, optional: optional, collection: collection, objectType: objectType, readsNilLink: readsNilLink, isProjection: isProjection)
    }

    func with(collection: CollectionKind) -> _PropertyShape {
        _PropertyShape(
            type, optional: isOptional, collection: collection, objectType: objectType, readsNilLink: readsNilLink, isProjection: isProjection)
    }

    /// Whether the schema's property is optional: the Swift type is, or it reads a nil link as
    /// a value where the schema has one (a link property, a map's values).
    var isOptionalInSchema: Bool {
        isOptional || (readsNilLink && type == .object && (collection == .single || collection == .map))
    }
}

/// Anything that can be the type of a `@Persisted` property: values, optionals, links,
/// collections, `AnyRealmValue` and `LinkingObjects`.
public protocol _PersistedValue {
    /// The property's shape in the schema.
    static var _shape: _PropertyShape { get }
    /// The value a property of this type has when its declaration gives none.
    static func _defaultValue() -> Self
    /// Reads property `property` of the managed `object`.
    static func _get(_ object: ObjectBase, _ property: Int) -> Self
    /// Writes property `property` of the managed `object` (inside a write transaction).
    static func _set(_ value: Self, _ object: ObjectBase, _ property: Int)
    /// Converts a value given to `init(value:)`, `setValue(_:forKey:)` or `create(_:value:)`.
    /// Throws `RealmError` naming the problem if the value cannot be this type.
    static func _convert(_ value: Any, property: String) throws(RealmError) -> Self
    /// The value as `value(forKey:)` returns it.
    var _anyValue: Any { get }
    /// The stored form of a single value; nil for collections and `LinkingObjects`.
    static func _storedSingle(_ value: Self) -> _StoredValue?
    /// Whether `value` is nil or an empty collection: nothing to store.
    static func _isEmptyValue(_ value: Self) -> Bool
    /// Reads the unmanaged `@Persisted` field of this type at `field`, for adding its object.
    /// A requirement (rather than generic code of `Persisted`) so that each conformance has
    /// code specialized for its type: `add` reads every field of every object it adds.
    static func _readUnmanaged(_ field: UnsafeMutableRawPointer) -> _UnmanagedField
}

extension _PersistedValue {
    public static func _storedSingle(_ value: Self) -> _StoredValue? { nil }
    public static func _isEmptyValue(_ value: Self) -> Bool { false }
    public static func _readUnmanaged(_ field: UnsafeMutableRawPointer) -> _UnmanagedField {
        let value = field.assumingMemoryBound(to: Persisted<Self>.self).pointee.unmanagedValue()
        return _UnmanagedField(value: value, stored: _storedSingle(value), isEmpty: _isEmptyValue(value))
    }
}

/// An unmanaged field's value, as `add` needs it: the value itself (for links and
/// collections, which go through their setters), its stored form if it is a single value, and
/// whether there is nothing to store.
public struct _UnmanagedField {
    let value: Any
    let stored: _StoredValue?
    let isEmpty: Bool
}

/// A value that fits in one row field or collection element; `Hashable`, as RealmSwift's
/// `RealmCollectionValue` is.
public protocol _Persistable: _PersistedValue, Hashable {
    static func _fromStored(_ value: _StoredValue) -> Self
    var _stored: _StoredValue { get }
    /// Whether values of this type are projections of the objects results read, made from
    /// each object (`_fromStored`) rather than the object itself: `_shape.isProjection`, without
    /// making the shape, since results ask it for every object they read.
    static var _isProjection: Bool { get }
}

extension _Persistable {
    public static var _isProjection: Bool { false }
}

/// A `_Persistable` whose optional form is persistable too.
public protocol _OptionalPersistable: _Persistable {
    /// The value an optional of this type reads from `value`: nil for null, and for a
    /// `FailableCustomPersistable` a value that does not convert.
    static func _fromStoredOptional(_ value: _StoredValue) -> Self?
}

extension _OptionalPersistable {
    public static func _fromStoredOptional(_ value: _StoredValue) -> Self? {
        if case .null = value { nil } else { _fromStored(value) }
    }
}

extension _Persistable {
    public static func _get(_ object: ObjectBase, _ property: Int) -> Self {
        _fromStored(object._readField(property))
    }

    public static func _set(_ value: Self, _ object: ObjectBase, _ property: Int) {
        object._writeField(property, value._stored)
    }

    public static func _convert(_ value: Any, property: String) throws(RealmError) -> Self {
        _fromStored(try StoredValueConversion.convert(value, to: _shape, property: property))
    }

    public var _anyValue: Any { self }
    public static func _storedSingle(_ value: Self) -> _StoredValue? { value._stored }
    public static func _isEmptyValue(_ value: Self) -> Bool {
        if case .null = value._stored { return true }
        return false
    }
}

// MARK: - Scalars

extension Bool: _OptionalPersistable {
    public static var _shape: _PropertyShape { _PropertyShape(.bool) }
    public static func _defaultValue() -> Bool { false }
    public static func _fromStored(_ value: _StoredValue) -> Bool { if case .bool(let b) = value { b } else { false } }
    public var _stored: _StoredValue { .bool(self) }
}

/// The fixed-width integers all store as a 64-bit integer; conversions check the range.
public protocol _PersistableInteger: _OptionalPersistable, FixedWidthInteger {}

extension _PersistableInteger {
    public static var _shape: _PropertyShape { _PropertyShape(.int) }
    public static func _defaultValue() -> Self { 0 }
    public static func _fromStored(_ value: _StoredValue) -> Self {
        if case .int(let i) = value { Self(truncatingIfNeeded: i) } else { 0 }
    }
    public var _stored: _StoredValue { .int(Int64(self)) }

    /// Reads the row's bytes directly when it can (see `ObjectBase._liveInteger`).
    public static func _get(_ object: ObjectBase, _ property: Int) -> Self {
        if let value = object._liveInteger(property) { return Self(truncatingIfNeeded: value) }
        return _fromStored(object._readField(property))
    }

    public static func _convert(_ value: Any, property: String) throws(RealmError) -> Self {
        guard case .int(let wide) = try StoredValueConversion.convert(value, to: _shape, property: property) else { return 0 }
        return try StoredValueConversion.checkRange(wide, as: Self.self, property: property)
    }
}

extension Int: _PersistableInteger {}
extension Int8: _PersistableInteger {}
extension Int16: _PersistableInteger {}
extension Int32: _PersistableInteger {}
extension Int64: _PersistableInteger {}

extension Float: _OptionalPersistable {
    public static var _shape: _PropertyShape { _PropertyShape(.float) }
    public static func _defaultValue() -> Float { 0 }
    public static func _fromStored(_ value: _StoredValue) -> Float { if case .float(let f) = value { f } else { 0 } }
    public var _stored: _StoredValue { .float(self) }
}

extension Double: _OptionalPersistable {
    public static var _shape: _PropertyShape { _PropertyShape(.double) }
    public static func _defaultValue() -> Double { 0 }
    public static func _fromStored(_ value: _StoredValue) -> Double { if case .double(let d) = value { d } else { 0 } }
    public var _stored: _StoredValue { .double(self) }
}

extension String: _OptionalPersistable {
    public static var _shape: _PropertyShape { _PropertyShape(.string) }
    public static func _defaultValue() -> String { "" }
    public static func _fromStored(_ value: _StoredValue) -> String { if case .string(let s) = value { s } else { "" } }
    public var _stored: _StoredValue { .string(self) }

    /// Reads the row's bytes directly when it can (see `ObjectBase._liveString`).
    public static func _get(_ object: ObjectBase, _ property: Int) -> String {
        object._liveString(property) ?? _fromStored(object._readField(property))
    }
}

extension Data: _OptionalPersistable {
    public static var _shape: _PropertyShape { _PropertyShape(.data) }
    public static func _defaultValue() -> Data { Data() }
    public static func _fromStored(_ value: _StoredValue) -> Data { if case .data(let d) = value { d } else { Data() } }
    public var _stored: _StoredValue { .data(self) }
}

extension Date: _OptionalPersistable {
    public static var _shape: _PropertyShape { _PropertyShape(.date) }
    public static func _defaultValue() -> Date { Date(timeIntervalSince1970: 0) }
    public static func _fromStored(_ value: _StoredValue) -> Date {
        if case .date(let d) = value { d } else { Date(timeIntervalSince1970: 0) }
    }
    public var _stored: _StoredValue { .date(self) }
}

extension ObjectId: _OptionalPersistable {
    public static var _shape: _PropertyShape { _PropertyShape(.objectId) }
    /// A new id, so that `@Persisted(primaryKey: true) var _id: ObjectId` is unique by default.
    public static func _defaultValue() -> ObjectId { .generate() }
    public static func _fromStored(_ value: _StoredValue) -> ObjectId { if case .objectId(let o) = value { o } else { ObjectId() } }
    public var _stored: _StoredValue { .objectId(self) }
}

extension UUID: _OptionalPersistable {
    public static var _shape: _PropertyShape { _PropertyShape(.uuid) }
    /// A new UUID, so that a `UUID` primary key is unique by default.
    public static func _defaultValue() -> UUID { UUID() }
    public static func _fromStored(_ value: _StoredValue) -> UUID { if case .uuid(let u) = value { u } else { UUID() } }
    public var _stored: _StoredValue { .uuid(self) }
}

extension Decimal128: _OptionalPersistable {
    public static var _shape: _PropertyShape { _PropertyShape(.decimal128) }
    public static func _defaultValue() -> Decimal128 { Decimal128() }
    public static func _fromStored(_ value: _StoredValue) -> Decimal128 {
        if case .decimal128(let d) = value { d } else { Decimal128() }
    }
    public var _stored: _StoredValue { .decimal128(self) }
}

// MARK: - Optionals

extension Optional: _PersistedValue, _Persistable where Wrapped: _OptionalPersistable {
    public static var _shape: _PropertyShape { Wrapped._shape.with(optional: true) }
    public static func _defaultValue() -> Wrapped? { nil }
    public static func _fromStored(_ value: _StoredValue) -> Wrapped? { Wrapped._fromStoredOptional(value) }
    public var _stored: _StoredValue { self?._stored ?? .null }
    public var _anyValue: Any { self.map { $0._anyValue } as Any }
}

// MARK: - Enums

/// An enum that can be stored, by its raw value, as in RealmSwift:
///
///     enum TaskStatus: String, PersistableEnum { case open, done }
///     final class Task: Object { @Persisted var status = TaskStatus.open }
///
/// A raw value in the file that no case has (a case removed since) reads as the first case.
public protocol PersistableEnum: _OptionalPersistable, RawRepresentable, CaseIterable, SortableType
where RawValue: _OptionalPersistable {}

extension PersistableEnum {
    public static var _shape: _PropertyShape { RawValue._shape }
    public static func _defaultValue() -> Self { allCases.first! }
    public static func _fromStored(_ value: _StoredValue) -> Self {
        Self(rawValue: RawValue._fromStored(value)) ?? allCases.first!
    }
    public var _stored: _StoredValue { rawValue._stored }

    public static func _convert(_ value: Any, property: String) throws(RealmError) -> Self {
        if let value = value as? Self { return value }
        let raw = try RawValue._convert(value, property: property)
        guard let value = Self(rawValue: raw) else {
            throw RealmError(.invalidArgument, "\(raw) is not a raw value of \(Self.self), for property '\(property)'.")
        }
        return value
    }
}
