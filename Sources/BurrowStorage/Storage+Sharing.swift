import Dispatch

/// Whether other processes may open a database file while this process has it open.
package enum FileSharing: Sendable, Equatable {
    /// One process at a time: another process that opens the file gets `fileLocked`.
    case exclusive
    /// Any number of processes at once, coordinating through the lock file beside the database
    /// (`LockFile`). Readers in every process read consistent versions without waiting; one
    /// write transaction at a time runs across all of them.
    case shared
}

/// Sharing a file with other processes (`FileSharing.shared`).
///
/// - **Reading.** A snapshot reads the newest version whose meta is in the file. The lock file
///   names that version, so noticing another process's commit costs one load; then the newest
///   meta is read from the file (`adoptNewerVersion`). The oldest version this process pins is
///   published in its slot before the snapshot is used, and the snapshot is taken again if a
///   newer version appeared meanwhile: a writer that did not see the pin could otherwise have
///   reused pages of the version just pinned (LMDB's readers do the same).
/// - **Writing.** Write transactions take turns inside the process with `writeLock`, as in
///   exclusive use, and across processes with the lock file's writer lock (a `flock`). A
///   process holds the writer lock from the start of a transaction until its commits are all
///   durable: no transaction open, no sync round in flight and its newest version synced
///   (`releaseFileWriterLockIfIdle`). Without the writer lock, then, a process has nothing to
///   sync. A process that takes the writer lock after another process wrote reads the file's
///   newest meta and takes over what the other knew of durability from the lock file, so that
///   it never writes over the newest durable meta (`adoptFileForNewTurn`). Pages are reused
///   only below the oldest version pinned in any process.
extension Storage {
    // MARK: Reading

    /// Makes the newest version in the file the latest this handle reads, if another process
    /// committed one since. Reads the two meta pages (again, a few times, if the newest is
    /// being written over). Returns whether the handle reads a newer version now.
    @discardableResult
    func adoptNewerVersion(_ lockFile: LockFile) throws(StorageError) -> Bool {
        let known = shared.withLock { $0.meta.version }
        guard lockFile.latestVersion > known else { return false }
        for _ in 0..<100 {
            if let meta = try newestCompleteMeta(), meta.version > known {
                try adopt(meta)
                return true
            }
            // Another thread of this process read it meanwhile.
            if shared.withLock({ $0.meta.version }) > known { return true }
        }
        return false
    }

    /// The newest meta in either slot that reads whole, without checking the pages it lists: the
    /// pages of a version are written before its meta, and readers see the file as its writer
    /// left it (through the page cache, on one machine).
    private func newestCompleteMeta() throws(StorageError) -> Meta? {
        let buffer = pageBuffers.take()
        defer { pageBuffers.give(buffer) }
        var newest: Meta?
        for slot in 0..<2 {
            let page = UnsafeMutableRawBufferPointer(start: buffer, count: pageSize)
            guard try device.read(into: page, at: slot * pageSize) == pageSize else { continue }
            if case .valid(let meta, _) = Meta.read(UnsafeRawBufferPointer(page), slot: slot), meta.pageSize == pageSize,
                meta.version > newest?.version ?? 0 || newest == nil
            {
                newest = meta
            }
        }
        return newest
    }

    /// Makes `meta`, a newer version another process wrote, the latest this handle reads, with
    /// the file mapped far enough for it. The mapping's record of checked pages starts over:
    /// another process may have written over pages this one had checked.
    private func adopt(_ meta: Meta) throws(StorageError) {
        let current = currentMapping
        let needed = Int(meta.pageCount)
        let region = current.pageCapacity >= needed ? current.region : try device.map(minimumLength: max(needed, 2 * current.pageCapacity) * pageSize)
        let mapping = Mapping(region: region, pageSize: pageSize)
        let adopted = shared.withLock { s -> ClosedRange<UInt64>? in
            guard meta.version > s.meta.version else { return nil }
            defer {
                s.meta = meta
                s.mapping = mapping
            }
            return (s.meta.version + 1)...meta.version
        }
        if let adopted { noteVersionsOfOtherProcesses(adopted) }
    }

    /// Notes that versions `range` were committed by other processes, for `otherProcessWoke`
    /// to report. (A process commits only while it holds the writer lock, so the versions a
    /// handle adopts from the file are never its own.)
    private func noteVersionsOfOtherProcesses(_ range: ClosedRange<UInt64>) {
        otherCommits.withLock { o in
            o.pending = o.pending.map { min($0.lowerBound, range.lowerBound)...max($0.upperBound, range.upperBound) } ?? range
        }
    }

