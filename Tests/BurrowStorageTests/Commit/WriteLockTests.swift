// The write lock: transactions from many tasks and threads take turns, a waiter cancelled while
// queued leaves with CancellationError and holds nothing, and the pure state machine's
// transitions one by one.

import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Synchronization
import Testing

@testable import BurrowStorage
@testable import StorageCrashWorker

/// Counts the transactions open at once and the most ever seen together.
private final class OverlapCounter: Sendable {
    private let state = Mutex<(current: Int, maximum: Int, total: Int, order: [String])>((0, 0, 0, []))

    func enter(_ who: String) {
        state.withLock {
            $0.current += 1
            $0.maximum = max($0.maximum, $0.current)
            $0.total += 1
            $0.order.append(who)
        }
    }

    func leave() { state.withLock { $0.current -= 1 } }

    var maximum: Int { state.withLock { $0.maximum } }
    var total: Int { state.withLock { $0.total } }
    var current: Int { state.withLock { $0.current } }
    var order: [String] { state.withLock { $0.order } }
}

/// Does a little work inside a transaction, spreading it over time so that overlaps would show.
private func transfer(_ txn: WriteTransaction, _ counter: OverlapCounter, _ who: String) throws {
    counter.enter(who)
    defer { counter.leave() }
    let tree = try txn.openTree(named: "t")
    // Read-modify-write of one counter: lost updates would show if two transactions overlapped.
    let old = try txn.value(forKey: [0], in: tree).map { Int($0[0]) + Int($0[1]) << 8 } ?? 0
    usleep(200)  // time inside the transaction, so that another writer would overlap it
    try txn.put([0], [UInt8(truncatingIfNeeded: old + 1), UInt8(truncatingIfNeeded: (old + 1) >> 8)], in: tree)
    try txn.put(Array(who.utf8), [1], in: tree)
}

private func counterValue(_ storage: Storage) throws -> Int {
    guard let value = try storage.snapshot().tree(named: "t")?.value(forKey: [0]) else { return 0 }
    return Int(value[0]) + Int(value[1]) << 8
}

/// Waits until `count` callers wait in `storage`'s write-lock queue; fails the test (throws) if
/// they have not queued within 30 s.
func waitForQueuedWriters(_ storage: Storage, _ count: Int) async throws {
    let queued = try await TestWait.untilAsync(timeout: 30) { storage.writeLock.waiterCount >= count }
    try #require(queued, "\(count) writers never queued for the write lock (\(storage.writeLock.waiterCount) did)")
}

/// Commits `key: value` to tree "t" from a new async writer and returns the version; records an
/// issue (`what` names the writer) and returns nil if it has not committed within 10 s.
private func commitFromNewWriter(_ storage: Storage, _ key: [UInt8], _ value: [UInt8], _ what: String) async throws -> UInt64? {
    try await withTimeout(seconds: 10, what) {
        let txn = try await storage.beginWrite()
        try txn.put(key, value, in: try txn.openTree(named: "t"))
        return try txn.commit(durability: .normal)
    }
}

/// Whether the write lock is free right now (taking and at once releasing it if so).
private func lockIsFree(_ storage: Storage) -> Bool {
    guard storage.writeLock.tryAcquire() else { return false }
    storage.writeLock.release()
    return true
}

@Suite("WriteLock")
struct WriteLockTests {
    @Test("beginWrite from many tasks serialises the transactions")
    func asyncWritersTakeTurns() async throws {
        let storage = try Storage(device: MemoryDevice(name: "lock-async"))
        let counter = OverlapCounter()
        let writers = 40
        try await runAsyncWriters(writers, storage, counter)
        #expect(counter.maximum == 1, "transactions overlapped")
        #expect(counter.total == writers)
        #expect(try counterValue(storage) == writers, "an update was lost")
        #expect(storage.version == UInt64(writers))
        #expect(lockIsFree(storage))
    }

