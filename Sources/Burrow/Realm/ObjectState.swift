import BurrowStorage
import BurrowStore

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

/// The state of a managed object: its source, its class's table and its object key, stored in
/// the object itself (`ObjectBase._state`), so that a managed object is one allocation.
///
/// Reading a property outside a write transaction reads the row from the realm's snapshot; the
/// row's address stays valid while that snapshot is the one read, so a live object keeps it,
/// with the realm's change stamp, and later reads decode from it without a descent. A frozen
/// object keeps the row of its version from the start, and never changes it.
///
/// The source is kept as two constants rather than an `ObjectSource`: reading a property then
/// borrows the realm from a field instead of copying it out of an enum. The one row field
/// serves both kinds, so that the state stays small: binding a new object and destroying it
/// then copy and release less.
struct ObjectState {
    /// The live realm that manages the object; nil for a frozen object.
    let liveRealm: Realm?
    /// The frozen version a frozen object reads; nil for a live object.
    private let frozenVersion: FrozenVersion?
    let table: Table
    let key: ObjectKey
    /// A frozen object's row (immutable: frozen objects are read from any thread), or a live
    /// object's row at `rowStamp` of its realm, outside write transactions. Nil if there is
    /// no such row (deleted), or a live object has not read it yet.
    private var row: UnsafeRawBufferPointer?
    /// The realm's change stamp when a live object's `row` was read. Before then, the realm's
    /// count of invalidations (`Realm.invalidations`) in the top bits and ones below, which no
    /// change stamp reaches. Either way its top bits say which `invalidate()` of the realm the
    /// object is from.
    private var rowStamp: UInt64 = .max

    /// `row`, if given, is the object's row in the version `source` reads now, found by the
    /// caller (a live realm's is used only outside write transactions).
    init(source: ObjectSource, table: Table, key: ObjectKey, row: UnsafeRawBufferPointer? = nil) {
        switch source {
        case .frozen(let version):
            liveRealm = nil
            frozenVersion = version
            self.table = table
            self.key = key
            self.row = row ?? version.snapshotRow(table, key)
        case .live(let realm):
            liveRealm = realm
            frozenVersion = nil
            self.table = table
            self.key = key
            rowStamp = realm.changeStamp | (1 << Realm.invalidationShift - 1)
            if let row, realm.write == nil {
                self.row = row
                rowStamp = realm.changeStamp
            }
        }
    }

    var source: ObjectSource {
        if let liveRealm { return .live(liveRealm) }
        return .frozen(frozenVersion!)
    }

    /// Whether the object still exists in the version its source reads.
    var exists: Bool {
        switch source {
        case .live(let realm): realm.isOpen && isCurrent(in: realm) && realm.store.objectExists(table, key)
        case .frozen(let version): version.rowExists(table, key)
        }
    }

    /// `exists`, throwing a read error where it would trap.
    func checkExists() throws(StorageError) -> Bool {
        switch source {
        case .live(let realm): realm.isOpen && isCurrent(in: realm) ? try realm.store.hasRow(table, key) : false
        case .frozen(let version): try version.hasRow(table, key)
        }
    }

    /// The row of a live object managed by `realm` (its `liveRealm`) in the version the realm
    /// reads now, kept for later reads; nil inside a write transaction (whose pages move as it
    /// changes them) or if the object no longer exists.
    @inline(__always)
    mutating func liveRow(in realm: Realm) -> UnsafeRawBufferPointer? {
        guard realm.write == nil else {
            checkCurrent(in: realm)
            return nil
        }
        if rowStamp != realm.changeStamp {
            checkCurrent(in: realm)
            row = realm.store.rowPointer(table, key)
            rowStamp = realm.changeStamp
        }
        return row
    }

    /// The payload of property `property` and the type of its row field, from the row a live
    /// object keeps outside write transactions: what the getters of plain values decode
    /// without making a `_StoredValue`. Nil when `readLiveField` must read the property: a
    /// frozen object, inside a write transaction, a row not read at the realm's current
    /// change stamp, a deleted object, a null or unstored field.
    ///
    /// It only loads and compares (no call that could release the realm or the table), so
    /// that reading a property retains nothing.
    @inline(__always)
    func livePayload(_ property: Int) -> (payload: UnsafeRawBufferPointer, type: PropertyType)? {
        guard let realm = liveRealm, realm.write == nil, rowStamp == realm.changeStamp, let row,
            let (field, payload) = table.storedField(property, in: row)
        else { return nil }
        return (payload, table.fieldTypes[field])
    }

    /// Property `property` of a live object managed by `realm` (its `liveRealm`), keeping the
    /// row found for later reads. Traps if the object was deleted.
    mutating func readLiveField(_ property: Int, in realm: Realm) -> _StoredValue {
        guard let row = liveRow(in: realm) else { return realm.readField(table, key, property) }  // traps: deleted
        return realm.decodeField(table, key, property, row: row)
    }

    /// Property `property` of a frozen object. Traps if the object did not exist in its version.
    func readFrozenField(_ property: Int) -> _StoredValue {
        let version = frozenVersion!
        guard let row else { return version.readField(table, key, property) }  // traps: deleted
        return version.decodeField(table, key, property, row: row)
    }

    func writeField(_ property: Int, _ value: _StoredValue) {
        guard let realm = liveRealm else {
            preconditionFailure("Cannot modify a frozen object: frozen objects are read-only. Thaw it in a realm's write transaction first.")
        }
        checkCurrent(in: realm)
        realm.writeField(table, key, property, value)
    }

    /// Whether the live object is from the realm's current `invalidate()` period.
    @inline(__always)
    func isCurrent(in realm: Realm) -> Bool {
        rowStamp >> Realm.invalidationShift == realm.invalidations
    }

    /// Traps, as RealmSwift does, if the live object's realm was invalidated since it was made.
    @inline(__always)
    func checkCurrent(in realm: Realm) {
        guard isCurrent(in: realm) else {
            preconditionFailure(
                "Object has been deleted or invalidated: \(table.name) \(key) belongs to a version that \(realm.displayName) let go of with invalidate(). Fetch it again from the realm."
            )
        }
    }

    /// Whether this object is managed by `realm` (the same live realm instance).
    func isManaged(by realm: Realm) -> Bool {
        liveRealm === realm
    }
}
