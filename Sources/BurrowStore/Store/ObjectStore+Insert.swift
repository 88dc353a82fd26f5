import BurrowStorage

/// What a new object's field starts with, as the layer adding it gives it, with links in its
/// own form (`Link`): the codecs read only their `objectLink`.
@usableFromInline
package enum NewField<Link: StoredLink> {
    /// A value written into the new row (a null one included).
    case stored(StoredValue<Link>)
    /// Nothing yet: the layer above sets it once the row exists (a link, a collection, an
    /// `AnyRealmValue`, which may link back to the new object).
    case later
    /// Nothing: the field stays null, and an index of it lists the object as nil.
    case empty
}

extension ObjectStore {
    /// Inserts a new object of `table` and returns its key: derived from `primaryKey` (nil for
    /// a class without one), or the table's next key. `probed` is what the caller's lookup of
    /// the primary key found, if it made one. The row holds each field as `field(i)` gives it,
    /// in field order; the index entries and long values it needs are written with it.
    ///
    /// Throws `.primaryKeyExists` if an object has that primary key already, before anything
    /// is written.
    @inlinable @inline(__always)
    package func insertObject<Link: StoredLink>(
        _ table: Table, primaryKey: StoreValue?, probed: PrimaryKeyProbe?, in write: WriteState, field value: (Int) -> NewField<Link>
    ) throws(StoreError) -> ObjectKey {
        let (key, primaryKeyEntry) = try keyForNewObject(table, primaryKey: primaryKey, probed: probed, in: write)
        var row = RowCodec.Builder(fieldCount: table.fieldTypes.count)
        do {
            for (field, type) in table.fieldTypes.enumerated() {
                let stored: StoredValue<Link>
                switch value(field) {
                case .later: continue
                case .empty:
                    if let tree = table.fieldIndexTrees[field] { try addIndexEntry(tree, StoredValue<Link>.null, key, in: write) }
                    continue
                case .stored(let given): stored = given
                }
                row.beginField(field)
                RowCodec.appendField(stored, as: type, to: &row.bytes)
                if row.currentPayload.count > Self.inlinePayloadLimit,
                    let external = try rowPayload(Array(row.currentPayload), table, key, field, replacing: nil, in: write)
                {
                    row.replaceCurrentPayload(with: external)
                }
                row.endField()
                if let tree = table.fieldIndexTrees[field] { try addIndexEntry(tree, stored, key, in: write) }
            }
            try putNewRow(table, key, row.finish(), primaryKeyEntry: primaryKeyEntry, in: write)
        } catch {
            throw StoreError(error)
        }
        return key
    }
}
