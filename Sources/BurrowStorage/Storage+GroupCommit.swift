import Dispatch

/// What `commitPendingSync` hands back: the version it published, to wait for with
/// `waitUntilDurable`.
package struct CommitReceipt: Sendable, Hashable {
    package let version: UInt64
}

/// A version's durability, and the sync rounds that establish it.
///
/// The two meta slots play fixed roles between sync rounds: the *durable slot* holds the newest
/// meta known to be durable and is never written; every newer meta goes to the *pending slot*.
/// A sync round makes durable every version published before it starts, and the slots swap.
///
/// A meta in the pending slot lists every page its version reaches that was written since the
/// durable version (`unsynced`), with its checksum. Opening takes it only if all those pages are
/// intact, so pages and meta may reach the disk in any order and one sync suffices. When the list
/// would not fit in the meta page (`untracked`), the round syncs the pages before it writes the
/// meta, then syncs again.
///
/// While a round is in flight nobody writes the pending slot (the round may be making the meta
/// there durable): `.full` commits publish in memory only, and the next round writes the newest
/// meta; a `.normal` commit, which must reach the kernel before it returns, waits for the round.
struct CommitState {
    /// The newest version known durable; waits for it or older versions return at once. Pages
    /// freed by later versions are not reused: the durable meta, which opening falls back to
    /// after a power cut, may still reach them.
    var durableVersion: UInt64
    /// The slot that must not be written: it holds the newest durable meta.
    var durableSlot: Int
    /// The version of the meta in `durableSlot`: what every meta written to the pending slot
    /// builds on, recorded as its `listBase` (with a list or without), so that opening knows
    /// which version it may fall back to. It may be newer than `durableVersion` right after
    /// open, when the meta found is not known to be synced.
    var durableSlotVersion: UInt64
    /// The version whose meta the pending slot holds, written since the last round, if any.
    var metaOnDisk: UInt64?
    /// Pages freed by each version after the durable one and not reused since: held back from
    /// reuse until a round, apart from those `roundReusablePages` lets go earlier.
    var heldBack = HeldBackPages()
    /// Pages written after `durableVersion` and freed by a later version, with both versions,
    /// while they are tracked (not `untracked`). The durable meta cannot reach them (they did not
    /// exist in its version), so once the meta in the pending slot does not reach them either
    /// (it is of their `freedBy` or later) and no snapshot pins a version that does, they may be
    /// written over before the next round: see `roundReusablePages`. An entry may outlive its
    /// page's reuse (an overflow run lists only its first page in `written`), but every free of
    /// a page replaces or removes its entry, and only pages found in the free list are reused.
    var roundFreed = RoundFreedPages()
    /// The newest version whose meta was completely written into the pending slot since the
    /// slots last swapped, or nil. After a crash of the process the pending slot holds this meta
    /// (a later write may be torn, and then opening takes the durable meta).
    var pendingSlotVersion: UInt64?
    /// Pages written over while `roundFreed` listed them, since the handle opened (for tests).
    var pagesReusedWithinRounds = 0
    /// How the latest commits placed their pages in runs (`WriteTransaction.takePageInRun`).
    var pageRuns = PageRuns()
    /// Rounds run by `waitUntilDurableRunningRound` on its caller's thread (for tests).
    var roundsRunByCommitters = 0
    /// Rounds that ended with a successful sync, and the versions they made durable, since the
    /// handle opened (for tests and benchmarks: their ratio is the commits a round covered).
    var roundCounts = SyncRoundCounts()
    /// A round wanted with nobody waiting: `.normal` commits ask for one (on the sync queue) once
    /// enough freed pages are held back, so that free space keeps being reused.
    var backgroundRoundWanted = false
    /// The pages reachable from the latest version that were written after `durableVersion`,
    /// with their checksums and the version that wrote them.
    var unsynced = UnsyncedPages()
    /// The pages written since the durable version are not all in `unsynced` (too many, or the
    /// handle does not know them): metas carry no list, and a round syncs before its meta.
    var untracked: Bool
    var roundInFlight = false
    var waiters: [DurabilityWaiter] = []
    /// A `.normal` commit waiting for the round in flight to end before it writes its meta (at
    /// most one: commits hold the write lock).
    var normalWriter: DispatchSemaphore?
    /// Set when a round ends and wakes `normalWriter`: no round starts until it has written.
    var normalWriterWoken = false
    var failure: StorageError?
    let listCapacity: Int
    /// Sharing the file: whether this process holds the lock file's writer lock, whether a
    /// transaction is open, and the number of this process's latest turn of the writer lock
    /// (see Storage+Sharing.swift).
    var holdsFileWriterLock = false
    var transactionOpen = false
    var lastWriterTurn: UInt64?
    /// The version opened, when opening fell back past the meta that the pending slot still
    /// holds; nil once `retireDroppedMeta` has written it over that meta (or if there was none).
    var droppedMetaCover: Meta?

