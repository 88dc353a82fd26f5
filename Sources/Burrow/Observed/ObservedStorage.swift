import BurrowStore
import Observation
import Synchronization

/// The observable state behind one observed property wrapper (`@ObservedResults`,
/// `@ObservedRealmObject`, `@StateRealmObject`, `@ObservedSectionedResults`): what the wrapper
/// shows, the change stream that tells it of commits, and the error of its last quick write.
///
/// Observation: reading the wrapper's value registers with `withObservationTracking` (and
/// SwiftUI); each commit that changes what the wrapper follows, from any actor, calls the
/// `onChange` of those reads once the main actor takes the change in. A quick write made
/// through the wrapper reports its change at once, and the stream leaves that write out
/// (`withoutNotifying:` its token), so it is not reported twice; one made inside the caller's
/// open write transaction joins it and is reported by its commit, as other changes are.
///
/// Isolation: the main actor, where the wrapper's realm (`Realm()` there) lives.
@MainActor
class ObservedStorage: Observable {
    private let registrar = ObservationRegistrar()
    private var revision: UInt64 = 0
    private var lastError: RealmError?
    /// The parts of the value that cannot be shown now, whose error `error` holds until each
    /// can be again (or a quick write or a change reports another outcome).
    private var failingParts: Set<ShownPart> = []

    /// What a wrapper shows that can fail to be made: its query's results, its sections.
    enum ShownPart { case query, sections }
    /// The task following the current stream; cancelled when the storage goes or follows
    /// another stream.
    private let follower = Follower()
    /// The token of the stream followed now, which quick writes through this storage silence.
    private(set) var followedToken: ChangeToken?

    init() {}

    deinit { follower.stop() }

    /// The error of the last quick write made through the wrapper that failed, or of
    /// following the realm's changes; nil again once a quick write succeeds. Observable.
    var error: RealmError? {
        get {
            registrar.access(self, keyPath: \.error)
            return lastError
        }
        set {
            registrar.withMutation(of: self, keyPath: \.error) { lastError = newValue }
        }
    }

    /// Reports whether `part` of the value could be made: its `failure` is shown in `error`;
    /// once every part that failed is made again, `error` is nil again.
    final func reportShown(_ part: ShownPart, failure: RealmError?) {
        if let failure {
            failingParts.insert(part)
            error = failure
        } else if failingParts.remove(part) != nil, failingParts.isEmpty {
            error = nil
        }
    }

    /// Registers a read of the wrapper's value with Observation.
    final func accessed() {
        registrar.access(self, keyPath: \.revisionNumber)
    }

    /// Tells Observation that the wrapper's value changed.
    final func changed() {
        registrar.withMutation(of: self, keyPath: \.revisionNumber) { revision &+= 1 }
    }

    /// How many changes were reported so far (what `accessed` and `changed` name).
    final var revisionNumber: UInt64 { revision }

    /// Follows `stream` from now on (and no longer the stream followed before): for each of
    /// its elements, brings `realm` to the newest version and calls `receive`, on the main
    /// actor; the first element, if `skipsFirst` (it shows what the wrapper read already), only
    /// for its error. `receive` returns whether the wrapper's value changed
    /// (and Observation is told), or throws the error the element carries.
    final func follow<Element: Sendable>(
        _ stream: ChangeStream<Element>, refreshing realm: Realm?, skipsFirst: Bool,
        _ receive: @escaping @MainActor (Element) throws(RealmError) -> Bool
    ) {
        followedToken = stream.token
        let weakRealm = WeakRealm(realm)
        follower.start(
            stream.core.end,
            Task { @MainActor [weak self] in
                var isFirst = true
                for await element in stream {
                    guard let self else { return }
                    // The first element shows what the wrapper read already: only its error counts.
                    self.take(element, realm: weakRealm.realm, reportingChange: !(isFirst && skipsFirst), receive)
                    isFirst = false
                }
            })
    }

    /// Runs `start` (which starts following) once `realm`'s open write transaction ends, since
    /// a stream cannot start inside one, then reports a change: what that transaction
    /// committed, and commits of other actors since, came before the stream. Cancelled as a
    /// follower is (the storage goes, or stops following).
    final func followOnceWriteEnds(_ realm: Realm, _ start: @escaping @MainActor () -> Void) {
        let weakRealm = WeakRealm(realm)
        follower.start(
            {},
            Task { @MainActor [weak self] in
                // Wait for the commit or cancel; a new transaction begun before this task runs
                // again is waited for too.
                while let waiters = weakRealm.realm?.writeEnd(), !Task.isCancelled {
                    await waiters.wait()
                }
                guard let self, !Task.isCancelled else { return }
                start()
                self.changed()
            })
    }

    /// Stops following any stream.
    final func stopFollowing() {
        followedToken = nil
        follower.stop()
        stopFollowingHook()
    }

    /// What a storage does when it stops following (forgets that it follows).
    func stopFollowingHook() {}

    private func take<Element>(
        _ element: Element, realm: Realm?, reportingChange: Bool, _ receive: @MainActor (Element) throws(RealmError) -> Bool
    ) {
        do {
            if reportingChange { _ = try realm?.refreshIfUsable() }
            if try receive(element), reportingChange { changed() }
        } catch {
            failingParts.removeAll()
            self.error = error
            changed()
        }
    }

    /// Runs `change` as one quick write: in a write transaction of `realm` (which leaves the
    /// followed stream silent, since the change is reported here at once), or directly where
    /// `realm` is nil (an unmanaged value) or already in a write transaction. A failure
    /// changes nothing and is kept in `error`; success clears it. Never throws or traps for a
    /// failed write.
    final func quickWrite(in realm: Realm?, _ change: () throws -> Void) {
        QuickWrite.perform(in: realm, silencing: followedToken, reportingTo: self, change)
    }

    /// Takes the result of a quick write: its error, or that it succeeded, and, if
    /// `reportsChange`, that the value changed.
    final func finishQuickWrite(_ failure: RealmError?, reportsChange: Bool) {
        failingParts.removeAll()
        if failure != nil || lastError != nil { error = failure }
        if reportsChange { changed() }
    }
}

/// A weak reference to a realm, for a follower task that must not keep the realm open.
private final class WeakRealm: @unchecked Sendable {
    // Sendable although it holds a non-Sendable realm: the reference is set once, here, and
    // only the main actor's follower task, where the realm lives, reads it.
    weak var realm: Realm?
    init(_ realm: Realm?) { self.realm = realm }
}

/// The task that follows a wrapper's stream, and the stream's end, both stopped when its
/// storage goes: ending the stream at once lets go of the version it holds, so the file is
/// free as soon as the wrapper and its realm are. `Sendable`, so that the storage's deinit,
/// which runs on any thread, can stop it.
private final class Follower: Sendable {
    private let following = Mutex<(task: Task<Void, Never>, end: @Sendable () -> Void)?>(nil)

    func start(_ end: @escaping @Sendable () -> Void, _ task: Task<Void, Never>) {
        let old = following.withLock { following in
            defer { following = (task, end) }
            return following
        }
        old?.task.cancel()
        old?.end()
    }

    func stop() {
        let old = following.withLock { following in
            defer { following = nil }
            return following
        }
        old?.task.cancel()
        old?.end()
    }
}
