/// The decisions of the per-file write lock, free of any locking or resuming so that each
/// transition can be read (and tested) on its own. `WriteLock` performs the actions it returns.
///
/// Waiters are served first come, first served. A waiter is async (a suspended task) or
/// blocking (a thread parked on a semaphore, for the synchronous `write` API).
struct WriteLockStateMachine<AsyncWaiter, BlockingWaiter> {
    enum Waiter {
        case async(id: UInt64, AsyncWaiter)
        case blocking(BlockingWaiter)
    }

    enum State {
        /// Nobody holds the lock and nobody waits.
        case unlocked
        /// One transaction holds the lock; the others wait in order of arrival.
        case locked(waiters: [Waiter])
    }

    private(set) var state: State = .unlocked

    enum AcquireAction {
        /// The caller holds the lock now.
        case acquired
        /// The caller was queued; it will be handed the lock by a later `release`.
        case wait
    }

    mutating func acquire(_ waiter: Waiter) -> AcquireAction {
        switch state {
        case .unlocked:
            state = .locked(waiters: [])
            return .acquired
        case .locked(var waiters):
            waiters.append(waiter)
            state = .locked(waiters: waiters)
            return .wait
        }
    }

    /// Acquires the lock only if nobody holds it.
    mutating func tryAcquire() -> Bool {
        guard case .unlocked = state else { return false }
        state = .locked(waiters: [])
        return true
    }

    enum ReleaseAction {
        case none
        /// Hand the lock to this waiter: it holds it from now on.
        case handOver(Waiter)
    }

    mutating func release() -> ReleaseAction {
        switch state {
        case .unlocked:
            preconditionFailure("write lock released while not held")
        case .locked(var waiters):
            if waiters.isEmpty {
                state = .unlocked
                return .none
            }
            let next = waiters.removeFirst()
            state = .locked(waiters: waiters)
            return .handOver(next)
        }
    }

    enum CancelAction {
        case none
        /// The waiter was still queued: resume it with a cancellation error.
        case resumeCancelled(AsyncWaiter)
    }

    mutating func cancel(id: UInt64) -> CancelAction {
        guard case .locked(var waiters) = state else { return .none }
        for (index, waiter) in waiters.enumerated() {
            if case .async(let waiterID, let continuation) = waiter, waiterID == id {
                waiters.remove(at: index)
                state = .locked(waiters: waiters)
                return .resumeCancelled(continuation)
            }
        }
        return .none
    }
}

extension WriteLockStateMachine.Waiter: Sendable where AsyncWaiter: Sendable, BlockingWaiter: Sendable {}
extension WriteLockStateMachine.State: Sendable where AsyncWaiter: Sendable, BlockingWaiter: Sendable {}
extension WriteLockStateMachine: Sendable where AsyncWaiter: Sendable, BlockingWaiter: Sendable {}
extension WriteLockStateMachine.AcquireAction: Sendable {}
extension WriteLockStateMachine.ReleaseAction: Sendable where AsyncWaiter: Sendable, BlockingWaiter: Sendable {}
extension WriteLockStateMachine.CancelAction: Sendable where AsyncWaiter: Sendable {}
