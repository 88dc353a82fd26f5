import BurrowStorage

/// Reads the trees of one version of the file: a snapshot, or the open write transaction (which
/// sees its own changes). Table code reads through this so it works the same in both.
package protocol TreeReader: AnyObject {
    /// The name of the file read (its path, or an in-memory database's name).
    var fileName: String { get }
    /// The file format of the rows of the version read: `RowCodec.firstFormat` or later, or an
    /// older one (`LegacyRowCodec`) whose rows readers convert as they read (`RowReader`,
    /// `QueryExecutor`).
    var rowFormat: UInt32 { get }
    /// Calls `body` with the value under `key` in the tree named `tree` (zero-copy; valid only
    /// inside `body`) and returns its result, or nil if the tree or key does not exist.
    func withValue<R>(_ tree: TreeName, _ key: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> R) throws(StorageError) -> R?
    /// Calls `body` with each entry whose key is at least `start`, in key order, until `body`
    /// returns false or the tree ends.
    func scan(_ tree: TreeName, from start: [UInt8], _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) -> Bool)
        throws(StorageError)
    /// The number of entries in the tree (0 if it does not exist), without scanning.
    func count(_ tree: TreeName) throws(StorageError) -> Int
    /// The number of entries whose keys are less than `key`, in one descent.
    func position(_ tree: TreeName, of key: [UInt8]) throws(StorageError) -> Int
    /// Calls `body` with the key and value of the entry at `position` (in key order), or
    /// returns nil if there is none. One descent.
    func entry<R>(_ tree: TreeName, at position: Int, _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) -> R)
        throws(StorageError) -> R?
}

extension TreeReader {
    /// Whether the version read keeps its rows in the form of an older file format
    /// (`LegacyRowCodec`), which readers convert as they read.
    package var rowsAreOld: Bool { rowFormat < RowCodec.firstFormat }

    /// The error for the entry of object `owner` in collection tree `tree` that `problem`
    /// makes unreadable as an element of `property`.
    package func damagedEntry(_ tree: TreeName, of owner: ObjectKey, _ property: StoredProperty, _ problem: CollectionEntry.Problem) -> StorageError {
        .corruptEntry(
            path: fileName, tree: tree.string, entry: "an entry of object #\(owner.rawValue)'s property '\(property.name)' \(problem.detail)")
    }

    package func withValue<R>(_ tree: TreeName, _ key: [UInt8], _ body: (UnsafeRawBufferPointer) -> R) throws(StorageError) -> R? {
        do {
            return try key.withUnsafeBytes { k throws(StorageError) in try withValue(tree, k, body) }
        } catch let error as StorageError {
            throw error
        } catch {
            preconditionFailure("unreachable: only storage errors are thrown here")
        }
    }

    package func contains(_ tree: TreeName, _ key: [UInt8]) throws(StorageError) -> Bool {
        try withValue(tree, key) { _ in () } != nil
    }

    /// Calls `body` with each entry whose key starts with `prefix`, in order, until it returns false.
    package func scan(_ tree: TreeName, prefix: [UInt8], _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) -> Bool)
        throws(StorageError)
    {
        try scan(tree, from: prefix) { key, value in
            guard key.count >= prefix.count, key.prefix(prefix.count).elementsEqual(prefix) else { return false }
            return body(key, value)
        }
    }
}

/// Reads a snapshot. Safe to share between threads: the snapshot is immutable, and the cache of
/// tree handles is behind a lock.
package final class SnapshotReader: TreeReader, Sendable {
    package let snapshot: Snapshot
    /// Tree handles looked up so far, with nil for the names no tree of this version has.
    private let handles = Locked(TreeHandles<Tree>())

    package let rowFormat: UInt32

    package init(_ snapshot: Snapshot) {
        self.snapshot = snapshot
        rowFormat = snapshot.format
    }

    package var fileName: String { snapshot.name }

    package func tree(_ name: TreeName) throws(StorageError) -> Tree? {
        if let known = handles.withLock({ $0.lookup(name) }) { return known }
        let tree = try snapshot.tree(named: name.string)
        handles.withLock { $0.remember(name, tree) }
        return tree
    }

    package func withValue<R>(_ tree: TreeName, _ key: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> R) throws(StorageError) -> R? {
        guard let handle = try self.tree(tree) else { return nil }
        do {
            return try handle.withValue(forKey: key, body)
        } catch let error as StorageError {
            throw error
        } catch {
            preconditionFailure("unreachable: the body does not throw")
        }
    }

    package func scan(_ tree: TreeName, from start: [UInt8], _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Bool) throws(StorageError) {
        guard let handle = try self.tree(tree) else { return }
        try handle.forEachEntry(from: start) { key, value in body(key, value) }
    }

    package func count(_ tree: TreeName) throws(StorageError) -> Int {
        try self.tree(tree)?.count ?? 0
    }

    package func position(_ tree: TreeName, of key: [UInt8]) throws(StorageError) -> Int {
        guard let handle = try self.tree(tree) else { return 0 }
        return try handle.makeCursor().position(of: key)
    }

    package func entry<R>(_ tree: TreeName, at position: Int, _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> R) throws(StorageError)
        -> R?
    {
        guard let handle = try self.tree(tree) else { return nil }
        var cursor = handle.makeCursor()
        guard try cursor.seek(toPosition: position) else { return nil }
        return body(cursor.key, try cursor.value())
    }
}
