import BurrowStorage
import Foundation

/// An open database: the objects of one file (or one in-memory realm) as of one version.
///
/// A `Realm` is confined to the isolation domain that opened it (an actor, or the main actor),
/// like its live objects and `Results`: none of them is `Sendable`, so the compiler keeps them
/// from crossing actors. To use a realm from other tasks, open it inside a `RealmActor` (or an
/// actor of your own) and pass frozen values out.
///
/// A realm reads one version of the file until it writes, calls `refresh()`, or its
/// `RealmActor` moves it forward between calls: synchronous code never sees the data change
/// under it. Writes happen in write transactions (`write`, `asyncWrite`, `beginWrite`), one at
/// a time per file in the whole process.
public final class Realm {
    // Exclusivity: the realm's hot state (the write transaction, the caches of tables and rows
    // trees, the change stamp) is `@exclusivity(unchecked)`, so that reading objects pays no
    // runtime access tracking. A realm is confined to one isolation domain (it is not
    // `Sendable`), and each access to these properties is a single read or store that calls no
    // code touching the same property.

    /// The configuration the realm was opened with.
    public let configuration: Configuration
    let storage: Storage
    /// Set for a frozen realm: the one version it reads forever.
    let frozenVersion: FrozenVersion?
    /// The version read outside write transactions.
    private(set) var snapshotReader: SnapshotReader {
        didSet {
            rowsTrees = TableIDMap()
            lastRowsTree = nil
        }
    }
    /// The rows trees of `snapshotReader` looked up so far (table id → tree, nil if the version
    /// has none): reading an object's row outside a write skips the reader's locked cache of
    /// trees by name, which frozen values share across threads.
    @exclusivity(unchecked) private var rowsTrees = TableIDMap<Tree?>()
    /// The rows tree read last, with its table's id: reading objects of one class one after
    /// another skips even the search of `rowsTrees`.
    @exclusivity(unchecked) private var lastRowsTree: (tableID: UInt32, tree: Tree)?
    /// The open write transaction, if any.
    @exclusivity(unchecked) var write: WriteState?
    var currentFileSchema: FileSchema
    /// The `info` entry of the schema tree the schema was loaded from, to notice changes cheaply.
    private var schemaStamp: [UInt8]?
    var schemaLoaded = false
    @exclusivity(unchecked) var tables: [ObjectIdentifier: Table] = [:] {
        didSet { lastTable = nil }
    }
    /// The table `knownTable(_:)` found last: code reads one class many times in a row, and this
    /// spares hashing the type for each read.
    @exclusivity(unchecked) private var lastTable: (type: ObjectIdentifier, table: Table)?
    @exclusivity(unchecked) var tablesById: [UInt32: Table] = [:]
    /// Changes whenever what this realm reads may have changed (a new version, or a change made
    /// in the open write transaction). Live `Results` re-evaluate when it moves.
    @exclusivity(unchecked) private(set) var changeStamp: UInt64 = 0
    private(set) var isOpen = true

    // MARK: Opening

    /// Opens the realm `configuration` describes, synchronously, on the current thread.
    ///
    /// Throws `RealmError`: `.fileLocked` if another process has the file open, `.invalidFile` or
    /// `.corruptFile` for a file that is not a sound Burrow database, `.fileAccess` if it cannot
    /// be read or created, `.schemaMismatch` if the classes differ from the file's schema and no
    /// migration applies.
    public convenience init(configuration: Configuration = .defaultConfiguration) throws {
        let storage = try Self.openStorage(configuration)
        try self.init(storage: storage, configuration: configuration)
    }

    /// Opens the realm `configuration` describes, isolated to the caller's actor (`#isolation`):
    /// the realm and its objects may be used only there.
    public static func open(
        configuration: Configuration = .defaultConfiguration, isolation: isolated (any Actor)? = #isolation
    ) async throws -> Realm {
        try Realm(configuration: configuration)
    }

