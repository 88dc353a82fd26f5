import BurrowStorage
import Foundation

/// Values told to every stream that follows them: each new stream starts with the latest value
/// (if any was told and `replaysLatest`), then gets every later one; `finish` ends them all.
///
/// State: everything is behind `state`'s lock.
final class Broadcast<Element: Sendable>: Sendable {
    private struct State {
        var latest: Element?
        var streams: [UUID: AsyncStream<Element>.Continuation] = [:]
        var isFinished = false
    }

    private let state: Locked<State>
    private let replaysLatest: Bool

    /// A broadcast whose latest value is `initial`; new streams start with the latest value
    /// if `replaysLatest`.
    init(_ initial: Element? = nil, replaysLatest: Bool) {
        state = Locked(State(latest: initial))
        self.replaysLatest = replaysLatest
    }

    var latest: Element? { state.withLock { $0.latest } }

    /// A new stream: the latest value (if replayed), then each one `publish` gives.
    func stream() -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: .unbounded)
        let id = UUID()
        let finished = state.withLock { state -> Bool in
            if replaysLatest, let latest = state.latest { continuation.yield(latest) }
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

    func publish(_ value: Element) {
        state.withLock { state in
            state.latest = value
            for continuation in state.streams.values { continuation.yield(value) }
        }
    }

    /// Publishes `last` (if given) and ends every stream; later streams get the latest value
    /// alone (if replayed).
    func finish(with last: Element? = nil) {
        let streams = state.withLock { state -> [AsyncStream<Element>.Continuation] in
            if let last { state.latest = last }
            state.isFinished = true
            defer { state.streams = [:] }
            return Array(state.streams.values)
        }
        for continuation in streams {
            if let last { continuation.yield(last) }
            continuation.finish()
        }
    }
}
