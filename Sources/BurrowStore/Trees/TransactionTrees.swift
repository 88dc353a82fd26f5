import BurrowStorage

/// The trees of the open write transaction, read (as a `TreeReader`) and written through it.
/// Confined to its realm's isolation.
package final class TransactionTrees: TreeReader {
    package let transaction: WriteTransaction
    /// Trees looked up so far, with nil for those that do not exist (yet): trees are created
    /// and dropped only through this reader, which keeps the cache in step. Unchecked for
    /// exclusivity: the reader is confined to its transaction's owner, and each access is one
    /// lookup or one store.
    @exclusivity(unchecked) private var ids = TreeHandles<TreeID>()

    package init(_ transaction: WriteTransaction) {
        self.transaction = transaction
    }

    package var fileName: String { transaction.name }

    /// The format of the rows: older than `RowCodec.firstFormat` only while a transaction on a
    /// file of format 4 or 5 has not yet rewritten them (`ObjectStore.upgradeRows`), which it
    /// does before anything else.
    package var rowFormat: UInt32 { transaction.format }

    package func id(_ name: TreeName) throws(StorageError) -> TreeID? {
        if let known = ids.lookup(name) { return known }
        let id = try transaction.tree(named: name.string)
        ids.remember(name, id)
        return id
    }

    /// Drops the tree named `name`, if it exists.
    package func dropTree(_ name: TreeName) throws(StorageError) {
        guard try id(name) != nil else { return }
        try transaction.dropTree(named: name.string)
        ids.remember(name, nil)
    }

    /// Drops every tree of the file, those Burrow does not make included.
    package func dropAllTrees() throws(StorageError) {
        for name in try transaction.treeNames() { try transaction.dropTree(named: name) }
        ids.removeAll()
    }

    /// The tree named `name`, created if it does not exist yet.
    package func openTree(_ name: TreeName) throws(StorageError) -> TreeID {
        if let id = try id(name) { return id }
        let id = try transaction.createTree(named: name.string)
        ids.remember(name, id)
        return id
    }

    package func withValue<R>(_ tree: TreeName, _ key: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> R) throws(StorageError) -> R? {
        guard let id = try id(tree) else { return nil }
        do {
            return try transaction.withValue(forKey: key, in: id, body)
        } catch let error as StorageError {
            throw error
        } catch {
            preconditionFailure("unreachable: the body does not throw")
        }
    }

    package func scan(_ tree: TreeName, from start: [UInt8], _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Bool) throws(StorageError) {
        guard let id = try id(tree) else { return }
        var cursor = try transaction.makeCursor(for: id)
        var more = try cursor.seek(start)
        while more, body(cursor.key, try cursor.value()) {
            more = try cursor.next()
        }
    }

    package func count(_ tree: TreeName) throws(StorageError) -> Int {
        guard let id = try id(tree) else { return 0 }
        return try transaction.count(of: id)
    }

    package func position(_ tree: TreeName, of key: [UInt8]) throws(StorageError) -> Int {
        guard let id = try id(tree) else { return 0 }
        return try transaction.makeCursor(for: id).position(of: key)
    }

    package func entry<R>(_ tree: TreeName, at position: Int, _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> R) throws(StorageError)
        -> R?
    {
        guard let id = try id(tree) else { return nil }
        var cursor = try transaction.makeCursor(for: id)
        guard try cursor.seek(toPosition: position) else { return nil }
        return body(cursor.key, try cursor.value())
    }

    package func put(_ tree: TreeName, _ key: [UInt8], _ value: [UInt8]) throws(StorageError) {
        try transaction.put(key, value, in: try openTree(tree))
    }

    /// Puts `value` under object key `key`, whose bytes stay on the stack.
    package func put(_ tree: TreeName, _ key: ObjectKey, _ value: [UInt8]) throws(StorageError) {
        let id = try openTree(tree)
        try key.withBytes { k throws(StorageError) in
            // Not the engine's `withBytes`: a generic function of another module runs here
            // unspecialized, looking up `Result`'s metadata on every row put.
            do {
                try value.withUnsafeBytes { v in _ = try transaction.put(k, v, in: id) }
            } catch let error as StorageError {
                throw error
            } catch {
                preconditionFailure("unreachable: only storage errors are thrown here")
            }
        }
    }

    @discardableResult
    package func delete(_ tree: TreeName, _ key: [UInt8]) throws(StorageError) -> Bool {
        guard let id = try id(tree) else { return false }
        return try transaction.delete(key, from: id)
    }
}