    private static func openStorage(_ configuration: Configuration) throws(RealmError) -> Storage {
        let options = StorageOptions(readOnly: configuration.readOnly, create: !configuration.readOnly)
        do {
            if let identifier = configuration.inMemoryIdentifier {
                return try Storage.inMemory(identifier: identifier, options: options)
            }
            guard let url = configuration.fileURL else {
                throw RealmError(.invalidArgument, "The configuration names neither a file nor an in-memory identifier.")
            }
            try copySeedFileIfNeeded(configuration)
            if configuration.readOnly, !FileManager.default.fileExists(atPath: url.path) {
                throw RealmError(.fileAccess, "Cannot open \(url.path) read-only: there is no such file.", fileURL: url, errno: ENOENT)
            }
            return try Storage.open(path: url.path, options: options)
        } catch {
            throw RealmError(wrapping: error)
        }
    }

    private init(storage: Storage, configuration: Configuration) throws(RealmError) {
        self.configuration = configuration
        self.storage = storage
        frozenVersion = nil
        do {
            snapshotReader = SnapshotReader(try storage.snapshot())
        } catch {
            throw RealmError(error)
        }
        currentFileSchema = .empty
        try loadSchemaIfChanged()
        try prepareSchema()
    }

    /// A frozen realm reading `version`.
    init(frozen version: FrozenVersion) {
        configuration = version.configuration
        storage = version.snapshotReader.snapshot.storage
        frozenVersion = version
        snapshotReader = version.snapshotReader
        currentFileSchema = version.currentFileSchema
    }

    // MARK: State

    /// Whether this realm is frozen: it reads one version forever and cannot write.
    public var isFrozen: Bool { frozenVersion != nil }

    /// Whether a write transaction is open on this realm.
    public var isInWriteTransaction: Bool { write != nil }

    /// The version this realm reads (in a write transaction, the version the write started from).
    public var version: UInt64 { write?.transaction.baseVersion ?? snapshotReader.snapshot.version }

    /// How many versions of the file are pinned right now, in the whole process: each live
    /// realm's version, each frozen value's. Versions stay pinned while anything reads them,
    /// and the pages they read cannot be reused until then, so a number that keeps growing
    /// means frozen values are being held longer than intended.
    public var pinnedVersionCount: Int {
        storage.pinnedVersionCount
    }

    /// Whether the realm has no objects at all. Traps if the file is damaged where it reads
    /// (see "Read errors" in Architecture.md).
    public var isEmpty: Bool {
        do {
            for stored in currentFileSchema.classes.values where try reader.count(Table.rowsTreeName(stored.id)) > 0 {
                return false
            }
            return true
        } catch {
            fail(error)
        }
    }

    /// The trees this realm reads now: the write transaction's while one is open.
    var reader: any TreeReader { write?.reader ?? snapshotReader }

    func withRowBytes<R>(_ table: Table, _ key: ObjectKey, _ body: (UnsafeRawBufferPointer) -> R) throws(StorageError) -> R? {
        if let write { return try withRowBytes(table, key, in: write.reader, body) }
        let tree: Tree
        if let last = lastRowsTree, last.tableID == table.id {
            tree = last.tree
        } else {
            guard let found = try snapshotRowsTree(table) else { return nil }
            lastRowsTree = (table.id, found)
            tree = found
        }
        do {
            return try withUnsafeBytes(of: key.rawValue.bigEndian) { k in try tree.withValue(forKey: k, body) }
        } catch let error as StorageError {
            throw error
        } catch {
            preconditionFailure("unreachable: the body does not throw")
        }
    }

    /// The rows tree of `table` in `snapshotReader`'s version, nil if the version has none.
    private func snapshotRowsTree(_ table: Table) throws(StorageError) -> Tree? {
        if let known = rowsTrees[table.id] { return known }
        let tree = try snapshotReader.tree(table.rowsTree)
        rowsTrees[table.id] = .some(tree)
        return tree
    }

    /// The table of `type`, if this realm has made one.
    @inline(__always)
    func knownTable(_ type: ObjectBase.Type) -> Table? {
        let id = ObjectIdentifier(type)
        if let lastTable, lastTable.type == id { return lastTable.table }
        guard let table = tables[id] else { return nil }
        lastTable = (id, table)
        return table
    }

