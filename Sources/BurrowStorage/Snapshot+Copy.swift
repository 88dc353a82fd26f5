#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Snapshot {
    /// Writes every tree of this version into a new database file at `path`, entry by entry
    /// in key order, so the copy's pages are full and hold no free space: what `writeCopy` and
    /// `burrow compact` are made of. The copy is committed with `.full` durability before this
    /// returns, and its meta then fills both meta slots: a file written whole has no older
    /// version, so damage to it is an error at open or on reading, never a fallback to an empty
    /// file.
    ///
    /// Throws `StorageError` if `path` cannot be created or written; a partial copy is left
    /// for the caller to remove. Throws `.invalidOption` if the file exists already.
    package func copy(toPath path: String) throws(StorageError) {
        if access(path, F_OK) == 0 {
            throw .invalidOption("\(path) already exists; a copy is written only to a new file.")
        }
        let target = try Storage.open(path: path, options: StorageOptions(pageSize: meta.pageSize))
        defer { target.close() }
        let transaction = try target.beginWriteBlocking()
        // The entries are copied as they are, so the copy keeps this version's rows: its format,
        // or from format 6 on the current one (whose leaves the copy writes compact).
        transaction.setFormat(Meta.writtenFormat(from: meta.format))
        for name in try treeNames() {
            let id = try transaction.createTree(named: name)
            guard var cursor = try tree(named: name)?.makeCursor() else { continue }
            var more = try cursor.first()
            while more {
                try transaction.put(cursor.key, try cursor.value(), in: id)
                more = try cursor.next()
            }
        }
        try transaction.commit(durability: .full)
        try target.copyDurableMetaToOtherSlot()
    }
}

extension Storage {
    /// Writes the durable meta into the other slot too (with that slot's checksum) and syncs, so
    /// that both slots hold the same version. Opening such a file has nothing to fall back to.
    /// Only for a handle nobody else writes: the copy just made.
    fileprivate func copyDurableMetaToOtherSlot() throws(StorageError) {
        writeLock.acquireBlocking()
        defer { writeLock.release() }
        let slot = commitState.withLock { $0.durableSlot }
        let buffer = pageBuffers.take()
        defer { pageBuffers.give(buffer) }
        let page = UnsafeMutableRawBufferPointer(start: buffer, count: pageSize)
        guard try device.read(into: page, at: slot * pageSize) == pageSize else {
            throw .truncated(path: name, expectedBytes: 2 * pageSize, actualBytes: try device.size())
        }
        let other = 1 - slot
        buffer.setU64(0, Checksum.page(UnsafeRawPointer(buffer), length: pageSize, pageNumber: UInt32(other)))
        try device.write([(other * pageSize, UnsafeRawBufferPointer(page))])
        try device.sync()
    }
}
