import BurrowStorage
import BurrowStore

/// The `LinkingObjects` properties of dynamic objects: those the file records for a class (see
/// `StoredClass.linkingObjects`), read by name as the objects linking to the object.
extension ObjectBase {
    /// The objects of the recorded `LinkingObjects` property `property` of this managed object
    /// (read through the stored schema alone): live results of the origin class's dynamic
    /// objects whose origin property links here, in key order, read anew at each evaluation.
    /// Nil on an unmanaged object.
    func recordedLinkingObjects(_ property: Property) -> Results<DynamicObject>? {
        guard let state = _state, let realm, let originName = property.objectClassName,
            let originProperty = property.linkOriginPropertyName
        else { return nil }
        let store = realm.store
        let frozenBase = FrozenQueryBase.backlinks(
            to: state.key, ofTable: state.table.id, dynamicOwner: classInfo.isDynamic, isFrozen: isFrozen, from: originName, dynamicOrigin: true,
            column: originProperty)
        return Results(
            realm: realm,
            base: QueryBase {
                guard let id = store.storedClassId(named: originName), let origin = store.dynamicTable(id: id),
                    let field = origin.stored.fieldIndex(of: originProperty)
                else { return [] }
                do throws(StorageError) {
                    return try QueryExecutor(context: realm).backlinks(to: state.key, of: state.table, from: origin, field: field)
                } catch {
                    store.fail(error)
                }
            },
            frozenBase: frozenBase, className: originName)
    }
}
