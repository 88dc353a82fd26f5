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
            try removeIncomingLinks(to: table, key, in: write)
            // Read once its links are gone (an object that does not exist has none): removing
            // those it holds to itself (inside an `AnyRealmValue` of its own) rewrites its fields.
            guard let row = try write.trees.withValue(table.rowsTree, key.bytes, { Array($0) }) else { return }
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

    /// Removes every link to object `key` of `table` from the objects that hold one, as
    /// RealmSwift does: a link field becomes nil, the list and set elements that are the link
    /// go (the others keep their order), and map values that are the link become nil (their
    /// keys stay). Only those entries change: the collection's other elements, and the
    /// embedded objects they hold, stay as they are.
    private func removeIncomingLinks(to table: Table, _ key: ObjectKey, in write: WriteState) throws(StoreError) {
        let target = ObjectLink(table: table.id, key: key)
        for source in try incomingLinks(to: table, key, in: write) {
            guard let sourceTable = dynamicTable(id: source.table) else { continue }
            let payload: [UInt8]?
            do {
                payload =
                    sourceTable.stored.properties[source.field].type == .any && sourceTable.collectionTrees[source.field] == nil
                    ? try fieldPayload(sourceTable, source.key, source.field, in: write) : nil
            } catch {
                throw StoreError(error)
            }
            if sourceTable.collectionTrees[source.field] != nil {
                try removeCollectionLinks(to: target, from: sourceTable, source.key, source.field, in: write)
            } else if let payload, payload.first.flatMap(ValueCodec.Tag.init)?.isCollection == true {
                // A list or dictionary in an `AnyRealmValue` loses only the link.
                try setPayload(sourceTable, source.key, source.field, Self.removingLinks(to: target, fromNested: payload), in: write)
            } else {
                // If `target` is embedded, `setPayload` queues it again as the object the field
                // lets go of; by the time the queue reaches it, its row is gone and it is skipped.
                try setPayload(sourceTable, source.key, source.field, nil, in: write)
            }
        }
    }

    /// Removes the links to `target` from list, set or map field `field` of `owner`: list and
    /// set entries that hold it go, map entries that hold it are given nil. Reads the owner's
    /// entries once (O(n) for its n elements) and rewrites only the matching ones; deletes no
    /// embedded object (`target` is being deleted by the caller).
    private func removeCollectionLinks(
        to target: ObjectLink, from table: Table, _ owner: ObjectKey, _ field: Int, in write: WriteState
    ) throws(StoreError) {
        guard let tree = table.collectionTrees[field] else { return }
        let property = table.stored.properties[field]
        let elementProperty = Self.elementProperty(property)
        let isMap = property.collection == .map
        // Each matching entry: its key, its stored value, and where the element starts in it.
        var matches: [(key: [UInt8], value: [UInt8], valueStart: Int)] = []
        var damage: CollectionEntry.Problem?
        do throws(StorageError) {
            try write.trees.scan(tree, prefix: owner.bytes) { entryKey, value in
                switch CollectionEntry.parts(key: entryKey, value: value, of: property) {
                case .failure(let problem):
                    damage = problem
                    return false
                case .success(let parts):
                    let element = Array(parts.element)
                    if links(in: element, elementProperty).contains(target) {
                        matches.append((Array(entryKey), Array(value), value.count - element.count))
                    }
                    return true
                }
            }
            if let damage { throw write.trees.damagedEntry(tree, of: owner, property, damage) }
        } catch {
            throw StoreError(error)
        }
        guard !matches.isEmpty else { return }
        var removed = 0
        _ = try mutateCollection(table, owner, field, in: write) { tree throws(StorageError) in
            for match in matches {
                let element = Array(match.value[match.valueStart...])
                if property.type == .any, element.first.flatMap(ValueCodec.Tag.init)?.isCollection == true {
                    // A list or dictionary in an `AnyRealmValue` element loses only the link.
                    let kept = Self.removingLinks(to: target, fromNested: element)
                    try adjustElementBacklink(element, table, owner, field, by: -1, in: write)
                    try adjustElementBacklink(kept, table, owner, field, by: 1, in: write)
                    try write.trees.put(tree, match.key, Array(match.value[..<match.valueStart]) + kept)
                    continue
                }
                try adjustElementBacklink(element, table, owner, field, by: -1, in: write)
                if isMap {
                    var entry = Array(match.value[..<match.valueStart])
                    ValueCodec.append(StoreValue.null, as: property.type, to: &entry)
                    try write.trees.put(tree, match.key, entry)
                } else {
                    try write.trees.delete(tree, match.key)
                    removed += 1
                }
            }
            return -removed
        }
    }

    /// `payload`, an `AnyRealmValue`'s list or dictionary, without its links to `target`, as
    /// realm-core removes them: the list elements that are the link go, the dictionary values
    /// that are the link become nil, at every depth.
    static func removingLinks(to target: ObjectLink, fromNested payload: [UInt8]) -> [UInt8] {
        let value: StoreValue = payload.withUnsafeBytes {
            ValueCodec.decodeNested($0) { table, key in .object(ObjectLink(table: table, key: key)) }
        }
        let isTarget = { (element: StoreValue) -> Bool in
            if case .object(let link) = element { link == target } else { false }
        }
        let kept = NestedValues.fold(
            value, shape: \.nestedShape, leaf: { $0 },
            list: { StoreValue.list($0.filter { !isTarget($0) }) },
            dictionary: { StoreValue.dictionary(Dictionary($0.map { ($0.key, isTarget($0.value) ? .null : $0.value) }, uniquingKeysWith: { $1 })) })
        var bytes: [UInt8] = []
        ValueCodec.appendAny(kept, to: &bytes)
        return bytes
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
                if tree?.isFileWide == true { continue }
                guard let id = try write.transaction.tree(named: name) else { continue }
                try write.transaction.removeAll(in: id)
            }
        } catch {
            throw StoreError(error)
        }
        noteChange()
    }
}
