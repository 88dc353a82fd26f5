/// Which objects of one class a step from one version to another modified, as collection change
/// streams report modifications: from the commits' recorded changes when they are all known,
/// else by comparing each object's row in the two versions. With `keyPaths`, only changes of
/// those properties count.
struct ObjectModifications {
    let tableId: UInt32?
    let changes: ChangeSet
    let keyPaths: Set<String>?
    let from: (version: FrozenVersion, table: Table?)
    let to: (version: FrozenVersion, table: Table?)

    /// Whether object `key` of the class was modified.
    func contains(_ key: ObjectKey) -> Bool {
        if changes.isComplete {
            guard let tableId, let fields = changes.changes(of: tableId).modified[key] else { return false }
            return keyPaths.map { touches(fields, $0) } ?? true
        }
        return rowsDiffer(key)
    }

    /// Whether the modified `fields` include a property of `names`.
    private func touches(_ fields: Set<Int>, _ names: Set<String>) -> Bool {
        guard let table = from.table, !fields.contains(ChangeSet.ClassChanges.allFields) else { return true }
        return fields.contains { table.stored.properties.indices.contains($0) && names.contains(table.stored.properties[$0].name) }
    }

    /// Whether object `key`'s row differs between the two versions (in the fields of
    /// `keyPaths`, if given).
    private func rowsDiffer(_ key: ObjectKey) -> Bool {
        guard let oldTable = from.table, let newTable = to.table,
            let before = from.version.snapshotRow(oldTable, key), let after = to.version.snapshotRow(newTable, key)
        else { return true }
        guard let keyPaths else { return !before.elementsEqual(after) }
        return keyPaths.contains { name in
            guard let oldField = oldTable.stored.fieldIndex(of: name), let newField = newTable.stored.fieldIndex(of: name) else { return true }
            return !RowCodec.sameField(RowCodec.field(before, oldField), RowCodec.field(after, newField))
        }
    }
}