    var pendingSlot: Int { 1 - durableSlot }

    init(opened: Storage.OpenedMeta) {
        // A meta found on open may not be durable (its process may have crashed before the
        // sync); until the first round has synced it, its slot is kept, nothing it freed is
        // reused, and the first round syncs before it writes a meta.
        durableVersion = opened.isKnownDurable ? opened.meta.version : opened.olderVersion
        durableSlot = opened.slot
        durableSlotVersion = opened.meta.version
        untracked = !opened.isKnownDurable
        listCapacity = min(Meta.listLimit, Meta.listCapacity(pageSize: opened.meta.pageSize))
        droppedMetaCover = opened.fellBack ? opened.meta : nil
    }

    /// The list a meta of the latest version carries, or nil if it cannot carry one.
    func writtenPages() -> WrittenPages? {
        if untracked { return nil }
        return WrittenPages(base: durableVersion, entries: unsynced.entries)
    }

    /// The pages of `roundFreed` that a transaction whose snapshots pin nothing older than
    /// `pinLimit` may write over now. Such a page was written after the durable version and
    /// freed by version f ≤ the pending slot's meta and ≤ `pinLimit`, so
    ///
    /// - the durable meta does not reach it (written after it), and no later round's target does
    ///   (every round targets a version ≥ the pending slot's meta, so ≥ f);
    /// - the meta in the pending slot does not reach it (f ≤ its version), nor does any meta
    ///   written there later (versions only grow): a `.normal` commit whose meta is on disk
    ///   survives a crash of the process. After a power cut an *older* meta may be found in the
    ///   pending slot, one that did reach the page; but it lists the page with the checksum it
    ///   was written with, so opening sees the rewrite and takes the durable meta. That is why
    ///   nothing is reused while metas go out without a list (`untracked`);
    /// - no snapshot reaches it (all pin f or later).
    ///
    /// Each of these stays true as versions, rounds and snapshots move on, so a page that was
    /// reusable once stays reusable.
    func roundReusablePages(pinLimit: UInt64) -> RoundReusablePages? {
        guard !untracked, !roundFreed.isEmpty, let pending = pendingSlotVersion else { return nil }
        return RoundReusablePages(pages: roundFreed, durableVersion: durableVersion, freedLimit: min(pending, pinLimit))
    }

    /// Whether a `.normal` commit should ask for a sync round in the background. Until a round
    /// makes a version durable, the pages freed since are held back from reuse (the file grows)
    /// and the list of pages written since the durable version grows; once that list no longer
    /// fits a meta, `.normal` metas go out unlisted and lose their power-loss check. So a round
    /// is wanted once the list is half full, or many freed pages are held back: one sync every
    /// few dozen small commits keeps metas listed and free space reused. (A `.normal` commit
    /// that comes while the round is in flight waits for it, at most one sync.)
    func wantsBackgroundRound(pageCount: PageNumber) -> Bool {
        untracked || unsynced.count >= listCapacity / 2
            || heldBack.total >= Storage.heldBackLimit(pageCount: pageCount)
    }

    /// Whether a round may start now: none is running and no `.normal` commit waits to write its
    /// meta first.
    var roundMayStart: Bool { !roundInFlight && normalWriter == nil && !normalWriterWoken }

