/// The commit protocol. Crash safety rests on two rules: nothing a durable version can reach is
/// written before a newer meta is durable, and no meta overwrites the newest durable one. So a
/// commit
///
/// 1. writes every dirty page, stamped with its version and checksummed, at page numbers the
///    durable and the latest version do not use;
/// 2. writes its meta into the pending slot (the one the durable meta is not in), listing every
///    page written since the durable version with its checksum;
/// 3. under `.full`, syncs once.
///
/// A crash or power cut before the sync completes leaves either the new meta with every page it
/// lists intact, which opening takes, or not, and opening takes the durable meta in the other
/// slot. When the list would not fit in the meta page, the pages are synced before the meta is
/// written and synced (two syncs). Commits that wait together share a sync: see
/// Storage+GroupCommit.swift. No recovery pass runs; but the first commit of a handle that opened
/// through a fallback first writes the version opened over the dropped meta
/// (`Storage.retireDroppedMeta`).
extension WriteTransaction {
    /// Makes the changes the latest version and releases the write lock; under `.full` returns
    /// once the version is durable. Returns the new version (the base version if nothing
    /// changed).
    ///
    /// Throws if the transaction failed or finished earlier, or if writing fails; then nothing
    /// is committed. A failed sync also fails the handle: the file must be reopened.
    @discardableResult
    package func commit(durability: Durability = .full) throws(StorageError) -> UInt64 {
        let receipt = try commitPendingSync(durability: durability)
        if durability == .full { try storage.waitUntilDurableBlocking(receipt) }
        return receipt.version
    }

    /// Writes the changes, publishes the new version (snapshots and the next writer see it) and
    /// releases the write lock, without waiting for a sync. Under `.full` the version becomes
    /// durable with the next sync round, which `Storage.waitUntilDurable` waits for (until then
    /// it may be lost to a crash); under `.normal` its meta reaches the kernel before this
    /// returns, and it survives a crash of the process.
    package func commitPendingSync(durability: Durability = .full) throws(StorageError) -> CommitReceipt {
        try checkActive()
        defer { if !isFinished { finish() } }
        if let failure { throw failure }
        try storage.checkUsable()
        // Refilling the pool may have rewritten free-tree pages; without a tree change (or a
        // new format) that is no reason for a new version, and dropping it loses nothing.
        guard trees.contains(where: { $0.changed }) || meta.format != base.meta.format else { return CommitReceipt(version: base.version) }

        try recordTreesInCatalog()
        // Pages taken from the end of the file and given back before commit were never
        // written; the file must not claim them.
        pool.trimTail(pageCount: &meta.pageCount, firstNew: base.meta.pageCount)
        try recordFreePages()
        meta.catalog = catalog
        meta.inlineCatalog = inlineCatalog
        meta.free = freeTree
        meta.inlineFree = inlineFree
        try storage.retireDroppedMeta()
        let written = try writePages()

        let mapping = try storage.mapping(covering: Int(meta.pageCount))
        // The pages just written are sound: this process built them and computed their
        // checksums. Marking them spares the next reader hashing them again (and replaces any
        // bit a reused page's old contents had left).
        for (number, _) in written { mapping.markVerified(number) }
        try storage.publishCommit(
            meta, mapping: mapping, written: written, freed: freed, runPages: runPagesTaken, grewForRun: grewForRun,
            durability: durability, metaBuffer: scratch)
        return CommitReceipt(version: meta.version)
    }

    /// Records the roots and counts of the changed trees in the catalog. An inline catalog stays
    /// in the meta page (no page written) while it fits there; one that outgrows it becomes a
    /// tree. A catalog tree stays a tree (until its last entry goes: root 0 is an empty inline
    /// catalog).
    private func recordTreesInCatalog() throws(StorageError) {
        if catalog.root == 0 {
            var updated = inlineCatalog
            for tree in trees where tree.changed {
                try withUTF8Bytes(tree.name) { n throws(StorageError) in
                    if tree.exists { updated.set(n, tree.state) } else { updated.remove(n) }
                }
            }
            if updated.encodedSize <= Meta.inlineRoom(pageSize: layout.pageSize) {
                inlineCatalog = updated
                catalog = TreeState(root: 0, count: UInt64(updated.entries.count))
                return
            }
            // Too large for the meta page: every entry goes into a new catalog tree.
            catalog = .empty
            inlineCatalog = .empty
            for entry in updated.entries {
                try putCatalogEntry(entry.name, entry.state)
            }
            return
        }
        for tree in trees where tree.changed {
            let name = Array(tree.name.utf8)
            if tree.exists {
                try putCatalogEntry(name, tree.state)
            } else {
                try withBytes(name) { n throws(StorageError) in
                    _ = try mutate { () throws(StorageError) in try remove(n, from: &catalog) }
                }
            }
        }
    }

    private func putCatalogEntry(_ name: [UInt8], _ state: TreeState) throws(StorageError) {
        var bytes = [UInt8](repeating: 0, count: TreeState.encodedSize)
        bytes.withUnsafeMutableBytes { state.encode(into: $0.baseAddress!) }
        try withBytes(name) { n throws(StorageError) in
            try withBytes(bytes) { v throws(StorageError) in
                _ = try mutate { () throws(StorageError) in try insert(n, v, into: &catalog) }
            }
        }
    }

    /// Writes the dirty pages in page order, stamped with this version and checksummed, and
    /// returns each one's (first) number and checksum, the spilled ones' included (written
    /// earlier, and listed all the same: the meta lists every page written since the durable
    /// version). Tree pages are compacted first, so a committed page holds no dead bytes and
    /// its entries lie in key order.
    private func writePages() throws(StorageError) -> [(page: PageNumber, checksum: UInt64)] {
        let numbers = dirty.sortedPageNumbers()
        var pieces: [(offset: Int, bytes: UnsafeRawBufferPointer)] = []
        var written: [(page: PageNumber, checksum: UInt64)] = []
        pieces.reserveCapacity(numbers.count - dirty.spilledCount)
        written.reserveCapacity(numbers.count)
        for number in numbers {
            let owned = dirty.lookup(number)!
            guard let pointer = owned.pointer else {
                written.append((number, owned.checksum))
                continue
            }
            let checksum = seal(number, pointer, pages: Int(owned.pages))
            pieces.append((Int(number) * layout.pageSize, UnsafeRawBufferPointer(start: pointer, count: Int(owned.pages) * layout.pageSize)))
            written.append((number, checksum))
        }
        try storage.device.write(pieces)
        return written
    }

    /// Makes dirty page (or overflow run) `number` what the file holds: a tree page compacted,
    /// every page stamped with this version and checksummed. Returns the checksum.
    func seal(_ number: PageNumber, _ pointer: UnsafeMutableRawPointer, pages: Int) -> UInt64 {
        if PageHeader.kind(UnsafeRawPointer(pointer)) != PageKind.overflow.rawValue {
            PageWriter.compact(pointer, pageSize: layout.pageSize, scratch: scratch)
        }
        pointer.setU64(8, meta.version)
        let checksum = Checksum.page(UnsafeRawPointer(pointer), length: pages * layout.pageSize, pageNumber: number)
        pointer.setU64(0, checksum)
        return checksum
    }
}
