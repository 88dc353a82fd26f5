import BurrowStorage

/// `MutableSet` and `Map` fields keep their elements in trees of their own (see `Table`), so
/// inserting, removing or finding one element costs O(log n) however large the collection is.
/// The row field holds the element count, so `count` reads one field.
extension ObjectStore {
    /// The key of an element's entry: the owner's object key, then the element (a set's
    /// element in index-key form, a map's key in `KeyEncoding`).
    package static func collectionEntryKey<Link: StoredLink>(_ owner: ObjectKey, setElement element: StoredValue<Link>) -> [UInt8] {
        var key = owner.bytes
        IndexKey.append(element, to: &key)
        return key
    }

    package static func collectionEntryKey(_ owner: ObjectKey, mapKey: String) -> [UInt8] {
        var key = owner.bytes
        KeyEncoding.appendBounded(mapKey.utf8, to: &key)
        return key
    }

    /// Inserts `element` into set field `field` of `owner`. Returns whether it was new.
    @discardableResult
    package func setInsert(_ table: Table, _ owner: ObjectKey, _ field: Int, _ element: StoreValue, in write: WriteState) throws(StoreError) -> Bool {
        let property = table.stored.properties[field]
        let key = Self.collectionEntryKey(owner, setElement: element)
        return try mutateCollection(table, owner, field, in: write) { tree throws(StorageError) in
            guard try !write.trees.contains(tree, key) else { return 0 }
            var payload: [UInt8] = []
            ValueCodec.append(element, as: property.type, to: &payload)
            try write.trees.put(tree, key, payload)
            try adjustElementBacklink(payload, table, owner, field, by: 1, in: write)
            return 1
        } > 0
    }

    /// Removes `element` from set field `field` of `owner`. Returns whether it was there.
    @discardableResult
    package func setRemove(_ table: Table, _ owner: ObjectKey, _ field: Int, _ element: StoreValue, in write: WriteState) throws(StoreError) -> Bool {
        let key = Self.collectionEntryKey(owner, setElement: element)
        return try mutateCollection(table, owner, field, in: write) { tree throws(StorageError) in
            guard let payload = try write.trees.withValue(tree, key, { Array($0) }) else { return 0 }
            try write.trees.delete(tree, key)
            try adjustElementBacklink(payload, table, owner, field, by: -1, in: write)
            return -1
        } < 0
    }

    /// Sets `mapKey` of map field `field` of `owner` to `value` (`.null` stores nil; use
    /// `mapRemove` to remove the key).
    package func mapSet(_ table: Table, _ owner: ObjectKey, _ field: Int, _ mapKey: String, _ value: StoreValue, in write: WriteState)
        throws(StoreError)
    {
        let property = table.stored.properties[field]
        let key = Self.collectionEntryKey(owner, mapKey: mapKey)
        var entry: [UInt8] = []
        ValueCodec.appendLE(UInt32(mapKey.utf8.count), to: &entry)
        entry.append(contentsOf: mapKey.utf8)
        let valueStart = entry.count
        ValueCodec.append(value, as: property.type, to: &entry)
        var replaced: [UInt8]?
        _ = try mutateCollection(table, owner, field, in: write) { tree throws(StorageError) in
            let old = try write.trees.withValue(tree, key) { Array($0) }
            if old == entry { return 0 }
            try write.trees.put(tree, key, entry)
            if let old {
                replaced = Array(old[Self.mapValueOffset(old)...])
                try adjustElementBacklink(replaced!, table, owner, field, by: -1, in: write)
            }
            try adjustElementBacklink(Array(entry[valueStart...]), table, owner, field, by: 1, in: write)
            return old == nil ? 1 : 0
        }
        // An embedded object the key held lived only there.
        if let replaced { try deleteOrphanedEmbedded(Self.elementProperty(property), old: replaced, new: Array(entry[valueStart...]), in: write) }
    }

    /// Removes `mapKey` from map field `field` of `owner`. Returns whether it was there.
    @discardableResult
    package func mapRemove(_ table: Table, _ owner: ObjectKey, _ field: Int, _ mapKey: String, in write: WriteState) throws(StoreError) -> Bool {
        let key = Self.collectionEntryKey(owner, mapKey: mapKey)
        var removed: [UInt8]?
        let changed =
            try mutateCollection(table, owner, field, in: write) { tree throws(StorageError) in
                guard let old = try write.trees.withValue(tree, key, { Array($0) }) else { return 0 }
                try write.trees.delete(tree, key)
                removed = Array(old[Self.mapValueOffset(old)...])
                try adjustElementBacklink(removed!, table, owner, field, by: -1, in: write)
                return -1
            } < 0
        // An embedded object the key held lived only there.
        if let removed { try deleteOrphanedEmbedded(Self.elementProperty(table.stored.properties[field]), old: removed, new: nil, in: write) }
        return changed
    }