    /// Claims the next round if one is needed and none is running.
    mutating func claimRound() -> Bool {
        guard roundMayStart, !waiters.isEmpty || backgroundRoundWanted else { return false }
        roundInFlight = true
        return true
    }
}

/// The pages a transaction may take from held-back free records (`CommitState.roundReusablePages`):
/// a copy of `roundFreed` (which costs a reference until the commit state changes it, and the
/// transaction lets go of it before its commit) with the limits that apply.
struct RoundReusablePages {
    let pages: RoundFreedPages
    let durableVersion: UInt64
    let freedLimit: UInt64

    func contains(_ page: PageNumber) -> Bool {
        guard let life = pages[page] else { return false }
        return life.written > durableVersion && life.freedBy <= freedLimit
    }
}

/// Sync rounds that ended with a successful sync since a handle opened, the versions they made
/// durable, and the pages reused within rounds. Under one-version commits,
/// `versionsMadeDurable / rounds` is the commits a round covered on average: how well group
/// commit groups.
package struct SyncRoundCounts: Sendable, Hashable {
    package var rounds = 0
    package var versionsMadeDurable: UInt64 = 0
    /// Pages written over while they waited for a round (`CommitState.roundFreed`).
    package var pagesReusedWithinRounds = 0

    package init() {}

    /// The counts since `earlier`.
    package func since(_ earlier: SyncRoundCounts) -> SyncRoundCounts {
        var counts = SyncRoundCounts()
        counts.rounds = rounds - earlier.rounds
        counts.versionsMadeDurable = versionsMadeDurable - earlier.versionsMadeDurable
        counts.pagesReusedWithinRounds = pagesReusedWithinRounds - earlier.pagesReusedWithinRounds
        return counts
    }
}

/// One caller of `waitUntilDurable` waiting for a round.
enum DurabilityWaiter {
    case async(version: UInt64, CheckedContinuation<StorageError?, Never>)
    case blocking(version: UInt64, BlockingDurabilityWait)

    var version: UInt64 {
        switch self {
        case .async(let version, _), .blocking(let version, _): return version
        }
    }

    func resume(_ error: StorageError?) {
        switch self {
        case .async(_, let continuation): continuation.resume(returning: error)
        case .blocking(_, let wait):
            wait.error = error
            wait.semaphore.signal()
        }
    }
}

/// A thread parked until a round covers its version.
final class BlockingDurabilityWait: @unchecked Sendable {
    // `error` is written once, before `semaphore` is signalled, and read only after the wait
    // returns: the semaphore orders the two.
    let semaphore = DispatchSemaphore(value: 0)
    var error: StorageError?
}

extension Storage {
    // MARK: Publishing a commit

    /// Publishes `meta`, whose pages are written: records the pages in the unsynced list, writes
    /// the meta into the pending slot unless a round is in flight or the list does not fit, and
    /// makes it the latest version. Called by the write transaction, holding the write lock;
    /// `metaBuffer` is a page-sized buffer of the caller's to encode the meta in.
    func publishCommit(
        _ meta: Meta, mapping: Mapping, written: [(page: PageNumber, checksum: UInt64)], freed: [PageNumber],
        runPages: Int, grewForRun: Bool, durability: Durability, metaBuffer: UnsafeMutableRawPointer
    ) throws(StorageError) {
        while true {
            let outcome = try commitState.withLock { s throws(StorageError) -> DispatchSemaphore? in
                s.normalWriterWoken = false
                if let failure = s.failure { throw failure }
                if durability == .normal && s.roundInFlight {
                    let wait = DispatchSemaphore(value: 0)
                    s.normalWriter = wait
                    return wait
                }
                s.pageRuns.record(version: meta.version, runPages: runPages, grew: grewForRun, freed: freed)
                if !freed.isEmpty { s.heldBack.add(freed.count, version: meta.version) }
                if !s.untracked {
                    for page in freed {
                        if let written = s.unsynced.remove(page) {
                            s.roundFreed.set(page, .init(written: written, freedBy: meta.version))
                        } else {
                            s.roundFreed.remove(page)
                        }
                    }
                    for (page, checksum) in written {
                        s.unsynced.set(page, checksum: checksum, version: meta.version)
                        // A page freed within the round and written again is no longer held back.
                        if let life = s.roundFreed.remove(page) {
                            s.pagesReusedWithinRounds += 1
                            s.heldBack.releaseOne(version: life.freedBy)
                        }
                    }
                    if s.unsynced.count > s.listCapacity { s.untrack() }
                }
                // A `.normal` meta is written even without a list: it must reach the kernel now,
                // and it gives up power-loss protection anyway.
                if !s.roundInFlight && (!s.untracked || durability == .normal) {
                    try writeMeta(meta, into: &s, buffer: metaBuffer)
                }
                if durability == .normal && s.wantsBackgroundRound(pageCount: meta.pageCount) {
                    s.backgroundRoundWanted = true
                }
                publish(meta, mapping: mapping)
                return nil
            }
            guard let wait = outcome else { break }
            wait.wait()
        }
        startRoundIfNeeded()
    }

