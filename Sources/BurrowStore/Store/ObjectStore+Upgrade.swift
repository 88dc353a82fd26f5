import BurrowStorage

/// Upgrading a file of format 4 or 5 to the current format: the first write transaction
/// rewrites every row in `RowCodec`'s form before it does anything else, and its commit records
/// the new format. Until then the file is read as it is (readers convert each row as they read
/// it), so opening an older file, read-only too, changes nothing in it.
extension ObjectStore {
    /// How many rows the upgrade reads before it writes them back: a bound on what it holds
    /// besides the transaction's pages.
    static let upgradeBatch = 1_024

    /// Rewrites every row of the classes in the schema of `write`'s version in `RowCodec`'s form
    /// and makes its commit record the current format. Records no change: the objects hold the
    /// same values, as readers of the older version already saw them.
    func upgradeRows(in write: WriteState) throws(StoreError) {
        do {
            for stored in currentFileSchema.classes.values.sorted(by: { $0.id < $1.id }) {
                try upgradeRows(of: stored, in: write)
            }
        } catch {
            throw StoreError(wrapping: error)
        }
        write.transaction.setFormat(Meta.formatVersion)
    }

    /// Rewrites the rows of `stored` in batches: a batch is read, then written back.
    private func upgradeRows(of stored: StoredClass, in write: WriteState) throws(StorageError) {
        let tree = TreeName(.rows, stored.id)
        let fields = stored.legacyFields
        let format = write.trees.rowFormat
        var start: [UInt8] = []
        var batch: [(key: [UInt8], row: [UInt8])] = []
        batch.reserveCapacity(Self.upgradeBatch)
        repeat {
            batch.removeAll(keepingCapacity: true)
            try write.trees.scan(tree, from: start) { key, row in
                batch.append((Array(key), LegacyRowCodec.converted(row, from: format, fields: fields)))
                return batch.count < Self.upgradeBatch
            }
            for entry in batch { try write.trees.put(tree, entry.key, entry.row) }
            // The smallest key after the batch's last.
            if let last = batch.last { start = last.key + [0] }
        } while batch.count == Self.upgradeBatch
    }
}
