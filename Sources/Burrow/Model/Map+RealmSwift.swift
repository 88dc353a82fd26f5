import BurrowStore

/// What RealmSwift's `Map` has beyond a dictionary's basics: merging, equality, and the
/// aggregates of a map of values.
extension Map {
    /// Merges `sequence`'s entries into the map; for a key the map has already, `combine` is
    /// given the map's value and the new one and returns the value to keep. Managed, it needs
    /// a write transaction (an unmanaged object among the values is added to the realm).
    public func merge<S: Sequence>(_ sequence: S, uniquingKeysWith combine: (Value, Value) throws -> Value) rethrows
    where S.Element == (key: Key, value: Value) {
        for (key, value) in Array(sequence) {
            if let existing = self[key] {
                updateValue(try combine(existing, value), forKey: key)
            } else {
                updateValue(value, forKey: key)
            }
        }
    }

    /// Merges `other`'s entries into the map, as `merge(_:uniquingKeysWith:)` does a sequence.
    public func merge(_ other: Map<Key, Value>, uniquingKeysWith combine: (Value, Value) throws -> Value) rethrows {
        try merge(other.asKeyValueSequence(), uniquingKeysWith: combine)
    }

    /// Merges a dictionary's entries into the map, as `merge(_:uniquingKeysWith:)` does a
    /// sequence.
    public func merge(_ dictionary: [Key: Value], uniquingKeysWith combine: (Value, Value) throws -> Value) rethrows {
        try merge(dictionary.map { (key: $0.key, value: $0.value) }, uniquingKeysWith: combine)
    }

    /// Whether `predicate` holds for some entry.
    public func contains(where predicate: (_ key: Key, _ value: Value) throws -> Bool) rethrows -> Bool {
        try asKeyValueSequence().contains { try predicate($0.key, $0.value) }
    }

}

extension Map: Equatable {
    /// Whether two maps are equal, as RealmSwift's `==`: the same managed map (of the same
    /// object and property), or, both unmanaged, maps of the same keys with equal values.
    public static func == (lhs: Map, rhs: Map) -> Bool {
        lhs === rhs || lhs.sameness(as: rhs).isEqual { lhs.unmanagedEntries == rhs.unmanagedEntries }
    }

    /// Whether `object` is a map equal to this one (`==`), as RealmSwift's `isEqual(_:)`.
    public func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? Map else { return false }
        return self == other
    }
}

/// The aggregates of a map of values (`Map<String, Int>`, `Map<String, Double?>`,
/// `Map<String, AnyRealmValue>`) over its values, as RealmSwift's.
extension Map where Value: MinMaxType {
    /// The smallest value, or nil if the map holds none.
    public func min() -> Value? { QueryValue.aggregate(.min, ofValues: values).converted() }
    /// The largest value, or nil if the map holds none.
    public func max() -> Value? { QueryValue.aggregate(.max, ofValues: values).converted() }
}

extension Map where Value: AddableType {
    /// The sum of the values (0 if the map holds none).
    public func sum() -> Value { QueryValue.aggregate(.sum, ofValues: values).converted() ?? Value._fromStored(.int(0)) }
    /// The average of the values, as a `T`, or nil if the map holds none.
    public func average<T: AddableType>() -> T? { QueryValue.aggregate(.avg, ofValues: values).converted() }
}
