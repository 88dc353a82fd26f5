import BurrowStorage
import BurrowStore

extension Realm {
    /// Deletes `object` from the realm, with the embedded objects it owns. Links to it become
    /// nil, it leaves every list and set that holds it (the other elements keep their order),
    /// and a map that holds it keeps the key, with nil, as in RealmSwift. An embedded object
    /// held in a list or map is deleted alone: its owner's other elements stay. Live objects for
    /// it become invalidated.
    ///
    /// Throws `RealmError`: outside a write transaction (`.wrongState`), for an unmanaged object,
    /// or one managed by another realm or frozen (`.invalidObject`). Deleting an object that is
    /// already deleted does nothing.
    public func delete(_ object: ObjectBase) throws {
        let write = try requireOpenWrite()
        guard let state = object._state else {
            throw RealmError(.invalidObject, "Only managed objects can be deleted; this \(type(of: object)) was never added to a realm.")
        }
        guard state.isManaged(by: self) else { throw Self.notInThisRealm(object) }
        try mapped { () throws(StoreError) in try store.deleteObject(state.table, state.key, in: write.store) }
    }

    /// Deletes every object of `objects`, as `delete(_:)` does for one.
    public func delete<S: Sequence>(_ objects: S) throws where S.Element: ObjectBase {
        for object in Array(objects) { try delete(object) }
    }

    /// Deletes every object of every class. The schema stays.
    ///
    /// Throws `RealmError` (`.wrongState`) outside a write transaction.
    public func deleteAll() throws {
        let write = try requireOpenWrite()
        try mapped { () throws(StoreError) in try store.deleteAllObjects(in: write.store) }
    }
}
