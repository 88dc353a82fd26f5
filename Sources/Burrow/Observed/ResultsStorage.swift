import BurrowStore

/// What `@ObservedResults` shows: the query, the live results it gives on the main actor's
/// realm (of objects, or of their projections), and the change stream of those results.
@MainActor
final class ResultsStorage<T: _ObservedResultsValue>: ObservedStorage {
    enum Filter {
        case string(String)
        case typed((Burrow.Query<T>) -> Burrow.Query<Bool>)
    }

    struct Query {
        var filter: Filter?
        var sortDescriptors: [SortDescriptor]
    }

    let configuration: Realm.Configuration?
    let keyPaths: [String]?
    /// Starts following the changes of results: the wrapper's, which knows the class of the
    /// objects they read (`followObjects`).
    private let follow: @MainActor (ResultsStorage<T>, Results<T>) -> Void
    /// The query; changing it shows new results.
    var query = Query(filter: nil, sortDescriptors: []) {
        didSet {
            generation &+= 1
            current = nil
            stopFollowing()
            changed()
        }
    }
    /// The query string of the filter, nil if the filter is typed or absent; setting it
    /// replaces the filter.
    var filterFormat: String? {
        get {
            if case .string(let format)? = query.filter { return format }
            return nil
        }
        set { query.filter = newValue.map { .string($0) } }
    }

    /// The typed query of the filter, nil if the filter is a string or absent; setting it
    /// replaces the filter.
    var typedFilter: ((Burrow.Query<T>) -> Burrow.Query<Bool>)? {
        get {
            if case .typed(let isIncluded)? = query.filter { return isIncluded }
            return nil
        }
        set { query.filter = newValue.map { .typed($0) } }
    }

    private var current: Results<T>?
    /// How many times the query changed: results made for another generation are stale.
    private(set) var generation = 0
    private var isFollowing = false

    init(configuration: Realm.Configuration?, keyPaths: [String]?, follow: @escaping @MainActor (ResultsStorage<T>, Results<T>) -> Void) {
        self.configuration = configuration
        self.keyPaths = keyPaths
        self.follow = follow
    }

    /// The live results, made on first use.
    var results: Results<T> {
        accessed()
        let results = current ?? make()
        current = results
        if !isFollowing { startFollowing(results) }
        return results
    }

    /// Brings the realm to its newest version and makes sure the results are followed.
    func update() {
        guard let realm = current?.realm else { return }
        do {
            if try realm.refreshIfUsable() { changed() }
        } catch {
            self.error = error
        }
        if let current, !isFollowing { startFollowing(current) }
    }

    /// The results of the query on the main actor's realm; none, with `error` set, if the
    /// query cannot run (and `error` cleared of that once a query runs again).
    private func make() -> Results<T> {
        let realm = ObservedRealm.open(configuration)
        let all = Results<T>(realm: realm)
        do {
            var results = all
            switch query.filter {
            case .string(let format)?: results = try results.filter(format)
            case .typed(let isIncluded)?: results = results.where(isIncluded)
            case nil: break
            }
            for descriptor in query.sortDescriptors {
                _ = try QueryValidator.checkSingleValued(descriptor.keyPath, in: ClassInfo.of(Results<T>.objectClass), purpose: "sort")
            }
            reportShown(.query, failure: nil)
            return query.sortDescriptors.isEmpty ? results : results.sorted(by: query.sortDescriptors)
        } catch {
            reportShown(.query, failure: error)
            return all.appending(.filter(.constant(false)))
        }
    }

    /// Follows the changes of `results`; inside an open write (where a stream cannot start),
    /// once it ends.
    private func startFollowing(_ results: Results<T>) {
        guard let realm = results.realm else { return }
        isFollowing = true
        guard !realm.isInWriteTransaction else {
            followOnceWriteEnds(realm) { [weak self] in
                guard let self else { return }
                self.isFollowing = false
                if let current = self.current { self.startFollowing(current) }
            }
            return
        }
        follow(self, results)
    }

    /// Follows the changes of `objects`, the objects the results read (the results themselves,
    /// or those their projections project).
    func followObjects<O: ObjectBase>(_ objects: Results<O>) {
        guard let realm = objects.realm else { return }
        follow(objects.changes(keyPaths: keyPaths), refreshing: realm, skipsFirst: true) { change throws(RealmError) in
            switch change {
            case .initial: return false
            case .update: return true
            case .error(let error): throw error
            }
        }
    }

    override func stopFollowingHook() { isFollowing = false }
}