    /// Publishes the oldest version this process pins in its lock-file slot (under `shared`'s
    /// lock, so that the slot follows the pins in order).
    func publishPins(_ s: Storage.SharedState) {
        lockFile?.publishOldestPin(s.pins.oldest)
    }

    /// The oldest version pinned by another process, if any.
    var oldestPinOfOtherProcesses: UInt64? { lockFile?.oldestPinOfOtherProcesses() }

    // MARK: Writing

    /// Called with `writeLock` just taken: notes the open transaction and, sharing the file,
    /// takes the lock file's writer lock if this process does not hold it, blocking the thread
    /// meanwhile.
    func beginTransactionTurnBlocking() throws(StorageError) {
        guard let lockFile, !noteTransactionOpen() else { return }
        do {
            try lockFile.lockWriter()
            try adoptFileForNewTurn(lockFile)
        } catch {
            abandonTurn()
            throw error
        }
    }

    /// `beginTransactionTurnBlocking`, waiting for another process's writer without blocking a
    /// thread: the task is resumed once this process has the writer lock. The wait is counted
    /// in the lock file, so the holder lets go at its next chance and then wakes this process
    /// (`LockFile.unlockWriter`); the lock is also tried every few milliseconds, since a holder
    /// that dies wakes nobody.
    func beginTransactionTurn(isolation: isolated (any Actor)? = #isolation) async throws(StorageError) {
        guard let lockFile, !noteTransactionOpen() else { return }
        do {
            if !lockFile.tryLockWriter() {
                await withCheckedContinuation { continuation in
                    fileLockWaiter.withLock { $0 = continuation }
                    lockFile.beginWaiting()
                    pollFileWriterLock()
                }
            }
            try adoptFileForNewTurn(lockFile)
        } catch {
            abandonTurn()
            throw error
        }
    }

    /// Takes the writer lock for the async writer waiting for it (`beginTransactionTurn`), if
    /// no other process holds it now, and resumes that writer. Returns whether a writer still
    /// waits.
    @discardableResult
    func takeFileWriterLockForWaiter() -> Bool {
        guard let lockFile else { return false }
        let (taken, stillWaiting) = fileLockWaiter.withLock { waiter -> (CheckedContinuation<Void, Never>?, Bool) in
            guard let continuation = waiter else { return (nil, false) }
            guard lockFile.tryLockWriter() else { return (nil, true) }
            waiter = nil
            return (continuation, false)
        }
        if let taken {
            lockFile.endWaiting()
            taken.resume()
        }
        return stillWaiting
    }

    /// Tries the writer lock for the waiting async writer now and then every 10 ms until it
    /// has it.
    private func pollFileWriterLock() {
        guard takeFileWriterLockForWaiter() else { return }
        guard let fileLockQueue else { return }
        inBackground(on: fileLockQueue, after: .milliseconds(10)) { $0.pollFileWriterLock() }
    }

    /// Notes that a transaction is open; returns whether this process holds the file's writer
    /// lock already.
    private func noteTransactionOpen() -> Bool {
        commitState.withLock { s in
            s.transactionOpen = true
            return s.holdsFileWriterLock
        }
    }

    /// Undoes `noteTransactionOpen` for a transaction that could not start.
    private func abandonTurn() {
        commitState.withLock { $0.transactionOpen = false }
    }

    /// With the writer lock just taken: if another process wrote since this one's last turn,
    /// reads the file's newest version and what the last writer knew of durability, and starts
    /// over from them as a handle does at open.
    private func adoptFileForNewTurn(_ lockFile: LockFile) throws(StorageError) {
        let turn = lockFile.countWriterTurn()
        let continues = commitState.withLock { s in
            let continues = s.lastWriterTurn.map { $0 &+ 1 == turn } ?? false
            s.holdsFileWriterLock = true
            s.lastWriterTurn = turn
            return continues
        }
        if continues { return }
        do throws(StorageError) {
            guard let opened = try Self.readNewestMeta(device: device) else { throw .notADatabase(path: name) }
            let current = currentMapping
            let needed = Int(opened.meta.pageCount)
            let region = current.pageCapacity >= needed ? current.region : try device.map(minimumLength: needed * pageSize)
            let mapping = Mapping(region: region, pageSize: pageSize)
            let previous = shared.withLock { s -> UInt64 in
                defer {
                    s.meta = opened.meta
                    s.mapping = mapping
                }
                return s.meta.version
            }
            if opened.meta.version > previous { noteVersionsOfOtherProcesses((previous + 1)...opened.meta.version) }
            commitState.withLock { s in s.adoptFile(opened, record: lockFile.durability) }
            droppedMetaPending.store(opened.fellBack, ordering: .releasing)
        } catch {
            commitState.withLock { s in
                s.holdsFileWriterLock = false
                s.lastWriterTurn = nil
            }
            lockFile.unlockWriter()
            throw error
        }
    }

