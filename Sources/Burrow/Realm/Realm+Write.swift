import BurrowStorage
import BurrowStore

extension Realm {
    /// Runs `block` in a write transaction and commits it, synchronously. If another write
    /// transaction on the same file is open (in any realm of this process), waits for it by
    /// blocking the thread; in async code prefer `asyncWrite`, which suspends instead.
    ///
    /// If `block` throws, the transaction is cancelled: nothing it did is kept, objects it
    /// added become unmanaged again, and objects `create` made in it are invalidated; the error
    /// is rethrown. Throws `RealmError` if the realm is
    /// frozen, read-only or already in a write transaction, or if the commit fails (including
    /// an error recorded by a setter during the block, such as linking an object of another
    /// realm).
    ///
    /// The change streams whose tokens are in `tokens` stay silent about this write: its
    /// changes become part of their baseline.
    @discardableResult
    public func write<Result>(withoutNotifying tokens: [ChangeToken] = [], _ block: () throws -> Result) throws -> Result {
        try beginWrite()
        write?.silenced = Set(tokens)
        return try finishWrite(block)
    }

    /// Runs `block` in a write transaction and commits it. Waits for the file's write lock
    /// without blocking a thread; the realm's actor runs other work meanwhile.
    ///
    /// If the task is cancelled before the lock is acquired, throws `CancellationError` and
    /// changes nothing. If `block` throws, the transaction is cancelled (nothing is kept) and
    /// the error rethrown. Other errors as for `write(_:)`; `tokens` as for `write`.
    @discardableResult
    public func asyncWrite<Result>(
        withoutNotifying tokens: [ChangeToken] = [], _ block: () throws -> Result, isolation: isolated (any Actor)? = #isolation
    ) async throws -> Result {
        try checkCanBeginWrite()
        try Task.checkCancellation()
        let transaction: WriteTransaction
        do {
            transaction = try await storage.beginWrite()
        } catch let error as StorageError {
            throw RealmError(error)
        }
        try begin(transaction)
        write?.silenced = Set(tokens)
        let result = try runInWrite(block)
        if write != nil { try await commitWriteAsync() }
        return result
    }

    /// Opens a write transaction, blocking the thread until the file's write lock is free.
    /// End it with `commitWrite()` or `cancelWrite()`.
    ///
    /// Throws `RealmError` (`.wrongState`) if a write transaction is already open on this realm
    /// (writes do not nest) or the realm is frozen; (`.wrongState`) if it is read-only.
    public func beginWrite() throws {
        try checkCanBeginWrite()
        let transaction: WriteTransaction
        do {
            transaction = try storage.beginWriteBlocking()
        } catch {
            throw RealmError(error)
        }
        try begin(transaction)
    }

    /// Commits the open write transaction: its changes become the file's newest version,
    /// durable as the configuration's `durability` says, and the realm reads that version.
    ///
    /// Throws `RealmError` (`.wrongState`) if no write transaction is open. If the commit
    /// fails, or a setter recorded an error during the transaction, throws that error and
    /// cancels the transaction: nothing is kept. The change streams whose tokens are in
    /// `tokens` stay silent about this commit.
    public func commitWrite(withoutNotifying tokens: [ChangeToken] = []) throws {
        write?.silenced.formUnion(tokens)
        let receipt = try publishWrite()
        do {
            if configuration.durability == .full { try storage.waitUntilDurableBlocking(receipt) }
        } catch {
            throw RealmError(error)
        }
    }

    /// Commits the open write transaction and waits for it to be durable; writes that wait at the
    /// same time share one sync (group commit).
    ///
    /// On a thread of the cooperative pool the wait never blocks: the file's sync queue runs the
    /// sync round and the task resumes afterwards. On a `RealmExecutor`'s thread, which serves
    /// one actor only, the commit runs the round itself when none is in flight (blocking the
    /// thread for the sync, with no thread switch), and otherwise waits for the next round
    /// without blocking, as on the pool.
    func commitWriteAsync(isolation: isolated (any Actor)? = #isolation) async throws {
        let receipt = try publishWrite()
        guard configuration.durability == .full else { return }
        do {
            try await storage.waitUntilDurable(receipt, threadMayBlock: RealmExecutor.currentThreadMayBlock)
        } catch {
            throw RealmError(error)
        }
    }

    /// The sync rounds run on the realm's file since this process opened it, and the versions
    /// they made durable (for benchmarks: how many commits a round covered). Shared by every
    /// realm of the file in the process.
    package var syncRoundCounts: SyncRoundCounts { storage.syncRoundCounts }