    /// Writes the version opened over the meta that opening dropped, and syncs, if this handle
    /// opened through a fallback and has not done so yet. Called by a commit, holding the write
    /// lock, before it writes anything.
    ///
    /// The dropped meta lies in the pending slot, and the commits that follow reuse its version
    /// numbers and may write the same pages again, stamped as it expects; a power cut before
    /// their own meta lands could then leave every page it lists intact, or a file long enough
    /// for a meta without a list, and opening would take a version that this handle never wrote
    /// and that an earlier open reported dropped. With the version opened in both slots, the
    /// next meta builds on it as before and nothing older remains to be taken. (A read-only
    /// handle writes nothing, so the dropped meta stays, and every open reports it again.)
    /// Throws if the write or the sync fails; a failed sync fails the handle.
    func retireDroppedMeta() throws(StorageError) {
        guard droppedMetaPending.load(ordering: .acquiring) else { return }
        try commitState.withLock { s throws(StorageError) in
            guard let opened = s.droppedMetaCover else { return }
            if let failure = s.failure { throw failure }
            try writeMetaPage(opened, slot: s.pendingSlot, written: WrittenPages(base: opened.version, entries: []))
            try syncDevice()
            s.droppedMetaCover = nil
            droppedMetaPending.store(false, ordering: .releasing)
        }
    }

    /// Freed pages held back from reuse after which a `.normal` commit asks for a sync round in
    /// the background: an eighth of the file, at least 256 pages. Rounds also start once the
    /// written-page list is half full (`CommitState.wantsBackgroundRound`), which at small
    /// commits comes first; this limit bounds the file's growth under larger ones.
    static func heldBackLimit(pageCount: PageNumber) -> Int {
        max(256, Int(pageCount) / 8)
    }

    /// Writes `meta` into the pending slot, with the unsynced list if there is one. Called with
    /// the commit state locked (nobody else writes a meta meanwhile) and no round in flight or
    /// by the round itself. The meta is encoded in `buffer` if given, else in a stashed one.
    fileprivate func writeMeta(_ meta: Meta, into s: inout CommitState, buffer: UnsafeMutableRawPointer? = nil) throws(StorageError) {
        s.metaOnDisk = nil
        s.pendingSlotVersion = nil
        do {
            let written = s.writtenPages() ?? WrittenPages(base: s.durableSlotVersion, entries: [])
            try writeMetaPage(meta, slot: s.pendingSlot, written: written, buffer: buffer)
        } catch {
            // A torn meta in the pending slot costs nothing, but the list may now miss pages of
            // a version that was never published; the next round syncs before its meta.
            s.untrack()
            throw error
        }
        s.metaOnDisk = meta.version
        s.pendingSlotVersion = meta.version
    }

