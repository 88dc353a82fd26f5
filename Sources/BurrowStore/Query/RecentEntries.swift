/// A few entries by key: a lookup is a linear search that compares keys only, and once
/// `capacity` entries are held each new one replaces the oldest. Inlinable, so that the
/// layers above use it specialized for their keys and values.
@usableFromInline
package struct RecentEntries<Key: Equatable, Value> {
    @usableFromInline var entries: [(key: Key, value: Value)] = []
    @usableFromInline var next = 0
    @usableFromInline package let capacity: Int

    @inlinable
    package init(capacity: Int) {
        self.capacity = capacity
    }

    /// The value of the first entry under `key`, if any.
    @inlinable
    package func value(for key: Key) -> Value? {
        for entry in entries where entry.key == key { return entry.value }
        return nil
    }

    /// The value of the first entry under `key` that satisfies `matches`, if any.
    @inlinable
    package func first(_ key: Key, where matches: (Value) -> Bool) -> Value? {
        for entry in entries where entry.key == key && matches(entry.value) { return entry.value }
        return nil
    }

    /// Whether some entry under `key` has a value satisfying `matches`.
    @inlinable
    package func contains(_ key: Key, where matches: (Value) -> Bool) -> Bool {
        entries.contains { $0.key == key && matches($0.value) }
    }

    /// Adds an entry, replacing the oldest once `capacity` are held.
    @inlinable
    package mutating func add(_ key: Key, _ value: Value) {
        if entries.count < capacity {
            entries.append((key, value))
        } else {
            entries[next] = (key, value)
            next = (next + 1) % capacity
        }
    }
}
