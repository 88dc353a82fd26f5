#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Snapshot {
    /// Writes every tree of this version into a new database file at `path`, entry by entry
    /// in key order, so the copy's pages are full and hold no free space: what `writeCopy` and
    /// `burrow compact` are made of. The copy is committed with `.full` durability before this
    /// returns.
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
    }
}