    /// Called as a transaction ends, before `writeLock` is released.
    func noteTransactionEnded() {
        guard lockFile != nil else { return }
        commitState.withLock { $0.transactionOpen = false }
    }

    /// Lets the other processes write, if this one holds the writer lock and its commits are
    /// all durable: no transaction open, no round in flight or wanted by a waiter, and the
    /// newest version synced. If that version is not durable yet, a round is started, and its
    /// end calls this again.
    ///
    /// Handing over only durable versions is what keeps the two meta slots safe across
    /// processes. The next writer writes its metas over the slot that does not hold the newest
    /// durable meta; had this process let go with its newest meta unsynced, that meta would lie
    /// in that slot, and a sync this process made afterwards (for a `.full` commit whose wait
    /// began after the transaction ended) could not say that the version survives a power cut.
    /// It also leaves this process's durability record exact, so the next writer lists its
    /// pages and commits with one sync. The cost is one sync per handover after `.normal`
    /// commits, paid only when another process waits.
    ///
    /// The lock is let go only when another process waits for it (it counts itself in the lock
    /// file, and wakes this process, `asked`): a process writing on its own pays no lock call
    /// per transaction.
    func releaseFileWriterLockIfIdle(asked: Bool = false) {
        guard let lockFile, asked || lockFile.writersWaiting else { return }
        let startRound = commitState.withLock { s -> Bool in
            guard s.holdsFileWriterLock, !s.transactionOpen, !s.roundInFlight, s.waiters.isEmpty, s.normalWriter == nil
            else { return false }
            let published = shared.withLock { $0.meta.version }
            guard s.failure != nil || published <= s.durableVersion else {
                s.backgroundRoundWanted = true
                return s.claimRound()
            }
            s.backgroundRoundWanted = false
            if s.failure == nil {
                lockFile.recordDurability(slot: s.durableSlot, slotVersion: s.durableSlotVersion, durableVersion: s.durableVersion)
            }
            s.holdsFileWriterLock = false
            lockFile.unlockWriter()
            return false
        }
        if startRound { inBackground(on: syncQueue) { $0.runRounds() } }
    }

    // MARK: Other processes

    /// Called on the lock file's listener thread when another process woke this one: takes the
    /// writer lock for a writer of this process that waits for it, lets go of it if a writer of
    /// another process waits for it, and tells the observer of other processes' commits of a
    /// newer version.
    func otherProcessWoke() {
        guard let lockFile else { return }
        takeFileWriterLockForWaiter()
        if lockFile.writersWaiting { releaseFileWriterLockIfIdle(asked: true) }
        _ = try? adoptNewerVersion(lockFile)
        let (observer, range) = otherCommits.withLock { o in
            defer { o.pending = nil }
            return (o.observer, o.pending)
        }
        if let observer, let range { observer(range) }
    }

    /// Calls `observer` (on another thread) with the versions other processes committed, once
    /// this handle has read them; replaces the observer set before. Nothing happens in
    /// exclusive use.
    package func observeCommitsOfOtherProcesses(_ observer: @escaping @Sendable (ClosedRange<UInt64>) -> Void) {
        otherCommits.withLock { $0.observer = observer }
    }
}

extension CommitState {
    /// Starts over from the file's newest meta, `opened`, read at the start of a writer's turn
    /// after another process wrote. With the last writer's `record` of durability, if it matches
    /// the metas in the file, the durable slot and version are the ones it knew; otherwise they
    /// are those a handle assumes at open (the newest meta's slot is kept until a round syncs).
    /// Nothing is listed until a round has synced every page.
    mutating func adoptFile(_ opened: Storage.OpenedMeta, record: (slot: Int, slotVersion: UInt64, durableVersion: UInt64)?) {
        let slotVersions = [opened.slot: opened.meta.version, 1 - opened.slot: opened.olderVersion]
        if let record, !opened.fellBack, slotVersions[record.slot] == record.slotVersion, record.durableVersion <= record.slotVersion {
            durableSlot = record.slot
            durableSlotVersion = record.slotVersion
            durableVersion = record.durableVersion
        } else {
            durableSlot = opened.slot
            durableSlotVersion = opened.meta.version
            durableVersion = opened.olderVersion
        }
        metaOnDisk = nil
        pendingSlotVersion = nil
        heldBack = HeldBackPages()
        backgroundRoundWanted = false
        droppedMetaCover = opened.fellBack ? opened.meta : nil
        untrack()
        // Every version is durable: no page was written since, and the list starts empty.
        if durableVersion == opened.meta.version { untracked = false }
    }
}
