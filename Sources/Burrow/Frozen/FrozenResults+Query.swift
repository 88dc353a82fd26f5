import BurrowStore

/// Queries on frozen results: each runs in the frozen version, on these results' objects, and
/// gives frozen results again (so `Sendable` values can be narrowed on any task).
extension FrozenResults {
    /// These results narrowed by `step`, as their plan answers it.
    func applying(_ step: QueryStep) -> FrozenResults<T> {
        guard let version, let plan = plan([step]) else { return self }
        return FrozenResults(version: version, table: table, keys: QueryExecutor.evaluate(plan, in: version).keys, steps: steps + [step])
    }

    /// How `steps` are answered on these results' objects (their keys the base, see
    /// `QueryPlan`), or nil if the class had no objects in their version.
    func plan(_ steps: [QueryStep]) -> QueryPlan? {
        guard let version, table != nil else { return nil }
        let keys = self.keys
        return QueryPlan(steps, table: table, base: QueryBase { keys }, writing: false, in: version)
    }

    /// The objects satisfying `isIncluded` (the typed query DSL, as `Results.where(_:)`).
    public func `where`(_ isIncluded: (Query<T>) -> Query<Bool>) -> FrozenResults<T> {
        applying(.filter(Query<T>.predicate(isIncluded)))
    }

    /// The objects satisfying a query string, as `Results.filter(_:_:)`. Throws `RealmError`
    /// for a syntax error, an unknown property or a type mismatch.
    public func filter(_ predicateFormat: String, _ args: Any...) throws(RealmError) -> FrozenResults<T> {
        try filter(predicateFormat, arguments: args)
    }

    /// `filter(_:_:)` with its arguments as an array.
    public func filter(_ predicateFormat: String, arguments: [Any]) throws(RealmError) -> FrozenResults<T> {
        try QueryParser.parse(predicateFormat, arguments: arguments, for: elementInfo).steps.reduce(self) { $0.applying($1) }
    }

    /// The objects sorted by `keyPath`, as `Results.sorted(byKeyPath:ascending:)`.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> FrozenResults<T> {
        sorted(by: [SortDescriptor(keyPath: keyPath, ascending: ascending)])
    }

    /// The objects sorted by several key paths.
    public func sorted<S: Sequence>(by sortDescriptors: S) -> FrozenResults<T> where S.Element == SortDescriptor {
        let descriptors = Array(sortDescriptors)
        for descriptor in descriptors { Results<T>.require(descriptor.keyPath, "sort", in: .object(elementInfo)) }
        return applying(.sort(descriptors.map(\.querySort)))
    }

    /// The first object of each distinct combination of the values at `keyPaths`.
    public func distinct<S: Sequence>(by keyPaths: S) -> FrozenResults<T> where S.Element == String {
        let paths = Array(keyPaths)
        for path in paths { Results<T>.require(path, "distinct", in: .object(elementInfo)) }
        return applying(.distinct(paths))
    }

    private func aggregate(_ aggregate: QueryAggregate, _ property: String) -> QueryValue {
        Results<T>.require(property, "aggregate", in: .object(elementInfo))
        guard let version, let plan = plan([]) else { return QueryExecutor.aggregate(aggregate, of: []) }
        return QueryExecutor.aggregate(aggregate, of: QueryPath(dotted: property), plan, in: version) {
            QueryExecutor.evaluate(plan, in: version).keys
        }
    }

    /// The smallest value of `property`, or nil if there are no objects.
    public func min<V: MinMaxType>(ofProperty property: String) -> V? {
        aggregate(.min, property).converted()
    }

    /// The largest value of `property`, or nil if there are no objects.
    public func max<V: MinMaxType>(ofProperty property: String) -> V? {
        aggregate(.max, property).converted()
    }

    /// The sum of `property` (0 if there are no objects).
    public func sum<V: AddableType>(ofProperty property: String) -> V {
        aggregate(.sum, property).converted() ?? V._fromStored(.int(0))
    }

    /// The average of `property`, or nil if there are no objects.
    public func average<V: AddableType>(ofProperty property: String) -> V? {
        aggregate(.avg, property).converted()
    }
}

extension FrozenResults {
    /// The class of the objects: their table's (a stored class's, for frozen dynamic results),
    /// or `T`'s.
    var elementInfo: ClassInfo { table?.info ?? ClassInfo.of(T.self) }
}
