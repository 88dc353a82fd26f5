import BurrowStorage
import BurrowStore

/// A stream of changes: a `Sendable` `AsyncSequence` whose elements are frozen, `Sendable`
/// values. The first element shows what is observed as it was when the stream was made; each
/// later one, a change committed since, after it. Changes that come while the consumer is busy
/// are coalesced into one element. Ending the iteration, or cancelling its task, stops the
/// stream and frees it.
///
///     let puppies = realm.objects(Dog.self)
///     for await change in puppies.changes() {
///         switch change {
///         case .initial(let dogs): print(dogs.count)
///         case .update(let dogs, let deletions, let insertions, let modifications): …
///         case .error(let error): print(error)
///         }
///     }
///
/// A write made `withoutNotifying: [stream.token]` produces no element on this stream; its
/// changes become part of the stream's baseline.
public struct ChangeStream<Element: Sendable>: AsyncSequence, Sendable {
    let core: StreamCore<Element>

    /// Names this stream to `write(withoutNotifying:)`.
    public var token: ChangeToken { core.token }

    public func makeAsyncIterator() -> Iterator { Iterator(core: core) }

    public struct Iterator: AsyncIteratorProtocol, Sendable {
        let core: StreamCore<Element>

        public mutating func next() async -> Element? { await core.next() }

        /// Whether an iteration waits for the next commit now (read-only, for tests that must
        /// see the consumer waiting before they commit).
        package var isWaitingForACommit: Bool { core.isWaitingForACommit }
    }
}

/// The property names that `keyPaths` (as `changes(keyPaths:)` takes them) start with.
func observedPropertyNames(_ keyPaths: [String]?) -> Set<String>? {
    keyPaths.map { Set($0.map { String($0.prefix { $0 != "." }) }) }
}

/// The property names that `keyPaths` start with, each checked to be a property of `type`, as
/// RealmSwift rejects key paths that name none (a misspelt one would otherwise leave a stream
/// silent for good). Throws `.invalidArgument` naming the first unknown one.
func observedPropertyNames(_ keyPaths: [String]?, of info: ClassInfo) throws(RealmError) -> Set<String>? {
    guard let names = observedPropertyNames(keyPaths) else { return nil }
    if let unknown = names.sorted().first(where: { info.propertyIndex[$0] == nil }) {
        throw RealmError(
            .invalidArgument,
            "'\(unknown)' is not a property of \(info.name), so changes(keyPaths:) cannot observe it; name properties of \(info.name) (\(info.properties.map(\.name).joined(separator: ", ")))."
        )
    }
    return names
}

/// What a stream watches, and how it describes a change: moves its baseline from version to
/// version and says what changed for its consumer.
protocol ChangeObserver<Element>: Sendable {
    associatedtype Element: Sendable
    /// The version the last element (or the first) showed.
    var baseline: FrozenVersion { get }
    /// The first element, showing the baseline as it is; nil if the stream starts with the
    /// first change (object streams, as in RealmSwift).
    func initial() -> Element?
    /// Moves the baseline to `version`, whose differences from the baseline are `changes`, and
    /// returns the element describing them, or nil if nothing observed changed.
    mutating func advance(to version: FrozenVersion, changes: ChangeSet) -> Element?
    /// Whether the stream has nothing more to say (an observed object was deleted).
    var isFinished: Bool { get }
}

/// The state of one stream, shared by its `ChangeStream` values and iterators; it leaves its
/// hub when the last of them goes.
final class StreamCore<Element: Sendable>: Sendable {
    let token: ChangeToken
    private let hub: ChangeHub?
    private let state: Locked<State>

    private enum Step {
        case element(Element)
        case finished
        case wait(sequence: UInt64)
    }

    private struct State {
        var observer: (any ChangeObserver<Element>)?
        var sentInitial = false
        var ready: [Element] = []
        var isFinished = false
    }

