import BurrowStore

/// Declares a stored property of an `Object` or `EmbeddedObject`:
///
///     @Persisted(primaryKey: true) var _id: ObjectId
///     @Persisted(indexed: true) var name = ""
///     @Persisted var age = 0
///     @Persisted var toys: List<DogToy>
///     @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
///
/// On an unmanaged object the property holds its value like any Swift property. Once the
/// object is managed, reads and writes go to the realm: reading decodes just this property,
/// and writing needs a write transaction (writing outside one traps, as in RealmSwift).
@propertyWrapper
public struct Persisted<Value: _PersistedValue> {
    // The initializers and the enclosing-instance subscript are inlinable so that each model's
    // module specializes them for its property types: objects are created and read on hot
    // paths, and unspecialized generic code would look type metadata up at run time.
    @usableFromInline
    enum Storage {
        case unmanaged(Value)
        /// No value given: the type's default is made on first use.
        case unmanagedNoDefault
    }

    /// While the object is managed, the index of this property in its class's schema; -1 while
    /// unmanaged. It is the first stored property so that the realm binds and unbinds a field
    /// with one integer store at a known offset, whatever `Value` is. `storage` keeps the
    /// unmanaged value meanwhile: a cancelled write makes the object unmanaged again with it.
    @usableFromInline var managedProperty: Int
    @usableFromInline var storage: Storage
    @usableFromInline let isPrimaryKey: Bool
    @usableFromInline let isIndexed: Bool

    /// Not available: `@Persisted` properties are read through their object.
    @available(*, unavailable, message: "@Persisted can only be used on a property of an Object or EmbeddedObject")
    public var wrappedValue: Value {
        get { fatalError("@Persisted used outside an Object") }
        // swiftlint:disable:next unused_setter_value
        set { fatalError("@Persisted used outside an Object") }
    }

    /// A property with the type's default value (0, "", nil, an empty collection, a new
    /// `ObjectId`).
    @inlinable
    public init() {
        self.init(storage: .unmanagedNoDefault, primaryKey: false, indexed: false)
    }

    /// A property with the value given in its declaration.
    @inlinable
    public init(wrappedValue: Value) {
        self.init(storage: .unmanaged(wrappedValue), primaryKey: false, indexed: false)
    }

    /// The class's primary key, if `primaryKey` is true. A primary key is unique, indexed, and
    /// cannot change once the object is managed. Types: integers, `String`, `ObjectId`, `UUID`
    /// and their optionals.
    @inlinable
    public init(primaryKey: Bool) {
        self.init(storage: .unmanagedNoDefault, primaryKey: primaryKey, indexed: primaryKey)
    }

    /// A primary key (if `primaryKey` is true) with a declared default value.
    @inlinable
    public init(wrappedValue: Value, primaryKey: Bool) {
        self.init(storage: .unmanaged(wrappedValue), primaryKey: primaryKey, indexed: primaryKey)
    }

    /// An indexed property, if `indexed` is true: equality and range queries on it use the
    /// index, at the cost of maintaining it on every write.
    @inlinable
    public init(indexed: Bool) {
        self.init(storage: .unmanagedNoDefault, primaryKey: false, indexed: indexed)
    }

    /// An indexed property with a declared default value.
    @inlinable
    public init(wrappedValue: Value, indexed: Bool) {
        self.init(storage: .unmanaged(wrappedValue), primaryKey: false, indexed: indexed)
    }

    @usableFromInline
    init(storage: Storage, primaryKey: Bool, indexed: Bool) {
        managedProperty = -1
        self.storage = storage
        self.isPrimaryKey = primaryKey
        self.isIndexed = indexed
    }

    @inlinable
    public static subscript<EnclosingSelf: ObjectBase>(
        _enclosingInstance object: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Persisted<Value>>
    ) -> Value {
        get {
            // Only the index is read first: copying the whole field would retain its value.
            let property = object[keyPath: storageKeyPath].managedProperty
            if property >= 0 { return Value._get(object, property) }
            switch object[keyPath: storageKeyPath].storage {
            case .unmanaged(let value):
                return value
            case .unmanagedNoDefault:
                let value = Value._defaultValue()
                object[keyPath: storageKeyPath].storage = .unmanaged(value)
                return value
            }
        }
        set {
            // One access through the key path: an unmanaged field takes the value in place.
            let property = object[keyPath: storageKeyPath].assignIfUnmanaged(newValue)
            if property >= 0 { Value._set(newValue, object, property) }
        }
    }

    /// Stores `value` if the field is unmanaged; returns the managed property index (or -1).
    @inlinable
    mutating func assignIfUnmanaged(_ value: Value) -> Int {
        if managedProperty < 0 { storage = .unmanaged(value) }
        return managedProperty
    }

    /// The unmanaged value, made from the default if none was set yet.
    mutating func unmanagedValue() -> Value {
        switch storage {
        case .unmanaged(let value): return value
        case .unmanagedNoDefault:
            let value = Value._defaultValue()
            storage = .unmanaged(value)
            return value
        }
    }
}

