/// The trees a reader has looked up, by name, with nil for a name no tree of its version has.
///
/// A reader goes to the same few trees over and over (a table's rows, its primary key, an
/// index), so the names used last sit in a short array, newest first, where finding one is a
/// few comparisons of small values. Names pushed out of the array move to a dictionary, and
/// back when used again: each name is in exactly one of the two, and nothing is forgotten, since
/// the engine's own lookup of a tree by name is a search of its catalog.
package struct TreeHandles<Handle> {
    private var recent: [(name: TreeName, handle: Handle?)] = []
    private var older: [TreeName: Handle?] = [:]
    private static var recentCapacity: Int { 8 }

    package init() {}

    /// What is remembered for `name`: nil if nothing is, `.some(nil)` if the tree does not
    /// exist. A name found in the dictionary becomes the most recent; the array's order is that
    /// of arrival, so a hit there moves nothing.
    package mutating func lookup(_ name: TreeName) -> Handle?? {
        // By index: iterating the array itself would retain its buffer on every lookup.
        for index in recent.indices where recent[index].name == name { return .some(recent[index].handle) }
        guard let handle = older.removeValue(forKey: name) else { return nil }
        push(name, handle)
        return .some(handle)
    }

    /// Remembers `handle` for `name` (nil: the tree does not exist), replacing what was
    /// remembered, as the most recent entry.
    package mutating func remember(_ name: TreeName, _ handle: Handle?) {
        if let index = recent.firstIndex(where: { $0.name == name }) {
            recent.remove(at: index)
        } else {
            older.removeValue(forKey: name)
        }
        push(name, handle)
    }

    /// Forgets every name, for a reader whose trees changed in ways it did not make.
    package mutating func removeAll() {
        recent.removeAll()
        older.removeAll()
    }

    private mutating func push(_ name: TreeName, _ handle: Handle?) {
        if recent.count == Self.recentCapacity {
            let evicted = recent.removeLast()
            older[evicted.name] = evicted.handle
        }
        recent.insert((name, handle), at: 0)
    }
}

extension TreeHandles: Sendable where Handle: Sendable {}
