/// Identifies a tree within one write transaction.
package struct TreeID: Hashable, Sendable {
    let index: Int
}

/// The one transaction that may change a database at a time.
///
/// Changes are copy-on-write: a page a committed version can reach is never modified; the path
/// to it is copied into pages owned by this transaction (dirty pages, kept in memory), which
/// `commit` writes out before it writes the meta that makes them the latest version. `abort` (or
/// dropping the transaction) throws them away, so nothing reaches the file.
///
/// Not `Sendable`: it belongs to the task or actor that began it. If an operation throws, the
/// transaction refuses to commit; abort it. Its start version stays pinned until it commits or
/// aborts.
///
/// Exclusivity: the mutable state below is marked `@exclusivity(unchecked)`, so that a B-tree
/// operation, which reads and changes it many times, pays no runtime access tracking. That is
/// sound because a transaction is used by one thread at a time (it is not `Sendable`; its owner,
/// the writer holding the file's write lock, calls it), and no method holds an `inout` access to
/// one of these properties open while it calls code that accesses the same property: each
/// access is a single read or a single mutation. The compiler still checks accesses statically.
package final class WriteTransaction: PageSource {
    package let storage: Storage
    let base: Snapshot
    package let layout: PageLayout
    /// The version being built: roots, page count and free-page count as they stand now.
    @exclusivity(unchecked) var meta: Meta
    /// The catalog's and the free tree's roots as they stand now, kept apart from `meta` because
    /// changing a tree may also grow `meta.pageCount`. A catalog with root 0 is `inlineCatalog`.
    @exclusivity(unchecked) var catalog: TreeState
    @exclusivity(unchecked) var inlineCatalog: InlineCatalog
    /// A free tree with root 0 is `inlineFree`.
    @exclusivity(unchecked) var freeTree: TreeState
    @exclusivity(unchecked) var inlineFree: InlineFreeList
    /// Pages allocated by this transaction, by first page number, with their length in pages:
    /// in memory, or spilled to the file (WriteTransaction+Spill.swift).
    @exclusivity(unchecked) var dirty = DirtyPages()
    /// The pages the transaction keeps in memory before it spills the least recently used,
    /// and whether it spills at all (not into an in-memory database's device).
    @exclusivity(unchecked) var spillLimit: Int
    let spills: Bool
    /// The region spilled pages are read through, and the ones it replaced (kept until the
    /// transaction ends, like every buffer a read may still point into).
    @exclusivity(unchecked) var spillMapping: Mapping?
    @exclusivity(unchecked) var replacedSpillMappings: [Mapping] = []
    @exclusivity(unchecked) var trees: [(name: String, state: TreeState, exists: Bool, changed: Bool)] = []
    /// `trees`' indexes by name, made only once a transaction uses more than a few trees: below
    /// that, comparing names (immediate for the same `String` value) beats hashing them.
    @exclusivity(unchecked) var treeIndex: [String: Int]?
    static let linearTreeLookupLimit = 8

    // Free space (see WriteTransaction+FreeSpace.swift).
    @exclusivity(unchecked) var pool = FreePagePool()
    /// Pages this transaction expects to place in its run (as many as the latest commit did),
    /// whether it may start the run at the end of the file, the page after the run's last, how
    /// many it placed, and whether (and by how much more) it grew the file to start the run:
    /// see `takePageInRun`.
    let expectedPages: Int
    let mayGrowForRun: Bool
    @exclusivity(unchecked) var nextInRun: PageNumber?
    @exclusivity(unchecked) var runPagesTaken = 0
    @exclusivity(unchecked) var grewForRun = false
    @exclusivity(unchecked) var runGrowthLeft = 0
    /// Committed pages this transaction no longer uses; free from this version on.
    @exclusivity(unchecked) var freed: [PageNumber] = []
    /// Free-tree records freed by versions up to this one may be reused.
    let reclaimLimit: UInt64
    /// Pages in held-back records that may be reused all the same: written and freed since the
    /// durable version (see `CommitState.roundReusablePages`).
    /// Dropped once used (before the commit, which would otherwise make the commit state copy
    /// the pages it shares).
    @exclusivity(unchecked) var roundReusable: RoundReusablePages?
    @exclusivity(unchecked) var freeTreeExhausted = false
    @exclusivity(unchecked) var isCommitting = false
    /// Set while a record is being removed from the free tree, which must then not be read.
    @exclusivity(unchecked) var isEditingFreeTree = false
    /// Free-tree records whose pages entered the pool in the middle of an operation, still to be
    /// removed from the tree (see `borrowReusableRecord`).
    @exclusivity(unchecked) var borrowedFreeKeys: [[UInt8]] = []
    /// Pages taken out of the free tree by this transaction.
    @exclusivity(unchecked) var reclaimedPages: UInt64 = 0

    /// Branch pages from the root to the current leaf's parent, with the child index taken at each.
    @exclusivity(unchecked) var path: [(number: PageNumber, index: Int)] = []
    /// Whether a full leaf may give entries to a sibling instead of splitting
    /// (`shareWithSibling`): not while a rewrite walks the leaves in order, which expects the
    /// leaf after the one it rewrote to hold no entry it has seen.
    @exclusivity(unchecked) var sharesWithSiblings = true
    /// A page-sized buffer for compaction and splits, and for the meta page of the commit; one
    /// of the storage's stashed page buffers, given back when the transaction ends.
    let scratch: UnsafeMutableRawPointer
    /// Room for one key gathered from a compact leaf (whose long keys keep their first eight
    /// bytes in the slot, apart from the rest): a separator being linked, an entry being
    /// rewritten. Page-sized, so any key fits; given back with `scratch`.
    let keyScratch: UnsafeMutableRawPointer
    /// Page buffers for dirty pages, taken from the storage's stash when the transaction begins
    /// and given back when it ends, so that allocating a page takes no lock.
    @exclusivity(unchecked) var spareBuffers: [UnsafeMutableRawPointer]

    @exclusivity(unchecked) package private(set) var modificationStamp: UInt64 = 1
    private(set) var isFinished = false
    /// Set when an operation failed part-way: the transaction may only be aborted.
    var failure: StorageError?

    package var name: String { storage.name }
    /// The version this transaction started from.
    package var baseVersion: UInt64 { base.version }

    /// The file format the commit writes: its base's, unless `setFormat` changed it.
    package var format: UInt32 { meta.format }

    /// Whether the leaves this transaction writes have the compact form: those of format 7 and
    /// later. A leaf of the first form becomes compact when the transaction copies it.
    var compactLeaves: Bool { meta.format >= Meta.firstCompactFormat }

    /// Makes the commit record `format` (one the engine reads) as the file's format: the object
    /// layer's upgrade, once it has rewritten what the format changes, and copies, which keep
    /// their source's format. The engine's own pages are the same in every format it reads.
    package func setFormat(_ format: UInt32) {
        precondition(
            (Meta.oldestReadableFormat...Meta.formatVersion).contains(format), "internal error: format \(format) is not one the engine writes")
        // Lowered only before anything is written: pages written in the compact form stay so,
        // and a version of an older format may not hold them.
        precondition(format >= meta.format || dirty.isEmpty, "internal error: the format lowered after pages were written")
        meta.format = format
    }

    init(
        storage: Storage, base: Snapshot, reclaimLimit: UInt64, roundReusable: RoundReusablePages? = nil,
        expectedPages: Int = 0, mayGrowForRun: Bool = false
    ) {
        self.storage = storage
        self.base = base
        layout = storage.layout
        meta = base.meta
        meta.version = base.meta.version + 1
        meta.format = Meta.writtenFormat(from: base.meta.format)
        catalog = base.meta.catalog
        inlineCatalog = base.meta.inlineCatalog
        freeTree = base.meta.free
        inlineFree = base.meta.inlineFree
        self.reclaimLimit = reclaimLimit
        self.roundReusable = roundReusable
        self.expectedPages = min(expectedPages, Self.longestExpectedRun)
        self.mayGrowForRun = mayGrowForRun
        var spares = storage.pageBuffers.takeAll()
        scratch = spares.popLast() ?? PageBufferStash.allocate(byteCount: layout.pageSize)
        keyScratch = spares.popLast() ?? PageBufferStash.allocate(byteCount: layout.pageSize)
        spareBuffers = spares
        spillLimit = Self.spillLimit(bytes: Self.defaultMemoryLimit, pageSize: layout.pageSize)
        spills = !storage.device.isInMemory
        path.reserveCapacity(BTree.maxDepth)
        trees.reserveCapacity(4)
    }

    deinit {
        if !isFinished { finish() }
    }

    @inline(__always)
    package func page(_ number: PageNumber) throws(StorageError) -> UnsafeRawPointer {
        if let owned = dirty.lookup(number) {
            if let pointer = owned.pointer { return UnsafeRawPointer(pointer) }
            return spilledPage(number)
        }
        return try base.page(number)
    }

    // MARK: Trees

    /// The tree called `name`, or nil if it does not exist.
    package func tree(named name: String) throws(StorageError) -> TreeID? {
        try checkActive()
        if let index = registeredIndex(of: name) { return trees[index].exists ? TreeID(index: index) : nil }
        guard let state = try Catalog.lookup(self, catalog, inline: inlineCatalog, name: name) else { return nil }
        return register(name: name, state: state, exists: true, changed: false)
    }

    /// Creates an empty tree called `name`. Throws `treeExists` if there is one.
    package func createTree(named name: String) throws(StorageError) -> TreeID {
        if try tree(named: name) != nil { throw .treeExists(name: name) }
        guard name.utf8.count <= layout.maxKeySize, !name.isEmpty else {
            throw .invalidOption("A tree name must be 1 to \(counted(layout.maxKeySize, "byte")) of UTF-8.")
        }
        if let index = registeredIndex(of: name) {
            trees[index] = (name, .empty, true, true)
            return TreeID(index: index)
        }
        return register(name: name, state: .empty, exists: true, changed: true)
    }

    /// The tree called `name`, created if it does not exist.
    package func openTree(named name: String) throws(StorageError) -> TreeID {
        if let id = try tree(named: name) { return id }
        return try createTree(named: name)
    }

    /// Deletes the tree called `name` and frees its pages. Throws `noSuchTree` if there is none.
    package func dropTree(named name: String) throws(StorageError) {
        guard let id = try tree(named: name) else { throw .noSuchTree(name: name) }
        try mutate { () throws(StorageError) in
            try freeTree(root: trees[id.index].state.root, depth: 0)
            trees[id.index].state = .empty
            trees[id.index].exists = false
            trees[id.index].changed = true
        }
    }

    /// Removes every entry of a tree, keeping the tree.
    package func removeAll(in tree: TreeID) throws(StorageError) {
        let root = try state(of: tree).root
        try mutate { () throws(StorageError) in
            try freeTree(root: root, depth: 0)
            trees[tree.index].state = .empty
            trees[tree.index].changed = true
        }
    }

    /// The names of all trees as this transaction sees them.
    package func treeNames() throws(StorageError) -> [String] {
        try checkActive()
        var names = Set(try Catalog.names(self, catalog, inline: inlineCatalog))
        for tree in trees where tree.changed {
            if tree.exists { names.insert(tree.name) } else { names.remove(tree.name) }
        }
        return names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// The number of entries in a tree.
    package func count(of tree: TreeID) throws(StorageError) -> Int {
        Int(try state(of: tree).count)
    }

    private func register(name: String, state: TreeState, exists: Bool, changed: Bool) -> TreeID {
        trees.append((name, state, exists, changed))
        if treeIndex != nil {
            treeIndex![name] = trees.count - 1
        } else if trees.count > Self.linearTreeLookupLimit {
            var index: [String: Int] = [:]
            for (i, tree) in trees.enumerated() { index[tree.name] = i }
            treeIndex = index
        }
        return TreeID(index: trees.count - 1)
    }

    /// Where `trees` holds the tree called `name`, if this transaction has used it.
    private func registeredIndex(of name: String) -> Int? {
        if let treeIndex { return treeIndex[name] }
        for i in trees.indices where trees[i].name == name { return i }
        return nil
    }

    func state(of tree: TreeID) throws(StorageError) -> TreeState {
        try checkActive()
        guard tree.index < trees.count, trees[tree.index].exists else { throw .noSuchTree(name: "#\(tree.index)") }
        return trees[tree.index].state
    }

    // MARK: Reading

    /// Calls `body` with the value under `key` (zero-copy, valid until the next change) and
    /// returns its result, or nil if there is no such key.
    @inline(__always)
    package func withValue<R>(
        forKey key: UnsafeRawBufferPointer, in tree: TreeID, _ body: (UnsafeRawBufferPointer) throws -> R
    ) throws -> R? {
        let root = try state(of: tree).root
        guard let (page, index) = try BTree.find(self, root: root, key: key) else { return nil }
        return try body(try BTree.value(self, leaf: page, index: index))
    }

    /// The value under `key`, copied, or nil.
    package func value(forKey key: [UInt8], in tree: TreeID) throws(StorageError) -> [UInt8]? {
        let root = try state(of: tree).root
        return try withBytes(key) { k throws(StorageError) -> [UInt8]? in
            guard let (page, index) = try BTree.find(self, root: root, key: k) else { return nil }
            return Array(try BTree.value(self, leaf: page, index: index))
        }
    }

    /// A cursor over the tree as it stands now. Any change to any tree invalidates it.
    package func makeCursor(for tree: TreeID) throws(StorageError) -> Cursor<WriteTransaction> {
        Cursor(source: self, root: try state(of: tree).root)
    }

    // MARK: Writing

    /// Stores `value` under `key`, replacing any value there. Returns true if it replaced one.
    @discardableResult
    package func put(_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer, in tree: TreeID) throws(StorageError) -> Bool {
        guard key.count <= layout.maxKeySize else { throw .keyTooLarge(size: key.count, limit: layout.maxKeySize) }
        guard value.count <= Self.maxValueSize else { throw .valueTooLarge(size: value.count, limit: Self.maxValueSize) }
        var state = try state(of: tree)
        let replaced = try mutate { () throws(StorageError) in try insert(key, value, into: &state) }
        trees[tree.index].state = state
        trees[tree.index].changed = true
        return replaced
    }

    @discardableResult
    package func put(_ key: [UInt8], _ value: [UInt8], in tree: TreeID) throws(StorageError) -> Bool {
        try withBytes(key) { k throws(StorageError) in
            try withBytes(value) { v throws(StorageError) in try put(k, v, in: tree) }
        }
    }

    /// Removes `key`. Returns false if it was not there.
    @discardableResult
    package func delete(_ key: UnsafeRawBufferPointer, from tree: TreeID) throws(StorageError) -> Bool {
        var state = try state(of: tree)
        // A missing key changes nothing: not the free tree, not the version, not open cursors.
        guard try BTree.find(self, root: state.root, key: key) != nil else { return false }
        let removed = try mutate { () throws(StorageError) in try remove(key, from: &state) }
        if removed {
            trees[tree.index].state = state
            trees[tree.index].changed = true
        }
        return removed
    }

    @discardableResult
    package func delete(_ key: [UInt8], from tree: TreeID) throws(StorageError) -> Bool {
        try withBytes(key) { k throws(StorageError) in try delete(k, from: tree) }
    }

    /// The largest value the format stores (an overflow run's length is kept in 64 bits, but the
    /// page count of a run in 32).
    package static let maxValueSize = 1 << 31

    /// Runs a change to the trees; if it throws, the transaction is marked failed.
    func mutate<R>(_ body: () throws(StorageError) -> R) throws(StorageError) -> R {
        try checkActive()
        if let failure { throw failure }
        do {
            try spillIfOverLimit()
            try refillPool()
            let result = try body()
            modificationStamp &+= 1
            return result
        } catch {
            failure = error
            modificationStamp &+= 1
            throw error
        }
    }

    func checkActive() throws(StorageError) {
        if isFinished { throw .transactionFinished }
    }

    // MARK: Ending

    /// Discards every change and releases the write lock.
    package func abort() {
        if !isFinished { finish() }
    }

    /// Frees the dirty pages, releases the write lock and unpins the base version. Every read
    /// path checks `isFinished` or the modification stamp first, so nothing reads through the
    /// base snapshot (or a freed dirty page) afterwards.
    func finish() {
        isFinished = true
        modificationStamp &+= 1
        roundReusable = nil
        for page in dirty {
            if let pointer = page.pointer { freeBuffer((pointer, Int(page.pages))) }
        }
        dirty.removeAll()
        spillMapping = nil
        replacedSpillMappings = []
        // Nothing uses the scratch pages after the transaction ends (every operation checks
        // `isFinished` first), so it goes back with the spares.
        spareBuffers.append(scratch)
        spareBuffers.append(keyScratch)
        storage.pageBuffers.give(all: spareBuffers)
        spareBuffers = []
        base.releasePin()
        storage.noteTransactionEnded()
        storage.writeLock.release()
        storage.releaseFileWriterLockIfIdle()
    }
}
