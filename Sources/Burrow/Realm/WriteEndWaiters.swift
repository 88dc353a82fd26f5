import BurrowStorage
import BurrowStore

/// Tasks waiting for one write transaction of a realm to end (commit or cancel), as an
/// observed wrapper first read inside a write waits to start following its changes. One per
/// transaction: once it has ended, waiting returns at once (a task that checked the realm's
/// transaction, then reached `wait()` on another thread after the end, is not left waiting).
/// `Sendable`, so that a waiting task's cancellation, on any thread, can resume it.
final class WriteEndWaiters: Sendable {
    private let waiting = Locked<(next: UInt64, ended: Bool, continuations: [UInt64: CheckedContinuation<Void, Never>])>((0, false, [:]))

    /// Returns once the write transaction open now ends, or the task is cancelled.
    func wait() async {
        let id = waiting.withLock { state in
            defer { state.next += 1 }
            return state.next
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = waiting.withLock { state in
                    if state.ended || Task.isCancelled { return true }
                    state.continuations[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            waiting.withLock { $0.continuations.removeValue(forKey: id) }?.resume()
        }
    }

    /// Resumes every waiting task (the transaction ended, or the realm is going).
    func resumeAll() {
        let continuations = waiting.withLock { state in
            state.ended = true
            defer { state.continuations = [:] }
            return state.continuations.values
        }
        for continuation in continuations { continuation.resume() }
    }
}

extension Realm {
    /// What a task waits on for the open write transaction to end; nil if none is open. The
    /// realm's own isolation.
    func writeEnd() -> WriteEndWaiters? {
        guard write != nil else { return nil }
        if let writeEndWaiters { return writeEndWaiters }
        let waiters = WriteEndWaiters()
        writeEndWaiters = waiters
        return waiters
    }
}
