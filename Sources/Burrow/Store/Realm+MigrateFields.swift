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
extension Realm {
    /// The fields of `old` that `new` keeps (same name, type and kind), old position → new.
    static func keptFields(from old: StoredClass, to new: StoredClass) -> [Int: Int] {
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
    func moveFieldTrees(from old: StoredClass, to new: StoredClass, in write: WriteState) throws(StorageError) {
        let kept = Self.keptFields(from: old, to: new)
        var moving: [(tree: String, entries: [([UInt8], [UInt8])])] = []
        for (field, property) in old.properties.enumerated() where property.collection != .single {
            guard let tree = Table.collectionTreeName(old.id, field, property.collection) else { continue }
            if let newField = kept[field], newField == field { continue }
            if let newField = kept[field] {
                var entries: [([UInt8], [UInt8])] = []
                try write.reader.scan(tree, from: []) { key, value in
                    entries.append((Array(key), Array(value)))
                    return true
                }
                moving.append((Table.collectionTreeName(new.id, newField, property.collection)!, entries))
            }
            try write.reader.dropTree(tree)
        }
        for (field, property) in old.properties.enumerated() where property.isIndexed && !property.isPrimary {
            try write.reader.dropTree(Table.indexTreeName(old.id, field))
        }
        for (tree, entries) in moving {
            for (key, value) in entries { try write.reader.put(tree, key, value) }
        }
    }

    /// Renumbers the backlinks of `old`'s kept link fields to their new positions and deletes
    /// those of removed ones, in the backlinks of every class `old` links to.
    func moveBacklinks(from old: StoredClass, to new: StoredClass, in write: WriteState) throws(StorageError) {
        let kept = Self.keptFields(from: old, to: new)
        let targets = Set(old.properties.compactMap { $0.type == .object ? $0.objectClassName : nil })
        for name in targets {
            guard let target = currentFileSchema.classes[name] else { continue }
            let tree = Backlinks.treeName(target.id)
            var changes: [(old: [UInt8], new: [UInt8]?, value: [UInt8])] = []
            try write.reader.scan(tree, from: []) { key, value in
                guard let source = Backlinks.source(key), source.table == old.id, kept[source.field] != source.field else { return true }
                changes.append((Array(key), kept[source.field].map { Backlinks.key(key, field: $0) }, Array(value)))
                return true
            }
            for change in changes { try write.reader.delete(tree, change.old) }
            for change in changes {
                if let renamed = change.new { try write.reader.put(tree, renamed, change.value) }
            }
        }
    }

    /// The embedded objects that the fields of `old` which `new` does not keep (removed, or
    /// changed in type) link to, in the objects `rows` (key and row, in the old layout): an
    /// embedded object lives only in its parent's field, so when the field goes, so must they.
    func embeddedObjectsOfDroppedFields(
        from old: StoredClass, to new: StoredClass, rows: [(ObjectKey, [UInt8])], in write: WriteState
    ) throws(StorageError) -> [EmbeddedOrphan] {
        let kept = Self.keptFields(from: old, to: new)
        var orphans: [EmbeddedOrphan] = []
        for (field, property) in old.properties.enumerated() where kept[field] == nil && property.type == .object {
            guard let name = property.objectClassName, let target = currentFileSchema.classes[name], target.isEmbedded else { continue }
            if let tree = Table.collectionTreeName(old.id, field, property.collection) {
                for (key, _) in rows {
                    try Realm.forEachStoredElement(of: key, in: tree, of: write.reader, property) { _, element in
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
    func deleteEmbeddedOrphans(_ orphans: [EmbeddedOrphan], in write: WriteState) throws(RealmError) {
        for orphan in orphans {
            guard let table = storedTable(id: orphan.table) else { continue }
            try deleteObject(table, orphan.key, in: write)
        }
    }
}

/// An embedded object whose parent's field a migration dropped.
struct EmbeddedOrphan {
    let table: UInt32
    let key: ObjectKey
}

extension Realm {
    /// After a migration's block: gives every object of a class the migration made embedded
    /// (`became`) its one parent, as an embedded object must have, as RealmSwift does. An
    /// object nothing links to is deleted; one several places link to stays with the first
    /// and each other place gets a copy of it (with copies of the embedded objects it holds).
    func settleObjectsThatBecameEmbedded(_ became: [String], in write: WriteState) throws(RealmError) {
        for name in became {
            guard let table = dynamicTable(named: name) else { continue }
            var orphans: [ObjectKey] = []
            var shared: [ObjectKey] = []
            do {
                for key in try objectKeys(table) {
                    var parents = 0
                    try write.reader.scan(table.backlinksTree, prefix: key.bytes) { _, count in
                        parents += Int(ValueCodec.u32(count, 0))
                        return parents < 2
                    }
                    if parents == 0 { orphans.append(key) }
                    if parents > 1 { shared.append(key) }
                }
            } catch {
                throw RealmError(wrapping: error)
            }
            for key in orphans { try deleteObject(table, key, in: write) }
            for key in shared { try copyIntoEachParent(table, key, in: write) }
            if !orphans.isEmpty || !shared.isEmpty {
                Logger.log(.info, "\(name) became an EmbeddedObject: deleted \(orphans.count) objects that no object links to, and copied \(shared.count) linked from several places into each.")
            }
        }
    }

    /// Leaves object `key` of `table` (dynamic) with the first place that links to it, and
    /// links each other place to a copy of its own.
    private func copyIntoEachParent(_ table: Table, _ key: ObjectKey, in write: WriteState) throws(RealmError) {
        let sources = try incomingLinks(to: table, key, in: write)
        guard let original = object(table, key) as? DynamicObject else { return }
        let isOriginal: (_StoredValue) -> Bool = { value in
            if case .object(let object) = value, let state = object._state { return state.key == key && state.table.id == table.id }
            return false
        }
        var keptOne = false
        write.keepsReplacedEmbedded = true
        defer { write.keepsReplacedEmbedded = false }
        for source in sources {
            guard let sourceTable = dynamicTable(id: source.table) else { continue }
            switch readContent(sourceTable, source.key, source.field) {
            case .single:
                if keptOne {
                    try setField(sourceTable, source.key, source.field, .single(.object(try embeddedCopy(of: original, in: table))), in: write)
                }
                keptOne = true
            case .elements(let elements):
                for (index, element) in elements.enumerated() where isOriginal(element) {
                    if keptOne {
                        try listSet(sourceTable, source.key, source.field, .object(try embeddedCopy(of: original, in: table)), at: index, in: write)
                    }
                    keptOne = true
                }
            case .entries(let entries):
                for entry in entries where isOriginal(entry.value) {
                    if keptOne {
                        try mapSet(sourceTable, source.key, source.field, entry.key, .object(try embeddedCopy(of: original, in: table)), in: write)
                    }
                    keptOne = true
                }
            }
        }
    }

    /// A new, unmanaged copy of the embedded object `original` (of dynamic `table`), holding
    /// copies of the embedded objects it holds in turn.
    private func embeddedCopy(of original: DynamicObject, in table: Table) throws(RealmError) -> DynamicObject {
        let copy = try DynamicObject(unmanaged: table.info, value: original, defaults: nil)
        try DynamicValues.prepare(copy, in: self, copyingEmbedded: true)
        return copy
    }
}