extension Persisted {
    /// A `LinkingObjects` property: the objects of `Origin` whose `originProperty` (a link or a
    /// list of links) points at this object.
    public init<Origin: ObjectBase>(originProperty: String) where Value == LinkingObjects<Origin> {
        self.init(storage: .unmanaged(LinkingObjects(fromType: Origin.self, property: originProperty)), primaryKey: false, indexed: false)
    }
}

/// What schema discovery and the realm do with a `@Persisted` field they reach by its offset in
/// an object, without knowing its value type statically.
protocol PersistedField: SendableMetatype {
    static var shape: _PropertyShape { get }
    static func options(at field: UnsafeMutableRawPointer) -> (primaryKey: Bool, indexed: Bool, origin: String?)
    /// Where `managedProperty` lies in the field: the realm binds a field (managed property
    /// index) or unbinds it (-1) with one `Int` store there.
    static var managedPropertyOffset: Int { get }
    /// The unmanaged value, as `Any`.
    static func unmanagedValue(at field: UnsafeMutableRawPointer) -> Any
    /// The unmanaged value with its stored form, in one call.
    static func readUnmanaged(at field: UnsafeMutableRawPointer) -> _UnmanagedField
    static func setUnmanagedValue(at field: UnsafeMutableRawPointer, _ value: Any)
    /// Lets go of the unmanaged value (the field holds no value, as if none was given).
    static func dropUnmanagedValue(at field: UnsafeMutableRawPointer)
    /// Moves the unmanaged value out, if one was given (the field holds none afterwards).
    static func takeUnmanagedValue(at field: UnsafeMutableRawPointer) -> Any?
    /// The `List`, `MutableSet` or `Map` instance the field holds as its unmanaged value, if
    /// any (without making a default one).
    static func heldCollection(at field: UnsafeMutableRawPointer) -> (any HeldCollection)?
    /// Writes the field's unmanaged value into property `property` of the managed `object`.
    static func copyUnmanagedValue(at field: UnsafeMutableRawPointer, to object: ObjectBase, property: Int)
    /// Converts a loosely typed value to `Value` (as `Any`), or throws why it cannot.
    static func convert(_ value: Any, property: String) throws(RealmError) -> Any
    static func managedGet(_ object: ObjectBase, property: Int) -> Any
    static func managedSet(_ object: ObjectBase, property: Int, _ value: Any)
    /// The stored form of `value` (a `Value`) if it is a single value, nil for collections.
    static func stored(_ value: Any) -> _StoredValue?
}

extension Persisted: PersistedField {
    private static func field(_ pointer: UnsafeMutableRawPointer) -> UnsafeMutablePointer<Persisted<Value>> {
        pointer.assumingMemoryBound(to: Persisted<Value>.self)
    }

    static var shape: _PropertyShape { Value._shape }

    static func options(at field: UnsafeMutableRawPointer) -> (primaryKey: Bool, indexed: Bool, origin: String?) {
        let persisted = Self.field(field)
        let origin = (persisted.pointee.unmanagedValue() as? any LinkingObjectsProtocol)?.originPropertyName
        return (persisted.pointee.isPrimaryKey, persisted.pointee.isIndexed, origin)
    }

    static var managedPropertyOffset: Int {
        MemoryLayout<Persisted<Value>>.offset(of: \Persisted<Value>.managedProperty)!
    }

    static func unmanagedValue(at field: UnsafeMutableRawPointer) -> Any {
        Self.field(field).pointee.unmanagedValue()
    }

    static func readUnmanaged(at field: UnsafeMutableRawPointer) -> _UnmanagedField {
        Value._readUnmanaged(field)
    }

    static func setUnmanagedValue(at field: UnsafeMutableRawPointer, _ value: Any) {
        Self.field(field).pointee.storage = .unmanaged(value as! Value)
    }

    static func dropUnmanagedValue(at field: UnsafeMutableRawPointer) {
        Self.field(field).pointee.storage = .unmanagedNoDefault
    }

    static func takeUnmanagedValue(at field: UnsafeMutableRawPointer) -> Any? {
        let persisted = Self.field(field)
        guard case .unmanaged(let value) = persisted.pointee.storage else { return nil }
        persisted.pointee.storage = .unmanagedNoDefault
        return value
    }

    static func heldCollection(at field: UnsafeMutableRawPointer) -> (any HeldCollection)? {
        guard case .unmanaged(let value) = Self.field(field).pointee.storage else { return nil }
        return value as? any HeldCollection
    }

    static func copyUnmanagedValue(at field: UnsafeMutableRawPointer, to object: ObjectBase, property: Int) {
        Value._set(Self.field(field).pointee.unmanagedValue(), object, property)
    }

    static func convert(_ value: Any, property: String) throws(RealmError) -> Any {
        try Value._convert(value, property: property)
    }

    static func managedGet(_ object: ObjectBase, property: Int) -> Any {
        Value._get(object, property)
    }

    static func managedSet(_ object: ObjectBase, property: Int, _ value: Any) {
        Value._set(value as! Value, object, property)
    }

    static func stored(_ value: Any) -> _StoredValue? {
        Value._storedSingle(value as! Value)
    }
}