    func writeMetaPage(_ meta: Meta, slot: Int, written: WrittenPages, buffer given: UnsafeMutableRawPointer? = nil) throws(StorageError) {
        let buffer = given ?? pageBuffers.take()
        defer { if given == nil { pageBuffers.give(buffer) } }
        meta.encode(into: buffer, slot: slot, written: written)
        try device.write([(slot * layout.pageSize, UnsafeRawBufferPointer(start: buffer, count: layout.pageSize))])
        lockFile?.noteMetaWritten(meta.version)
    }

    // MARK: Waiting

    /// Returns once version `receipt.version` (or a later one) is durable. Waiters that arrive
    /// while a sync is in flight share the next one. Runs on the caller's executor
    /// (`isolation`), so a durable commit makes no hop to another executor and back. Throws
    /// `handleFailed` if a sync failed before the version became durable.
    ///
    /// Where the sync runs is decided here:
    /// - By default the wait blocks no thread: the sync runs on the sync queue, never on the
    ///   caller's thread, so a slow sync cannot hold a thread of the caller's executor (with the
    ///   cooperative pool's few threads, that could stall every task, including one that a sync
    ///   waits for).
    /// - With `threadMayBlock` (the caller's thread serves it alone, such as an actor's own
    ///   thread), the caller runs the round itself when none is in flight, blocking its thread
    ///   for the sync with no thread switch (`waitUntilDurableRunningRound`); otherwise it waits
    ///   for the next round without blocking, as above.
    package func waitUntilDurable(
        _ receipt: CommitReceipt, threadMayBlock: Bool = false, isolation: isolated (any Actor)? = #isolation
    ) async throws(StorageError) {
        if threadMayBlock, try waitUntilDurableRunningRound(receipt) { return }
        if let done = commitState.withLock({ settled(receipt.version, $0) }) {
            if let error = done { throw error }
            return
        }
        let error: StorageError? = await withCheckedContinuation { continuation in
            let action = commitState.withLock { s -> (settled: StorageError??, lead: Bool) in
                if let done = settled(receipt.version, s) { return (done, false) }
                s.waiters.append(.async(version: receipt.version, continuation))
                return (nil, s.claimRound())
            }
            if let done = action.settled { continuation.resume(returning: done) }
            if action.lead { inBackground(on: syncQueue) { $0.runRounds() } }
        }
        if let error { throw error }
    }

    /// Blocks the calling thread until version `receipt.version` (or a later one) is durable; the
    /// caller runs the sync itself when no round is in flight.
    package func waitUntilDurableBlocking(_ receipt: CommitReceipt) throws(StorageError) {
        let wait = BlockingDurabilityWait()
        let action = commitState.withLock { s -> (settled: StorageError??, lead: Bool) in
            if let done = settled(receipt.version, s) { return (done, false) }
            s.waiters.append(.blocking(version: receipt.version, wait))
            return (nil, s.claimRound())
        }
        if let done = action.settled {
            if let error = done { throw error }
            return
        }
        if action.lead { runRounds(handOff: true) }
        wait.semaphore.wait()
        if let error = wait.error { throw error }
    }

    /// Makes version `receipt.version` durable by running the sync round on the calling thread,
    /// if no round is in flight: returns true once the version (or a later one) is durable,
    /// having blocked the thread for the sync. If a round is in flight (or a `.normal` commit
    /// waits to go before the next one), returns false at once and changes nothing; wait with
    /// `waitUntilDurable` then. Rounds needed after this one go to the sync queue.
    ///
    /// For callers whose thread serves them alone (an actor's own thread): a durable commit then
    /// needs no thread switch. Never call it on a thread of the cooperative pool, where a slow
    /// sync would hold a thread other tasks need. Throws `handleFailed` if a sync failed before
    /// the version became durable.
    package func waitUntilDurableRunningRound(_ receipt: CommitReceipt) throws(StorageError) -> Bool {
        let wait = BlockingDurabilityWait()
        let settledNow = try commitState.withLock { s throws(StorageError) -> Bool? in
            if let done = settled(receipt.version, s) {
                if let error = done { throw error }
                return true
            }
            guard s.roundMayStart else { return false }
            s.waiters.append(.blocking(version: receipt.version, wait))
            let claimed = s.claimRound()
            assert(claimed, "a round may start and a waiter waits, so the claim holds")
            s.roundsRunByCommitters += 1
            return nil
        }
        if let settledNow { return settledNow }
        runRounds(handOff: true)
        // The round just run targeted the latest version, so it covered this one: the wait
        // returns at once.
        wait.semaphore.wait()
        if let error = wait.error { throw error }
        return true
    }

