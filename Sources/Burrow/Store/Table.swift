import BurrowStore

/// One class as an open realm stores it: the Swift class's properties matched to the fields of
/// the class in the file, and the names of the trees that hold its rows and indexes.
///
/// Trees are named by the class's permanent id, so renaming never moves data:
/// `rows/<id>` (object key → row), `pk/<id>` (primary key → object key), `index/<id>/<field>`
/// (value + object key → empty), `links/<id>` (backlinks to objects of this class: target key +
/// source class id + source field + source key → count).
final class Table: Sendable {
    let info: ClassInfo
    let stored: StoredClass
    /// Swift property index → row field index; nil for `LinkingObjects`, which are not stored.
    let fieldOf: [Int?]
    /// Row field index → its Swift property index (nil if the class has no such property).
    let propertyOfField: [Int?]
    /// Row field index → its type.
    let fieldTypes: [PropertyType]
    let rowsTree: TreeName
    let primaryKeyTree: TreeName
    /// Per Swift property: its index tree, if it is indexed (and not the primary key).
    let indexTrees: [TreeName?]
    /// Per row field: its index tree, if it is indexed (and not the primary key).
    let fieldIndexTrees: [TreeName?]
    /// The row field of the primary key, if the class has one.
    let primaryKeyField: Int?
    /// Per row field: the tree holding its elements, for a `List` (`list/<id>/<field>`: owner
    /// key + position → element), a `MutableSet` (`set/<id>/<field>`: owner key + element index
    /// key → element) or a `Map` (`map/<id>/<field>`: owner key + map key → map key and
    /// element). The field itself holds the element count.
    let collectionTrees: [TreeName?]
    let backlinksTree: TreeName
    /// Long string and data payloads kept out of their rows: object key + field (UInt16) → payload.
    let blobsTree: TreeName
    /// Whether the stored class records the `LinkingObjects` the Swift class declares (always,
    /// for a dynamic table): if not, the next write that adds objects records them.
    let recordsItsLinkingObjects: Bool

    var id: UInt32 { stored.id }

    var name: String { stored.name }
    var hasPrimaryKey: Bool { info.primaryKey != nil }

    init(info: ClassInfo, stored: StoredClass) {
        self.info = info
        self.stored = stored
        fieldOf = info.properties.map { stored.fieldIndex(of: $0.name) }
        propertyOfField = stored.properties.map { info.propertyIndex[$0.name] }
        fieldTypes = stored.properties.map(\.type)
        rowsTree = TreeName(.rows, stored.id)
        primaryKeyTree = TreeName(.primaryKey, stored.id)
        indexTrees = info.properties.enumerated().map { index, property in
            guard property.isIndexed, !property.isPrimary, let field = stored.fieldIndex(of: property.name) else { return nil }
            return TreeName(.index, stored.id, field: field)
        }
        backlinksTree = TreeName(.backlinks, stored.id)
        blobsTree = TreeName(.blobs, stored.id)
        recordsItsLinkingObjects = info.isDynamic || stored.linkingObjects == StoredClass.linkingObjects(info.schema.computedProperties)
        fieldIndexTrees = stored.properties.indices.map { field in
            let property = stored.properties[field]
            return property.isIndexed && !property.isPrimary ? TreeName(.index, stored.id, field: field) : nil
        }
        primaryKeyField = stored.properties.firstIndex { $0.isPrimary }
        collectionTrees = stored.properties.indices.map { Self.collectionTreeName(stored.id, $0, stored.properties[$0].collection) }
    }

    /// The row field of Swift property `property` and its payload in `row`, a row of this
    /// table; nil if the property is not stored or the field is null.
    @inline(__always)
    func storedField(_ property: Int, in row: UnsafeRawBufferPointer) -> (field: Int, payload: UnsafeRawBufferPointer)? {
        guard let field = fieldOf[property], let payload = RowCodec.field(row, field) else { return nil }
        return (field, payload)
    }

    /// The tree of the elements of collection field `field` of the class stored with `id`
    /// (nil for a field of one value).
    static func collectionTreeName(_ id: UInt32, _ field: Int, _ kind: CollectionKind) -> TreeName? {
        StoreTreeName.Family(kind).map { TreeName($0, id, field: field) }
    }

    /// The stored class that `info` would be in a file that does not have it yet.
    static func newStoredClass(for info: ClassInfo, id: UInt32) -> StoredClass {
        StoredClass(
            id: id, name: info.name, isEmbedded: info.isEmbedded,
            properties: info.schema.properties.map(StoredProperty.init),
            linkingObjects: StoredClass.linkingObjects(info.schema.computedProperties))
    }

    /// Why `info` cannot use `stored` as it is, or nil if it can.
    static func mismatch(_ info: ClassInfo, _ stored: StoredClass) -> String? {
        var differences: [String] = []
        let swiftProperties = info.schema.properties
        for property in swiftProperties {
            guard let index = stored.fieldIndex(of: property.name) else {
                differences.append("property '\(property.name)' was added")
                continue
            }
            if !stored.properties[index].matches(property) {
                differences.append(
                    "property '\(property.name)' changed from \(stored.properties[index].summary) to \(StoredProperty(property).summary)")
            }
        }
        for stored in stored.properties where info.propertyIndex[stored.name] == nil {
            differences.append("property '\(stored.name)' was removed")
        }
        if info.isEmbedded != stored.isEmbedded {
            differences.append(info.isEmbedded ? "it became an EmbeddedObject" : "it is no longer an EmbeddedObject")
        }
        return differences.isEmpty ? nil : differences.joined(separator: "; ")
    }
}
