import BurrowStore

/// The base of every stored class: `Object` for top-level objects and `EmbeddedObject` for
/// objects that live inside another one. Do not subclass `ObjectBase` directly.
///
/// An object is either *unmanaged* (a plain Swift object, created with `init()` or
/// `init(value:)`, which no realm knows about) or *managed* (read from, or added to, a realm:
/// its `@Persisted` properties read and write the database). A managed object belongs to the
/// isolation domain of its realm and is not `Sendable`; to hand an object to another actor,
/// `freeze()` it.
open class ObjectBase {
    /// Set while the object is managed: which realm (or frozen version) it reads from, its
    /// class's table, and its object key.
    ///
    /// Exclusivity: unchecked at run time, so that reading a property pays no access tracking.
    /// A live object is confined to its realm's isolation, and the one mutation after binding
    /// (`readLiveField` keeping the row it found) calls no code that touches this object's
    /// state; a frozen object's state is never written after it is bound, so the threads that
    /// read it concurrently only read.
    @exclusivity(unchecked) final var _state: ObjectState?
    /// An error `init(value:)` or `setValue(_:forKey:)` met on this unmanaged object; adding
    /// the object to a realm throws it, since those two cannot throw.
    final var _pendingError: RealmError?

    /// A new unmanaged object whose properties have their declared default values.
    public required init() {}

    deinit {
        // An unmanaged object frees the objects it links to one at a time, not recursively.
        if _state == nil { HeldValueRelease.releaseHeldValues(of: self) }
    }

    /// A new unmanaged object with property values from `value`: a dictionary keyed by property
    /// name, an array of values in declaration order, or another object of the same class.
    /// Nested dictionaries and arrays create linked or embedded objects, and arrays of them
    /// fill lists and sets, at any depth (they are built from a worklist, not recursively).
    ///
    /// A value that does not fit (an unknown key, a value of the wrong type) is recorded, and
    /// adding the object to a realm throws it as a `RealmError`; `init(value:)` itself cannot
    /// throw, as in RealmSwift.
    public convenience init(value: Any) {
        self.init()
        do {
            try applyValue(value)
        } catch {
            _pendingError = error
        }
    }

    /// The name the class is stored under. Override to store a class under another name than
    /// its Swift name (for example, to keep a file's class names after renaming a Swift class).
    open class func _realmObjectName() -> String? { nil }

    /// The names the file stores properties under, where they differ from their Swift names:
    /// Swift name → stored name (`Property.columnName`), as RealmSwift's. Override to keep a
    /// file's property names after renaming Swift properties, or to store names Swift cannot
    /// spell.
    ///
    /// ```swift
    /// override class func propertiesMapping() -> [String: String] {
    ///     ["firstName": "first_name"]
    /// }
    /// ```
    ///
    /// Your code names the properties by their Swift names: typed objects, queries, sorting,
    /// key-value coding and change streams. What reads the file without your classes names
    /// them as the file stores them: `DynamicObject`s, migrations (`renameProperty`, the old
    /// and new objects of `enumerateObjects`), the `burrow` tool, imports and sync. Changing
    /// the mapping changes the file's schema, so it needs a migration.
    open class func propertiesMapping() -> [String: String] { [:] }

    /// Whether the class is in a realm's default schema: the program's classes that a realm
    /// opened without `objectTypes` brings a file to when its schema version is raised (see
    /// <doc:Migrations>). Override to return false for a class the program keeps but does not
    /// store, such as an older version of a model stored under the same name, as in
    /// RealmSwift. `DynamicObject` returns false.
    open class func shouldIncludeInDefaultSchema() -> Bool {
        self != DynamicObject.self
    }

    /// The name the class is stored under (its Swift name, or `_realmObjectName()`): what a
    /// `Migration` takes to name a class, as in RealmSwift (`Person.className()`).
    public class func className() -> String { ClassInfo.storedName(of: self) }

    /// The realm that manages this object, or nil if it is unmanaged. For a frozen object, a
    /// frozen realm at the object's version.
    public var realm: Realm? {
        guard let state = _state else { return nil }
        switch state.source {
        case .live(let realm): return realm
        case .frozen(let version): return Realm(frozen: version)
        }
    }

    /// Whether the object was deleted from its realm, or its realm was closed. An invalidated
    /// object's properties cannot be read. Unmanaged objects are never invalidated.
    public var isInvalidated: Bool {
        guard let state = _state else { return false }
        return !state.exists
    }

    /// Whether this is a frozen object: an immutable view of one version, readable anywhere.
    public var isFrozen: Bool {
        if case .frozen = _state?.source { return true }
        return false
    }

    /// The schema of this object's class.
    public var objectSchema: ObjectSchema { classInfo.schema }

