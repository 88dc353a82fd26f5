import BurrowStorage

/// The write transaction, which the store owns: the API asks it to begin one, and to commit or
/// cancel it; in between, every change the store makes goes into it.
extension ObjectStore {
    /// Makes `transaction` (begun under the engine's write lock, on the version this store
    /// reads) the store's open write. `recordingChanges`: whether to record what it changes,
    /// for change streams; a file with synced classes records them anyway, for the outbox.
    ///
    /// On a file of format 4 or 5, the transaction first rewrites every row in the current form
    /// (`upgradeRows`); if that fails, the transaction is aborted and the error thrown.
    package func beginWrite(_ transaction: WriteTransaction, recordingChanges: Bool) throws(StoreError) -> WriteState {
        let state = WriteState(transaction)
        if state.trees.rowsAreOld {
            do {
                try upgradeRows(in: state)
            } catch {
                transaction.abort()
                throw error
            }
        }
        if recordingChanges || !syncedClassNames.isEmpty { state.changes = ChangeSet() }
        write = state
        noteChange()
        return state
    }

    /// Makes the open write's changes a new version, pending its sync at `durability`, and
    /// ends the write; the changes of synced classes are queued for upload in the same
    /// version. On failure the write is cancelled (see `cancelWrite`), and nothing is kept.
    package func commitWrite(durability: Durability) throws(StoreError) -> (receipt: CommitReceipt, write: WriteState) {
        guard let write else { preconditionFailure("internal error: a commit with no write transaction open") }
        let receipt: CommitReceipt
        do {
            try queueSyncChanges(in: write)
            receipt = try write.transaction.commitPendingSync(durability: durability)
        } catch let error as StoreError {
            cancelWrite()
            throw error
        } catch {
            cancelWrite()
            throw StoreError(wrapping: error)
        }
        self.write = nil
        return (receipt, write)
    }

    /// Abandons the open write, if any: nothing it did is kept, and the store reads the version
    /// it read before (the schema too, if the write changed it). Returns the write ended.
    @discardableResult
    package func cancelWrite() -> WriteState? {
        guard let write else { return nil }
        write.transaction.abort()
        self.write = nil
        if write.schemaChanged {
            schemaLoaded = false
            do {
                try loadSchemaIfChanged()
            } catch {
                // The version read before the write, whose schema was read then: only damage
                // met now fails this.
                preconditionFailure("Reading \(displayName) failed: \(error.description)")
            }
        }
        noteChange()
        return write
    }
}