    @Test("blocking and async writers mix and still take turns")
    func blockingAndAsyncWritersMix() async throws {
        let storage = try Storage(device: MemoryDevice(name: "lock-mixed"))
        let counter = OverlapCounter()
        let threads = 4
        let perThread = 10
        let tasks = 30
        let finished = DispatchSemaphore(value: 0)
        let failures = Mutex<[String]>([])
        for t in 0..<threads {
            Thread {
                for j in 0..<perThread {
                    do {
                        let txn = try storage.beginWriteBlocking()
                        try transfer(txn, counter, "thread-\(t)-\(j)")
                        if j % 3 == 0 { txn.abort() } else { try txn.commit(durability: .normal) }
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
                finished.signal()
            }.start()
        }
        try await runAsyncWriters(tasks, storage, counter)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread {
                for _ in 0..<threads { finished.wait() }
                done.resume()
            }.start()
        }
        #expect(failures.withLock { $0 }.isEmpty)
        #expect(counter.maximum == 1, "transactions overlapped")
        #expect(counter.total == threads * perThread + tasks)
        let aborted = threads * ((perThread + 2) / 3)
        #expect(try counterValue(storage) == threads * perThread + tasks - aborted, "an update was lost or an abort leaked")
        #expect(storage.version == UInt64(threads * perThread + tasks - aborted))
        #expect(lockIsFree(storage))
    }

    @Test("a task cancelled while waiting gets CancellationError and holds nothing")
    func cancelledWaiterHoldsNothing() async throws {
        let storage = try Storage(device: MemoryDevice(name: "lock-cancel"))
        let holder = try storage.beginWriteBlocking()
        let waiter = Task { () async throws -> UInt64 in
            let txn = try await storage.beginWrite()
            defer { txn.abort() }
            return txn.baseVersion
        }
        try await waitForQueuedWriters(storage, 1)  // queued behind the holder
        waiter.cancel()
        let result = await waiter.result
        #expect(throws: CancellationError.self) { try result.get() }

        // The holder is unaffected, and after it the lock is free for the next writer.
        try holder.put([1], [1], in: try holder.openTree(named: "t"))
        #expect(try holder.commit(durability: .normal) == 1)
        #expect(lockIsFree(storage))
        let next = try await commitFromNewWriter(storage, [2], [2], "a writer after the cancelled one")
        #expect(next == 2)
    }

    @Test("cancelling one queued waiter leaves the others in order")
    func cancellingOneOfManyWaiters() async throws {
        let storage = try Storage(device: MemoryDevice(name: "lock-queue"))
        let counter = OverlapCounter()
        let holder = try storage.beginWriteBlocking()

        func writer(_ name: String) -> Task<Void, any Error> {
            Task {
                let txn = try await storage.beginWrite()
                try transfer(txn, counter, name)
                try txn.commit(durability: .normal)
            }
        }
        // Each waiter queues before the next one starts, so the queue's order is known.
        let first = writer("first")
        try await waitForQueuedWriters(storage, 1)
        let cancelled = writer("cancelled")
        try await waitForQueuedWriters(storage, 2)
        let blockingDone = DispatchSemaphore(value: 0)
        let failures = Mutex<[String]>([])
        Thread {
            do {
                let txn = try storage.beginWriteBlocking()
                try transfer(txn, counter, "blocking")
                try txn.commit(durability: .normal)
            } catch {
                failures.withLock { $0.append("blocking writer: \(error)") }
            }
            blockingDone.signal()
        }.start()
        try await waitForQueuedWriters(storage, 3)
        let last = writer("last")
        try await waitForQueuedWriters(storage, 4)

        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(counter.total == 0, "nobody may write while the holder holds the lock")
        holder.abort()

        try await first.value
        try await last.value
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread {
                blockingDone.wait()
                done.resume()
            }.start()
        }
        #expect(failures.withLock { $0 }.isEmpty)
        #expect(counter.order == ["first", "blocking", "last"], "waiters are served first come, first served")
        #expect(counter.maximum == 1)
        #expect(try counterValue(storage) == 3)
        #expect(lockIsFree(storage))
    }

    @Test("an already cancelled task does not take the lock")
    func alreadyCancelledTask() async throws {
        let storage = try Storage(device: MemoryDevice(name: "lock-precancelled"))
        let task = Task { () async throws -> UInt64 in
            while !Task.isCancelled { await Task.yield() }
            let txn = try await storage.beginWrite()
            defer { txn.abort() }
            return txn.baseVersion
        }
        task.cancel()
        let result = await task.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(lockIsFree(storage))
    }

    @Test("dropping a transaction without commit or abort releases the lock")
    func droppedTransactionReleases() async throws {
        let storage = try Storage(device: MemoryDevice(name: "lock-drop"))
        do {
            let txn = try storage.beginWriteBlocking()
            try txn.put([1], [1], in: try txn.openTree(named: "t"))
            #expect(!lockIsFree(storage))
        }
        #expect(lockIsFree(storage))
        #expect(storage.version == 0, "a dropped transaction must not commit")
        let version = try await commitFromNewWriter(storage, [1], [2], "a writer after a dropped transaction")
        #expect(version == 1)
    }

    @Test("a failed start (read-only handle) gives the lock back")
    func failedStartReleases() throws {
        let directory = try TemporaryDirectory("lock")
        let path = directory.file("ro.burrow")
        try modelTestCommit(try Storage.open(path: path), durability: .full) { try $0.put([1], [1], in: try $0.openTree(named: "t")) }
        let readOnly = try Storage.open(path: path, options: StorageOptions(readOnly: true))
        for _ in 0..<3 {
            #expect(throws: StorageError.readOnly(path: path)) { _ = try readOnly.beginWriteBlocking() }
        }
        #expect(lockIsFree(readOnly))
    }

