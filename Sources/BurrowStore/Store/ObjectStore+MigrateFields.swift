import BurrowStorage

/// What a migration does beside rewriting rows: the trees and entries that name a class's
/// fields by position follow the fields to their new positions.
///
/// A row field's position names its collection tree (`list/<class>/<field>`, and `set`, `map`),
/// its index tree (`index/<class>/<field>`) and, in the backlinks of the classes it links to,
/// the entries of its links (target + class + field + source). When a migration removes or adds
/// a property before another, the positions of the others move: their elements and backlinks
/// move with them, and those of removed properties go, so that no new property finds another's
/// elements at its position, and deleting a linked object clears the field that links to it.
extension ObjectStore {
    /// The fields of `old` that `new` keeps (same name, type and kind), old position → new.
    package static func keptFields(from old: StoredClass, to new: StoredClass) -> [Int: Int] {
        var kept: [Int: Int] = [:]
        for (newField, property) in new.properties.enumerated() {
            if let oldField = old.fieldIndex(of: property.name), old.properties[oldField].type == property.type,
                old.properties[oldField].collection == property.collection
            {
                kept[oldField] = newField
            }
        }
        return kept
    }

    /// Moves the collection trees of `old`'s kept collection fields to their new positions,
    /// drops those of removed ones, and drops every index tree of `old` (the caller rebuilds
    /// the indexes of the new layout).
    package func moveFieldTrees(from old: StoredClass, to new: StoredClass, in write: WriteState) throws(StorageError) {
        let kept = Self.keptFields(from: old, to: new)
        var moving: [(tree: TreeName, entries: [([UInt8], [UInt8])])] = []
        for (field, property) in old.properties.enumerated() where property.collection != .single {
            guard let tree = Table.collectionTreeName(old.id, field, property.collection) else { continue }
            if let newField = kept[field], newField == field { continue }
            if let newField = kept[field] {
                var entries: [([UInt8], [UInt8])] = []
                try write.trees.scan(tree, from: []) { key, value in
                    entries.append((Array(key), Array(value)))
                    return true
                }
                moving.append((Table.collectionTreeName(new.id, newField, property.collection)!, entries))
            }
            try write.trees.dropTree(tree)
        }
        for (field, property) in old.properties.enumerated() where property.isIndexed && !property.isPrimary {
            try write.trees.dropTree(TreeName(.index, old.id, field: field))
        }
        for (tree, entries) in moving {
            for (key, value) in entries { try write.trees.put(tree, key, value) }
        }
    }

    /// Renumbers the backlinks of `old`'s kept link fields to their new positions and deletes
    /// those of removed ones, in the backlinks of every class `old` links to.
    package func moveBacklinks(from old: StoredClass, to new: StoredClass, in write: WriteState) throws(StorageError) {
        let kept = Self.keptFields(from: old, to: new)
        let targets = Set(old.properties.compactMap { $0.type == .object ? $0.objectClassName : nil })
        for name in targets {
            guard let target = currentFileSchema.classes[name] else { continue }
            let tree = Backlinks.treeName(target.id)
            var changes: [(old: [UInt8], new: [UInt8]?, value: [UInt8])] = []
            try write.trees.scan(tree, from: []) { key, value in
                guard let source = Backlinks.source(key), source.table == old.id, kept[source.field] != source.field else { return true }
                changes.append((Array(key), kept[source.field].map { Backlinks.key(key, field: $0) }, Array(value)))
                return true
            }
            for change in changes { try write.trees.delete(tree, change.old) }
            for change in changes {
                if let renamed = change.new { try write.trees.put(tree, renamed, change.value) }
            }
        }
    }

