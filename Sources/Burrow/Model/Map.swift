import BurrowStore

/// The key type of a `Map`: strings, as in RealmSwift.
public protocol _MapKey: Hashable, Comparable, Sendable {
    var _mapKey: String { get }
    init(_mapKey: String)
}

extension String: _MapKey {
    public var _mapKey: String { self }
    public init(_mapKey: String) { self = _mapKey }
}

/// A dictionary from strings to values or objects, as a `@Persisted` property:
///
///     @Persisted var favoriteParksByCity: Map<String, String>
///
/// Managed, each entry is an entry of a tree of its own, so reading, setting or removing one key
/// costs O(log n) and `count` reads one field. Changes need a write transaction (outside one
/// they trap, as in RealmSwift). Iteration is in key order.
public final class Map<Key: _MapKey, Value: _Persistable>: Sequence, _CollectionValue, CustomStringConvertible, HeldCollection {
    private var storage: [Key: Value] = [:]
    /// Set while the map is managed. Unchecked for exclusivity, so that reading pays no access
    /// tracking: see `HeldCollection` for when it changes.
    @exclusivity(unchecked) var binding: CollectionBinding?
    /// Set for a dictionary inside a managed `AnyRealmValue` (then `binding` is nil): where it is.
    let nested: NestedCollectionBinding?

    /// A new, empty, unmanaged map.
    public init() {
        binding = nil
        nested = nil
    }

    init(owner: ObjectBase, property: Int) {
        binding = CollectionBinding(owner: owner, property: property)
        nested = nil
    }

    /// The dictionary inside a managed `AnyRealmValue` at `place`.
    init(nested place: NestedCollectionBinding) {
        binding = nil
        nested = place.viewed(as: .dictionary)
    }

    var entries: [(key: Key, value: Value)] {
        if let nested {
            return nestedEntries(nested).sorted { NestedValues.keyPrecedes($0.key, $1.key) }.map {
                (Key(_mapKey: $0.key), value($0.value, under: $0.key))
            }
        }
        guard let binding, let field = binding.field else {
            return storage.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        }
        guard case .entries(let stored) = binding.context.readContent(binding.state.table, binding.state.key, field) else { return [] }
        return stored.map { (Key(_mapKey: $0.key), value($0.value, under: $0.key)) }
    }

    /// The value stored as `stored` under `key`: a list or dictionary inside an
    /// `AnyRealmValue` as the live collection there.
    @inline(__always)
    private func value(_ stored: _StoredValue, under key: String) -> Value {
        guard stored.isNestedCollection else { return Value._fromStored(stored) }
        let place = nested?.child(.key(key)) ?? binding.map { NestedCollectionBinding(owner: $0.owner, property: $0.property, root: .mapValue(key)) }
        // Only an `AnyRealmValue` holds a list or a dictionary.
        guard let place else { return Value._fromStored(stored) }
        return AnyRealmValue.view(of: stored, at: place) as! Value
    }

    /// The entries of the dictionary inside an `AnyRealmValue` at `place`, as stored now.
    private func nestedEntries(_ place: NestedCollectionBinding) -> [String: _StoredValue] {
        guard case .dictionary(let entries)? = place.read() else { return [:] }
        return entries
    }

    /// The value under `key`, or nil if the map has no such key. Setting nil removes the key.
    public subscript(key: Key) -> Value? {
        get {
            if let nested { return nestedEntries(nested)[key._mapKey].map { value($0, under: key._mapKey) } }
            guard let binding, let field = binding.field else { return storage[key] }
            return binding.context.mapValue(binding.state.table, binding.state.key, field, key._mapKey).map { value($0, under: key._mapKey) }
        }
        set {
            if let newValue { updateValue(newValue, forKey: key) } else { removeObject(for: key) }
        }
    }

    /// Sets the value under `key`, adding the key if it is new.
    public func updateValue(_ value: Value, forKey key: Key) {
        if let nested {
            nested.modify { stored in
                guard case .dictionary(var entries) = stored else { return }
                entries[key._mapKey] = value._stored
                stored = .dictionary(entries)
            }
            return
        }
        guard let binding else {
            storage[key] = value
            return
        }
        _ = binding.write { realm, table, owner, field, write throws(RealmError) in
            try realm.mapSet(table, owner, field, key._mapKey, value._stored, in: write)
        }
    }

    /// Sets the value under `key` from a loosely typed value, as key-value coding does (nil
    /// removes the key). A value of the wrong type is recorded and thrown at commit (managed)
    /// or when the object is added (unmanaged).
    public func setValue(_ value: Any?, forKey key: String) {
        guard let value, !StoredValueConversion.isNil(value) else {
            removeObject(for: Key(_mapKey: key))
            return
        }
        do {
            updateValue(try Value._convert(value, property: key), forKey: Key(_mapKey: key))
        } catch {
            if let binding, case .live(let realm) = binding.state.source {
                realm.requireWrite().fail(error)
            } else {
                binding?.owner._pendingError = error
            }
        }
    }

