import BurrowStorage

extension ObjectStore {
    /// Deletes object `key` of `table`: links to it are removed, the embedded objects it owns
    /// are deleted, and its row, index entries and backlinks go.
    ///
    /// The embedded objects wait in the transaction's worklist, which the outermost call works
    /// through: deleting an object that owns a chain of embedded objects of any depth takes
    /// the same stack as deleting one.
    package func deleteObject(_ table: Table, _ key: ObjectKey, in write: WriteState) throws(StoreError) {
        write.pendingDeletes.append((table, key))
        guard !write.isDeleting else { return }
        write.isDeleting = true
        defer {
            write.isDeleting = false
            write.pendingDeletes.removeAll(keepingCapacity: true)
        }
        while let next = write.pendingDeletes.popLast() {
            try deleteOne(next.table, next.key, in: write)
        }
    }

    /// Deletes object `key` of `table`; the embedded objects it owns are queued for
    /// `deleteObject`.
    private func deleteOne(_ table: Table, _ key: ObjectKey, in write: WriteState) throws(StoreError) {
        do {
            guard let row = try write.trees.withValue(table.rowsTree, key.bytes, { Array($0) }) else { return }
            try removeIncomingLinks(to: table, key, in: write)
            for field in table.collectionTrees.indices where table.collectionTrees[field] != nil {
                try clearCollection(table, key, field, in: write)
            }
            for (field, property) in table.stored.properties.enumerated() {
                let rowPayload = row.withUnsafeBytes { RowCodec.field($0, field).map(Array.init) }
                let payload = fullPayload(rowPayload, table, key, field)
                if payload != rowPayload { try write.trees.delete(table.blobsTree, Self.blobKey(key, field)) }
                if let tree = table.fieldIndexTrees[field] {
                    try write.trees.delete(tree, IndexKey.entry(indexValue(payload, property), key))
                }
                if property.isPrimary {
                    try write.trees.delete(table.primaryKeyTree, IndexKey.encode(indexValue(payload, property)))
                }
                for link in links(in: payload, property) {
                    try write.trees.delete(Backlinks.treeName(link.table), Backlinks.key(link.key, from: table.id, field: field, source: key))
                    if let target = dynamicTable(id: link.table), target.stored.isEmbedded {
                        try deleteObject(target, link.key, in: write)
                    }
                }
            }
            try write.trees.delete(table.rowsTree, key.bytes)
            write.changes?.deleted(key, in: table.id)
            try keepKeyRetired(key, of: table, in: write)
        } catch {
            throw StoreError(wrapping: error)
        }
        noteChange()
    }

    /// Removes every link to object `key` of `table` from the objects that hold one: a link
    /// field becomes nil, list and set elements go, map values become nil.
    private func removeIncomingLinks(to table: Table, _ key: ObjectKey, in write: WriteState) throws(StoreError) {
        let sources = try incomingLinks(to: table, key, in: write)
        for source in sources {
            guard let sourceTable = dynamicTable(id: source.table) else { continue }
            let target = ObjectLink(table: table.id, key: key)
            let isTarget: (StoreValue) -> Bool = { value in
                if case .object(let link) = value { return link == target }
                return false
            }
            let current = content(sourceTable, source.key, source.field) { .object(ObjectLink(table: $0, key: $1)) }
            let content: FieldContent<ObjectLink>
            switch current {
            case .single: content = .single(.null)
            case .elements(let elements): content = .elements(elements.filter { !isTarget($0) })
            case .entries(let entries): content = .entries(entries.map { isTarget($0.value) ? ($0.key, .null) : $0 })
            }
            try setField(sourceTable, source.key, source.field, content, in: write)
        }
    }

    /// Deletes every object of every class; the schema stays. Each table's largest key is
    /// retired first, as object keys are never reused.
    package func deleteAllObjects(in write: WriteState) throws(StoreError) {
        do {
            // Object keys are never reused: each table's largest key is retired first.
            for stored in currentFileSchema.classes.values {
                if let table = dynamicTable(id: stored.id), let last = try lastObjectKey(table, in: write) {
                    try keepKeyRetired(last, of: table, in: write, force: true)
                }
                if write.changes != nil {
                    try write.trees.scan(TreeName(.rows, stored.id), from: []) { key, _ in
                        write.changes?.deleted(ObjectKey.read(key), in: stored.id)
                        return true
                    }
                }
            }
            for name in try write.transaction.treeNames() {
                let tree = TreeName(parsing: name)
                if tree == .schema || tree == .sequences { continue }
                guard let id = try write.transaction.tree(named: name) else { continue }
                try write.transaction.removeAll(in: id)
            }
        } catch {
            throw StoreError(error)
        }
        noteChange()
    }
}