    // MARK: The state machine alone

    typealias Machine = WriteLockStateMachine<String, Int>

    private func isUnlocked(_ machine: Machine) -> Bool {
        if case .unlocked = machine.state { return true }
        return false
    }

    private func waiters(_ machine: Machine) -> [String]? {
        guard case .locked(let waiters) = machine.state else { return nil }
        return waiters.map {
            switch $0 {
            case .async(let id, let value): return "async \(id) \(value)"
            case .blocking(let value): return "blocking \(value)"
            }
        }
    }

    @Test("state machine: acquire, queue, hand over in order, unlock")
    func stateMachineHandOver() {
        var machine = Machine()
        #expect(isUnlocked(machine))
        guard case .acquired = machine.acquire(.async(id: 1, "a")) else {
            Issue.record("first acquire must succeed")
            return
        }
        #expect(waiters(machine) == [])
        guard case .wait = machine.acquire(.blocking(7)) else {
            Issue.record("second acquire must wait")
            return
        }
        guard case .wait = machine.acquire(.async(id: 2, "b")) else {
            Issue.record("third acquire must wait")
            return
        }
        #expect(waiters(machine) == ["blocking 7", "async 2 b"])
        let acquiredWhileLocked = machine.tryAcquire()
        #expect(!acquiredWhileLocked, "tryAcquire must fail while locked")

        guard case .handOver(.blocking(7)) = machine.release() else {
            Issue.record("release must hand over to the blocking waiter")
            return
        }
        #expect(waiters(machine) == ["async 2 b"])
        guard case .handOver(.async(id: 2, "b")) = machine.release() else {
            Issue.record("release must hand over to async 2")
            return
        }
        #expect(waiters(machine) == [])
        guard case .none = machine.release() else {
            Issue.record("last release hands over to nobody")
            return
        }
        #expect(isUnlocked(machine))
    }

    @Test("state machine: cancel removes only the queued async waiter with that id")
    func stateMachineCancel() {
        var machine = Machine()
        guard case .none = machine.cancel(id: 1) else {
            Issue.record("cancel while unlocked does nothing")
            return
        }
        #expect(isUnlocked(machine))

        let acquired = machine.tryAcquire()
        #expect(acquired)
        _ = machine.acquire(.async(id: 1, "one"))
        _ = machine.acquire(.blocking(5))
        _ = machine.acquire(.async(id: 2, "two"))
        _ = machine.acquire(.async(id: 3, "three"))

        guard case .resumeCancelled("two") = machine.cancel(id: 2) else {
            Issue.record("cancel must return waiter 2")
            return
        }
        #expect(waiters(machine) == ["async 1 one", "blocking 5", "async 3 three"])
        guard case .none = machine.cancel(id: 2) else {
            Issue.record("a second cancel finds nothing")
            return
        }
        guard case .none = machine.cancel(id: 99) else {
            Issue.record("an unknown id finds nothing")
            return
        }
        #expect(waiters(machine) == ["async 1 one", "blocking 5", "async 3 three"])

        // The holder is not a waiter: cancelling the id of the task that got the lock does nothing.
        guard case .handOver(.async(id: 1, "one")) = machine.release() else {
            Issue.record("hand over to 1")
            return
        }
        guard case .none = machine.cancel(id: 1) else {
            Issue.record("the holder cannot be cancelled")
            return
        }
        guard case .handOver(.blocking(5)) = machine.release() else {
            Issue.record("hand over to blocking 5")
            return
        }
        guard case .resumeCancelled("three") = machine.cancel(id: 3) else {
            Issue.record("cancel 3")
            return
        }
        #expect(waiters(machine) == [])
        guard case .none = machine.release() else {
            Issue.record("nobody left")
            return
        }
        #expect(isUnlocked(machine))
        let first = machine.tryAcquire()
        let second = machine.tryAcquire()
        #expect(first && !second, "tryAcquire succeeds once on an unlocked lock")
    }

    @Test("state machine: releasing an unlocked lock is a programming error")
    func stateMachineReleaseWhileUnlocked() async {
        await #expect(processExitsWith: .failure) {
            var machine = WriteLockStateMachine<String, Int>()
            _ = machine.release()
        }
    }
}

/// Runs `count` tasks that each wait for the write lock, make one transfer (yielding while they
/// hold the lock, to invite overlap) and commit.
private func runAsyncWriters(_ count: Int, _ storage: Storage, _ counter: OverlapCounter) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
        for i in 0..<count {
            group.addTask {
                let txn = try await storage.beginWrite()
                try transfer(txn, counter, "task-\(i)")
                await Task.yield()
                try txn.commit(durability: .normal)
            }
        }
        try await group.waitForAll()
    }
}