    /// The embedded objects that the fields of `old` which `new` does not keep (removed, or
    /// changed in type) link to, in the objects `rows` (key and row, in the old layout): an
    /// embedded object lives only in its parent's field, so when the field goes, so must they.
    package func embeddedObjectsOfDroppedFields(
        from old: StoredClass, to new: StoredClass, rows: [(ObjectKey, [UInt8])], in write: WriteState
    ) throws(StorageError) -> [EmbeddedOrphan] {
        let kept = Self.keptFields(from: old, to: new)
        var orphans: [EmbeddedOrphan] = []
        for (field, property) in old.properties.enumerated() where kept[field] == nil && property.type == .object {
            guard let name = property.objectClassName, let target = currentFileSchema.classes[name], target.isEmbedded else { continue }
            if let tree = Table.collectionTreeName(old.id, field, property.collection) {
                for (key, _) in rows {
                    try ObjectStore.forEachStoredElement(of: key, in: tree, of: write.trees, property) { _, element in
                        if let link = ValueCodec.linkKey(element, as: .object) { orphans.append(EmbeddedOrphan(table: target.id, key: link.key)) }
                    }
                }
            } else {
                for (_, row) in rows {
                    let link = row.withUnsafeBytes { RowCodec.field($0, field).flatMap { ValueCodec.linkKey($0, as: .object) } }
                    if let link { orphans.append(EmbeddedOrphan(table: target.id, key: link.key)) }
                }
            }
        }
        return orphans
    }

    /// Deletes the embedded objects of fields a migration dropped (with the embedded objects
    /// they own in turn); those already deleted are skipped.
    package func deleteEmbeddedOrphans(_ orphans: [EmbeddedOrphan], in write: WriteState) throws(StoreError) {
        for orphan in orphans {
            guard let table = dynamicTable(id: orphan.table) else { continue }
            try deleteObject(table, orphan.key, in: write)
        }
    }
}

/// An embedded object whose parent's field a migration dropped.
package struct EmbeddedOrphan {
    package let table: UInt32
    package let key: ObjectKey
}

extension ObjectStore {
    /// Rewrites every row of a migrated class into its new field layout (properties matched by
    /// name; added properties get their defaults) and rebuilds its indexes. Returns the embedded
    /// objects that the fields it drops owned, for `deleteEmbeddedOrphans`.
    package func migrateRows(of table: Table, from old: StoredClass, in write: WriteState) throws(StoreError) -> [EmbeddedOrphan] {
        let declared = table.declared
        let oldTable = Table(declared: declared, stored: old, program: table.program)
        write.keyCeilings[table.id] = nil
        do {
            var rows: [(ObjectKey, [UInt8])] = []
            try write.trees.scan(oldTable.rowsTree, from: []) { key, row in
                rows.append((ObjectKey.read(key), Array(row)))
                return true
            }
            let orphans = try embeddedObjectsOfDroppedFields(from: old, to: table.stored, rows: rows, in: write)
            // Collections and backlinks follow their fields' new positions; indexes are rebuilt.
            try moveFieldTrees(from: old, to: table.stored, in: write)
            try moveBacklinks(from: old, to: table.stored, in: write)
            // Rows keep their keys, which need not be the ones their primary keys derive
            // (the class may have had another primary key, or none): map those that differ.
            try write.trees.dropTree(oldTable.primaryKeyTree)
            // New position → the old field it keeps, if any.
            let oldFieldOf = Dictionary(uniqueKeysWithValues: Self.keptFields(from: old, to: table.stored).map { ($1, $0) })
            let keptOldFields = Set(oldFieldOf.values)
            for (key, row) in rows {
                // A dropped field's long value goes with it (before the kept fields' are stored).
                for (oldField, property) in old.properties.enumerated() where !keptOldFields.contains(oldField) {
                    let isExternal = row.withUnsafeBytes {
                        RowCodec.field($0, oldField).map { RowCodec.isExternal($0, as: property.type) } ?? false
                    }
                    if isExternal { try write.trees.delete(oldTable.blobsTree, Self.blobKey(key, oldField)) }
                }
                var payloads: [[UInt8]?] = []
                for (field, property) in table.stored.properties.enumerated() {
                    if let oldField = oldFieldOf[field] {
                        let rowPayload = row.withUnsafeBytes { RowCodec.field($0, oldField).map(Array.init) }
                        let payload = fullPayload(rowPayload, oldTable, key, oldField)
                        if payload != rowPayload { try write.trees.delete(oldTable.blobsTree, Self.blobKey(key, oldField)) }
                        payloads.append(payload)
                    } else {
                        var payload: [UInt8] = []
                        RowCodec.appendField(Self.defaultStored(for: property, declared: declared), as: property.type, to: &payload)
                        payloads.append(payload.isEmpty ? nil : payload)
                    }
                }
                var kept = payloads
                for field in kept.indices where kept[field] != nil {
                    kept[field] = try rowPayload(kept[field], table, key, field, replacing: nil, in: write)
                }
                try write.trees.put(table.rowsTree, key.bytes, RowCodec.assemble(kept))
                func value(_ field: Int) -> StoreValue {
                    payloads[field].map { payload in
                        payload.withUnsafeBytes { RowCodec.decode($0, as: table.fieldTypes[field], linkTarget: 0) { _, _ in .null } }
                    } ?? .null
                }
                for (property, tree) in table.indexTrees.enumerated() {
                    guard let tree, let field = table.fieldOf[property] else { continue }
                    try write.trees.put(tree, IndexKey.entry(value(field), key), [])
                }
                if let field = table.primaryKeyField {
                    let value = value(field)
                    if ObjectKey(derivedFrom: value) != key {
                        try write.trees.put(table.primaryKeyTree, IndexKey.encode(value), key.bytes)
                    }
                }
            }
            return orphans
        } catch {
            throw StoreError(error)
        }
    }