    /// The class and its property values, as RealmSwift prints objects, with linked objects
    /// nested (indented) up to five levels:
    /// `Person { id = 123; name = Ali; dog = Dog { … }; dogs = List<Dog>; }`. An invalidated
    /// object reads `[invalid object]`. A model class may override it
    /// (`override var description: String { … }`), as in RealmSwift.
    open var description: String { propertiesDescription }

    /// The schema of this class, as RealmSwift's `Object.sharedSchema()`: its stored properties
    /// in `properties`, its `LinkingObjects` in `computedProperties`. Nil for `Object` and
    /// `EmbeddedObject` themselves, as in RealmSwift. Any isolation.
    public class func sharedSchema() -> ObjectSchema? {
        if self == Object.self || self == EmbeddedObject.self || self == ObjectBase.self { return nil }
        return ClassInfo.of(self).schema
    }

    /// Whether this object is of `type` or one of its subclasses.
    final func isInstance(of type: ObjectBase.Type) -> Bool {
        var current: AnyClass? = Swift.type(of: self)
        while let candidate = current {
            if candidate == type { return true }
            current = _getSuperclass(candidate)
        }
        return false
    }

    // MARK: Reading and writing fields of a managed object

    /// The stored value of property `property`. Traps if the object was deleted: like RealmSwift,
    /// reading a deleted object is a programming error that Swift gives no way to throw from.
    public final func _readField(_ property: Int) -> _StoredValue {
        // A live object reads in place (its row cache is updated without copying the state).
        if let realm = _state?.liveRealm { return _state!.readLiveField(property, in: realm) }
        guard let state = _state else { preconditionFailure("internal error: reading a field of an unmanaged object") }
        return state.readFrozenField(property)
    }

    /// Integer property `property` of a live object, decoded from the row it keeps outside
    /// write transactions; nil when `_readField` must read it (see `ObjectState.livePayload`).
    final func _liveInteger(_ property: Int) -> Int64? {
        guard let (payload, type) = _livePayload(property), type == .int else { return nil }
        return ValueCodec.int(payload)
    }

    /// String property `property` of a live object, decoded from the row it keeps outside write
    /// transactions; nil when `_readField` must read it (see `ObjectState.livePayload`; a
    /// string kept in the blob tree).
    final func _liveString(_ property: Int) -> String? {
        guard let (payload, type) = _livePayload(property), type == .string else { return nil }
        return RowCodec.string(payload)
    }

    @inline(__always)
    private func _livePayload(_ property: Int) -> (payload: UnsafeRawBufferPointer, type: PropertyType)? {
        // `livePayload` only loads, so the state can be read in place, without a copy.
        _state?.livePayload(property)
    }

    /// Writes property `property`. Traps outside a write transaction and on frozen objects, as
    /// RealmSwift does; a value the realm cannot take is recorded and thrown at commit.
    public final func _writeField(_ property: Int, _ value: _StoredValue) {
        guard let state = _state else { preconditionFailure("internal error: writing a field of an unmanaged object") }
        state.writeField(property, value)
    }
}

/// A top-level stored class. Subclass it and declare stored properties with `@Persisted`:
///
///     final class Dog: Object {
///         @Persisted(primaryKey: true) var _id: ObjectId
///         @Persisted var name = ""
///         @Persisted var age = 0
///     }
///
/// The schema is discovered from the class itself the first time a realm opens with it.
open class Object: ObjectBase {}

/// A class whose objects live inside one parent object: no primary key, never shared, deleted
/// with their parent. Declare properties of this type as optionals (`Address?`) or in lists.
/// An embedded object cannot be added to a realm on its own.
open class EmbeddedObject: ObjectBase {}

/// An object, or a projection, whose `id` is stable for SwiftUI and diffing: its object key
/// (the projected object's) when managed. As in RealmSwift, both `Object` subclasses and
/// `Projection` subclasses can adopt it:
///
///     final class Dog: Object, ObjectKeyIdentifiable { … }
///     final class DogRow: Projection<Dog>, ObjectKeyIdentifiable { … }
public protocol ObjectKeyIdentifiable: Identifiable, AnyObject {}

extension ObjectKeyIdentifiable where Self: ObjectBase {
    /// The object key while managed; before that, an identity of this instance.
    public var id: UInt64 { objectKeyIdentity }
}

extension ObjectKeyIdentifiable where Self: ProjectionObservable {
    /// The projected object's key while it is managed; before that, an identity of it.
    public var id: UInt64 { rootObject.objectKeyIdentity }
}

extension ObjectBase {
    /// The object key while managed; before that, an identity of this instance.
    final var objectKeyIdentity: UInt64 {
        if let key = _state?.key { return key.rawValue }
        return UInt64(UInt(bitPattern: ObjectIdentifier(self).hashValue))
    }
}
