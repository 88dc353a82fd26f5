/// Bounded transaction memory: once a transaction's dirty pages in memory pass its limit, it
/// writes the least recently changed ones to the file and drops their buffers, so that a
/// transaction of any size needs memory in proportion to the limit, not to its size.
///
/// A spilled page goes where the commit would have written it: to its own page number, which
/// the transaction took from free space or from beyond the end of the file. No version that
/// opening or a snapshot may choose reaches such a page, so writing it early changes nothing for
/// crash safety: a crash or power cut before the commit's meta is durable leaves the last
/// durable version as it was, and the pages written are free space again. It is written as the
/// commit writes pages (compacted, stamped with the transaction's version, checksummed) and
/// the commit lists it with that checksum among the pages written since the durable version,
/// without writing it again unless the transaction changed it since.
///
/// A spilled page stays the transaction's: reads see it through a mapping of the file, a change
/// reads it back into a buffer under the same number (no copy-on-write: no version reaches it),
/// and releasing it returns it to the pool. A transaction that aborts leaves the pages it
/// spilled as free space; those past the end of the last version make the file longer than that
/// version, which the next commit that grows the file writes over.
///
/// Spilling runs before an operation (`mutate`), never inside one, so that every page an
/// operation touches stays in memory until it ends; pointers a read returned are valid only
/// until the next change, as always.
extension WriteTransaction {
    /// The memory a transaction's dirty pages may take before it spills: 64 MiB.
    package static let defaultMemoryLimit = 64 << 20

    /// The most bytes of dirty pages this transaction keeps in memory before it writes the
    /// least recently changed ones to the file (at least one page; rounded down to whole pages).
    /// A single value larger than the limit is held whole while it is written. An in-memory
    /// database never spills: its pages are memory wherever they are.
    package var memoryLimit: Int {
        get { spillLimit * layout.pageSize }
        set { spillLimit = Self.spillLimit(bytes: newValue, pageSize: layout.pageSize) }
    }

    static func spillLimit(bytes: Int, pageSize: Int) -> Int { max(1, bytes / pageSize) }

    /// How many pages the transaction holds in memory and how many it has spilled (for tests
    /// and the benchmark).
    package var dirtyPageCounts: (inMemory: Int, spilled: Int) { (dirty.pagesInMemory, dirty.spilledCount) }

    /// Spills the least recently changed pages in memory, until three quarters of the limit are
    /// left, if the pages in memory exceed the limit. A quarter at a time writes long runs in
    /// one call, and leaves in memory the pages operations keep coming back to (the paths they
    /// descend, the leaves of an index they insert into at random).
    ///
    /// Nothing is written before the handle's dropped meta is retired, as for a commit (see
    /// `Storage.retireDroppedMeta`): pages written past the end of the file, or stamped as a
    /// dropped commit stamped them, could otherwise make opening take that commit after a crash.
    func spillIfOverLimit() throws(StorageError) {
        guard dirty.pagesInMemory > spillLimit, spills, !isCommitting else { return }
        try storage.checkUsable()
        try storage.retireDroppedMeta()
        var candidates = dirty.residentPages()
        candidates.sort { $0.lastUse < $1.lastUse }
        var chosen: [DirtyPages.Page] = []
        var left = dirty.pagesInMemory
        for candidate in candidates {
            if left <= spillLimit - spillLimit / 4 { break }
            chosen.append(candidate)
            left -= Int(candidate.pages)
        }
        chosen.sort { $0.number < $1.number }

        var pieces: [(offset: Int, bytes: UnsafeRawBufferPointer)] = []
        var checksums: [UInt64] = []
        pieces.reserveCapacity(chosen.count)
        checksums.reserveCapacity(chosen.count)
        for page in chosen {
            let pages = Int(page.pages)
            checksums.append(seal(page.number, page.pointer!, pages: pages))
            pieces.append((Int(page.number) * layout.pageSize, UnsafeRawBufferPointer(start: page.pointer, count: pages * layout.pageSize)))
        }
        try storage.device.write(pieces)
        try mapSpilledPages()
        for (page, checksum) in zip(chosen, checksums) {
            dirty.markSpilled(page.number, checksum: checksum)
            freeBuffer((page.pointer!, Int(page.pages)))
        }
    }

    /// Makes `spillMapping` a mapping that shows every page the transaction wrote.
    private func mapSpilledPages() throws(StorageError) {
        let mapping = try storage.mapping(covering: Int(meta.pageCount))
        if let replaced = spillMapping, replaced !== mapping { replacedSpillMappings.append(replaced) }
        spillMapping = mapping
    }

    /// Spilled page `number` as the file holds it. Its bytes need no check: this transaction
    /// wrote them.
    @inline(__always)
    func spilledPage(_ number: PageNumber) -> UnsafeRawPointer {
        spillMapping!.page(number)
    }

    /// Reads spilled page `owned` back into a buffer, for a change; it is in memory again.
    /// Read with the device's `read`, not through the mapping: the copy is the memory the
    /// transaction counts, where touching the mapping would also make the file's page resident
    /// in this process.
    func loadSpilled(_ owned: DirtyPages.Page) throws(StorageError) -> UnsafeMutableRawPointer {
        let pages = Int(owned.pages)
        let byteCount = pages * layout.pageSize
        let pointer = takeBuffer(pages: pages)
        let offset = Int(owned.number) * layout.pageSize
        let read: Int
        do {
            read = try storage.device.read(into: UnsafeMutableRawBufferPointer(start: pointer, count: byteCount), at: offset)
        } catch {
            freeBuffer((pointer, pages))
            throw error
        }
        guard read == byteCount else {
            freeBuffer((pointer, pages))
            throw .corruptPage(path: storage.name, page: owned.number, detail: "was written by this transaction but the file ends before it")
        }
        dirty.markLoaded(owned.number, pointer: pointer, at: modificationStamp)
        return pointer
    }
}
