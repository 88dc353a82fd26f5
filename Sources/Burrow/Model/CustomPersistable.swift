import BurrowStore

/// A type stored as a type Burrow stores, as RealmSwift's `CustomPersistable`: declare the
/// `PersistedType`, how to make the type from it, and how to make it from the type.
///
///     struct Celsius: CustomPersistable, Hashable {
///         typealias PersistedType = Double
///         var degrees: Double
///         init(persistedValue: Double) { degrees = persistedValue }
///         var persistableValue: Double { degrees }
///     }
///
///     final class Reading: Object {
///         @Persisted var temperature: Celsius
///         @Persisted var history: List<Celsius>
///     }
///
/// `PersistedType` can be any type a property can store (a value type, or an `EmbeddedObject`
/// class to keep several values). The file holds the persisted values, so queries compare
/// them: `$0.temperature == Celsius(persistedValue: 20)` and `"temperature > 20"` both work,
/// and a query argument may be of either type.
public protocol CustomPersistable: _CustomPersistable {
    /// Makes the value from what the file holds.
    init(persistedValue: PersistedType)
}

/// A `CustomPersistable` whose stored form may not convert back, as RealmSwift's
/// `FailableCustomPersistable` (a `URL` stored as a `String`):
///
///     extension URL: FailableCustomPersistable {
///         public typealias PersistedType = String
///         public init?(persistedValue: String) { self.init(string: persistedValue) }
///         public var persistableValue: String { absoluteString }
///     }
///
/// A stored value that does not convert reads as nil through an optional property
/// (`@Persisted var link: URL?`) and traps through a non-optional one, as in RealmSwift. The
/// type's default (a new object's value) converts `PersistedType`'s default, which must not fail.
public protocol FailableCustomPersistable: _CustomPersistable {
    /// Makes the value from what the file holds, or nil if it does not convert.
    init?(persistedValue: PersistedType)
}

/// What `CustomPersistable` and `FailableCustomPersistable` share: the persisted type and the
/// conversion to it, and every storage requirement implemented through them.
public protocol _CustomPersistable: _OptionalPersistable {
    /// The type the file holds for values of this type.
    associatedtype PersistedType: _OptionalPersistable
    /// The value as the file holds it.
    var persistableValue: PersistedType { get }
    /// The value made from `persisted`, or nil if it does not convert.
    static func _fromPersisted(_ persisted: PersistedType) -> Self?
}

extension CustomPersistable {
    public static func _fromPersisted(_ persisted: PersistedType) -> Self? { Self(persistedValue: persisted) }
}

extension FailableCustomPersistable {
    public static func _fromPersisted(_ persisted: PersistedType) -> Self? { Self(persistedValue: persisted) }
}

extension _CustomPersistable {
    /// The persisted type's shape. A link to an embedded object is optional in the schema, as
    /// every link is, while the property itself need not be: a nil link reads as the persisted
    /// type's default.
    public static var _shape: _PropertyShape {
        let shape = PersistedType._shape
        return _PropertyShape(shape.type, optional: shape.isOptional, collection: shape.collection, objectType: shape.objectType, readsNilLink: true)
    }

    /// The value made from `PersistedType`'s default. Traps if that does not convert, as in
    /// RealmSwift: give the property a default value, or make it optional.
    public static func _defaultValue() -> Self {
        guard let value = _fromPersisted(PersistedType._defaultValue()) else {
            preconditionFailure(
                "Failed to default construct a \(Self.self) using the default value for persisted type \(PersistedType.self). This conversion must either succeed, the property must be optional, or you must explicitly specify a default value for the property."
            )
        }
        return value
    }

    /// The value read from storage. A link read as nil (an embedded object not set yet) reads
    /// as `PersistedType`'s default; a value that does not convert traps, as in RealmSwift.
    public static func _fromStored(_ value: _StoredValue) -> Self {
        if case .null = value, PersistedType._shape.type == .object { return _defaultValue() }
        return converted(PersistedType._fromStored(value))
    }

    /// Nil for a value that does not convert, which an optional property reads as nil.
    public static func _fromStoredOptional(_ value: _StoredValue) -> Self? {
        if case .null = value { return nil }
        return _fromPersisted(PersistedType._fromStored(value))
    }

    public var _stored: _StoredValue { persistableValue._stored }

    /// A value of this type, or one `PersistedType` converts (its own value, or for an
    /// embedded object a dictionary or array of its properties).
    public static func _convert(_ value: Any, property: String) throws(RealmError) -> Self {
        if let value = value as? Self { return value }
        let persisted = try PersistedType._convert(value, property: property)
        guard let converted = _fromPersisted(persisted) else {
            throw RealmError(.invalidArgument, "\(persisted) does not convert to \(Self.self), for property '\(property)'.")
        }
        return converted
    }

    private static func converted(_ persisted: PersistedType) -> Self {
        guard let value = _fromPersisted(persisted) else {
            preconditionFailure("Failed to convert persisted value '\(persisted)' to type '\(Self.self)' in a non-optional context.")
        }
        return value
    }
}
