/// Values by table id, for the few tables one write transaction touches.
///
/// A transaction looks its tables' entries up once per object it adds; a linear search of a
/// short array does that without hashing, which a `Dictionary` pays on every access. A schema
/// has tens of classes at most, so the search stays short even when a write touches them all.
package struct TableIDMap<Value> {
    private var entries: [(id: UInt32, value: Value)] = []

    package init() {}

    /// The value for table `id`; assigning nil removes it, as with a `Dictionary`.
    package subscript(id: UInt32) -> Value? {
        get {
            for entry in entries where entry.id == id { return entry.value }
            return nil
        }
        set {
            if let index = entries.firstIndex(where: { $0.id == id }) {
                if let newValue { entries[index].value = newValue } else { entries.remove(at: index) }
            } else if let newValue {
                entries.append((id, newValue))
            }
        }
    }
}
