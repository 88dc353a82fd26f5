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
        guard let table = version.table(id: tableId) else { return true }
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

extension _OptionalPersistable where Self: ObjectBase {
    /// A frozen, `Sendable` view of this object at the realm's current version.
    ///
    /// Throws `RealmError`: `.invalidObject` for an unmanaged or deleted object; `.wrongState`
    /// inside a write transaction (whose changes are not a version yet).
    public func freeze() throws -> Frozen<Self> {
        guard let state = _state else {
            throw RealmError(.invalidObject, "Only managed objects can be frozen; add the \(Self.self) to a realm first.")
        }
        guard state.exists else {
            throw RealmError(.invalidObject, "The \(state.table.name) was deleted; a deleted object cannot be frozen.")
        }
        let version: FrozenVersion
        switch state.source {
        case .live(let realm): version = try FrozenVersion(of: realm)
        case .frozen(let frozen): version = frozen
        }
        guard let table = version.table(id: state.table.id) else {
            throw RealmError(.invalidObject, "The \(state.table.name) is not in the realm's committed version yet.")
        }
        return Frozen(version: version, table: table, key: state.key)
    }
}

extension Realm {
    /// The live object for `frozen` in this realm, or nil if it was deleted since (or its class
    /// is not in this realm).
    public func thaw<T: ObjectBase>(_ frozen: Frozen<T>) -> T? {
        // Only a frozen value of this realm's own file (or in-memory realm) has a live object here.
        guard frozen.version.snapshotReader.snapshot.storage === storage else { return nil }
        guard let table = try? table(for: T.self, creating: false), table.id == frozen.tableId, rowExists(table, frozen.key) else {
            return nil
        }
        return object(table, frozen.key) as? T
    }

    /// A frozen realm: this realm's current version, forever. Throws inside a write transaction.
    public func freeze() throws -> Realm {
        Realm(frozen: try FrozenVersion(of: self))
    }
}
