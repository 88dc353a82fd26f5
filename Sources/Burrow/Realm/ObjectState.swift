/// Where a managed object reads its rows: the live realm that manages it (whose version moves
/// with writes and refreshes), or one frozen version.
enum ObjectSource {
    case live(Realm)
    case frozen(FrozenVersion)

    var context: any ReadContext {
        switch self {
        case .live(let realm): realm
        case .frozen(let version): version
        }
    }
}

/// The state of a managed object: its source, its class's table and its object key.
final class ObjectState {
    let source: ObjectSource
    let table: Table
    let key: ObjectKey

    init(source: ObjectSource, table: Table, key: ObjectKey) {
        self.source = source
        self.table = table
        self.key = key
    }

    /// Whether the object still exists in the version its source reads.
    var exists: Bool {
        switch source {
        case .live(let realm): realm.isOpen && realm.rowExists(table, key)
        case .frozen(let version): version.rowExists(table, key)
        }
    }

    func readField(_ property: Int) -> _StoredValue {
        switch source {
        case .live(let realm): realm.readField(table, key, property)
        case .frozen(let version): version.readField(table, key, property)
        }
    }

    func writeField(_ property: Int, _ value: _StoredValue) {
        switch source {
        case .live(let realm): realm.writeField(table, key, property, value)
        case .frozen: preconditionFailure("Cannot modify a frozen object: frozen objects are read-only. Thaw it in a realm's write transaction first.")
        }
    }

    /// Whether this object is managed by `realm` (the same live realm instance).
    func isManaged(by realm: Realm) -> Bool {
        if case .live(let owner) = source { return owner === realm }
        return false
    }
}
