import BurrowStore

extension Results {
    /// A stream of the changes of these results of values (`scores.sorted()`,
    /// `tags.where { $0.starts(with: "a") }`, a map's values): first `.initial` with the
    /// results as they are, then an `.update` for each commit that changed them (coalesced while
    /// the consumer is busy), with the indices of the values deleted, inserted and modified.
    /// The elements are `FrozenValueResults`, which any task can read.
    ///
    /// The query runs again on the collection each time it changes. A value that moves (a sort
    /// reordering, or a replaced value) is deleted and inserted; an `AnyRealmValue` holding an
    /// object is modified when the object changed (`keyPaths` limits that to those of its
    /// properties). If the collection's object is deleted, every value is reported deleted and
    /// the stream ends. On results of an unmanaged or frozen object's collection, or inside a
    /// write transaction, the stream yields one `.error` and ends; results of objects give
    /// `FrozenResults` changes instead (where the element type is known to be a class).
    @_disfavoredOverload
    public func changes(keyPaths: [String]? = nil) -> ChangeStream<RealmCollectionChange<FrozenValueResults<Element>>> {
        do {
            return ChangeStream(core: StreamCore(try valueObserver(keyPaths: keyPaths)))
        } catch {
            return ChangeStream(core: StreamCore(failing: .error(error)))
        }
    }

    /// An observer of these results of values from the realm's current version, for a change
    /// stream. Throws where `changes(keyPaths:)` yields an error.
    func valueObserver(keyPaths: [String]?) throws(RealmError) -> ValueResultsObserver<Element> {
        guard let source = query.source else {
            throw RealmError(
                .invalidArgument,
                "Results<\(Element.self)> hold objects, so changes() gives FrozenResults; call it where \(Element.self) is known to be a class.")
        }
        if owner.write != nil {
            throw RealmError(.wrongState, "Cannot observe results inside a write transaction; its changes are not a version yet.")
        }
        return ValueResultsObserver(tracker: try source.track(observedPropertyNames(keyPaths)), steps: steps)
    }
}

/// Follows a collection of values from version to version, for the change streams of results
/// of its values (see `CollectionOwner`).
protocol ValueCollectionTracking: Sendable {
    /// The version the tracker last moved to.
    var baseline: FrozenVersion { get }
    /// Whether the collection's owner exists at the baseline.
    var ownerExists: Bool { get }
    /// The collection at the baseline (or at an earlier version with the same contents).
    var frozenValues: any FrozenValueCollection { get }
    /// The stored values at the baseline, in the collection's order.
    func storedElements() -> [[UInt8]]
    /// Moves the baseline to `version`, which `changes` made, and reads the collection there
    /// if it may have changed.
    mutating func advance(to version: FrozenVersion, changes: ChangeSet) -> CollectionStep
}

/// Follows one list, set or map of values, whose frozen form is `Frozen`.
struct ValueCollectionTracker<Frozen: FrozenValueCollection>: ValueCollectionTracking {
    var owner: CollectionOwner<Frozen.Live>
    /// Property names of objects (in `AnyRealmValue`s) whose changes count as modifications;
    /// nil for all.
    let keyPaths: Set<String>?

    var baseline: FrozenVersion { owner.baseline }
    var ownerExists: Bool { owner.ownerExists }
    var frozenValues: any FrozenValueCollection { Frozen(frozen: owner.frozen) }

    func storedElements() -> [[UInt8]] { (owner.storedElements() ?? []).map(\.bytes) }

    mutating func advance(to version: FrozenVersion, changes: ChangeSet) -> CollectionStep {
        owner.advance(to: version, changes: changes, keyPaths: keyPaths)
    }
}

/// Watches results of values: runs their query on the collection at each version it changes
/// and reports the differences, telling values apart by their stored form.
struct ValueResultsObserver<Element: RealmCollectionValue>: ChangeObserver {
    private var tracker: any ValueCollectionTracking
    /// The results at the baseline.
    private(set) var results: FrozenValueResults<Element>
    /// The stored form of each of `results`' values, in result order.
    private var stored: [[UInt8]]
    private(set) var isFinished = false

    init(tracker: any ValueCollectionTracking, steps: [QueryStep]) {
        self.tracker = tracker
        results = FrozenValueResults(source: tracker.frozenValues, steps: steps)
        stored = Self.stored(of: results, in: tracker.storedElements())
    }

    var baseline: FrozenVersion { tracker.baseline }

    func initial() -> RealmCollectionChange<FrozenValueResults<Element>>? { .initial(results) }

    mutating func advance(to version: FrozenVersion, changes: ChangeSet) -> RealmCollectionChange<FrozenValueResults<Element>>? {
        switch tracker.advance(to: version, changes: changes) {
        case .unchanged:
            return nil
        case .unreadable(let error):
            isFinished = true
            return .error(error)
        case .elements(let elements, let linkModified):
            // A deleted owner has no values, and nothing more will change.
            isFinished = !tracker.ownerExists
            let old = stored
            results = FrozenValueResults(source: tracker.frozenValues, steps: results.steps)
            stored = Self.stored(of: results, in: elements.map(\.bytes))
            let diff = CollectionDiff(repeating: old, stored, isModified: linkModified)
            if diff.isEmpty { return nil }
            return .update(results, deletions: diff.deletions, insertions: diff.insertions, modifications: diff.modifications)
        }
    }

    /// The stored form of each of `results`' values, from `elements`, the collection's stored
    /// values in its order (which the results' positions index).
    private static func stored(of results: FrozenValueResults<Element>, in elements: [[UInt8]]) -> [[UInt8]] {
        results.positions.map { position in
            assert(position < elements.count, "internal error: a value at \(position) of a collection of \(elements.count)")
            return position < elements.count ? elements[position] : []
        }
    }
}
