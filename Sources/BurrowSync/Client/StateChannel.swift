import BurrowStorage
import Foundation

/// The state of a sync client and the streams that follow it: each new stream starts with the
/// current state and gets every later one; `finish` ends them all.
///
/// State: everything is behind `state`'s lock.
final class StateChannel: Sendable {
    private struct State {
        var current: SyncState
        var streams: [UUID: AsyncStream<SyncState>.Continuation] = [:]
        var isFinished = false
    }

    private let state: Locked<State>

    init(_ initial: SyncState) {
        state = Locked(State(current: initial))
    }

    var current: SyncState { state.withLock { $0.current } }

    /// A new stream: the current state, then each one `publish` gives.
    func stream() -> AsyncStream<SyncState> {
        let (stream, continuation) = AsyncStream<SyncState>.makeStream(bufferingPolicy: .unbounded)
        let id = UUID()
        let finished = state.withLock { state -> Bool in
            continuation.yield(state.current)
            if state.isFinished { return true }
            state.streams[id] = continuation
            return false
        }
        if finished {
            continuation.finish()
        } else {
            continuation.onTermination = { [weak self] _ in self?.state.withLock { _ = $0.streams.removeValue(forKey: id) } }
        }
        return stream
    }

    func publish(_ new: SyncState) {
        state.withLock { state in
            state.current = new
            for continuation in state.streams.values { continuation.yield(new) }
        }
    }

    /// Publishes `last` and ends every stream; later streams get `last` alone.
    func finish(with last: SyncState) {
        let streams = state.withLock { state -> [AsyncStream<SyncState>.Continuation] in
            state.current = last
            state.isFinished = true
            defer { state.streams = [:] }
            return Array(state.streams.values)
        }
        for continuation in streams {
            continuation.yield(last)
            continuation.finish()
        }
    }
}
