import BurrowStorage
import BurrowStore

/// The keys a collection of objects (a list, a set, a map's objects, linking objects) holds at
/// any frozen version of its file. A change stream of results of a collection
/// (`person.dogs.where { … }.changes()`) evaluates their query at each new version with it,
/// where `QueryBase`, which reads the live collection, cannot be used: the stream runs on other
/// tasks, at versions the live realm has not reached.
struct FrozenQueryBase: Sendable {
    /// The collection's keys at `version`, in its order; none if its object does not exist
    /// there (or its class can no longer be read as the program declares it).
    let keys: @Sendable (FrozenVersion) -> [ObjectKey]
    /// Whether the collection is a frozen object's, which never changes (its results have no
    /// change stream, as the frozen collection has none).
    let isFrozen: Bool

    init(isFrozen: Bool, keys: @escaping @Sendable (FrozenVersion) -> [ObjectKey]) {
        self.isFrozen = isFrozen
        self.keys = keys
    }

    /// The keys of the objects that collection property `binding.property` of the object
    /// `binding.owner` links to (a list's or a set's elements, a map's values), in the order
    /// the collection holds them, read from its stored elements (a map's in the order of its
    /// keys, holding nil left out); nil for a collection of no managed object.
    static func collection(_ binding: CollectionBinding?) -> FrozenQueryBase? {
        guard let binding, let state = binding.owner._state else { return nil }
        let (tableId, key, property, dynamic) = (state.table.id, state.key, binding.property, binding.owner.classInfo.isDynamic)
        return FrozenQueryBase(isFrozen: binding.owner.isFrozen) { version in
            guard let table = version.table(id: tableId, dynamic: dynamic), version.rowExists(table, key),
                let field = table.fieldOf[property], let tree = table.collectionTrees[field]
            else { return [] }
            let stored = table.stored.properties[field]
            var keys: [ObjectKey] = []
            do throws(StorageError) {
                try ObjectStore.forEachStoredElement(of: key, in: tree, of: version.reader, stored) { _, element in
                    if let link = ValueCodec.linkKey(element, as: stored.type) { keys.append(link.key) }
                }
            } catch {
                version.fail(error)
            }
            return keys
        }
    }

    /// The keys of the objects of the stored class `originClass` (read as the program declares
    /// it, or through the stored schema alone if `dynamicOrigin`) whose field stored as
    /// `originColumn` links to the object `key` of the table `ownerTableId` (a frozen object if
    /// `isFrozen`).
    static func backlinks(
        to key: ObjectKey, ofTable ownerTableId: UInt32, dynamicOwner: Bool, isFrozen: Bool, from originClass: String, dynamicOrigin: Bool,
        column originColumn: String
    ) -> FrozenQueryBase {
        FrozenQueryBase(isFrozen: isFrozen) { version in
            guard let owner = version.table(id: ownerTableId, dynamic: dynamicOwner), version.rowExists(owner, key),
                let originId = version.storedClassId(named: originClass), let origin = version.table(id: originId, dynamic: dynamicOrigin),
                let field = origin.stored.fieldIndex(of: originColumn)
            else { return [] }
            do throws(StorageError) {
                return try QueryExecutor(context: version).backlinks(to: key, of: owner, from: origin, field: field)
            } catch {
                version.fail(error)
            }
        }
    }
}
