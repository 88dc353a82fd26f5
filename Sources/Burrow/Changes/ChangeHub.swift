import BurrowStorage
import BurrowStore

/// The change log of one open file, shared by every realm of it in the process, while some
/// change stream observes it.
///
/// Every commit made while a hub exists posts a record: what it changed, which streams it leaves
/// silent, and the version it made. Streams read the records between their baseline and the
/// newest version when their consumer asks for the next element, so a slow consumer gets the
/// changes coalesced, and records no stream still needs are dropped. Commits of other processes
/// sharing the file arrive through the storage (`noteCommitsOfOtherProcesses`), with unknown
/// changes: streams compare the versions.
///
/// State: everything is behind `state`'s lock; the table of hubs behind its own, always taken
/// first. Waiting streams hold continuations that every post resumes.
final class ChangeHub: Sendable {
    struct Record: Sendable {
        let changes: ChangeSet
        /// Streams this commit leaves silent.
        let silenced: Set<ChangeToken>
        /// For a commit that silences some stream: the versions just before and after it, so
        /// that the stream can report what came before and take the commit into its baseline.
        let before: FrozenVersion?
        let after: FrozenVersion?
    }

    /// What a stream reads: the newest version, and the records since its baseline in version
    /// order (nil where a record is missing: a commit still posting, or one made before the
    /// stream registered, whose changes are unknown).
    struct Reading {
        let latest: FrozenVersion?
        let records: [(version: UInt64, record: Record?)]
        /// Posts so far: a stream that finds nothing to do waits for the next one.
        let sequence: UInt64
    }

    private struct Stream {
        var baseline: UInt64
        /// Versions up to this one may have committed before the stream registered.
        let registeredAt: UInt64
    }

    private struct State {
        var records: [UInt64: Record] = [:]
        var latest: FrozenVersion?
        var streams: [UInt64: Stream] = [:]
        /// Per stream, the iterations waiting for a post (one, unless several tasks iterate the
        /// same stream).
        var waiters: [UInt64: [CheckedContinuation<Void, Never>]] = [:]
        var sequence: UInt64 = 0
    }

    /// The file's storage, by identity only: a hub does not keep its file open. (Its entry in
    /// the table goes with its last stream, and each registered stream's baseline keeps the
    /// storage alive, so the identity is never that of another storage.)
    let storageID: ObjectIdentifier
    private let state = Locked(State())

    private init(storage: Storage) {
        storageID = ObjectIdentifier(storage)
    }

    // MARK: The table of hubs

    private static let hubs = Locked<[ObjectIdentifier: ChangeHub]>([:])
    private static let nextStreamId = Locked<UInt64>(1)

    /// The hub of `storage`, if some stream observes it.
    static func hub(for storage: Storage) -> ChangeHub? {
        hubs.withLock { $0[ObjectIdentifier(storage)] }
    }

    /// Registers a new stream whose first element shows `baseline`; returns its id and hub.
    static func register(storage: Storage, baseline: FrozenVersion) -> (id: UInt64, hub: ChangeHub) {
        let id = nextStreamId.withLock { next in
            defer { next += 1 }
            return next
        }
        let hub = hubs.withLock { hubs in
            let existing = hubs[ObjectIdentifier(storage)]
            let hub = existing ?? ChangeHub(storage: storage)
            hubs[ObjectIdentifier(storage)] = hub
            if existing == nil, storage.sharing == .shared {
                storage.observeCommitsOfOtherProcesses { [weak storage] versions in
                    guard let storage else { return }
                    ChangeHub.hub(for: storage)?.noteCommitsOfOtherProcesses(versions)
                }
            }
            // Read under the table's lock: a commit that publishes after this read finds the hub.
            let registeredAt = storage.version
            hub.state.withLock { state in
                state.streams[id] = Stream(baseline: baseline.version, registeredAt: registeredAt)
                if state.latest.map({ $0.version < baseline.version }) ?? true { state.latest = baseline }
            }
            return hub
        }
        return (id, hub)
    }

