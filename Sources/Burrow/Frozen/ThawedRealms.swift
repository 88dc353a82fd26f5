import BurrowStorage
import BurrowStore
import Foundation

/// The live realm that `thaw()` hands out: the caller's domain's realm of the frozen value's
/// file (see `RealmCache`), so that thawing twice in one actor, task or thread gives objects of
/// the same realm, which one write can change together, as RealmSwift's per-thread realms do.
enum ThawedRealms {
    /// The live realm of `frozen`'s file for the caller's isolation, opened with the frozen
    /// realm's configuration if there is none, and moved to at least `frozen`'s version.
    static func realm(thawing frozen: FrozenVersion, isolation: (any Actor)?) throws(RealmError) -> Realm {
        let storage = frozen.snapshotReader.snapshot.storage
        let realm = try RealmCache.realm(of: storage, frozen.configuration, isolation: isolation) { () throws(RealmError) -> Realm in
            try Realm(storage: storage, configuration: frozen.configuration)
        }
        // A realm opened earlier may read a version older than the frozen one; the thawed
        // object must be found as of at least that version. (Inside a write, the realm already
        // reads the newest version.)
        if realm.version < frozen.version { realm.refresh() }
        return realm
    }
}

extension Frozen {
    /// The live object this frozen value is a view of, in the live realm of its file that
    /// belongs to the caller's isolation (the same realm for every `thaw()` there, as
    /// `realm.thaw()` gives), or nil if the object was deleted since.
    ///
    /// Outside actors, the realm is the current thread's. To be sure of the realm, keep the one
    /// `realm.thaw()` returns and thaw into it with `realm.thaw(_:)`.
    ///
    /// Throws `RealmError` if the file cannot be opened.
    public func thaw(isolation: isolated (any Actor)? = #isolation) throws -> T? {
        try ThawedRealms.realm(thawing: version, isolation: isolation).thaw(self)
    }
}

extension Realm {
    /// A live realm of this realm's file, for the caller's isolation: for a frozen realm, the
    /// same realm that `thaw()` of its frozen objects gives there (opened if needed, and at
    /// least at the frozen version); a live realm is returned as it is.
    ///
    /// Throws `RealmError` if the file cannot be opened.
    public func thaw(isolation: isolated (any Actor)? = #isolation) throws -> Realm {
        guard let frozenVersion else { return self }
        return try ThawedRealms.realm(thawing: frozenVersion, isolation: isolation)
    }
}

extension _OptionalPersistable where Self: ObjectBase {
    /// The live object, as RealmSwift's `thaw()`: a live or unmanaged object is returned as
    /// it is (nil if it was deleted); a frozen one (`Frozen.frozenObject`) gives its live
    /// object in the live realm of its file for the caller's isolation, nil if it was deleted
    /// since. So `frozenPerson.thaw()!.realm!` works on the objects observed wrappers hold.
    ///
    /// Throws `RealmError` if the frozen object's file cannot be opened.
    public func thaw(isolation: isolated (any Actor)? = #isolation) throws -> Self? {
        guard let state = _state, case .frozen(let version) = state.source else { return isInvalidated ? nil : self }
        let realm = try ThawedRealms.realm(thawing: version, isolation: isolation)
        return realm.liveObject(of: Self.self, frozenAt: version, tableId: state.table.id, key: state.key) as? Self
    }
}
