import BurrowStorage

/// The objects of one file as one realm reads and writes them, through the schema stored in
/// the file: the version read, the open write transaction, the stored schema and the tables
/// made from it, and (in the files beside this one) rows, fields, indexes, links and
/// backlinks, lists, sets, maps, embedded objects, long values and key allocation.
///
/// The API sits above it: it maps its classes to stored ones (`Table`, made from a
/// `DeclaredClass`), turns objects into values and keys and back, and asks the store to begin,
/// commit or cancel the write transaction, which the store owns. Only keys and values cross
/// into the store: a link is a class id and an object key (`ObjectLink`), never an object, and
/// its errors are `StoreError`s, which the API maps to its own once.
///
/// Exclusivity: the hot state (the write transaction, the tables and the caches of rows trees,
/// the change stamp) is `@exclusivity(unchecked)`, so that reading objects pays no runtime
/// access tracking. A store is confined to its realm's isolation domain, and each access to
/// these properties is a single read or store that calls no code touching the same property.
@usableFromInline
package final class ObjectStore {
    package let storage: Storage
    /// Where errors in messages happened (the realm's `displayName`).
    package let displayName: String
    /// The layer above's description of a class read through the stored schema alone, for the
    /// dynamic tables the store makes (see `Table.program`).
    private let dynamicProgram: (StoredClass, FileSchema) -> any AnyObject & Sendable

    /// The version read outside write transactions.
    package private(set) var snapshotReader: SnapshotReader {
        didSet {
            rowsTrees = TableIDMap()
            lastRowsTree = nil
            lastIndexTree = nil
        }
    }
    /// The rows trees of `snapshotReader` looked up so far (table id → tree, nil if the version
    /// has none): reading an object's row outside a write skips the reader's locked cache of
    /// trees by name, which frozen values share across threads.
    @exclusivity(unchecked) private var rowsTrees = TableIDMap<Tree?>()
    /// The rows tree read last, with its table's id: reading objects of one class one after
    /// another skips even the search of `rowsTrees`.
    @exclusivity(unchecked) private var lastRowsTree: (tableID: UInt32, tree: Tree)?
    /// The secondary index tree of `snapshotReader` probed last (nil if the version has none):
    /// lookups by one indexed property, one after another, skip the reader's locked cache.
    @exclusivity(unchecked) private var lastIndexTree: (name: TreeName, tree: Tree?)?
    /// The open write transaction, if any (see `beginWrite`).
    @exclusivity(unchecked) package internal(set) var write: WriteState?

    /// The schema stored in the version being read.
    package private(set) var currentFileSchema: FileSchema
    /// The `info` entry of the schema tree the schema was loaded from, to notice changes cheaply.
    private var schemaStamp: [UInt8]?
    /// Whether `currentFileSchema` was loaded from the version read (false forces a reload).
    package var schemaLoaded = false
    /// The tables of the program's classes made so far, by the identity the layer above gives
    /// each class (the API: its Swift class's). Emptied when the stored classes change.
    @exclusivity(unchecked) @usableFromInline package private(set) var tables: [ObjectIdentifier: Table] = [:] {
        didSet { lastTable = nil }
    }
    /// The table `knownTable(_:)` found last: code reads one class many times in a row, and this
    /// spares hashing the identity for each read.
    @exclusivity(unchecked) @usableFromInline package var lastTable: (type: ObjectIdentifier, table: Table)?
    /// The tables of the program's classes made so far, by stored class id.
    @exclusivity(unchecked) package private(set) var tablesById: [UInt32: Table] = [:]
    /// The dynamic tables made so far (`dynamicTable(id:)`), by class id; emptied with `tables`
    /// when the stored classes change.
    private var dynamicTablesById: [UInt32: Table] = [:]
    /// Changes whenever what the store reads may have changed (a new version, or a change made
    /// in the open write transaction). Live `Results` re-evaluate when it moves. Its top bits
    /// count the invalidations of the store's reader above (its `invalidate()` calls).
    @exclusivity(unchecked) @usableFromInline package var changeStamp: UInt64 = 0

    /// `changeStamp`, for the layers above, which read it for every property of a live object:
    /// inlined into them as this module compiles it, without the dynamic exclusivity check that
    /// their own access to the property would make (`@exclusivity(unchecked)` holds in this
    /// module only).
    @inlinable package var currentChangeStamp: UInt64 { changeStamp }

    /// A store reading `snapshotReader`'s version, whose schema is `schema` (loaded by
    /// `loadSchemaIfChanged()` when not given).
    /// `dynamicProgram` gives the layer above's description of each class the store reads
    /// through the stored schema alone.
    package init(
        storage: Storage, snapshotReader: SnapshotReader, schema: FileSchema?, displayName: String,
        dynamicProgram: @escaping (StoredClass, FileSchema) -> any AnyObject & Sendable
    ) {
        self.storage = storage
        self.snapshotReader = snapshotReader
        self.displayName = displayName
        self.dynamicProgram = dynamicProgram
        currentFileSchema = schema ?? .empty
    }

    /// The trees read now: the write transaction's while one is open.
    package var reader: any TreeReader { write?.trees ?? snapshotReader }

    /// Calls `body` with the row of object `key` of `table` (zero-copy, valid inside `body`)
    /// and returns its result, or nil if there is no such row.
    package func withRowBytes<R>(_ table: Table, _ key: ObjectKey, _ body: (UnsafeRawBufferPointer) -> R) throws(StorageError) -> R? {
        if let write { return try withRowBytes(table, key, in: write.trees, body) }
        let tree: Tree
        if let last = lastRowsTree, last.tableID == table.id {
            tree = last.tree
        } else {
            guard let found = try snapshotRowsTree(table) else { return nil }
            lastRowsTree = (table.id, found)
            tree = found
        }
        do {
            if snapshotReader.rowsAreOld {
                return try withUnsafeBytes(of: key.rawValue.bigEndian) { k in
                    try tree.withValue(forKey: k) {
                        LegacyRowCodec.withConverted($0, from: snapshotReader.rowFormat, fields: table.legacyFields, body)
                    }
                }
            }
            return try withUnsafeBytes(of: key.rawValue.bigEndian) { k in try tree.withValue(forKey: k, body) }
        } catch let error as StorageError {
            throw error
        } catch {
            preconditionFailure("unreachable: the body does not throw")
        }
    }

    package func firstIndexed(_ tree: TreeName, value: UnsafeRawBufferPointer) throws(StorageError) -> ObjectKey? {
        if let write { return try firstIndexed(tree, value: value, in: write.trees) }
        let handle: Tree?
        if let last = lastIndexTree, last.name == tree {
            handle = last.tree
        } else {
            handle = try snapshotReader.tree(tree)
            lastIndexTree = (tree, handle)
        }
        guard let handle else { return nil }
        var found: ObjectKey?
        try handle.forEachEntry(from: value) { entry, _ in
            found = Self.indexEntry(entry, objectWithValue: value)
            return false
        }
        return found
    }

    /// The rows tree of `table` in `snapshotReader`'s version, nil if the version has none.
    private func snapshotRowsTree(_ table: Table) throws(StorageError) -> Tree? {
        if let known = rowsTrees[table.id] { return known }
        let tree = try snapshotReader.tree(table.rowsTree)
        rowsTrees[table.id] = .some(tree)
        return tree
    }

    /// Reads the newest version of the file from now on. `ownCommit` is the version the
    /// owner's commit just made without changing the schema: if it is still the newest, the
    /// schema loaded is that version's, and is not read again.
    package func readNewestVersion(ownCommit: UInt64? = nil) throws(StoreError) {
        do {
            snapshotReader = SnapshotReader(try storage.snapshot())
        } catch {
            throw StoreError(error)
        }
        noteChange()
        if schemaLoaded, let ownCommit, snapshotReader.snapshot.version == ownCommit { return }
        try loadSchemaIfChanged()
    }

    /// Notes that what the store reads may have changed.
    package func noteChange() { changeStamp &+= 1 }

    // MARK: Schema and tables

    /// Reloads the stored schema if the version being read changed it.
    package func loadSchemaIfChanged() throws(StoreError) {
        let stamp: [UInt8]?
        do {
            stamp = try FileSchema.stamp(in: reader)
        } catch {
            throw StoreError(error)
        }
        if schemaLoaded, stamp == schemaStamp { return }
        let schema = try FileSchema.load(from: reader, stamp: stamp, path: displayName)
        schemaStamp = stamp
        schemaLoaded = true
        setFileSchema(schema)
    }

    /// Makes `schema` the one read; the tables made from another set of classes go. When only
    /// the `LinkingObjects` the classes record changed, the typed tables stay (their rows and
    /// Swift classes are as they were, so objects read before and after keep one table) and
    /// only the dynamic ones, which read the records, go.
    package func setFileSchema(_ schema: FileSchema) {
        if schema.classes != currentFileSchema.classes {
            if Self.storedFields(of: schema.classes) != Self.storedFields(of: currentFileSchema.classes) {
                tables = [:]
                tablesById = [:]
            }
            dynamicTablesById = [:]
        }
        currentFileSchema = schema
    }

    /// `classes` without the `LinkingObjects` they record: what their rows are made of.
    private static func storedFields(of classes: [String: StoredClass]) -> [String: StoredClass] {
        classes.mapValues { stored in
            var fields = stored
            fields.linkingObjects = nil
            return fields
        }
    }

    /// Writes `schema` (with the entries of `changed` classes) into the open transaction.
    package func storeSchema(_ schema: FileSchema, changing changed: [StoredClass], in write: WriteState) throws(StoreError) {
        do {
            try write.trees.put(.schema, FileSchema.infoKey, FileSchema.encode(schema.info))
            for stored in changed {
                try write.trees.put(.schema, Array((FileSchema.classKeyPrefix + stored.name).utf8), FileSchema.encode(stored))
            }
        } catch {
            throw StoreError(error)
        }
        setFileSchema(schema)
        write.schemaChanged = true
    }

    /// The table registered for the class whose identity is `type`, if any.
    @inlinable @inline(__always)
    package func knownTable(_ type: ObjectIdentifier) -> Table? {
        if let lastTable, lastTable.type == type { return lastTable.table }
        guard let table = tables[type] else { return nil }
        lastTable = (type, table)
        return table
    }

    /// Keeps `table`, of the program's class whose identity is `type`, for later lookups by
    /// identity and by id.
    package func register(_ table: Table, for type: ObjectIdentifier) -> Table {
        tables[type] = table
        tablesById[table.id] = table
        return table
    }
}

extension ObjectStore: RowReader {
    package func table(id: UInt32) -> Table? { tablesById[id] }

    package func dynamicTable(id: UInt32) -> Table? {
        if let table = dynamicTablesById[id] { return table }
        let table = makeDynamicTable(id: id)
        dynamicTablesById[id] = table
        return table
    }

    package func dynamicProgram(for stored: StoredClass) -> any AnyObject & Sendable {
        dynamicProgram(stored, currentFileSchema)
    }
}
