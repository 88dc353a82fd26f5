import BurrowStore

/// Which objects of one class a step from one version to another modified, as collection change
/// streams report modifications: from the commits' recorded changes when they are all known,
/// else by comparing each object's row in the two versions. With `keyPaths`, only changes of
/// those properties count.
struct ObjectModifications {
    /// The class's modified objects with their changed fields, when the commits' changes are
    /// all known (read once here, not for each object asked about); nil when rows must be
    /// compared.
    let modifiedRows: [ObjectKey: Set<Int>]?
    let keyPaths: Set<String>?
    let from: (version: FrozenVersion, table: Table?)
    let to: (version: FrozenVersion, table: Table?)

    init(
        tableId: UInt32?, changes: ChangeSet, keyPaths: Set<String>?, from: (version: FrozenVersion, table: Table?),
        to: (version: FrozenVersion, table: Table?)
    ) {
        modifiedRows = changes.isComplete ? tableId.map { changes.changes(of: $0).modified } ?? [:] : nil
        self.keyPaths = keyPaths
        self.from = from
        self.to = to
    }

    /// Whether object `key` of the class was modified.
    func contains(_ key: ObjectKey) -> Bool {
        guard let modifiedRows else { return rowsDiffer(key) }
        guard let fields = modifiedRows[key] else { return false }
        return keyPaths.map { touches(fields, $0) } ?? true
    }

    /// The indices in `keys` of the modified objects, found from the few modified objects
    /// instead of by asking about every key: nil unless the changes are known and at most
    /// `limit` objects of the class were modified. `keys` sorted ascending (every object of a
    /// class, in key order) are searched by bisection.
    func indices(in keys: [ObjectKey], sorted: Bool, limit: Int = 16) -> [Int]? {
        guard let modifiedRows, modifiedRows.count <= limit else { return nil }
        var indices: [Int] = []
        for key in modifiedRows.keys where contains(key) {
            if sorted {
                var low = 0
                var high = keys.count
                while low < high {
                    let middle = (low + high) / 2
                    if keys[middle] < key { low = middle + 1 } else { high = middle }
                }
                if low < keys.count, keys[low] == key { indices.append(low) }
            } else if let index = keys.firstIndex(of: key) {
                indices.append(index)
            }
        }
        return indices.sorted()
    }

    /// Whether the modified `fields` include a property of `names`.
    private func touches(_ fields: Set<Int>, _ names: Set<String>) -> Bool {
        guard let table = from.table, !fields.contains(ChangeSet.ClassChanges.allFields) else { return true }
        return fields.contains { table.stored.properties.indices.contains($0) && names.contains(table.declaredName(ofField: $0)) }
    }

    /// Whether object `key`'s row differs between the two versions (in the fields of
    /// `keyPaths`, if given).
    private func rowsDiffer(_ key: ObjectKey) -> Bool {
        guard let oldTable = from.table, let newTable = to.table else { return true }
        let differ = from.version.withRows(oldTable, key, and: to.version, newTable) { before, after in
            guard let keyPaths else { return !before.elementsEqual(after) }
            return keyPaths.contains { name in
                guard let oldField = oldTable.field(named: name), let newField = newTable.field(named: name) else { return true }
                return !RowCodec.sameField(RowCodec.field(before, oldField), RowCodec.field(after, newField))
            }
        }
        return differ ?? true
    }
}
