import BurrowStorage
import BurrowStore
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
    /// The configuration the realm was opened with.
    public let configuration: Configuration
    let storage: Storage
    /// Set for a frozen realm: the one version it reads forever.
    let frozenVersion: FrozenVersion?
    /// The objects of the file as this realm reads and writes them (see `ObjectStore`).
    let store: ObjectStore
    /// What the realm tracks for the open write transaction, if any (the transaction is the
    /// store's; the realm asks it to begin and end one, and sets this as it does).
    var write: RealmWrite? {
        @inline(__always) get { currentWrite }
        set {
            let oldValue = currentWrite
            currentWrite = newValue
            if let oldValue, oldValue !== newValue { WriteOwners.ended(oldValue, on: storage) }
            if let newValue, newValue !== oldValue { WriteOwners.began(newValue, on: storage) }
            if keepsItselfWhileWriting { heldWhileWriting = newValue == nil ? nil : self }
            if newValue == nil, oldValue != nil, let writeEndWaiters {
                self.writeEndWaiters = nil
                writeEndWaiters.resumeAll()
            }
        }
    }
    @exclusivity(unchecked) private var currentWrite: RealmWrite?
    /// The tasks waiting for the open write transaction to end (`writeEnd()`), if any.
    var writeEndWaiters: WriteEndWaiters?
    /// The schema stored in the version read.
    package var currentFileSchema: FileSchema { store.currentFileSchema }
    /// Changes whenever what this realm reads may have changed (a new version, or a change made
    /// in the open write transaction). Live `Results` re-evaluate when it moves.
    var changeStamp: UInt64 {
        @inline(__always) get { store.currentChangeStamp }
    }
    private(set) var isOpen = true
    /// Its entry in `RealmCache`, if it is a domain's realm.
    var cacheKey: RealmCache.Key?
    /// Whether the realm stays alive while its write transaction is open, though nothing else
    /// holds it: the main actor's realm does (see `RealmCache`), so that main-thread code may
    /// begin a write on `Realm()` and commit it on the next `Realm()`, as RealmSwift's
    /// autoreleased realms allow. The main actor lives as long as the process, so the realm is
    /// always there to finish the write.
    var keepsItselfWhileWriting = false
    /// The realm itself, while `keepsItselfWhileWriting` and a write transaction is open.
    private var heldWhileWriting: Realm?
    /// The thread this realm belongs to when a thread's own code opened it, outside actors and
    /// tasks (see `RealmCache`); nil when its actor's isolation keeps it in place.
    var confinedThread: pthread_t?
    /// Whether this live realm is counted in `SchemaVersionsInUse`.
    private var usesSchemaVersion = false

    // MARK: Opening

    /// A new live realm on `storage`, reading its newest version (see Realm+Open.swift for the
    /// public ways to open one).
    init(storage: Storage, configuration: Configuration) throws(RealmError) {
        self.configuration = configuration
        self.storage = storage
        frozenVersion = nil
        do {
            store = ObjectStore(
                storage: storage, snapshotReader: SnapshotReader(try storage.snapshot()), schema: nil,
                displayName: configuration.displayName, dynamicProgram: ClassInfo.init(dynamic:in:))
        } catch {
            throw RealmError(error)
        }
        try SchemaVersionsInUse.enter(storage, configuration.schemaVersion, displayName: configuration.displayName)
        usesSchemaVersion = true
        try mapped { () throws(StoreError) in try store.loadSchemaIfChanged() }
        try prepareSchema()
    }

    /// A frozen realm reading `version`.
    init(frozen version: FrozenVersion) {
        configuration = version.configuration
        storage = version.snapshotReader.snapshot.storage
        frozenVersion = version
        store = ObjectStore(
            storage: storage, snapshotReader: version.snapshotReader, schema: version.currentFileSchema,
            displayName: version.configuration.displayName, dynamicProgram: ClassInfo.init(dynamic:in:))
    }

    deinit {
        // A realm let go of in a write transaction cancels it (its transaction releases the
        // lock as it goes); the record of who holds the lock goes with it.
        if let write { WriteOwners.ended(write, on: storage) }
        if let cacheKey { RealmCache.remove(self, cacheKey) }
        writeEndWaiters?.resumeAll()
        if usesSchemaVersion { SchemaVersionsInUse.leave(storage, configuration.schemaVersion) }
    }

    /// Whether the realm is confined to a thread (see `confinedThread`) other than the current
    /// one. Checked where such a realm is used (opening a write, `objects`, lookups by primary
    /// key, `refresh`): a realm a thread's code opened is that thread's, shared by all its code,
    /// and using it elsewhere at the same time would race.
    @inline(__always)
    var isOnAnotherThread: Bool {
        guard let confinedThread else { return false }
        return pthread_equal(confinedThread, pthread_self()) == 0
    }

    /// The error for using a realm on another thread than its own, or nil if it may be used here.
    func threadMisuse() -> RealmError? {
        guard isOnAnotherThread else { return nil }
        return RealmError(
            .wrongState,
            "Realm accessed from incorrect thread: \(displayName) was opened by code outside actors and tasks on another thread, and belongs to that thread. Open the realm where it is used (Realm(configuration:) there), or keep it in an actor."
        )
    }

    /// `threadMisuse()` for the APIs that cannot throw: they trap, as RealmSwift's do.
    @inline(__always)
    func checkThread() {
        if isOnAnotherThread { trapOnAnotherThread() }
    }

    @inline(never)
    private func trapOnAnotherThread() -> Never {
        preconditionFailure(threadMisuse()?.description ?? "Realm accessed from incorrect thread")
    }

    // MARK: State

    /// Whether this realm is frozen: it reads one version forever and cannot write.
    public var isFrozen: Bool { frozenVersion != nil }

    /// Whether a write transaction is open on this realm.
    public var isInWriteTransaction: Bool { write != nil }

    /// The version this realm reads (in a write transaction, the version the write started from).
    public var version: UInt64 { write?.transaction.baseVersion ?? store.snapshotReader.snapshot.version }

    /// How many versions of the file are pinned right now, in the whole process: each live
    /// realm's version, each frozen value's. Versions stay pinned while anything reads them,
    /// and the pages they read cannot be reused until then, so a number that keeps growing
    /// means frozen values are being held longer than intended.
    public var pinnedVersionCount: Int {
        storage.pinnedVersionCount
    }

    /// How many write transactions of this process wait for the file's write lock now
    /// (read-only, for tests that must see a writer queued before they go on).
    package var writeLockWaiterCount: Int { storage.writeLockWaiterCount }

    /// Whether the realm has no objects at all. Traps if the file is damaged where it reads
    /// (see "Read errors" in `Documentation/Architecture.md`).
    public var isEmpty: Bool {
        do {
            for stored in currentFileSchema.classes.values where try store.reader.count(TreeName(.rows, stored.id)) > 0 {
                return false
            }
            return true
        } catch {
            fail(error)
        }
    }

    /// Moves the realm to the newest version of the file, if it is not on it. Returns whether
    /// anything changed. Does nothing inside a write transaction or on a frozen realm, nor
    /// once the file's handle is closed or failed (the realm keeps reading its version; writes
    /// throw). Traps if the newest version is damaged where it reads (its schema), as RealmSwift's
    /// `refresh()` cannot throw either (see "Read errors" in `Documentation/Architecture.md`).
    @discardableResult
    public func refresh() -> Bool {
        checkThread()
        do {
            return try refreshIfUsable()
        } catch {
            fail(error)
        }
    }

    /// `refresh()`, for code ported from RealmSwift's `asyncRefresh()`: Burrow's `refresh()`
    /// reads the newest version at once (there are no notifiers to wait for), so this does the
    /// same without suspending. Returns whether anything changed.
    @discardableResult
    public func asyncRefresh(isolation: isolated (any Actor)? = #isolation) async -> Bool {
        refresh()
    }

    /// `refresh()`, throwing where it would trap.
    @discardableResult
    func refreshIfUsable() throws(RealmError) -> Bool {
        guard write == nil, frozenVersion == nil, isOpen, storage.version != store.snapshotReader.snapshot.version else { return false }
        do {
            try moveToLatest()
            return true
        } catch  where error.code == .wrongState {
            // The handle was closed or failed: no newer version can be read through it.
            return false
        }
    }

    /// Moves the realm to the newest version of the file. `ownCommit` is the version this
    /// realm's commit just made without changing the schema (see `ObjectStore.readNewestVersion`).
    func moveToLatest(ownCommit: UInt64? = nil) throws(RealmError) {
        try mapped { () throws(StoreError) in try store.readNewestVersion(ownCommit: ownCommit) }
    }

    /// Lets go of the version the realm reads, as RealmSwift's `invalidate()`: every object this
    /// realm handed out so far becomes invalidated (`isInvalidated` is true, and reading or
    /// changing it traps), and the realm reads the newest version of the file from now on,
    /// usable as before. An open write transaction is cancelled first (nothing it did is kept).
    /// Does nothing on a frozen realm. Other realms of the file are not affected.
    ///
    /// Use it to free the pages of an old version that a realm kept pinned while idle; objects
    /// needed later are fetched again (by primary key, or from a query).
    public func invalidate() {
        guard frozenVersion == nil else { return }
        if write != nil { rollBack() }
        store.changeStamp = (invalidations &+ 1) << Self.invalidationShift
        // Reading the newest version lets go of the old one; a failure here leaves the realm
        // where it was, as a failed refresh would.
        _ = try? refreshIfUsable()
    }

    /// Stops using the file for good (`RealmActor.close()`): objects become invalidated, writes
    /// throw, and the realm no longer moves to new versions.
    func close() {
        invalidate()
        isOpen = false
    }

    /// How many times `invalidate()` ran, kept in the top bits of `changeStamp`: a live object
    /// remembers the count it was made under (`ObjectState`), and is invalidated once it
    /// differs. The low bits count changes; they would reach the top bits after 2^48 of them.
    var invalidations: UInt64 { changeStamp >> Self.invalidationShift }
    static let invalidationShift: UInt64 = 48

    public var displayName: String { configuration.displayName }
}