    /// Moves the realm to the newest version of the file, if it is not on it. Returns whether
    /// anything changed. Does nothing inside a write transaction or on a frozen realm, nor
    /// once the file's handle is closed or failed (the realm keeps reading its version; writes
    /// throw). Traps if the newest version is damaged where it reads (its schema), as RealmSwift's
    /// `refresh()` cannot throw either (see "Read errors" in Architecture.md).
    @discardableResult
    public func refresh() -> Bool {
        do {
            return try refreshIfUsable()
        } catch {
            fail(error)
        }
    }

    /// `refresh()`, throwing where it would trap.
    @discardableResult
    func refreshIfUsable() throws(RealmError) -> Bool {
        guard write == nil, frozenVersion == nil, isOpen, storage.version != snapshotReader.snapshot.version else { return false }
        do {
            try moveToLatest()
            return true
        } catch where error.code == .wrongState {
            // The handle was closed or failed: no newer version can be read through it.
            return false
        }
    }

    /// Reads the newest version from now on.
    /// Moves the realm to the newest version of the file. `ownCommit` is the version this
    /// realm's commit just made without changing the schema: if it is still the newest, the
    /// schema loaded is that version's, and is not read again.
    func moveToLatest(ownCommit: UInt64? = nil) throws(RealmError) {
        do {
            snapshotReader = SnapshotReader(try storage.snapshot())
        } catch {
            throw RealmError(error)
        }
        changeStamp &+= 1
        if schemaLoaded, let ownCommit, snapshotReader.snapshot.version == ownCommit { return }
        try loadSchemaIfChanged()
    }

    func noteChange() { changeStamp &+= 1 }

    /// Stops using the file: objects and results of this realm become invalid. Other realms of
    /// the same file are not affected.
    public func invalidate() {
        write?.transaction.abort()
        write = nil
        isOpen = false
        changeStamp &+= 1
    }

    // MARK: Schema

    /// Reloads the stored schema if the version being read changed it.
    func loadSchemaIfChanged() throws(RealmError) {
        let stamp: [UInt8]?
        do {
            stamp = try FileSchema.stamp(in: reader)
        } catch {
            throw RealmError(error)
        }
        if schemaLoaded, stamp == schemaStamp { return }
        let schema = try FileSchema.load(from: reader, stamp: stamp, path: displayName)
        schemaStamp = stamp
        schemaLoaded = true
        if schema != currentFileSchema {
            currentFileSchema = schema
            tables = [:]
            tablesById = [:]
        }
    }

    public var displayName: String { configuration.displayName }
}

extension Realm: ReadContext {
    var objectSource: ObjectSource {
        if let frozenVersion { return .frozen(frozenVersion) }
        return .live(self)
    }

    func table(id: UInt32) -> Table? {
        if let table = tablesById[id] { return table }
        guard let stored = currentFileSchema.classes.values.first(where: { $0.id == id }),
            let type = Self.swiftClass(named: stored.name, among: knownTypes)
        else { return nil }
        return usableTable(for: type)
    }

    /// The table of `type`, for callers that cannot throw: nil if the file has no such class,
    /// or if `type` does not match it (then it is not this realm's class, and links into it
    /// read as nil). Damage, or a failed write, met while migrating the class on first use
    /// traps (see "Read errors" in Architecture.md).
    func usableTable(for type: ObjectBase.Type) -> Table? {
        do {
            return try table(for: type, creating: false)
        } catch where error.code == .schemaMismatch {
            return nil
        } catch {
            fail(error)
        }
    }

    /// The classes this realm knows of: the configured ones, and those it has tables for and
    /// their links. A stored class name is matched among these before any other class of the
    /// process that is stored under the same name.
    var knownTypes: [ObjectBase.Type] {
        (configuration.objectTypes ?? []) + tables.values.flatMap { [$0.info.type] + $0.info.linkedTypes.compactMap { $0 } }
    }

    static func swiftClass(named name: String, among types: [ObjectBase.Type]) -> ObjectBase.Type? {
        types.first { ClassInfo.storedName(of: $0) == name } ?? ClassInfo.named(name)?.type
    }
}

extension Realm: CustomStringConvertible {
    public var description: String {
        "Realm(\(displayName), version \(version)\(isFrozen ? ", frozen" : "")\(isInWriteTransaction ? ", in a write transaction" : ""))"
    }
}
