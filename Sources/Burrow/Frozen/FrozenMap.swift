import BurrowStore

/// A `Map` frozen at one version: its entries as they were then. Immutable and `Sendable`, so
/// any task or actor can read it, with no lock and no data race.
///
///     let parks: FrozenMap<String, String> = try dog.favoriteParksByCity.freeze()
///     Task.detached { print(parks["Toronto"] ?? "none") }
///
/// Later writes to the live map do not change it. Values that are objects are frozen objects
/// of the same version. Iteration is in key order. `thaw()` gives the live map back.
public struct FrozenMap<Key: _MapKey, Value: _Persistable>: Sequence, Sendable, CustomStringConvertible, RealmKeyedCollection {
    let frozen: FrozenCollection<Map<Key, Value>>

    /// The value under `key`, or nil if the map had no such key (one lookup).
    public subscript(key: Key) -> Value? { frozen.collection[key] }

    /// The number of entries (one field read).
    public var count: Int { frozen.collection.count }
    /// Whether the map had no entries.
    public var isEmpty: Bool { count == 0 }
    /// The keys, in order.
    public var keys: [Key] { frozen.collection.keys }
    /// The values, in key order.
    public var values: [Value] { frozen.collection.values }

    /// Iterates over the entries in key order (one scan), as `SingleMapEntry`s, as a `Map` does.
    public func makeIterator() -> Map<Key, Value>.Iterator { frozen.collection.makeIterator() }

    /// The entries as `(key:value:)` tuples, in key order (one scan).
    public func asKeyValueSequence() -> Map<Key, Value>.KeyValueSequence { frozen.collection.asKeyValueSequence() }

    /// Always true: a frozen map never changes.
    public var isFrozen: Bool { true }

    /// The version of the file this map is a view of.
    public var versionNumber: UInt64 { frozen.versionNumber }

    /// The live map this is a frozen view of, in the live realm of its file that belongs to the
    /// caller's isolation (as `Frozen.thaw()`), or nil if its object was deleted since.
    ///
    /// Throws `RealmError` if the file cannot be opened.
    public func thaw(isolation: isolated (any Actor)? = #isolation) throws -> Map<Key, Value>? {
        try frozen.thaw(isolation: isolation)
    }

    public var description: String { "Frozen\(frozen.collection.description) at version \(versionNumber)" }
}

extension Map {
    /// The map as of the realm's current version, frozen: `Sendable` and immutable.
    ///
    /// Throws `RealmError`: `.invalidObject` for an unmanaged map (or one whose object was
    /// deleted, or a dictionary inside an `AnyRealmValue` whose place no longer holds it);
    /// `.wrongState` inside a write transaction (whose changes are not a version yet).
    public func freeze() throws -> FrozenMap<Key, Value> {
        try frozenForm()
    }

    /// `freeze()`, with its error type.
    func frozenForm() throws(RealmError) -> FrozenMap<Key, Value> {
        if let nested {
            try nested.checkExists("Map<\(Key.self), \(Value.self)>")
            return FrozenMap(
                frozen: try FrozenCollection(
                    owner: nested.owner, property: nested.property, nested: nested, what: "object that holds this Map<\(Key.self), \(Value.self)>"))
        }
        guard let binding else {
            throw RealmError(.invalidObject, "Only the Map of a managed object can be frozen; add its object to a realm first.")
        }
        return FrozenMap(
            frozen: try FrozenCollection(
                owner: binding.owner, property: binding.property, what: "object that owns this Map<\(Key.self), \(Value.self)>"))
    }
}

extension Realm {
    /// The live map for `map` in this realm, or nil if its object was deleted since (or is not
    /// in this realm's file).
    public func thaw<Key, Value>(_ map: FrozenMap<Key, Value>) -> Map<Key, Value>? {
        map.frozen.thaw(in: self)
    }
}
