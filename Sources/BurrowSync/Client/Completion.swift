import Burrow
import BurrowStorage

/// One thing a task waits for, which ends once, with success or an error: an upload or a
/// download a `waitFor…` call waits for, or the client's first round.
///
/// The client's actor ends it; the waiting task waits outside the actor, so that it returns as
/// soon as the actor ends it, not once the actor is done with what it does next (after an
/// upload, a round goes on to download, which can take as long as the upload did).
///
/// State: everything is behind `state`'s lock.
final class Completion: Sendable {
    private enum State {
        case waiting([CheckedContinuation<Void, any Error>])
        case ended(Result<Void, RealmError>)
    }

    private let state = Locked(State.waiting([]))

    /// Returns once the completion ends, at once if it has; throws its error.
    func wait() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let ended: Result<Void, RealmError>? = state.withLock { state in
                switch state {
                case .waiting(let continuations):
                    state = .waiting(continuations + [continuation])
                    return nil
                case .ended(let result): return result
                }
            }
            if let ended { continuation.resume(with: ended.mapError { $0 }) }
        }
    }

    /// Ends the completion with `result` and resumes every waiting task; later calls change
    /// nothing.
    func end(_ result: Result<Void, RealmError> = .success(())) {
        let continuations: [CheckedContinuation<Void, any Error>] = state.withLock { state in
            guard case .waiting(let continuations) = state else { return [] }
            state = .ended(result)
            return continuations
        }
        for continuation in continuations { continuation.resume(with: result.mapError { $0 }) }
    }
}