    /// Rounds run on a committer's thread by `waitUntilDurableRunningRound` since the handle
    /// opened (for tests).
    package var syncRoundsRunByCommitters: Int { commitState.withLock { $0.roundsRunByCommitters } }

    /// The sync rounds run since the handle opened, the versions they made durable and the pages
    /// reused within rounds (for tests and benchmarks).
    package var syncRoundCounts: SyncRoundCounts {
        commitState.withLock { s in
            var counts = s.roundCounts
            counts.pagesReusedWithinRounds = s.pagesReusedWithinRounds
            return counts
        }
    }

    /// nil while `version` is not durable and may become so; otherwise the outcome.
    private func settled(_ version: UInt64, _ s: CommitState) -> StorageError?? {
        // A receipt never names a version beyond the latest, but one that did must not make
        // rounds run for ever.
        if version <= s.durableVersion || version > shared.withLock({ $0.meta.version }) { return .some(nil) }
        if let failure = s.failure { return .some(failure) }
        return nil
    }

    /// Starts a round on the sync queue if someone waits and none is running.
    func startRoundIfNeeded() {
        if commitState.withLock({ $0.claimRound() }) { inBackground(on: syncQueue) { $0.runRounds() } }
    }

    // MARK: Sync rounds

    private enum RoundPlan {
        /// The target's meta is in the pending slot already.
        case sync
        /// Write the meta with its list, then sync.
        case writeThenSync(Meta, WrittenPages)
        /// Pages not listed: sync them, write the meta, sync again.
        case syncWriteSync(Meta)
        /// Sharing the file, without the writer lock: this process let go of it only once its
        /// versions were durable (`releaseFileWriterLockIfIdle`), so there is nothing to sync,
        /// and another process may be writing the metas now.
        case nothingToSync
    }

    /// Runs sync rounds while waiters remain; the caller has claimed the first one. With
    /// `handOff` (a blocking caller running its own round), later rounds go to the sync queue.
    func runRounds(handOff: Bool = false) {
        while true {
            let (target, slot, plan) = commitState.withLock { s -> (UInt64, Int, RoundPlan) in
                let meta = shared.withLock { $0.meta }
                if lockFile != nil, !s.holdsFileWriterLock { return (s.durableVersion, s.pendingSlot, .nothingToSync) }
                if s.metaOnDisk == meta.version { return (meta.version, s.pendingSlot, .sync) }
                if let written = s.writtenPages() { return (meta.version, s.pendingSlot, .writeThenSync(meta, written)) }
                return (meta.version, s.pendingSlot, .syncWriteSync(meta))
            }
            shared.withLock { $0.activeRounds += 1 }
            var failure: StorageError?
            do throws(StorageError) {
                switch plan {
                case .nothingToSync:
                    break
                case .sync:
                    try syncDevice()
                case .writeThenSync(let meta, let written):
                    try writeMetaPage(meta, slot: slot, written: written)
                    // Nobody else writes the pending slot while the round is in flight.
                    commitState.withLock { $0.pendingSlotVersion = target }
                    try syncDevice()
                case .syncWriteSync(let meta):
                    try syncDevice()
                    try writeMetaPage(meta, slot: slot, written: WrittenPages(base: target, entries: []))
                    try syncDevice()
                }
            } catch {
                failure = error
            }
            let (resumed, writer, next) = finishRound(target: target, failure: failure, synced: !isNothingToSync(plan))
            for (waiter, error) in resumed { waiter.resume(error) }
            writer?.signal()
            let closeDevice = shared.withLock { s in
                s.activeRounds -= 1
                return s.shouldCloseDevice()
            }
            if closeDevice { device.close() }
            guard next else {
                releaseFileWriterLockIfIdle()
                return
            }
            if handOff {
                inBackground(on: syncQueue) { $0.runRounds() }
                return
            }
        }
    }