extension Realm {
    /// The table of the class stored with `id`, if the realm knows its Swift class: one of the
    /// configuration's `objectTypes`, of the classes it has tables for and their links, or of
    /// the program's classes stored under that name.
    func typedTable(id: UInt32) -> Table? {
        guard let stored = currentFileSchema.classes.values.first(where: { $0.id == id }),
            let type = Self.swiftClass(named: stored.name, among: knownTypes)
        else { return nil }
        return usableTable(for: type)
    }

    /// The table of `type`, for callers that cannot throw: nil if the file has no such class,
    /// or if `type` does not match it (then it is not this realm's class, and links into it
    /// read as nil). Damage, or a failed write, met while migrating the class on first use
    /// traps (see "Read errors" in `Documentation/Architecture.md`).
    func usableTable(for type: ObjectBase.Type) -> Table? {
        do {
            return try table(for: type, creating: false)
        } catch  where error.code == .schemaMismatch {
            return nil
        } catch {
            fail(error)
        }
    }

    /// The classes this realm knows of: the configured ones, and those it has tables for and
    /// their links. A stored class name is matched among these before any other class of the
    /// process that is stored under the same name.
    var knownTypes: [ObjectBase.Type] {
        (configuration.objectTypes ?? []) + store.tables.values.flatMap { [$0.info.type] + $0.info.linkedTypes.compactMap { $0 } }
    }