    /// A stream over `observer`, registered with the hub of its baseline's file.
    init(_ observer: some ChangeObserver<Element>) {
        let storage = observer.baseline.snapshotReader.snapshot.storage
        let registration = ChangeHub.register(storage: storage, baseline: observer.baseline)
        token = ChangeToken(id: registration.id)
        hub = registration.hub
        state = Locked(State(observer: observer))
        // Commits made before the stream registered posted nothing: start from the newest
        // version, and compare it with the baseline when the consumer asks.
        if storage.version > observer.baseline.version {
            do {
                registration.hub.offer(try observer.baseline.newest())
            } catch  where error.code == .wrongState {
                // The handle was closed or failed: there is no newer version to read.
            } catch {
                // Cannot throw here; a damaged newest version traps (see "Read errors" in
                // Architecture.md).
                observer.baseline.fail(error)
            }
        }
    }

    /// A stream that yields `element` and ends (a stream that could not start).
    init(failing element: Element) {
        token = ChangeToken(id: 0)
        hub = nil
        state = Locked(State(observer: nil, sentInitial: true, ready: [element]))
    }

    deinit { hub?.unregister(token.id) }

    /// Whether an iteration of this stream waits in its hub for the next commit.
    var isWaitingForACommit: Bool { hub?.isWaiting(token.id) ?? false }

    func next() async -> Element? {
        while true {
            if Task.isCancelled { return finish() }
            let step: Step = state.withLock { state in
                if !state.ready.isEmpty { return .element(state.ready.removeFirst()) }
                guard !state.isFinished, var observer = state.observer, let hub else { return .finished }
                if !state.sentInitial {
                    state.sentInitial = true
                    if let initial = observer.initial() { return .element(initial) }
                }
                let sequence = catchUp(&observer, hub: hub, into: &state.ready)
                state.observer = observer
                if observer.isFinished { state.isFinished = true }
                if !state.ready.isEmpty { return .element(state.ready.removeFirst()) }
                return state.isFinished ? .finished : .wait(sequence: sequence)
            }
            switch step {
            case .element(let element): return element
            case .finished: return finish()
            case .wait(let sequence): await hub?.wait(token.id, afterSequence: sequence)
            }
        }
    }

    /// Moves `observer` over every commit posted since its baseline, appending the elements it
    /// gives to `ready`; returns the hub's post number read.
    private func catchUp(_ observer: inout any ChangeObserver<Element>, hub: ChangeHub, into ready: inout [Element]) -> UInt64 {
        let reading = hub.read(after: observer.baseline.version, for: token.id)
        var pending: ChangeSet?
        var reachedLatest = true
        for (version, record) in reading.records {
            guard let record else {
                // A commit still posting: take what came before it; the post wakes us again.
                reachedLatest = false
                break
            }
            if record.silenced.contains(token), let after = record.after {
                if let changes = pending, let before = record.before, before.version == version - 1,
                    let element = observer.advance(to: before, changes: changes)
                {
                    ready.append(element)
                }
                var absorbed = pending ?? ChangeSet()
                absorbed.merge(record.changes)
                _ = observer.advance(to: after, changes: absorbed)
                pending = nil
            } else {
                pending =
                    pending.map {
                        var merged = $0
                        merged.merge(record.changes)
                        return merged
                    } ?? record.changes
            }
            if observer.isFinished { break }
        }
        if reachedLatest, let changes = pending, let latest = reading.latest, !observer.isFinished,
            let element = observer.advance(to: latest, changes: changes)
        {
            ready.append(element)
        }
        hub.advance(token.id, to: observer.baseline.version)
        return reading.sequence
    }

    /// Ends the stream now, from any thread: it lets go of the version it holds and leaves its
    /// hub, and a waiting iteration returns nil. (An observed wrapper that goes ends its stream
    /// so, rather than when its follower task next runs.)
    func end() {
        _ = finish()
    }

    private func finish() -> Element? {
        let wasRegistered = state.withLock { state in
            defer {
                state.isFinished = true
                state.observer = nil
                state.ready = []
            }
            return !state.isFinished
        }
        if wasRegistered { hub?.unregister(token.id) }
        return nil
    }
}
