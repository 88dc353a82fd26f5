/// A table of a `.realm` file: its columns, its primary key, whether its objects are embedded,
/// and where its objects are.
///
/// The table's top array: 0, the spec (the columns); 2, the root of the cluster tree of its
/// objects; 3, its key; 4, per leaf index, the column's search index (0: none); 7 and 8, per leaf index, the table and column a link column links to
/// (or a backlink column's links come from); 11, the primary key column's key (tagged; 0 for
/// none); 12, flags whose low two bits are the table's type (0 top-level, 1 embedded, 2
/// asymmetric); 13, the cluster tree of tombstones (objects deleted while linked). A table that
/// realm-core upgraded from format 10 or 11 may lack slots 12 and 13.
///
/// The spec: 0, a type per column (low 16 bits; a dictionary's key type above); 1, the names of
/// the columns that are not backlinks; 2, attributes per column (1 indexed, 16 nullable, 32
/// list, 64 dictionary, 128 set); 4, per named column, 0 or the strings of an enumerated string
/// column; 5, the columns' keys. Backlink columns come last.
package struct RealmTable {
    package enum Kind: Int, Sendable {
        case topLevel = 0
        case embedded = 1
        case asymmetric = 2
    }

    package let name: String
    package let key: Int
    package let kind: Kind
    /// Every column, backlinks included, in the spec's order.
    package let columns: [RealmColumn]
    /// The primary key column's index in `columns`.
    package let primaryKey: Int?
    /// The root of the objects' cluster tree.
    let clusterRoot: Int?
    /// The root of the tombstones' cluster tree.
    let tombstoneRoot: Int?

    /// The columns that are not backlinks: the class's stored properties.
    package var properties: [RealmColumn] { columns.filter { $0.type != .backlink } }

    init(_ entry: RealmGroup.TableEntry, in image: FileImage) throws(RealmFileError) {
        name = entry.name
        key = entry.key
        let top = try Node(image, at: entry.ref)
        guard top.hasRefs, top.count >= 12 else { throw .damaged("table \(entry.name)'s top array has \(top.count) slots", at: entry.ref) }
        func optionalRef(_ slot: Int) throws(RealmFileError) -> Int? { slot < top.count ? try top.ref(slot, in: image) : nil }
        guard let specRef = try top.ref(0, in: image) else { throw .damaged("table \(entry.name) lacks its columns", at: entry.ref) }
        clusterRoot = try top.ref(2, in: image)
        tombstoneRoot = try optionalRef(13)
        if top.count > 12, case .tagged(let flags) = try top.refOrTagged(12, in: image) {
            guard let kind = Kind(rawValue: Int(flags & 3)) else { throw .damaged("table \(entry.name) has an unknown type", at: entry.ref) }
            self.kind = kind
        } else {
            kind = .topLevel
        }
        let searchIndexes = try optionalRef(4).map { (ref) throws(RealmFileError) in try Node(image, at: ref) }
        let opposites = try optionalRef(7).map { (ref) throws(RealmFileError) in try Node(image, at: ref) }
        let oppositeColumns = try optionalRef(8).map { (ref) throws(RealmFileError) in try Node(image, at: ref) }
        let primaryKeyColumn: Int64? =
            switch try top.refOrTagged(11, in: image) {
            case .tagged(let key): key
            default: nil
            }

        let spec = try Node(image, at: specRef)
        guard spec.hasRefs, spec.count >= 6, let typesRef = try spec.ref(0, in: image), let attributesRef = try spec.ref(2, in: image),
            let keysRef = try spec.ref(5, in: image)
        else { throw .damaged("table \(entry.name)'s columns are incomplete", at: specRef) }
        let types = try Node(image, at: typesRef)
        let attributes = try Node(image, at: attributesRef)
        let keys = try Node(image, at: keysRef)
        let names =
            try spec.ref(1, in: image).map { (ref) throws(RealmFileError) in try StringLeaf.shortStrings(Node(image, at: ref), in: image) } ?? []
        let enumKeys = try spec.ref(4, in: image).map { (ref) throws(RealmFileError) in try Node(image, at: ref) }
        guard attributes.count == types.count, keys.count == types.count, names.count <= types.count else {
            throw .damaged("table \(entry.name)'s column lists disagree", at: specRef)
        }
        var columns: [RealmColumn] = []
        var primaryKey: Int?
        for index in 0..<types.count {
            let columnKey = try keys.element(index, in: image)
            let leafIndex = Int(columnKey & 0xFFFF)
            // The key's type and attributes are current (a format-24 upgrade rewrote only keys).
            guard var type = RealmColumn.ColumnType(rawValue: Int((columnKey >> 16) & 0x3F)) else {
                throw .damaged("table \(entry.name)'s column \(index) has an unknown type", at: keysRef)
            }
            let keyAttributes = (columnKey >> 22) & 0xFF
            var collection: RealmColumn.Collection =
                keyAttributes & 32 != 0 ? .list : keyAttributes & 64 != 0 ? .dictionary : keyAttributes & 128 != 0 ? .set : .single
            if type == .linkList {
                type = .link
                collection = .list
            }
            var name = ""
            if type != .backlink {
                guard index < names.count, let bytes = names[index], let text = String(validating: bytes, as: UTF8.self) else {
                    throw .damaged("table \(entry.name)'s column \(index) has no name", at: specRef)
                }
                name = text
            }
            var target: Int?
            var origin: Int64?
            if type == .link || type == .backlink {
                guard let opposites, leafIndex < opposites.count else {
                    throw .damaged("column \(entry.name).\(name) links to no table", at: entry.ref)
                }
                target = Int(opposites.integer(leafIndex, in: image))
                if type == .backlink, let oppositeColumns, leafIndex < oppositeColumns.count {
                    origin = oppositeColumns.integer(leafIndex, in: image)
                }
            }
            var strings: [String?]?
            if type == .string, let enumKeys, index < enumKeys.count, let ref = try enumKeys.ref(index, in: image) {
                strings = try StringLeaf.values(Node(image, at: ref), in: image)
            }
            if let primaryKeyColumn, primaryKeyColumn == columnKey { primaryKey = columns.count }
            var hasSearchIndex = false
            if let searchIndexes, searchIndexes.hasRefs, leafIndex < searchIndexes.count {
                hasSearchIndex = try searchIndexes.ref(leafIndex, in: image) != nil
            }
            columns.append(
                RealmColumn(
                    name: name, type: type, collection: collection, isNullable: keyAttributes & 16 != 0,
                    isIndexed: attributes.integer(index, in: image) & 1 != 0 || hasSearchIndex, leafIndex: leafIndex, targetTable: target,
                    originColumn: origin, key: columnKey, enumKeys: strings))
        }
        self.columns = columns
        self.primaryKey = primaryKey
    }
}

extension RealmGroup {
    /// The table `entry`, its columns read.
    package func table(_ entry: TableEntry) throws(RealmFileError) -> RealmTable { try RealmTable(entry, in: image) }
}