    static func swiftClass(named name: String, among types: [ObjectBase.Type]) -> ObjectBase.Type? {
        types.first { ClassInfo.storedName(of: $0) == name } ?? ClassInfo.named(name)?.type
    }
}

extension Realm {
    /// Calls the store, with its error in public form: the one place the store's errors cross
    /// into the API's.
    @inline(__always)
    func mapped<R>(_ body: () throws(StoreError) -> R) throws(RealmError) -> R {
        do {
            return try body()
        } catch {
            throw RealmError(error)
        }
    }
}

extension Realm: ReadContext {
    package var reader: any TreeReader { store.reader }
    var objectSource: ObjectSource {
        // A frozen realm's objects are the frozen version's.
        if let frozenVersion { return .frozen(frozenVersion) }
        return .live(self)
    }

    package func table(id: UInt32) -> Table? {
        if let table = store.tablesById[id] { return table }
        return typedTable(id: id)
    }

    package func dynamicTable(id: UInt32) -> Table? { store.dynamicTable(id: id) }
    package func dynamicProgram(for stored: StoredClass) -> any AnyObject & Sendable { store.dynamicProgram(for: stored) }

    package func withRowBytes<R>(_ table: Table, _ key: ObjectKey, _ body: (UnsafeRawBufferPointer) -> R) throws(StorageError) -> R? {
        try store.withRowBytes(table, key, body)
    }

    package func firstIndexed(_ tree: TreeName, value: UnsafeRawBufferPointer) throws(StorageError) -> ObjectKey? {
        try store.firstIndexed(tree, value: value)
    }

    func storedPropertyValue(_ table: Table, _ key: ObjectKey, _ property: Int) -> StoreValue {
        store.propertyValue(table, key, property)
    }

    func storedFieldValue(_ payload: UnsafeRawBufferPointer, _ table: Table, _ key: ObjectKey, _ field: Int) throws(StorageError)
        -> StoreValue
    {
        try store.fieldValue(payload, table, key, field)
    }

    func storedContent(_ table: Table, _ key: ObjectKey, _ field: Int) -> FieldContent<ObjectLink> {
        store.fieldContent(table, key, field)
    }
}

extension Realm: CustomStringConvertible {
    public var description: String {
        "Realm(\(displayName), version \(version)\(isFrozen ? ", frozen" : "")\(isInWriteTransaction ? ", in a write transaction" : ""))"
    }
}
