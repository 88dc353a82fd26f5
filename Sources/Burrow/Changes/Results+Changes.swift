import BurrowStore

extension Results where Element: ObjectBase {
    /// A stream of this query's changes: first `.initial` with the results as they are, then an
    /// `.update` for each commit that changed them (coalesced while the consumer is busy), with
    /// the indices of the objects deleted, inserted and modified. The elements are frozen
    /// results, which any task can read.
    ///
    /// `keyPaths` limits modifications to changes of those properties (the first component of
    /// each path is used); insertions and deletions are always reported. A key path that names
    /// no property of the class makes the stream yield one `.error` and end. Made inside a write
    /// transaction, or on results of a frozen object's collection, the stream yields one
    /// `.error` and ends.
    ///
    /// Results of a collection (`person.dogs.where { $0.age > 2 }`, a map's objects, linking
    /// objects) follow the collection: an object it gains or loses that the query keeps is
    /// inserted or deleted, in the collection's order. If the collection's object is deleted,
    /// every object is reported deleted.
    public func changes(keyPaths: [String]? = nil) -> ChangeStream<RealmCollectionChange<FrozenResults<Element>>> {
        do {
            return ChangeStream(core: StreamCore(try observer(keyPaths: keyPaths)))
        } catch {
            return ChangeStream(core: StreamCore(failing: .error(error)))
        }
    }

    /// An observer of this query from the realm's current version, for a change stream. Throws
    /// inside a write transaction, and for results filtered from a collection.
    func observer(keyPaths: [String]?) throws(RealmError) -> ResultsObserver<Element> {
        if query.frozenBase?.isFrozen == true {
            throw RealmError(
                .wrongState, "Results of a frozen object's collection never change; observe the live collection's results instead (thaw it first).")
        }
        let version = try FrozenVersion(of: owner)
        guard let evaluate = frozenEvaluation() else {
            throw RealmError(
                .invalidArgument,
                "These results of a collection cannot be followed: the collection is not a property of a managed object. Observe the collection itself (its changes()), or a query on realm.objects(\(Element.self).self)."
            )
        }
        return ResultsObserver(
            baseline: version, results: evaluate(version), evaluate: evaluate, readsOnlyItsClass: steps.isEmpty && base == nil,
            isAllObjects: query.isAllObjects, mayRepeat: base != nil, keyPaths: try observedPropertyNames(keyPaths, of: elementInfo))
    }
}

/// Watches a query: re-runs it at each new version and reports the differences.
struct ResultsObserver<T: ObjectBase>: ChangeObserver {
    private(set) var baseline: FrozenVersion
    /// The results at the baseline.
    private(set) var results: FrozenResults<T>
    let evaluate: @Sendable (FrozenVersion) -> FrozenResults<T>
    /// Whether the query reads only objects of its own class (no conditions through links), so
    /// that commits that change no object of the class cannot change the results.
    let readsOnlyItsClass: Bool
    /// Whether the results are every object of the class, in key order (no filter, sort or
    /// distinct), so that commits that insert and delete none keep the same keys.
    let isAllObjects: Bool
    /// Whether an object can be in the results more than once (results of a list, or of a
    /// map's values, may hold one object at several places).
    let mayRepeat: Bool
    /// Property names whose changes count as modifications; nil for all.
    let keyPaths: Set<String>?
    var isFinished: Bool { false }

    init(
        baseline: FrozenVersion, results: FrozenResults<T>, evaluate: @escaping @Sendable (FrozenVersion) -> FrozenResults<T>,
        readsOnlyItsClass: Bool, isAllObjects: Bool = false, mayRepeat: Bool = false, keyPaths: Set<String>?
    ) {
        self.baseline = baseline
        self.results = results
        self.evaluate = evaluate
        self.readsOnlyItsClass = readsOnlyItsClass
        self.isAllObjects = isAllObjects
        self.mayRepeat = mayRepeat
        self.keyPaths = keyPaths
    }

    func initial() -> RealmCollectionChange<FrozenResults<T>>? { .initial(results) }

    mutating func advance(to version: FrozenVersion, changes: ChangeSet) -> RealmCollectionChange<FrozenResults<T>>? {
        let old = results
        let oldVersion = baseline
        baseline = version
        let tableId = old.table?.id ?? version.table(for: T.self)?.id
        let dynamic = old.table?.info.isDynamic ?? false
        if readsOnlyItsClass, changes.isComplete, let tableId, changes.changes(of: tableId).isEmpty {
            // Nothing of this class changed: the results are the same objects with the same values.
            results = FrozenResults(version: version, table: version.table(id: tableId, dynamic: dynamic), keys: old.keys)
            return nil
        }
        let new: FrozenResults<T>
        if isAllObjects, changes.isComplete, let tableId, changes.changes(of: tableId).keepsKeys {
            // Every object of the class, none inserted or deleted: the same keys, in the same order.
            new = FrozenResults(version: version, table: version.table(id: tableId, dynamic: dynamic), keys: old.keys)
        } else {
            new = evaluate(version)
        }
        results = new
        let modified = ObjectModifications(
            tableId: tableId, changes: changes, keyPaths: keyPaths, from: (oldVersion, old.table), to: (version, new.table))
        if !mayRepeat, old.keys == new.keys, let indices = modified.indices(in: new.keys, sorted: isAllObjects) {
            // The same objects in the same order, a few modified: find those few (each at its
            // one place; an object that may be at several goes through the diff below).
            if indices.isEmpty { return nil }
            return .update(new, deletions: [], insertions: [], modifications: indices)
        }
        let diff =
            mayRepeat
            ? CollectionDiff(repeating: old.keys, new.keys, isModified: modified.contains)
            : CollectionDiff(old: old.keys, new: new.keys, isModified: modified.contains)
        if diff.isEmpty { return nil }
        return .update(new, deletions: diff.deletions, insertions: diff.insertions, modifications: diff.modifications)
    }
}

extension ChangeSet.ClassChanges {
    /// Whether no object was inserted or deleted.
    var keepsKeys: Bool { inserted.isEmpty && deleted.isEmpty }
}
