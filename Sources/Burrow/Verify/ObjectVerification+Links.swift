import BurrowStorage
import BurrowStore

/// Links, backlinks and trees: every backlink entry matches a link the rows and collections
/// hold, every embedded object has one parent, and every tree belongs somewhere.
extension ObjectVerification {
    /// Checks the backlinks tree of the class stored with `id` against the links recorded,
    /// removing those it matches.
    func checkBacklinks(_ id: UInt32) throws(StorageError) {
        let tree = Backlinks.treeName(id)
        try reader.scan(tree, from: []) { key, value in
            guard key.count == 22, value.count == 4 else {
                noteTree(tree, "holds an entry of \(key.count) + \(value.count) bytes; backlink entries take 22 + 4")
                return true
            }
            let link = Link(
                targetTable: id, target: ObjectKey.read(key).rawValue,
                sourceTable: UInt32(bigEndian: key.loadUnaligned(fromByteOffset: 8, as: UInt32.self)),
                field: UInt16(bigEndian: key.loadUnaligned(fromByteOffset: 12, as: UInt16.self)),
                source: ObjectKey.read(key, at: 14).rawValue)
            let counted = ValueCodec.u32(value, 0)
            let found = links.removeValue(forKey: link) ?? 0
            if found == 0, isUnreadable(link.sourceTable, link.source, field: Int(link.field)) {
                // The source's links are unknown: the backlink stands in for them.
                if classes[id]?.isEmbedded == true { parents[id, default: [:]][link.target, default: 0] += Int(counted) }
            } else if found == 0 {
                note(
                    link.sourceTable, link.source, field: Int(link.field),
                    "does not link to \(className(id)) #\(link.target), but that object's backlinks say it does")
            } else if found != counted {
                note(
                    link.sourceTable, link.source, field: Int(link.field),
                    "links to \(className(id)) #\(link.target) \(found) times, but that object's backlinks count \(counted)")
            }
            return true
        }
    }

    /// Notes every link that no backlink entry matched.
    func noteLinksWithoutBacklinks() {
        for link in links.keys.sorted() {
            note(
                link.sourceTable, link.source, field: Int(link.field),
                "links to \(className(link.targetTable)) #\(link.target), but that object's backlinks do not list the link")
        }
        links = [:]
    }

    /// Checks that every embedded object has exactly one link to it.
    func checkParents() {
        for id in classIds where classes[id]!.isEmbedded {
            let linked = parents[id] ?? [:]
            for key in (keys[id] ?? []).sorted() {
                let count = linked[key] ?? 0
                if count == 0 {
                    note(id, key, "is an embedded object, but no object links to it")
                } else if count > 1 {
                    note(id, key, "is an embedded object linked from \(count) places; it must have exactly one parent")
                }
            }
        }
    }

    /// Checks that every tree that holds entries is one the schema gives a class, or one of the
    /// file's own (`schema`, `sequences`, `sync`, `outbox`): a tree of a class's family (see
    /// `Table`) for a field of the right kind.
    func checkTreeNames() throws(StorageError) {
        for name in try reader.snapshot.treeNames() {
            let parsed = TreeName(parsing: name)
            if parsed?.isFileWide == true { continue }
            let entries = try reader.snapshot.tree(named: name)?.count ?? 0
            guard entries > 0 else { continue }
            guard let tree = parsed?.storeTree else {
                noteTree(name, "holds \(counted(entries, "entry")), but Burrow makes no tree of that name")
                continue
            }
            let id = tree.classID
            guard let stored = classes[id] else {
                noteTree(name, "holds \(counted(entries, "entry")) of class id \(id), which the schema does not have")
                continue
            }
            guard let field = tree.field else { continue }  // rows, pk, links, blobs: one per class.
            guard field < stored.properties.count else {
                note(id, nil, "tree \"\(name)\" holds \(counted(entries, "entry")) of a field the class does not have")
                continue
            }
            let property = stored.properties[field]
            let expected =
                tree.family == .index
                ? (Self.indexedFields(stored).contains(field) ? TreeName(.index, id, field: field) : nil)
                : Table.collectionTreeName(id, field, property.collection)
            if expected != parsed {
                note(id, nil, field: field, "tree \"\(name)\" holds \(counted(entries, "entry")), but the property is \(property.summary)")
            }
        }
    }
}
