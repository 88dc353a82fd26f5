import BurrowStorage

/// Changing stored fields inside a write transaction, with everything a change implies:
/// backlinks and indexes kept in step, embedded objects that lose their parent deleted. Links
/// arrive as keys: the API has made the objects they name managed before it calls.
extension ObjectStore {
    /// Calls `body` with each element of object `key` in collection tree `tree` (read through
    /// `reader`), a collection of `property`, in the collection's order: its key if it is a
    /// map's, and its stored bytes (valid inside `body`). Throws `corruptEntry` for an entry
    /// whose lengths do not fit what it must hold (`CollectionEntry`).
    package static func forEachStoredElement(
        of key: ObjectKey, in tree: TreeName, of reader: any TreeReader, _ property: StoredProperty,
        _ body: (_ mapKey: String?, _ element: UnsafeRawBufferPointer) -> Void
    ) throws(StorageError) {
        var damage: CollectionEntry.Problem?
        try reader.scan(tree, prefix: key.bytes) { entryKey, value in
            switch CollectionEntry.parts(key: entryKey, value: value, of: property) {
            case .failure(let problem):
                damage = problem
                return false
            case .success(let parts):
                body(parts.mapKey.map { String(decoding: $0, as: UTF8.self) }, parts.element)
                return true
            }
        }
        if let damage { throw reader.damagedEntry(tree, of: key, property, damage) }
    }

    /// Sets field `field` of object `key` to `content`.
    package func setField(_ table: Table, _ key: ObjectKey, _ field: Int, _ content: FieldContent<ObjectLink>, in write: WriteState)
        throws(StoreError)
    {
        let property = table.stored.properties[field]
        if table.collectionTrees[field] != nil {
            try replaceCollection(table, key, field, with: content, in: write)
            return
        }
        guard case .single(let value) = content else {
            preconditionFailure("internal error: a collection given for single property '\(property.name)'")
        }
        try setPayload(table, key, field, Self.payload(of: value, as: property.type), in: write)
    }

    /// How a single value is stored in a row field: its encoded bytes, or nil for null.
    package static func payload(of value: StoreValue, as type: PropertyType) -> [UInt8]? {
        var bytes: [UInt8] = []
        RowCodec.appendField(value, as: type, to: &bytes)
        return bytes.isEmpty ? nil : bytes
    }

    /// Sets single field `field` of object `key` to `payload` (links in it already resolved),
    /// keeping backlinks, indexes and blobs in step.
    package func setPayload(_ table: Table, _ key: ObjectKey, _ field: Int, _ payload: [UInt8]?, in write: WriteState) throws(StoreError) {
        let property = table.stored.properties[field]
        do {
            guard let row = try key.withBytes({ k throws(StorageError) in try write.trees.withValue(table.rowsTree, k) { Array($0) } }) else {
                throw StoreError(.invalidObject, "\(table.name) \(key) was deleted; a deleted object cannot be changed.")
            }
            let oldRowPayload = row.withUnsafeBytes { RowCodec.field($0, field).map(Array.init) }
            let oldPayload = fullPayload(oldRowPayload, table, key, field)
            if oldPayload == payload { return }
            if property.isPrimary {
                guard write.primaryKeysMayChange else {
                    throw StoreError(
                        .invalidArgument,
                        "Primary key can't be changed after an object is inserted: '\(property.name)' of \(table.name) \(key). Create a new object with the new key instead."
                    )
                }
                try movePrimaryKey(table, key, property, from: oldPayload, to: payload, in: write)
            }
            try updateBacklinks(table, key, field, old: oldPayload, new: payload, in: write)
            if let tree = table.fieldIndexTrees[field] {
                try write.trees.delete(tree, IndexKey.entry(indexValue(oldPayload, property), key))
                try write.trees.put(tree, IndexKey.entry(indexValue(payload, property), key), [])
            }
            let kept = try rowPayload(payload, table, key, field, replacing: oldRowPayload, in: write)
            let newRow = row.withUnsafeBytes { RowCodec.replacing(field, with: kept, in: $0, fields: table.fieldTypes.count) }
            try write.trees.put(table.rowsTree, key, newRow)
            write.changes?.modified(key, field: field, in: table.id)
            try deleteOrphanedEmbedded(property, old: oldPayload, new: payload, in: write)
        } catch {
            throw StoreError(wrapping: error)
        }
        noteChange()
    }

    /// The full payload of single field `field` of object `key` as the write sees it (nil for
    /// null, or if the object is gone).
    package func fieldPayload(_ table: Table, _ key: ObjectKey, _ field: Int, in write: WriteState) throws(StorageError) -> [UInt8]? {
        let rowPayload = try key.withBytes { k throws(StorageError) in
            try write.trees.withValue(table.rowsTree, k) { RowCodec.field($0, field).map(Array.init) }
        }
        return fullPayload(rowPayload ?? nil, table, key, field)
    }

