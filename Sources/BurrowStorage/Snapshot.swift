import Synchronization

/// One committed version of the database, readable from any thread without locks.
///
/// A snapshot pins its version: the pages it can reach are not reused until it is released.
/// Its trees, cursors and the buffers they return read the memory-mapped file directly; they
/// stay valid while the snapshot lives, even after the file grows and is mapped again.
package final class Snapshot: PageSource, Sendable {
    package let storage: Storage
    package let meta: Meta
    let mapping: Mapping
    // Copied from `mapping`, which this snapshot keeps alive, so that a page access reads no
    // other object.
    nonisolated(unsafe) private let base: UnsafeRawPointer
    private let isPinReleased = Atomic(false)

    init(storage: Storage, meta: Meta, mapping: Mapping) {
        self.storage = storage
        self.meta = meta
        self.mapping = mapping
        base = mapping.base
    }

    deinit { releasePin() }

    /// Unpins the version now rather than at deinit, once, for an owner that guarantees no
    /// further read through this snapshot (a finished write transaction).
    func releasePin() {
        if !isPinReleased.exchange(true, ordering: .relaxed) { storage.unpin(meta.version) }
    }

    package var version: UInt64 { meta.version }
    /// The file format this version is written in (see `Meta.format`).
    package var format: UInt32 { meta.format }
    package var layout: PageLayout { storage.layout }
    package var name: String { storage.name }
    package var modificationStamp: UInt64 { 0 }

    @inline(__always)
    package func page(_ number: PageNumber) throws(StorageError) -> UnsafeRawPointer {
        guard number >= 2, number < meta.pageCount else {
            throw .corruptPage(
                path: storage.name, page: number, detail: "is referenced but lies outside the file's \(counted(meta.pageCount, "page"))")
        }
        let p = base + Int(number) &* meta.pageSize
        if !mapping.isVerified(number) {
            if let problem = PageCheck.problem(
                p, number: number, layout: layout, pageCount: meta.pageCount, maxVersion: meta.version, format: meta.format)
            {
                throw .corruptPage(path: storage.name, page: number, detail: problem)
            }
            mapping.markVerified(number)
        }
        return p
    }

    /// The tree called `name`, or nil if there is none in this version.
    package func tree(named name: String) throws(StorageError) -> Tree? {
        guard let state = try Catalog.lookup(self, meta.catalog, inline: meta.inlineCatalog, name: name) else { return nil }
        return Tree(snapshot: self, state: state)
    }

    /// The names of all trees, in byte order.
    package func treeNames() throws(StorageError) -> [String] {
        try Catalog.names(self, meta.catalog, inline: meta.inlineCatalog)
    }
}

/// A named B+tree as of one snapshot.
package struct Tree: Sendable {
    package let snapshot: Snapshot
    let state: TreeState

    /// The number of entries, without scanning.
    package var count: Int { Int(state.count) }

    /// Calls `body` with the value stored under `key` (zero-copy) and returns its result, or
    /// returns nil if there is no such key.
    @inline(__always)
    package func withValue<R>(
        forKey key: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws -> R
    ) throws -> R? {
        guard let (page, index) = try BTree.find(snapshot, root: state.root, key: key) else { return nil }
        return try body(try BTree.value(snapshot, leaf: page, index: index))
    }

    /// The value stored under `key`, copied, or nil.
    package func value(forKey key: [UInt8]) throws(StorageError) -> [UInt8]? {
        try withBytes(key) { k throws(StorageError) -> [UInt8]? in
            guard let (page, index) = try BTree.find(snapshot, root: state.root, key: k) else { return nil }
            return Array(try BTree.value(snapshot, leaf: page, index: index))
        }
    }

    package func contains(_ key: [UInt8]) throws(StorageError) -> Bool {
        try withBytes(key) { k throws(StorageError) in try BTree.find(snapshot, root: state.root, key: k) != nil }
    }

    /// A cursor over this tree, not yet positioned.
    package func makeCursor() -> Cursor<Snapshot> {
        Cursor(source: snapshot, root: state.root)
    }
}