    /// A sync that fails fails the handle: the kernel may have dropped the writes it could not
    /// make durable, and a retry that succeeds would prove nothing.
    private func syncDevice() throws(StorageError) {
        do {
            try device.sync()
        } catch {
            let failed = StorageError.handleFailed(path: name, what: "a sync failed", cause: error)
            fail(failed)
            throw failed
        }
    }

    private func isNothingToSync(_ plan: RoundPlan) -> Bool {
        if case .nothingToSync = plan { return true }
        return false
    }

    /// Records the round's outcome; returns the waiters to resume (with their outcome), the
    /// `.normal` commit to wake, and whether another round follows at once. `synced` is false
    /// for a round without the writer lock (`RoundPlan.nothingToSync`), which changes nothing.
    private func finishRound(
        target: UInt64, failure: StorageError?, synced: Bool
    ) -> (resumed: [(DurabilityWaiter, StorageError?)], writer: DispatchSemaphore?, next: Bool) {
        commitState.withLock { s in
            let writer = s.normalWriter
            s.normalWriter = nil
            s.normalWriterWoken = writer != nil
            if let failure {
                let error: StorageError =
                    if case .handleFailed = failure { failure } else {
                        .handleFailed(path: name, what: "writing a meta page failed", cause: failure)
                    }
                if case .handleFailed = failure {} else { fail(error) }
                s.failure = error
                s.roundInFlight = false
                let all = s.waiters.map { ($0, Optional(error)) }
                s.waiters.removeAll()
                return (all, writer, false)
            }
            let published = shared.withLock { $0.meta.version }
            if synced {
                s.roundCounts.rounds += 1
                if target > s.durableVersion { s.roundCounts.versionsMadeDurable += target - s.durableVersion }
                s.durableVersion = max(s.durableVersion, target)
                s.heldBack.removeVersions(upTo: target)
                s.backgroundRoundWanted = false
                s.durableSlot = s.pendingSlot
                s.durableSlotVersion = target
                s.metaOnDisk = nil
                s.pendingSlotVersion = nil
                // Pages written up to the target belong to the durable version now: the ones
                // freed after it are ordinary held-back pages until the next round.
                s.roundFreed.keepWritten(after: target)
                if s.untracked {
                    // Every page written so far is durable; nothing published since means
                    // nothing to list.
                    if published == target { s.untracked = false }
                } else {
                    s.unsynced.removeWritten(upTo: target)
                }
            }
            var resumed: [(DurabilityWaiter, StorageError?)] = []
            s.waiters.removeAll { waiter in
                guard waiter.version <= s.durableVersion else { return false }
                resumed.append((waiter, nil))
                return true
            }
            if lockFile != nil, !s.holdsFileWriterLock {
                // Every version this process committed was durable when it let go of the
                // writer lock, and it commits none without taking the lock again; so no waiter
                // is left here. Were one left, no round could serve it: it gets an error rather
                // than rounds run for ever.
                s.backgroundRoundWanted = false
                for waiter in s.waiters {
                    resumed.append(
                        (
                            waiter,
                            .handleFailed(
                                path: name, what: "version \(waiter.version) was not synced before another process took the writer lock", cause: nil)
                        ))
                }
                s.waiters.removeAll()
            }
            s.roundInFlight = false
            // A `.normal` commit waiting to write its meta goes first; it starts the next round.
            if writer != nil { return (resumed, writer, false) }
            if s.claimRound() { return (resumed, nil, true) }
            // Versions published during the round with no one waiting: their meta goes to the
            // kernel now, so that they survive a crash of the process.
            if published > target, !s.untracked, lockFile == nil || s.holdsFileWriterLock {
                try? writeMeta(shared.withLock { $0.meta }, into: &s)
            }
            return (resumed, nil, false)
        }
    }
}

extension CommitState {
    /// Stops listing written pages until a round has synced everything.
    mutating func untrack() {
        untracked = true
        unsynced.removeAll()
        roundFreed.removeAll()
    }
}