    /// Makes the open transaction's changes the newest version, visible to every reader of the
    /// file in this process, and moves this realm to it; durability is the caller's to wait
    /// for. On failure the transaction is cancelled and nothing is kept.
    private func publishWrite() throws(RealmError) -> CommitReceipt {
        guard let write else {
            throw RealmError(.wrongState, "commitWrite() was called with no write transaction open; call beginWrite() first.")
        }
        if let failure = write.failure {
            rollBack()
            throw failure
        }
        let receipt: CommitReceipt
        do {
            receipt = try store.commitWrite(durability: configuration.storageDurability).receipt
        } catch {
            rollBack()
            throw RealmError(error)
        }
        self.write = nil
        write.added.forEachHolder { object, info in info.dropUnmanagedValues(of: object) }
        let base =
            write.silenced.isEmpty
            ? nil
            : FrozenVersion(
                configuration: configuration, reader: store.snapshotReader, schema: currentFileSchema, knownTypes: knownTypes)
        try moveToLatest(ownCommit: write.schemaChanged ? nil : receipt.version)
        post(write, version: receipt.version, before: base)
        if receipt.version > write.transaction.baseVersion { logCommit(version: receipt.version) }
        return receipt
    }

    /// Tells the file's change streams, if any, what commit `version` changed.
    private func post(_ write: RealmWrite, version: UInt64, before: FrozenVersion?) {
        // A transaction that changed nothing makes no version.
        guard version > write.transaction.baseVersion, let hub = ChangeHub.hub(for: storage) else { return }
        var changes = write.changes ?? .unknown
        if write.schemaChanged { changes.noteSchemaChange() }
        let after =
            store.snapshotReader.snapshot.version == version
            ? FrozenVersion(configuration: configuration, reader: store.snapshotReader, schema: currentFileSchema, knownTypes: knownTypes) : nil
        hub.post(version: version, ChangeHub.Record(changes: changes, silenced: write.silenced, before: before, after: after))
    }

    /// Cancels the open write transaction: nothing it did is kept, objects it added become
    /// unmanaged again, objects `create` made in it are invalidated (as in RealmSwift), and the
    /// realm reads the version it read before.
    ///
    /// Throws `RealmError` (`.wrongState`) if no write transaction is open.
    public func cancelWrite() throws {
        guard write != nil else {
            throw RealmError(.wrongState, "cancelWrite() was called with no write transaction open.")
        }
        rollBack()
    }

    // MARK: Internals

    func checkCanBeginWrite() throws(RealmError) {
        if isFrozen {
            throw RealmError(.wrongState, "Cannot write to a frozen realm; thaw the objects into a live realm and write there.")
        }
        if write != nil {
            throw RealmError(
                .wrongState, "The realm is already in a write transaction; writes cannot be nested. Make the changes in the open transaction.")
        }
        if !isOpen {
            throw RealmError(.wrongState, "The realm was invalidated; open it again to write.")
        }
        if configuration.readOnly {
            throw RealmError(.wrongState, "\(displayName) was opened read-only; writes are not allowed.")
        }
        if isOnAnotherThread, let misuse = threadMisuse() { throw misuse }
        try WriteOwners.checkCallerHoldsNone(storage, displayName: displayName)
    }

    private func begin(_ transaction: WriteTransaction) throws(RealmError) {
        // Under the write lock the newest version is the transaction's base: the realm moves
        // to it, so the transaction sees every committed change.
        if transaction.baseVersion != store.snapshotReader.snapshot.version {
            do {
                try moveToLatest()
            } catch {
                transaction.abort()
                throw error
            }
        }
        transaction.memoryLimit = configuration.writeMemoryLimit
        do {
            write = RealmWrite(try store.beginWrite(transaction, recordingChanges: ChangeHub.hub(for: storage) != nil))
        } catch {
            throw RealmError(error)
        }
    }

    private func finishWrite<Result>(_ block: () throws -> Result) throws -> Result {
        let result = try runInWrite(block)
        if write != nil { try commitWrite() }
        return result
    }

    /// Runs a write's block; if it throws, cancels the transaction (unless the block ended it
    /// itself) and rethrows. The caller commits if the transaction is still open.
    private func runInWrite<Result>(_ block: () throws -> Result) throws -> Result {
        do {
            return try block()
        } catch {
            if write != nil { rollBack() }
            throw error
        }
    }

    /// Runs `body` in a write transaction of its own, blocking (used while opening).
    func writeBlocking(_ body: () throws(RealmError) -> Void) throws(RealmError) {
        do {
            try beginWrite()
        } catch {
            throw RealmError(wrapping: error)
        }
        do {
            try body()
        } catch {
            rollBack()
            throw error
        }
        do {
            try commitWrite()
        } catch {
            throw RealmError(wrapping: error)
        }
    }

    /// Abandons the open transaction and makes the objects it added unmanaged again (those
    /// `create` made stay bound to their rows, and are invalidated if the rows are gone).
    func rollBack() {
        guard let write else { return }
        store.cancelWrite()
        self.write = nil
        write.added.forEachToUnbind { object in
            guard let state = object._state else { return }
            state.table.info.bind(object, managed: false)
            object._state = nil
        }
    }
}
