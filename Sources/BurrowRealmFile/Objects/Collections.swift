/// The lists, sets and dictionaries of a `.realm` file: a B+tree of values per list and set, and
/// per dictionary (formats 23 and 24) a has-refs pair of B+trees, its keys and its values (always
/// mixed values). Formats 21 and 22 kept a dictionary as a cluster tree of its own
/// (`ClusterTree.dictionary`).
enum Collections {
    /// The values of the B+tree at `root`, whose leaves hold `kind`.
    static func list(_ root: Int, _ kind: ValueLeaf.Kind, in image: FileImage, depth: Int = 0) throws(RealmFileError) -> [RealmValue] {
        var values: [RealmValue] = []
        for leaf in try BPlusTree.leaves(image, root: root) {
            values += try ValueLeaf.values(leaf, kind, in: image, depth: depth)
        }
        return values
    }

    /// The entries of the dictionary whose top is at `ref` (formats 23 and 24).
    static func dictionary(_ ref: Int, in image: FileImage, depth: Int = 0) throws(RealmFileError) -> [RealmValue.DictionaryEntry] {
        let top = try Node(image, at: ref)
        guard top.hasRefs, top.count >= 2 else { throw .damaged("a dictionary lacks its keys or its values", at: ref) }
        guard let keysRef = try top.ref(0, in: image), let valuesRef = try top.ref(1, in: image) else { return [] }
        let keys = try list(keysRef, .string, in: image)
        let values = try list(valuesRef, .mixed, in: image, depth: depth)
        guard keys.count == values.count else { throw .damaged("a dictionary has \(keys.count) keys and \(values.count) values", at: ref) }
        return try zip(keys, values).map { (key, value) throws(RealmFileError) in
            guard case .string(let key) = key else { throw .damaged("a dictionary's key is not a string", at: ref) }
            return RealmValue.DictionaryEntry(key: key, value: value)
        }
    }
}
