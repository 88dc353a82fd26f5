import BurrowStore

/// An immutable, `Sendable` view of one object at one version: hand it to any task or actor
/// and read its properties there, with no lock and no data race.
///
///     let wolfie: Frozen<Dog> = try dog.freeze()
///     Task.detached { print(wolfie.name) }
///
/// Properties are read through dynamic member lookup. A link gives a frozen object of the same
/// version. `realm.thaw(_:)` turns it back into a live object of a realm (nil if deleted since),
/// and `thaw()` into one of the live realm of the caller's isolation.
@dynamicMemberLookup
public struct Frozen<T: ObjectBase>: @unchecked Sendable, Hashable, CustomStringConvertible {
    // Sendable although `object` is a class instance: `object` is bound, when this value is
    // made, to `version`, an immutable pinned snapshot; its @Persisted fields were all bound
    // then and are never written again (a frozen object's setters trap), so every access from
    // any thread only reads immutable memory and the snapshot's locked caches. (A model class's
    // own non-persisted `lazy var`s would be written on first read; keep such state out of
    // models that are frozen.)
    let version: FrozenVersion
    let key: ObjectKey
    let tableId: UInt32
    let object: T

    init(version: FrozenVersion, table: Table, key: ObjectKey) {
        self.version = version
        self.key = key
        tableId = table.id
        object = version.object(table, key) as! T
    }

    /// The property `keyPath` of the object, as of this version.
    public subscript<Value>(dynamicMember keyPath: KeyPath<T, Value>) -> Value {
        object[keyPath: keyPath]
    }

    /// The frozen object itself (its setters trap; its reads need no isolation).
    public var frozenObject: T { object }

    /// The version of the file this is a view of.
    public var versionNumber: UInt64 { version.version }

    /// Whether the object still existed in this version (always true unless made from a
    /// deleted object).
    public var isInvalidated: Bool {
        guard let table = version.table(id: tableId, dynamic: object.classInfo.isDynamic) else { return true }
        return !version.rowExists(table, key)
    }

    public static func == (a: Frozen<T>, b: Frozen<T>) -> Bool {
        a.key == b.key && a.tableId == b.tableId && a.version.isSameVersion(as: b.version)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(key)
        hasher.combine(tableId)
        hasher.combine(version.version)
    }

    public var description: String { "Frozen<\(T.self)>(\(key) at version \(version.version))" }
}

/// A frozen `ObjectKeyIdentifiable` object is `Identifiable` with the object's own `id` (its
/// object key), the same at every version: `ForEach(frozenResults)` in SwiftUI keeps each row's
/// identity across the `FrozenResults` of successive change-stream elements, while `==` (which
/// compares versions too) tells that a row's content may have changed.
extension Frozen: Identifiable where T: ObjectKeyIdentifiable {
    /// The object's `id`: its object key, stable across versions.
    public var id: T.ID { object.id }
}

extension _OptionalPersistable where Self: ObjectBase {
    /// A frozen, `Sendable` view of this object at the realm's current version.
    ///
    /// Throws `RealmError`: `.invalidObject` for an unmanaged or deleted object; `.wrongState`
    /// inside a write transaction (whose changes are not a version yet); `.corruptFile` if the
    /// file is damaged where its row is.
    public func freeze() throws -> Frozen<Self> {
        let (version, table, key) = try frozenLocation(freezing: "\(Self.self)")
        return Frozen(version: version, table: table, key: key)
    }
}

extension ObjectBase {
    /// Where freezing this managed object pins it: the version its realm reads now (or, for a
    /// frozen object, its own version), its table there, and its key. `what` names the thing
    /// being frozen in messages.
    ///
    /// Throws `.invalidObject` for an unmanaged or deleted object, `.wrongState` inside a
    /// write transaction.
    final func frozenLocation(freezing what: String) throws(RealmError) -> (FrozenVersion, Table, ObjectKey) {
        guard let state = _state else {
            throw RealmError(.invalidObject, "Only managed objects can be frozen; add the \(what) to a realm first.")
        }
        let exists: Bool
        do {
            exists = try state.checkExists()
        } catch {
            throw RealmError(error)
        }
        guard exists else {
            throw RealmError(.invalidObject, "The \(state.table.name) was deleted; a deleted object, and its lists, sets and maps, cannot be frozen.")
        }
        let version: FrozenVersion
        switch state.source {
        case .live(let realm): version = try FrozenVersion(of: realm)
        case .frozen(let frozen): version = frozen
        }
        guard let table = version.table(id: state.table.id, dynamic: state.table.info.isDynamic) else {
            throw RealmError(.invalidObject, "The \(state.table.name) is not in the realm's committed version yet.")
        }
        return (version, table, state.key)
    }
}

extension Realm {
    /// The live object for `frozen` in this realm, or nil if it was deleted since (or its class
    /// is not in this realm).
    public func thaw<T: ObjectBase>(_ frozen: Frozen<T>) -> T? {
        liveObject(of: T.self, frozenAt: frozen.version, tableId: frozen.tableId, key: frozen.key) as? T
    }

    /// The live object of class `type` with `key` in table `tableId`, frozen at `version`, or nil
    /// if it was deleted since, or `version` is of another file than this realm's.
    func liveObject(of type: ObjectBase.Type, frozenAt version: FrozenVersion, tableId: UInt32, key: ObjectKey) -> ObjectBase? {
        // Only a frozen value of this realm's own file (or in-memory realm) has a live object here.
        guard version.snapshotReader.snapshot.storage === storage else { return nil }
        let table = type == DynamicObject.self ? store.dynamicTable(id: tableId) : usableTable(for: type)
        guard let table, table.id == tableId, store.rowExists(table, key) else {
            return nil
        }
        return object(table, key)
    }

    /// A frozen realm: this realm's current version, forever. Throws inside a write transaction.
    public func freeze() throws -> Realm {
        Realm(frozen: try FrozenVersion(of: self))
    }
}
