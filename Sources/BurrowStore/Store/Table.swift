/// One class as an open realm stores it: the properties its program declares matched to the
/// fields of the class in the file, and the names of the trees that hold its rows and indexes.
///
/// Trees are named by the class's permanent id, so renaming never moves data:
/// `rows/<id>` (object key → row), `pk/<id>` (primary key → object key), `index/<id>/<field>`
/// (value + object key → empty), `links/<id>` (backlinks to objects of this class: target key +
/// source class id + source field + source key → count).
@usableFromInline
package final class Table: Sendable {
    /// The class as the program declares it; property `i` of the store's operations is
    /// `declared.properties[i]`.
    package let declared: DeclaredClass
    /// The layer above's own description of the class (the API's description of a Swift class), kept here so that
    /// an object read from this table finds its Swift class without a lookup. The store never
    /// looks inside it.
    package let program: any AnyObject & Sendable
    package let stored: StoredClass
    /// Declared property index → row field index; nil for `LinkingObjects`, which are not stored.
    @usableFromInline package let fieldOf: [Int?]
    /// Row field index → its declared property index (nil if the class has no such property).
    package let propertyOfField: [Int?]
    /// Row field index → its type.
    @usableFromInline package let fieldTypes: [PropertyType]
    /// Per row field, what converting it from a row of file format 4 or 5 takes
    /// (`StoredClass.legacyFields`).
    package let legacyFields: [LegacyRowCodec.FieldKind]
    package let rowsTree: TreeName
    package let primaryKeyTree: TreeName
    /// Per declared property: its index tree, if it is indexed (and not the primary key).
    package let indexTrees: [TreeName?]
    /// Per row field: its index tree, if it is indexed (and not the primary key).
    @usableFromInline package let fieldIndexTrees: [TreeName?]
    /// The row field of the primary key, if the class has one.
    package let primaryKeyField: Int?
    /// Per row field: the tree holding its elements, for a `List` (`list/<id>/<field>`: owner
    /// key + position → element), a `MutableSet` (`set/<id>/<field>`: owner key + element index
    /// key → element) or a `Map` (`map/<id>/<field>`: owner key + map key → map key and
    /// element). The field itself holds the element count.
    package let collectionTrees: [TreeName?]
    package let backlinksTree: TreeName
    /// Long string and data payloads kept out of their rows: object key + field (UInt16) → payload.
    package let blobsTree: TreeName
    /// Whether the stored class records the `LinkingObjects` the program declares (always,
    /// for a dynamic table): if not, the next write that adds objects records them.
    package let recordsItsLinkingObjects: Bool

    package var id: UInt32 { stored.id }

    package var name: String { stored.name }
    package var hasPrimaryKey: Bool { declared.primaryKey != nil }

    /// The table of `declared`, stored as `stored`; `program` is the layer above's description
    /// of the class, handed back as it is.
    package init(declared: DeclaredClass, stored: StoredClass, program: any AnyObject & Sendable) {
        self.declared = declared
        self.program = program
        self.stored = stored
        fieldOf = declared.properties.map { $0.type == .linkingObjects ? nil : stored.fieldIndex(of: $0.columnName) }
        propertyOfField = stored.properties.map { declared.propertyIndex(columnNamed: $0.name) }
        fieldTypes = stored.properties.map(\.type)
        legacyFields = stored.legacyFields
        rowsTree = TreeName(.rows, stored.id)
        primaryKeyTree = TreeName(.primaryKey, stored.id)
        indexTrees = declared.properties.enumerated().map { index, property in
            guard property.isIndexed, !property.isPrimary, let field = stored.fieldIndex(of: property.columnName) else { return nil }
            return TreeName(.index, stored.id, field: field)
        }
        backlinksTree = TreeName(.backlinks, stored.id)
        blobsTree = TreeName(.blobs, stored.id)
        recordsItsLinkingObjects = declared.isDynamic || stored.linkingObjects == StoredClass.linkingObjects(declared.linkingObjects)
        fieldIndexTrees = stored.properties.indices.map { field in
            let property = stored.properties[field]
            return property.isIndexed && !property.isPrimary ? TreeName(.index, stored.id, field: field) : nil
        }
        primaryKeyField = stored.properties.firstIndex { $0.isPrimary }
        collectionTrees = stored.properties.indices.map { Self.collectionTreeName(stored.id, $0, stored.properties[$0].collection) }
    }

    /// The `LinkingObjects` property named `name` the file records for a class read through the
    /// stored schema alone (a dynamic table), if any.
    package func recordedLinkingObjects(named name: String) -> Property? {
        guard declared.isDynamic else { return nil }
        return stored.linkingObjects?.first { $0.name == name }.map { Property($0) }
    }

    /// The row field of the declared property named `name` (its Swift name), if it is stored.
    package func field(named name: String) -> Int? {
        declared.propertyIndex(named: name).flatMap { fieldOf[$0] }
    }

    /// The name of row field `field` as the declared class names it (its Swift name), or as
    /// the file does if the class does not declare it.
    package func declaredName(ofField field: Int) -> String {
        propertyOfField[field].map { declared.properties[$0].name } ?? stored.properties[field].name
    }

    /// The row field of declared property `property` and its payload in `row`, a row of this
    /// table; nil if the property is not stored or the field is null.
    @inlinable @inline(__always)
    package func storedField(_ property: Int, in row: UnsafeRawBufferPointer) -> (field: Int, payload: UnsafeRawBufferPointer)? {
        guard let field = fieldOf[property], let payload = RowCodec.field(row, field) else { return nil }
        return (field, payload)
    }

    /// The tree of the elements of collection field `field` of the class stored with `id`
    /// (nil for a field of one value).
    package static func collectionTreeName(_ id: UInt32, _ field: Int, _ kind: CollectionKind) -> TreeName? {
        StoreTreeName.Family(kind).map { TreeName($0, id, field: field) }
    }

    /// The stored class that `declared` would be in a file that does not have it yet.
    package static func newStoredClass(for declared: DeclaredClass, id: UInt32) -> StoredClass {
        StoredClass(
            id: id, name: declared.name, isEmbedded: declared.isEmbedded,
            properties: declared.storedProperties.map(StoredProperty.init),
            linkingObjects: StoredClass.linkingObjects(declared.linkingObjects))
    }

    /// Why `declared` cannot use `stored` as it is, or nil if it can.
    package static func mismatch(_ declared: DeclaredClass, _ stored: StoredClass) -> String? {
        var differences: [String] = []
        for property in declared.storedProperties {
            let name = property.columnName == property.name ? "'\(property.name)'" : "'\(property.name)' (stored as '\(property.columnName)')"
            guard let index = stored.fieldIndex(of: property.columnName) else {
                differences.append("property \(name) was added")
                continue
            }
            if !stored.properties[index].matches(property) {
                differences.append("property \(name) changed from \(stored.properties[index].summary) to \(StoredProperty(property).summary)")
            }
        }
        for stored in stored.properties where declared.propertyIndex(columnNamed: stored.name) == nil {
            differences.append("property '\(stored.name)' was removed")
        }
        if declared.isEmbedded != stored.isEmbedded {
            differences.append(declared.isEmbedded ? "it became an EmbeddedObject" : "it is no longer an EmbeddedObject")
        }
        return differences.isEmpty ? nil : differences.joined(separator: "; ")
    }
}