    /// Removes the class stored as `name` from the file with all its objects and trees: for a
    /// class no Swift class declares any more (`Migration.deleteData(forType:)`).
    package func dropStoredClass(named name: String, in write: WriteState) throws(StoreError) {
        guard let stored = currentFileSchema.classes[name] else { return }
        // A class another stored class links to stays, as realm-core keeps a table that link
        // columns point to: its links would point nowhere.
        let linking = currentFileSchema.classes.values.filter { $0.name != name }.flatMap { other in
            other.properties.filter { $0.objectClassName == name }.map { "\(other.name).\($0.name)" }
        }
        guard linking.isEmpty else {
            throw StoreError(
                .invalidArgument,
                "deleteData(forType: \"\(name)\") cannot remove \(name) from the file: \(linking.sorted().joined(separator: ", ")) still link to it. Remove those properties from their classes in this release, or keep \(name) declared."
            )
        }
        // Its objects go as any delete takes them: links to them from AnyRealmValue properties
        // become nil, and its own links leave their targets' backlinks.
        if let table = dynamicTable(named: name) {
            do {
                for key in try objectKeys(table) { try deleteObject(table, key, in: write) }
            } catch {
                throw StoreError(wrapping: error)
            }
        }
        do {
            for name in try write.trees.transaction.treeNames() {
                guard let tree = TreeName(parsing: name), tree.storeTree?.classID == stored.id else { continue }
                try write.trees.dropTree(tree)
            }
            try write.trees.delete(.schema, Array((FileSchema.classKeyPrefix + name).utf8))
        } catch {
            throw StoreError(error)
        }
        var schema = currentFileSchema
        schema.classes[name] = nil
        try storeSchema(schema, changing: [], in: write)
    }

    /// The value a property added by a migration starts with.
    package static func defaultStored(for property: StoredProperty, declared: DeclaredClass) -> StoreValue {
        guard property.collection == .single, !property.isOptional, declared.propertyIndex(columnNamed: property.name) != nil else { return .null }
        switch property.type {
        case .bool: return .bool(false)
        case .int: return .int(0)
        case .float: return .float(0)
        case .double: return .double(0)
        case .string: return .string("")
        case .data: return .data(.init())
        case .date: return .date(.init(timeIntervalSince1970: 0))
        case .objectId: return .objectId(.generate())
        case .uuid: return .uuid(.init())
        case .decimal128: return .decimal128(.init())
        case .object, .any, .linkingObjects: return .null
        }
    }

    /// Removes every class and object from the file, and its stored schema.
    package func dropEverything(in write: WriteState) throws(StoreError) {
        do {
            try write.trees.dropAllTrees()
        } catch {
            throw StoreError(error)
        }
        setFileSchema(.empty)
        write.schemaChanged = true
    }
}
