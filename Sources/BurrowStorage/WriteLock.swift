import Dispatch

/// The lock that makes write transactions on one file take turns across the whole process.
/// Async callers suspend without blocking a thread and may be cancelled while they wait;
/// blocking callers park their thread (the synchronous write API needs that).
///
/// State: the state machine and the next waiter id, both guarded by `state`.
final class WriteLock: Sendable {
    typealias Machine = WriteLockStateMachine<CheckedContinuation<Void, any Error>, DispatchSemaphore>
    private let state = Locked<(machine: Machine, nextID: UInt64)>((Machine(), 0))

    /// Waits for the lock. Throws `CancellationError` if the task is cancelled first, in which
    /// case the lock is not held. Runs on the caller's executor (`isolation`), so taking a free
    /// lock costs no hop to another executor and back.
    func acquire(isolation: isolated (any Actor)? = #isolation) async throws {
        // A free lock is taken at once, without a continuation or a cancellation handler (a
        // lock with waiters is never free, so this does not jump the queue).
        if !Task.isCancelled, tryAcquire() { return }
        let id = state.withLock { s in
            s.nextID += 1
            return s.nextID
        }
        try await withTaskCancellationHandler {
            // Capturing `isolation` makes this closure isolated to it. Without the capture the
            // closure is nonisolated, and calling it hops to the global executor and back: free
            // on a default actor (the pool thread gives the actor up and takes it back), but two
            // thread switches on an actor with an executor of its own (`RealmExecutor`).
            _ = isolation
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let action: Machine.AcquireAction? = state.withLock { s in
                    // Checked under the lock: a cancellation handler that ran before we queued
                    // found nothing to cancel, so this is where such a task must stop.
                    if Task.isCancelled { return nil }
                    return s.machine.acquire(.async(id: id, continuation))
                }
                switch action {
                case nil: continuation.resume(throwing: CancellationError())
                case .acquired: continuation.resume()
                case .wait: break
                }
            }
        } onCancel: {
            let action = state.withLock { $0.machine.cancel(id: id) }
            if case .resumeCancelled(let continuation) = action {
                continuation.resume(throwing: CancellationError())
            }
        }
    }

    /// Blocks the calling thread until the lock is held.
    func acquireBlocking() {
        let semaphore = DispatchSemaphore(value: 0)
        let action = state.withLock { $0.machine.acquire(.blocking(semaphore)) }
        if case .wait = action { semaphore.wait() }
    }

    /// How many callers wait for the lock now (none while it is free), for tests that must know
    /// a caller is queued before they go on.
    var waiterCount: Int {
        state.withLock { s in
            if case .locked(let waiters) = s.machine.state { return waiters.count }
            return 0
        }
    }

    func tryAcquire() -> Bool {
        state.withLock { $0.machine.tryAcquire() }
    }

    func release() {
        let action = state.withLock { $0.machine.release() }
        if case .handOver(let waiter) = action {
            switch waiter {
            case .async(_, let continuation): continuation.resume()
            case .blocking(let semaphore): semaphore.signal()
            }
        }
    }
}
