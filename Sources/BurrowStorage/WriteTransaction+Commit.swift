/// The commit protocol. Crash safety rests on one rule: nothing a committed version can reach
/// is written before a newer meta makes it unreachable. So a commit
///
/// 1. writes every dirty page (all at page numbers the latest durable version does not use);
/// 2. under `.full`, syncs them;
/// 3. writes the new meta into the slot the previous version does *not* occupy;
/// 4. under `.full`, syncs it.
///
/// A crash before step 3 completes leaves the previous meta the newest valid one, and opening
/// picks it; a torn meta fails its checksum and is ignored the same way. No recovery pass runs.
extension WriteTransaction {
    /// Makes the changes the latest version and releases the write lock. Returns the new version
    /// (the base version if nothing changed).
    ///
    /// Throws if the transaction failed or finished earlier, or if writing fails; then nothing
    /// is committed. A failed sync also fails the handle: the file must be reopened.
    @discardableResult
    package func commit(durability: Durability = .full) throws(StorageError) -> UInt64 {
        try checkActive()
        defer { if !isFinished { finish() } }
        if let failure { throw failure }
        try storage.checkUsable()
        // Refilling the pool may have rewritten free-tree pages; without a tree change that is
        // no reason for a new version, and dropping it loses nothing.
        guard trees.contains(where: { $0.changed }) else { return base.version }

        for index in trees.indices where trees[index].changed {
            let name = trees[index].name
            let state = trees[index].state
            if trees[index].exists {
                var bytes = [UInt8](repeating: 0, count: TreeState.encodedSize)
                bytes.withUnsafeMutableBytes { state.encode(into: $0.baseAddress!) }
                try withUTF8Bytes(name) { n throws(StorageError) in
                    try withBytes(bytes) { v throws(StorageError) in
                        _ = try mutate { () throws(StorageError) in try insert(n, v, into: &catalog) }
                    }
                }
            } else {
                try withUTF8Bytes(name) { n throws(StorageError) in
                    _ = try mutate { () throws(StorageError) in try remove(n, from: &catalog) }
                }
            }
        }
        // Pages taken from the end of the file and given back before commit were never
        // written; the file must not claim them.
        pool.trimTail(pageCount: &meta.pageCount, firstNew: base.meta.pageCount)
        try recordFreePages()
        meta.catalog = catalog
        meta.free = freeTree
        try writePages()
        if durability == .full { try syncOrFail() }
        try writeMeta()
        if durability == .full { try syncOrFail() }

        var mapping = storage.currentMapping
        let needed = Int(meta.pageCount)
        if mapping.pageCapacity < needed {
            let length = max(needed, 2 * mapping.pageCapacity) * layout.pageSize
            mapping = Mapping(region: try storage.device.map(minimumLength: length), pageSize: layout.pageSize)
        }
        // The pages just written are sound: this process built them and computed their
        // checksums. Marking them spares the next reader hashing them again (and replaces any
        // bit a reused page's old contents had left).
        for (number, _) in dirty { mapping.markVerified(number) }
        storage.publish(meta, mapping: mapping)
        return meta.version
    }

    /// Writes the dirty pages in page order, checksummed. Tree pages are compacted first, so a
    /// committed page holds no dead bytes and its entries lie in key order.
    private func writePages() throws(StorageError) {
        let numbers = dirty.keys.sorted()
        var pieces: [(offset: Int, bytes: UnsafeRawBufferPointer)] = []
        pieces.reserveCapacity(numbers.count)
        for number in numbers {
            let (pointer, pages) = dirty[number]!
            if PageHeader.kind(UnsafeRawPointer(pointer)) != PageKind.overflow.rawValue {
                PageWriter.compact(pointer, pageSize: layout.pageSize, scratch: scratch)
            }
            let length = pages * layout.pageSize
            pointer.setU64(0, Checksum.page(UnsafeRawPointer(pointer), length: length, pageNumber: number))
            pieces.append((Int(number) * layout.pageSize, UnsafeRawBufferPointer(start: pointer, count: length)))
        }
        try storage.device.write(pieces)
    }

    private func writeMeta() throws(StorageError) {
        let slot = Int(meta.version % 2)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: layout.pageSize, alignment: 4096)
        defer { buffer.deallocate() }
        meta.encode(into: buffer, slot: slot)
        try storage.device.write([(slot * layout.pageSize, UnsafeRawBufferPointer(start: buffer, count: layout.pageSize))])
    }

    /// A failed sync leaves the kernel's view of the file unknown: retrying could report
    /// success for writes that were dropped. The handle refuses all further work instead.
    private func syncOrFail() throws(StorageError) {
        do {
            try storage.device.sync()
        } catch {
            storage.fail(error)
            throw .handleFailed(path: storage.name, detail: "a sync failed (\(error.description))")
        }
    }
}
