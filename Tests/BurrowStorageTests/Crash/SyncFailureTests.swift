import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Synchronization
import Testing

@testable import BurrowStorage
@testable import StorageCrashWorker

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed sync: the commit that hits it throws, the handle refuses all further work with
/// `.handleFailed`, nothing is retried, the device is closed (releasing the file lock) once no
/// snapshot of the failed handle is left, and a fresh engine over the same bytes opens at a
/// consistent version.
@Suite("SyncFailure", .ownThread)
struct SyncFailureTests {
    /// Runs the workload on `storage` until `count` transactions have committed (`.full`), then
    /// advances `replay` to the resulting version.
    static func commit(
        _ count: Int, on storage: Storage, workload: inout CrashWorkload, replay: inout CrashReplay
    ) throws {
        try workload.commitFull(count, on: storage)
        replay.advance(to: storage.version)
    }

    /// Records an issue unless `call` (named `what`) throws `.handleFailed`.
    static func expectHandleFailed(_ what: String, _ call: () throws -> Void) {
        do {
            try call()
            Issue.record("\(what) succeeded on a failed handle")
        } catch {
            #expect(isHandleFailed(error), "\(what) threw \(error)")
        }
    }

    static func isHandleFailed(_ error: any Error) -> Bool {
        if case .handleFailed = error as? StorageError { return true }
        return false
    }

    /// Which sync fails: the one sync of a commit whose pages the meta lists (`oneSync` 1), or
    /// the first (after the pages) or second (after the meta) of a two-sync commit (`twoSync` 1
    /// or 2: the first commit after opening an existing file syncs twice); and whether the failed
    /// sync also dropped the writes it covered (as Linux may, marking pages clean).
    @Test(
        "A failed sync fails the commit and the handle; a fresh open is consistent",
        arguments: [(true, 1), (false, 1), (false, 2)], [false, true])
    func failedSyncFailsTheHandle(commit kind: (oneSync: Bool, failingSync: Int), dropsWrites: Bool) async throws {
        let (oneSync, failingSync) = kind
        let seed = TestSeed.make("SyncFailure \(oneSync ? "one-sync" : "two-sync") sync \(failingSync) drops \(dropsWrites)")
        var rng = TestRandom(seed: seed)
        let workloadSeed = rng.next()
        var workload = CrashWorkload(seed: workloadSeed, profile: .light)
        var replay = CrashReplay(seed: workloadSeed, profile: .light)
        var checker = CrashChecker()
        var disk = SimulatedDisk(name: "sync-failure disk", capacity: 1 << 26)
        var storage = try Storage(device: disk)
        try Self.commit(rng.int(1...6), on: storage, workload: &workload, replay: &replay)
        if !oneSync {
            // Reopen: a handle does not know whether the meta it opened is durable, so its first
            // commit syncs before writing its meta.
            disk = SimulatedDisk(name: "sync-failure disk", image: disk.durableImage, capacity: 1 << 26)
            storage = try Storage(device: disk)
        }
        let before = storage.version
        let beforeModel = replay.model
        var oldSnapshot: Snapshot? = try storage.snapshot()

        disk.failSync(after: failingSync, dropsWrites: dropsWrites)
        var transaction = workload.nextTransaction()
        while !transaction.commits { transaction = workload.nextTransaction() }
        // Kept in memory whole, so that every write counted below is the commit's.
        transaction.memoryLimitPages = nil
        let writesBefore = disk.counts.writes
        let syncsBefore = disk.counts.syncs
        guard let thrown = try Self.failingCommit(on: storage, { try transaction.perform(in: $0) }) else {
            Issue.record("the commit returned although sync \(failingSync) of it failed")
            return
        }
        #expect(Self.isHandleFailed(thrown), "the commit threw \(thrown), expected .handleFailed")
        // The failed handle keeps the error of the sync that failed it.
        #expect(thrown.rootCause == .io(path: disk.name, operation: "fsync", errno: EIO), "\(thrown)")
        let afterFailure = disk.counts
        #expect(afterFailure.syncs == syncsBefore + failingSync, "sync calls \(afterFailure.syncs - syncsBefore)")
        // One-sync: pages and meta, then the sync. Two-sync: pages, sync, meta, sync.
        let writes = oneSync ? 2 : failingSync
        #expect(afterFailure.writes == writesBefore + writes, "the commit wrote \(afterFailure.writes - writesBefore) times")
        // A snapshot of the failed handle is alive: the device (and the file's lock) stays, or a
        // new handle could reuse pages it reads.
        #expect(!disk.isClosed, "the device was closed while a snapshot of the failed handle was alive")

        // The handle refuses everything.
        Self.expectHandleFailed("snapshot()") { _ = try storage.snapshot() }
        Self.expectHandleFailed("statistics()") { _ = try storage.statistics() }
        Self.expectHandleFailed("beginWriteBlocking()") { _ = try storage.beginWriteBlocking() }
        do {
            _ = try await storage.beginWrite()
            Issue.record("beginWrite() succeeded on a failed handle")
        } catch {
            #expect(Self.isHandleFailed(error), "beginWrite() threw \(error)")
        }
        // The commit was published before its sync (waiting for durability comes after).
        #expect(storage.version == before + 1, "the failed commit was published as version \(storage.version)")
        // Nothing was retried: no write or sync reached the device after the failure.
        let final = disk.counts
        #expect(final.writes == afterFailure.writes && final.syncs == afterFailure.syncs)
        #expect(final.writesAfterFailure == 0 && final.syncsAfterFailure == 0, "retried: \(final)")

        // A snapshot taken before the failure still reads its version; once it is released, the
        // failed handle lets go of the device.
        _ = try oldSnapshot!.verify()
        #expect(try checker.difference(oldSnapshot!, beforeModel) == nil)
        oldSnapshot = nil
        #expect(disk.isClosed, "the device stayed open after the failed handle's last snapshot was released")
        #expect(disk.counts.writesAfterFailure == 0 && disk.counts.syncsAfterFailure == 0)

        // What the kernel shows (every write, durable or not): the meta of the failed commit is
        // there unless the failure came at the sync before it.
        let expectedFromCache = oneSync || failingSync == 2 ? before + 1 : before
        replay.advance(to: expectedFromCache)
        let fromCache = try Storage(device: SimulatedDisk(name: "page cache image", image: disk.currentImage, capacity: 1 << 26))
        #expect(fromCache.version == expectedFromCache)
        let snapshot = try fromCache.snapshot()
        _ = try snapshot.verify()
        #expect(try checker.difference(snapshot, replay.model) == nil)
        // And it takes new commits.
        try Self.commit(1, on: fromCache, workload: &workload, replay: &replay)
        _ = try fromCache.snapshot().verify()

        // What is durable (a power loss after the failure): always the version before.
        let fromDisk = try Storage(device: SimulatedDisk(name: "durable image", image: disk.durableImage, capacity: 1 << 26))
        #expect(fromDisk.version == before)
        let durableSnapshot = try fromDisk.snapshot()
        _ = try durableSnapshot.verify()
        #expect(try checker.difference(durableSnapshot, beforeModel) == nil)
    }

