/// One object of a table in a `.realm` file: its key, and a value per column of its table
/// (`RealmTable.columns`, backlinks included: the keys of the objects linking to it).
package struct RealmObject: Sendable, Equatable {
    package let key: Int64
    package let values: [RealmValue]
}

extension RealmGroup {
    /// Every object of `table`, in key order. Tombstones (objects deleted while linked, which
    /// realm-core keeps apart) are not objects; links to them keep their negative keys.
    package func objects(of table: RealmTable) throws(RealmFileError) -> [RealmObject] {
        guard let root = table.clusterRoot else { return [] }
        var objects: [RealmObject] = []
        for leaf in try ClusterTree(image, root: root).leaves {
            var columns: [[RealmValue]] = []
            for column in table.columns {
                let values = try columnValues(column, of: table, leaf: leaf)
                guard values.count == leaf.keys.count else {
                    throw .damaged(
                        "column \(table.name).\(column.name) holds \(values.count) values for \(leaf.keys.count) objects", at: leaf.node.ref)
                }
                columns.append(values)
            }
            for (row, key) in leaf.keys.enumerated() {
                objects.append(RealmObject(key: key, values: columns.map { $0[row] }))
            }
        }
        return objects
    }

    /// The values of `column` for the objects of `leaf`.
    private func columnValues(_ column: RealmColumn, of table: RealmTable, leaf: ClusterTree.Leaf) throws(RealmFileError) -> [RealmValue] {
        guard let node = try leaf.columnLeaf(column.leafIndex, in: image) else {
            return Array(repeating: column.collection == .single && column.type != .backlink ? .null : .list([]), count: leaf.keys.count)
        }
        if column.type == .backlink { return try backlinks(node, from: column.targetTable ?? 0) }
        guard column.collection != .single else { return try ValueLeaf.values(node, column.elementKind, in: image, enumKeys: column.enumKeys) }
        guard node.hasRefs, node.scheme == .bits else {
            throw .damaged("column \(table.name).\(column.name)'s collections are not references", at: node.ref)
        }
        return try (0..<node.count).map { (row) throws(RealmFileError) -> RealmValue in
            let ref = try node.ref(row, in: image)
            switch column.collection {
            case .list: return .list(try ref.map { (ref) throws(RealmFileError) in try Collections.list(ref, column.elementKind, in: image) } ?? [])
            case .set: return .set(try ref.map { (ref) throws(RealmFileError) in try Collections.list(ref, column.elementKind, in: image) } ?? [])
            case .dictionary:
                guard let ref else { return .dictionary([]) }
                return .dictionary(header.formatVersion >= 23 ? try Collections.dictionary(ref, in: image) : try hashedDictionary(ref))
            case .single: return .null
            }
        }
    }

    /// A backlink column's leaf: per object 0 (no links), a tagged key (one), or a ref to a
    /// B+tree of keys (an array of keys before format 24, which reads the same).
    private func backlinks(_ node: Node, from table: Int) throws(RealmFileError) -> [RealmValue] {
        try (0..<node.count).map { (row) throws(RealmFileError) -> RealmValue in
            switch try node.refOrTagged(row, in: image) {
            case .none: return .list([])
            case .tagged(let key): return .list([.link(table: table, key: key)])
            case .ref(let ref): return .list(try Collections.list(ref, .linkKeys(table: table), in: image))
            }
        }
    }

    /// A dictionary of formats 21 and 22: a cluster tree of its own, keyed by the keys' hashes,
    /// whose first column holds the keys and whose second the values.
    private func hashedDictionary(_ root: Int) throws(RealmFileError) -> [RealmValue.DictionaryEntry] {
        var entries: [RealmValue.DictionaryEntry] = []
        for leaf in try ClusterTree(image, root: root).leaves {
            guard let keysNode = try leaf.columnLeaf(0, in: image), let valuesNode = try leaf.columnLeaf(1, in: image) else {
                throw .damaged("a dictionary lacks its keys or its values", at: leaf.node.ref)
            }
            let keys = try ValueLeaf.values(keysNode, .string, in: image)
            let values = try ValueLeaf.values(valuesNode, .mixed, in: image)
            guard keys.count == leaf.keys.count, values.count == leaf.keys.count else {
                throw .damaged("a dictionary's keys and values disagree", at: leaf.node.ref)
            }
            for (key, value) in zip(keys, values) {
                guard case .string(let key) = key else { throw .damaged("a dictionary's key is not a string", at: keysNode.ref) }
                entries.append(RealmValue.DictionaryEntry(key: key, value: value))
            }
        }
        return entries
    }
}