    /// Replaces the whole content of a set or map field.
    package func replaceCollection(_ table: Table, _ owner: ObjectKey, _ field: Int, with content: FieldContent<ObjectLink>, in write: WriteState)
        throws(StoreError)
    {
        try clearCollection(table, owner, field, in: write)
        let isList = table.stored.properties[field].collection == .list
        switch content {
        case .single: break
        case .elements(let elements):
            for (index, element) in elements.enumerated() {
                if isList {
                    try listInsert(table, owner, field, element, at: index, in: write)
                } else {
                    try setInsert(table, owner, field, element, in: write)
                }
            }
        case .entries(let entries):
            for (key, value) in entries { try mapSet(table, owner, field, key, value, in: write) }
        }
    }

    /// Removes every element of a set or map field (deleting embedded values it owned).
    package func clearCollection(_ table: Table, _ owner: ObjectKey, _ field: Int, in write: WriteState) throws(StoreError) {
        guard let tree = table.collectionTrees[field] else { return }
        let property = table.stored.properties[field]
        var entries: [(key: [UInt8], value: [UInt8])] = []
        do {
            try write.trees.scan(tree, prefix: owner.bytes) { key, value in
                entries.append((Array(key), Array(value)))
                return true
            }
        } catch {
            throw StoreError(error)
        }
        guard !entries.isEmpty else { return }
        _ = try mutateCollection(table, owner, field, in: write) { tree throws(StorageError) in
            for entry in entries {
                try write.trees.delete(tree, entry.key)
                let element = property.collection == .map ? Array(entry.value[Self.mapValueOffset(entry.value)...]) : entry.value
                try adjustElementBacklink(element, table, owner, field, by: -1, in: write)
            }
            return -entries.count
        }
        let orphans = entries.map { property.collection == .map ? Array($0.value[Self.mapValueOffset($0.value)...]) : $0.value }
        for element in orphans {
            try deleteOrphanedEmbedded(Self.elementProperty(property), old: element, new: nil, in: write)
        }
    }

    /// Runs `change` on the collection's tree, then adds the count change it returns to the
    /// count in the owner's row.
    package func mutateCollection(
        _ table: Table, _ owner: ObjectKey, _ field: Int, in write: WriteState, _ change: (TreeName) throws(StorageError) -> Int
    ) throws(StoreError) -> Int {
        guard let tree = table.collectionTrees[field] else {
            preconditionFailure("internal error: field \(field) of \(table.name) is not a set or map")
        }
        do {
            guard let row = try write.trees.withValue(table.rowsTree, owner.bytes, { Array($0) }) else {
                throw StoreError(.invalidObject, "\(table.name) \(owner) was deleted; a deleted object's collections cannot be changed.")
            }
            let delta = try change(tree)
            write.changes?.modified(owner, field: field, in: table.id)
            if delta != 0 {
                let count = row.withUnsafeBytes { RowCodec.count(RowCodec.field($0, field)) }
                let payload = RowCodec.countPayload(count + delta)
                let newRow = row.withUnsafeBytes { RowCodec.replacing(field, with: payload, in: $0, fields: table.fieldTypes.count) }
                try write.trees.put(table.rowsTree, owner.bytes, newRow)
            }
            noteChange()
            return delta
        } catch {
            throw StoreError(wrapping: error)
        }
    }

    package func adjustElementBacklink(_ element: [UInt8], _ table: Table, _ owner: ObjectKey, _ field: Int, by change: Int, in write: WriteState)
        throws(StorageError)
    {
        let property = table.stored.properties[field]
        for link in links(in: element, Self.elementProperty(property)) {
            try adjustBacklink(ObjectLink(table: link.table, key: link.key), from: table.id, field: field, source: owner, by: change, in: write)
        }
    }

    /// The property as one element of it (for reading one element's payload).
    package static func elementProperty(_ property: StoredProperty) -> StoredProperty {
        var single = property
        single.collection = .single
        return single
    }

    /// Where the value starts in a map entry (after the key's length and bytes).
    package static func mapValueOffset(_ entry: [UInt8]) -> Int {
        4 + entry.withUnsafeBytes { Int(ValueCodec.u32($0, 0)) }
    }
}