    /// Makes `changes` on `storage` and commits them, expecting the commit to fail; returns what it threw, or nil.
    /// The transaction (and the snapshot of its base version it holds) is gone on return.
    static func failingCommit(on storage: Storage, _ changes: (WriteTransaction) throws -> Void) throws -> StorageError? {
        let txn = try storage.beginWriteBlocking()
        try changes(txn)
        do {
            try txn.commit(durability: .full)
            return nil
        } catch {
            return error
        }
    }

    /// Found here first: `statistics()` did not check the handle, returning stale numbers (or
    /// `.closed` from a closed `FileDevice`). Kept as a regression test.
    @Test("A failed handle refuses statistics() with .handleFailed too")
    func failedHandleRefusesStatistics() throws {
        let disk = SimulatedDisk(name: "sync-failure statistics disk", capacity: 1 << 24)
        let storage = try Storage(device: disk)
        disk.failSync(after: 1)
        let txn = try storage.beginWriteBlocking()
        try txn.put([1], [1], in: try txn.openTree(named: "t"))
        #expect(throws: StorageError.self) { try txn.commit() }
        do {
            let statistics = try storage.statistics()
            Issue.record("statistics() succeeded on a failed handle: \(statistics)")
        } catch {
            #expect(Self.isHandleFailed(error), "statistics() threw \(error)")
            #expect(error.rootCause == .io(path: disk.name, operation: "fsync", errno: EIO), "\(error)")
        }
    }

    @Test("A failed sync while creating a file fails the open; a fresh open is consistent")
    func failedSyncWhileCreating() throws {
        let disk = SimulatedDisk(name: "sync-failure creation disk", capacity: 1 << 24)
        disk.failSync(after: 1)
        #expect(throws: StorageError.self) { _ = try Storage(device: disk) }
        #expect(disk.counts.syncs == 1 && disk.counts.syncsAfterFailure == 0)
        for image in [disk.currentImage, disk.durableImage] {
            let reopened = try Storage(device: SimulatedDisk(name: "reopened", image: image, capacity: 1 << 24))
            #expect(reopened.version == 0)
            let report = try reopened.snapshot().verify()
            #expect(report.trees == 0 && report.pageCount == 2)
        }
    }