    /// Ends stream `id`; the hub goes when its last stream does.
    func unregister(_ id: UInt64) {
        Self.hubs.withLock { hubs in
            let (waiter, isEmpty) = state.withLock { state in
                state.streams[id] = nil
                trim(&state)
                return (state.waiters.removeValue(forKey: id) ?? [], state.streams.isEmpty)
            }
            for continuation in waiter { continuation.resume() }
            if isEmpty, hubs[storageID] === self { hubs[storageID] = nil }
        }
    }

    // MARK: Posting and reading

    /// Records commit `version` and wakes the waiting streams.
    func post(version: UInt64, _ record: Record) {
        let waiters = state.withLock { state in
            if state.records[version] == nil, state.streams.values.contains(where: { $0.baseline < version }) {
                state.records[version] = record
            }
            if let after = record.after, state.latest.map({ $0.version < version }) ?? true { state.latest = after }
            state.sequence += 1
            defer { state.waiters.removeAll() }
            return state.waiters.values.flatMap { $0 }
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Makes `version` the newest version known, if it is newer, and wakes the waiting streams.
    func offer(_ version: FrozenVersion) {
        let waiters = state.withLock { state in
            guard state.latest.map({ $0.version < version.version }) ?? true else { return [CheckedContinuation<Void, Never>]() }
            state.latest = version
            state.sequence += 1
            defer { state.waiters.removeAll() }
            return state.waiters.values.flatMap { $0 }
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Records that other processes committed `versions` (their changes unknown here) and offers
    /// the newest version, waking the waiting streams.
    func noteCommitsOfOtherProcesses(_ versions: ClosedRange<UInt64>) {
        let latest = state.withLock { state -> FrozenVersion? in
            for version in versions where state.records[version] == nil && state.streams.values.contains(where: { $0.baseline < version }) {
                state.records[version] = Record(changes: .unknown, silenced: [], before: nil, after: nil)
            }
            return state.latest
        }
        guard let latest, let newest = try? latest.newest() else { return }
        offer(newest)
    }

    /// What stream `id` needs to move on from version `baseline`.
    func read(after baseline: UInt64, for id: UInt64) -> Reading {
        state.withLock { state in
            guard let latest = state.latest, latest.version > baseline else {
                return Reading(latest: state.latest, records: [], sequence: state.sequence)
            }
            let registeredAt = state.streams[id]?.registeredAt ?? 0
            var records: [(UInt64, Record?)] = []
            for version in (baseline + 1)...latest.version {
                if let record = state.records[version] {
                    records.append((version, record))
                } else if version <= registeredAt {
                    records.append((version, Record(changes: .unknown, silenced: [], before: nil, after: nil)))
                } else {
                    records.append((version, nil))
                }
            }
            return Reading(latest: latest, records: records, sequence: state.sequence)
        }
    }

    /// Notes that stream `id` has moved on to `baseline`, so that older records can go.
    func advance(_ id: UInt64, to baseline: UInt64) {
        state.withLock { state in
            state.streams[id]?.baseline = baseline
            trim(&state)
        }
    }

    /// Whether an iteration of stream `id` waits for a commit now.
    func isWaiting(_ id: UInt64) -> Bool {
        state.withLock { !($0.waiters[id]?.isEmpty ?? true) }
    }

    /// Returns once a commit is posted after post number `sequence`, or the task is cancelled.
    func wait(_ id: UInt64, afterSequence sequence: UInt64) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state in
                    if state.sequence != sequence || Task.isCancelled || state.streams[id] == nil { return true }
                    state.waiters[id, default: []].append(continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            // Wakes every waiting iteration of the stream; those not cancelled wait again.
            for continuation in state.withLock({ $0.waiters.removeValue(forKey: id) ?? [] }) { continuation.resume() }
        }
    }

    private func trim(_ state: inout State) {
        guard let oldest = state.streams.values.map(\.baseline).min() else {
            state.records.removeAll()
            state.latest = nil
            return
        }
        state.records = state.records.filter { $0.key > oldest }
    }
}
