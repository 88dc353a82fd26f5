/// One entry of a `Map`, as iterating over the map yields it: RealmSwift's `SingleMapEntry`.
/// Two entries are equal when their values are (as in RealmSwift); an entry hashes by its key.
public struct SingleMapEntry<Key: _MapKey, Value: RealmCollectionValue>: Hashable {
    /// The entry's key.
    public var key: Key
    /// The entry's value.
    public var value: Value

    public init(key: Key, value: Value) {
        self.key = key
        self.value = value
    }

    public static func == (lhs: SingleMapEntry, rhs: SingleMapEntry) -> Bool {
        lhs.value == rhs.value
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(key)
    }
}

extension SingleMapEntry: Sendable where Value: Sendable {}

extension Map {
    /// A map as a sequence of `(key: Key, value: Value)` tuples, which `for (key, value) in`
    /// takes apart: what `asKeyValueSequence()` gives.
    public struct KeyValueSequence: Sequence {
        private let entries: [(key: Key, value: Value)]

        fileprivate init(_ map: Map) {
            entries = map.entries
        }

        /// Iterates over the entries the map had when the sequence was made, in key order.
        public func makeIterator() -> IndexingIterator<[(key: Key, value: Value)]> { entries.makeIterator() }
    }

    /// The entries as `(key:value:)` tuples, in key order (one scan when managed), as
    /// RealmSwift's `asKeyValueSequence()`.
    public func asKeyValueSequence() -> KeyValueSequence {
        KeyValueSequence(self)
    }
}
