import BurrowStore

extension Realm {
    /// A stream of the file's commits: first `.initial` with the version the realm reads, then
    /// an `.update` for each commit after it (coalesced while the consumer is busy) with the
    /// version it made and the names of the classes whose objects it inserted, deleted or
    /// modified. What RealmSwift's `observe` on a realm tells, as a `Sendable` stream; read the
    /// changes themselves through the realm, after `refresh()`, or through a frozen realm.
    ///
    /// Commits that change no object (sync's bookkeeping of what it uploaded and downloaded)
    /// yield nothing. Made inside a write transaction, or on a frozen realm, the stream yields
    /// one `.error` and ends.
    public func changes() -> ChangeStream<RealmChange> {
        do {
            guard !isFrozen else {
                throw RealmError(.wrongState, "A frozen realm never changes; observe the live realm instead.")
            }
            return ChangeStream(core: StreamCore(RealmObserver(baseline: try FrozenVersion(of: self))))
        } catch {
            return ChangeStream(core: StreamCore(failing: .error(RealmError(wrapping: error))))
        }
    }
}

/// What a realm's change stream yields.
public enum RealmChange: Sendable {
    /// The version the realm read when the stream was made.
    case initial(versionNumber: UInt64)
    /// Commits were made: `versionNumber` is the newest, `classNames` the classes whose objects
    /// they inserted, deleted or modified (nil when not known: after a schema change, or for
    /// commits that began before the stream was made).
    case update(versionNumber: UInt64, classNames: Set<String>?)
    case error(RealmError)
}

/// Watches a whole file: reports every commit.
struct RealmObserver: ChangeObserver {
    private(set) var baseline: FrozenVersion
    var isFinished: Bool { false }

    func initial() -> RealmChange? { .initial(versionNumber: baseline.version) }

    mutating func advance(to version: FrozenVersion, changes: ChangeSet) -> RealmChange? {
        baseline = version
        guard changes.isComplete else { return .update(versionNumber: version.version, classNames: nil) }
        let changed = Set(changes.changedTableIds)
        // Commits that changed no object (sync's bookkeeping: its upload queue and checkpoint)
        // are not reported; the next update's version covers them.
        guard !changed.isEmpty else { return nil }
        let names = version.currentFileSchema.classes.values.filter { changed.contains($0.id) }.map(\.name)
        return .update(versionNumber: version.version, classNames: Set(names))
    }
}