    /// The same on a real file, through a device that wraps `FileDevice` and fails its sync. While
    /// a snapshot of the failed handle lives the file stays locked; once the last one is released
    /// the lock goes, even though the handle object itself is still referenced, and the file
    /// reopens from what is on disk.
    @Test("A failed sync on a real file releases its lock with the last snapshot; reopening is consistent")
    func failedSyncOnARealFile() throws {
        let directory = try TemporaryDirectory("syncfail")
        for (oneSync, failingSync) in [(true, 1), (false, 1), (false, 2)] {
            let path = directory.file("sync\(oneSync ? "one" : "two")\(failingSync).burrow")
            try Self.failOnce(path: path, oneSync: oneSync, failingSync: failingSync)
            // The page cache holds the failed commit's meta unless the sync before it failed.
            let landed = oneSync || failingSync == 2
            let reopened = try Storage.open(path: path)
            #expect(reopened.version == (landed ? 4 : 3))
            let snapshot = try reopened.snapshot()
            _ = try snapshot.verify()
            #expect(try snapshot.tree(named: "t")?.value(forKey: [9]) == (landed ? [9] : nil))
            #expect(try snapshot.tree(named: "t")?.value(forKey: [2]) == [UInt8](repeating: 2, count: 3000))
            reopened.close()
        }
    }

    /// Commits three versions on `path`, then fails the `failingSync`-th sync of a fourth commit,
    /// and checks the failed handle and the file's lock while the handle is still referenced.
    /// Without `oneSync` the file is reopened first, so that the fourth commit syncs twice.
    static func failOnce(path: String, oneSync: Bool, failingSync: Int) throws {
        var device = SyncFailureFileDevice(inner: try FileDevice(path: path, readOnly: false, create: true))
        var storage = try Storage(device: device)
        for i in 0..<3 {
            let txn = try storage.beginWriteBlocking()
            try txn.put([UInt8(i)], [UInt8](repeating: UInt8(i), count: 3000), in: try txn.openTree(named: "t"))
            try txn.commit()
        }
        if !oneSync {
            storage.close()
            device.close()
            device = SyncFailureFileDevice(inner: try FileDevice(path: path, readOnly: false, create: false))
            storage = try Storage(device: device)
        }
        var snapshot: Snapshot? = try storage.snapshot()  // a reader still holding the old version
        device.failSync(after: failingSync)
        let thrown = try Self.failingCommit(on: storage) { txn in try txn.put([9], [9], in: try txn.openTree(named: "t")) }
        #expect(thrown.map(Self.isHandleFailed) == true, "commit threw \(String(describing: thrown))")
        #expect(device.syncsAfterFailure == 0)
        Self.expectHandleFailed("snapshot()") { _ = try storage.snapshot() }
        // The old reader still reads its version, and keeps the file locked meanwhile (flock
        // conflicts between open file descriptions, in one process as across processes).
        #expect(try snapshot!.tree(named: "t")?.value(forKey: [2]) == [UInt8](repeating: 2, count: 3000))
        #expect(throws: StorageError.fileLocked(path: path)) { _ = try FileDevice(path: path, readOnly: true, create: false) }
        // Its release lets the file go.
        snapshot = nil
        do {
            let probe = try FileDevice(path: path, readOnly: true, create: false)
            probe.close()
        } catch {
            Issue.record("the file is still locked after the failed handle's last snapshot was released: \(error)")
        }
        withExtendedLifetime(storage) {}
    }
}

/// A `FileDevice` whose sync fails on demand (without reaching the file).
final class SyncFailureFileDevice: StorageDevice {
    let inner: FileDevice
    private let state = Mutex<(syncs: Int, failAt: Int?, failed: Bool, syncsAfterFailure: Int)>((0, nil, false, 0))

    init(inner: FileDevice) { self.inner = inner }

    var name: String { inner.name }
    var syncsAfterFailure: Int { state.withLock { $0.syncsAfterFailure } }

    func failSync(after n: Int) { state.withLock { $0.failAt = $0.syncs + n } }

    func size() throws(StorageError) -> Int { try inner.size() }
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(StorageError) -> Int {
        try inner.read(into: buffer, at: offset)
    }
    func write(_ pieces: [(offset: Int, bytes: UnsafeRawBufferPointer)]) throws(StorageError) { try inner.write(pieces) }
    func sync() throws(StorageError) {
        let fail = state.withLock { s -> Bool in
            if s.failed {
                s.syncsAfterFailure += 1
                return true
            }
            s.syncs += 1
            if s.syncs == s.failAt { s.failed = true }
            return s.failed
        }
        if fail { throw .io(path: name, operation: "fsync", errno: EIO) }
        try inner.sync()
    }
    func map(minimumLength: Int) throws(StorageError) -> any MappedRegion { try inner.map(minimumLength: minimumLength) }
    func close() { inner.close() }
}
