/// Values by tree name, for the tree readers, whose lookups go to the same few trees over and
/// over (a table's rows, its indexes) by names that are the same `String` values each time.
///
/// The names used last sit in a short array, newest first. Two `String`s sharing their
/// storage compare equal without reading their bytes, so finding one of them hashes nothing,
/// and a reader that uses a few trees allocates no dictionary. Names pushed out of the array move
/// to a dictionary, and back when used again: each name is in exactly one of the two.
struct RecentNames<Value> {
    private var recent: [(name: String, value: Value)] = []
    private var older: [String: Value] = [:]
    private static var recentCapacity: Int { 8 }

    /// The value remembered for `name`, or nil if there is none. A name found in the
    /// dictionary becomes the most recent; the array's order is that of arrival, so a hit
    /// there moves nothing.
    mutating func value(for name: String) -> Value? {
        for entry in recent where entry.name == name { return entry.value }
        guard let value = older.removeValue(forKey: name) else { return nil }
        push(name, value)
        return value
    }

    /// Remembers `value` for `name`, replacing what was remembered, as the most recent entry.
    mutating func remember(_ name: String, _ value: Value) {
        if let index = recent.firstIndex(where: { $0.name == name }) {
            recent.remove(at: index)
        } else {
            older.removeValue(forKey: name)
        }
        push(name, value)
    }

    private mutating func push(_ name: String, _ value: Value) {
        if recent.count == Self.recentCapacity {
            let evicted = recent.removeLast()
            older[evicted.name] = evicted.value
        }
        recent.insert((name, value), at: 0)
    }
}

extension RecentNames: Sendable where Value: Sendable {}