    /// Gives object `key` the primary key `new` instead of `old` (in a migration): the object
    /// keeps its object key, so a primary key whose derived key is not `key` is mapped to it in
    /// the `pk/<id>` tree (see `ObjectKey(derivedFrom:)`). Throws `.primaryKeyExists` if
    /// another object has `new`.
    private func movePrimaryKey(
        _ table: Table, _ key: ObjectKey, _ property: StoredProperty, from old: [UInt8]?, to new: [UInt8]?, in write: WriteState
    ) throws {
        let oldValue = indexValue(old, property)
        let newValue = indexValue(new, property)
        if case .found(let holder, _) = try probePrimaryKey(table, newValue, in: write), holder != key {
            throw StoreError(
                .primaryKeyExists,
                "A \(table.name) with primary key \(PrimaryKey.describe(newValue)) already exists; the migration cannot give it to \(table.name) \(key) as well."
            )
        }
        if ObjectKey(derivedFrom: oldValue) != key { try write.trees.delete(table.primaryKeyTree, IndexKey.encode(oldValue)) }
        if ObjectKey(derivedFrom: newValue) != key { try write.trees.put(table.primaryKeyTree, IndexKey.encode(newValue), key.bytes) }
    }

    /// The value an index holds for a full row payload of `property` (links are not indexed).
    package func indexValue(_ payload: [UInt8]?, _ property: StoredProperty) -> StoreValue {
        guard let payload else { return .null }
        return payload.withUnsafeBytes { RowCodec.decode($0, as: property.type, linkTarget: 0) { _, _ in .null } }
    }

    // MARK: Links

    /// Every link in a payload of `property`: the target table's id and object key (an
    /// `AnyRealmValue`'s lists and dictionaries may hold several, and one link more than once).
    package func links(in payload: [UInt8]?, _ property: StoredProperty) -> [ObjectLink] {
        // Collection elements live in trees of their own; their field holds only a count.
        guard let payload, property.type == .object || property.type == .any, property.collection == .single else { return [] }
        let typedTarget = property.objectClassName.flatMap { storedClassId(named: $0) } ?? 0
        var found: [ObjectLink] = []
        payload.withUnsafeBytes { bytes in
            if property.type == .any {
                // Its own link, or those of the lists and dictionaries it holds.
                ValueCodec.forEachLink(inAny: bytes) { table, key in found.append(ObjectLink(table: table, key: key)) }
            } else if let link = ValueCodec.linkKey(bytes, as: property.type) {
                found.append(ObjectLink(table: link.table ?? typedTarget, key: link.key))
            }
        }
        return found
    }

    /// Keeps the backlink entries of the targets of field `field` of `key` in step with a change
    /// of its payload from `old` to `new`.
    private func updateBacklinks(_ table: Table, _ key: ObjectKey, _ field: Int, old: [UInt8]?, new: [UInt8]?, in write: WriteState)
        throws(StorageError)
    {
        let property = table.stored.properties[field]
        guard property.type == .object || property.type == .any else { return }
        var delta: [ObjectLink: Int] = [:]
        for link in links(in: old, property) { delta[link, default: 0] -= 1 }
        for link in links(in: new, property) { delta[link, default: 0] += 1 }
        for (target, change) in delta where change != 0 {
            try adjustBacklink(target, from: table.id, field: field, source: key, by: change, in: write)
        }
    }

    /// How many links point at object `key` of `table`, counting up to `limit` at most.
    package func linkCount(to table: Table, _ key: ObjectKey, upTo limit: Int, in write: WriteState) throws(StorageError) -> Int {
        var links = 0
        try write.trees.scan(table.backlinksTree, prefix: key.bytes) { _, count in
            links += Int(ValueCodec.u32(count, 0))
            return links < limit
        }
        return min(links, limit)
    }

    /// The objects that link to object `key` of `table`, from its backlinks: each one's class
    /// id, the field that holds the link, and its object key (once per linking field, however
    /// many times the field holds the link).
    package func incomingLinks(to table: Table, _ key: ObjectKey, in write: WriteState) throws(StoreError) -> [(
        table: UInt32, field: Int, key: ObjectKey
    )] {
        var sources: [(table: UInt32, field: Int, key: ObjectKey)] = []
        do {
            try write.trees.scan(table.backlinksTree, prefix: key.bytes) { entry, _ in
                let tableId = UInt32(bigEndian: entry.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
                let field = Int(UInt16(bigEndian: entry.loadUnaligned(fromByteOffset: 12, as: UInt16.self)))
                sources.append((tableId, field, ObjectKey.read(entry, at: 14)))
                return true
            }
        } catch {
            throw StoreError(error)
        }
        return sources
    }

    package func adjustBacklink(_ target: ObjectLink, from table: UInt32, field: Int, source: ObjectKey, by change: Int, in write: WriteState)
        throws(StorageError)
    {
        let tree = Backlinks.treeName(target.table)
        let key = Backlinks.key(target.key, from: table, field: field, source: source)
        let count = try write.trees.withValue(tree, key) { Int(ValueCodec.u32($0, 0)) } ?? 0
        let updated = count + change
        if updated <= 0 {
            try write.trees.delete(tree, key)
        } else {
            var value: [UInt8] = []
            ValueCodec.appendLE(UInt32(updated), to: &value)
            try write.trees.put(tree, key, value)
        }
    }

    /// Deletes the embedded objects `old` linked to and `new` does not.
    package func deleteOrphanedEmbedded(_ property: StoredProperty, old: [UInt8]?, new: [UInt8]?, in write: WriteState) throws(StoreError) {
        guard !write.keepsReplacedEmbedded, property.type == .object, let className = property.objectClassName,
            let target = currentFileSchema.classes[className], target.isEmbedded, let targetTable = dynamicTable(id: target.id)
        else { return }
        let kept = Set(links(in: new, property).map(\.key))
        for link in links(in: old, property) where !kept.contains(link.key) {
            try deleteObject(targetTable, link.key, in: write)
        }
    }
}
