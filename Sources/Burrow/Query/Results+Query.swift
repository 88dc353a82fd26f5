import BurrowStore

/// Filtering, sorting and deduplicating results. Each returns new results with one more step
/// in their query; none reads anything until the new results are used. Results of values
/// query the values themselves: the closure's argument is the value (`$0 > 5`), and a query
/// string names it `self` (`"self > 5"`, `SORT(self DESC)`).
extension Results {
    /// The objects satisfying `isIncluded`, written with the typed query DSL:
    ///
    ///     realm.objects(Dog.self).where { $0.age < 2 && $0.name.starts(with: "R") }
    ///
    /// Traps if the closure reads a property that is not `@Persisted` (no query can test it),
    /// as RealmSwift does.
    public func `where`(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results<Element> {
        appending(.filter(Query<Element>.predicate(isIncluded, in: queryScope)))
    }

    /// The objects satisfying a query string, with `%@` (or `$0`, `$1`…) standing for the
    /// arguments that follow:
    ///
    ///     try dogs.filter("age < %@ AND name BEGINSWITH[c] %@", 2, "r")
    ///     try dogs.filter("color IN %@ SORT(age DESC) LIMIT(10)", ["black", "white"])
    ///
    /// Throws `RealmError` (`.invalidArgument`) for a syntax error (with its position and what
    /// was expected), an unknown property, or a comparison of values of the wrong type.
    public func filter(_ predicateFormat: String, _ args: Any...) throws(RealmError) -> Results<Element> {
        try filter(predicateFormat, arguments: args)
    }

    /// `filter(_:_:)` with its arguments as an array.
    public func filter(_ predicateFormat: String, arguments: [Any]) throws(RealmError) -> Results<Element> {
        let parsed =
            if let source = query.source {
                try QueryParser.parse(predicateFormat, arguments: arguments, forValues: source.element)
            } else {
                try QueryParser.parse(predicateFormat, arguments: arguments, for: elementInfo)
            }
        // The filter, then the trailing steps (`parsed.steps`, without making that array).
        var results = appending(.filter(parsed.predicate))
        for step in parsed.trailing { results = results.appending(step) }
        return results
    }

    /// The objects sorted by the value at `keyPath` (which may follow links, not
    /// collections). Sorting is stable. Traps for an unknown key path, as RealmSwift does.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        sorted(by: [SortDescriptor(keyPath: keyPath, ascending: ascending)])
    }

    /// The objects sorted by several key paths: by the first, then among equals by the next.
    public func sorted<S: Sequence>(by sortDescriptors: S) -> Results<Element> where S.Element == SortDescriptor {
        let descriptors = Array(sortDescriptors)
        for descriptor in descriptors { Self.require(descriptor.keyPath, "sort", in: queryScope) }
        return appending(.sort(descriptors.map(\.querySort)))
    }

    /// The first object of each distinct combination of the values at `keyPaths`, in order.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Element == String {
        let paths = Array(keyPaths)
        for path in paths { Self.require(path, "distinct", in: queryScope) }
        return appending(.distinct(paths))
    }

    /// Traps with the reason if `keyPath` cannot sort or deduplicate in `scope`.
    static func require(_ keyPath: String, _ purpose: String, in scope: QueryValidator.Scope) {
        do {
            try QueryValidator.checkOrderingKeyPath(keyPath, in: scope, purpose: purpose)
        } catch {
            preconditionFailure(error.description)
        }
    }
}

extension Results where Element: _ObjectResultsValue {
    /// The objects sorted by the value at `keyPath` (for projections, by the root property the
    /// projected property reads).
    public func sorted<V>(by keyPath: KeyPath<Element, V>, ascending: Bool = true) -> Results<Element> {
        sorted(byKeyPath: KeyPathName.sortPath(of: keyPath), ascending: ascending)
    }
}