    /// Removes `key` and its value, if present.
    public func removeObject(for key: Key) {
        if let nested {
            nested.modify { stored in
                guard case .dictionary(var entries) = stored else { return }
                entries[key._mapKey] = nil
                stored = .dictionary(entries)
            }
            return
        }
        guard let binding else {
            storage[key] = nil
            return
        }
        _ = binding.write { realm, table, owner, field, write throws(RealmError) in
            try realm.mapRemove(table, owner, field, key._mapKey, in: write)
        }
    }

    /// Removes every entry.
    public func removeAll() {
        if let nested {
            nested.modify { stored in stored = .dictionary([:]) }
            return
        }
        guard let binding else {
            storage = [:]
            return
        }
        _ = binding.write { realm, table, owner, field, write throws(RealmError) in
            try realm.clearCollection(table, owner, field, in: write)
        }
    }

    /// The number of entries (one field read when managed).
    public var count: Int {
        if let nested { return nestedEntries(nested).count }
        guard let binding, let field = binding.field else { return storage.count }
        return binding.context.collectionCount(binding.state.table, binding.state.key, field)
    }

    public var isEmpty: Bool { count == 0 }
    /// The keys, in order.
    public var keys: [Key] { entries.map(\.key) }
    /// The values, in key order.
    public var values: [Value] { entries.map(\.value) }

    /// Iterates over the entries, in key order, as `SingleMapEntry`s (`entry.key`,
    /// `entry.value`), as RealmSwift does; `asKeyValueSequence()` iterates over
    /// `(key:value:)` tuples. The entries are those the map has when iteration starts (one
    /// scan when managed): setting or removing keys, or deleting objects, inside the loop
    /// visits each of those entries exactly once. A deleted object is still visited,
    /// invalidated. `keys` and `values` are likewise read once, when asked for.
    public func makeIterator() -> LazyMapSequence<[(key: Key, value: Value)], SingleMapEntry<Key, Value>>.Iterator {
        entries.lazy.map { SingleMapEntry(key: $0.key, value: $0.value) }.makeIterator()
    }

    /// The realm of the map's object, or nil if unmanaged.
    public var realm: Realm? { nested?.realm ?? binding?.owner.realm }
    /// Whether the map's object was deleted (for a dictionary inside an `AnyRealmValue`, also
    /// whether the value holding it was replaced or removed).
    public var isInvalidated: Bool { nested?.isInvalidated ?? binding?.owner.isInvalidated ?? false }
    /// Whether the map belongs to a frozen object.
    public var isFrozen: Bool { nested?.isFrozen ?? binding?.owner.isFrozen ?? false }

    func dropUnmanagedElements() { storage = [:] }

    /// The entries of an unmanaged map; nil for a managed one.
    var unmanagedEntries: [String: Value]? {
        guard binding == nil, nested == nil else { return nil }
        return Dictionary(storage.map { ($0.key._mapKey, $0.value) }, uniquingKeysWith: { $1 })
    }

    /// The map as one stored value, read whole (a managed one as stored now).
    var storedValue: _StoredValue {
        if let nested { return nested.read() ?? .dictionary([:]) }
        return .dictionary(Dictionary(entries.map { ($0.key._mapKey, $0.value._stored) }, uniquingKeysWith: { $1 }))
    }

    /// Whether `other` is this map: the same managed map, another, or (both unmanaged) a
    /// map to compare by its contents.
    func sameness(as other: Map) -> CollectionSameness {
        CollectionSameness((binding, nested), (other.binding, other.nested))
    }

    /// The entries as RealmSwift prints a map: `Map<string, Dog> <0x…> (` then
    /// `[key]: Dog { … }` a line.
    public var description: String { description(maxDepth: ObjectBase.descriptionMaxDepth) }

    func description(maxDepth depth: Int) -> String {
        CollectionDescription.describe(map: entries.map { (key: $0.key._mapKey, value: $0.value) }, instance: self, depth: depth)
    }

    // MARK: _PersistedValue

    public var _isEmpty: Bool { isEmpty }
    public static var _shape: _PropertyShape { Value._shape.with(collection: .map) }
    public static func _defaultValue() -> Map<Key, Value> { Map() }
    public static func _get(_ object: ObjectBase, _ property: Int) -> Map<Key, Value> { Map(owner: object, property: property) }
    public static func _set(_ value: Map<Key, Value>, _ object: ObjectBase, _ property: Int) {
        CollectionBinding.replaceContent(
            of: object, property: property, with: .entries(value.entries.map { (key: $0.key._mapKey, value: $0.value._stored) }))
    }
    public static func _convert(_ value: Any, property: String) throws(RealmError) -> Map<Key, Value> {
        if !StoredValueConversion.isSwiftCollection(value), let other = value as? Map<Key, Value> {
            // Copied, as in RealmSwift: adding this value's object must not take the other map.
            let map = Map()
            map.storage = other.binding == nil ? other.storage : Dictionary(uniqueKeysWithValues: other.entries.map { ($0.key, $0.value) })
            return map
        }
        guard let dictionary = value as? [String: Any] else {
            throw RealmError(
                .invalidArgument, "Property '\(property)' is a Map; give a dictionary with String keys, not \(StoredValueConversion.describe(value))."
            )
        }
        let map = Map()
        for (key, element) in dictionary { map.storage[Key(_mapKey: key)] = try Value._convert(element, property: property) }
        return map
    }
    public var _anyValue: Any { self }
}
