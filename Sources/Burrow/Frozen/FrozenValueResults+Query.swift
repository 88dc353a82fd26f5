import BurrowStore

/// A frozen collection whose values take queries (`FrozenList<Int>`, `FrozenMutableSet<String>`,
/// a `FrozenMap`'s values, `FrozenValueResults`): the results of its values, which the queries
/// start from. For Burrow's own use; not meant to be adopted elsewhere.
public protocol _FrozenValueQuerying {
    /// The type of the values.
    associatedtype _Value: RealmCollectionValue
    /// The values, as frozen results of no further query.
    var _valueResults: FrozenValueResults<_Value> { get }
}

/// Queries on frozen values, as on live results of values: each gives `FrozenValueResults`,
/// evaluated on the values at once (`$0 > 5`, `"self > 5"`, `SORT(self DESC)`). On a frozen
/// collection of objects the object forms (giving `FrozenResults`) are the ones called.
extension _FrozenValueQuerying {
    /// The values satisfying `isIncluded`, written with the typed query DSL (`$0 > 5`). Traps
    /// for a query values cannot answer (one naming a property), as `Results.where` does.
    @_disfavoredOverload
    public func `where`(_ isIncluded: (Query<_Value>) -> Query<Bool>) -> FrozenValueResults<_Value> {
        let results = _valueResults
        return results.applying(.filter(Query<_Value>.predicate(isIncluded, in: results.scope)))
    }

    /// The values satisfying a query string (`"self > %@"`), with `%@` standing for the
    /// arguments. Throws `RealmError` (`.invalidArgument`) for a bad query.
    @_disfavoredOverload
    public func filter(_ predicateFormat: String, _ args: Any...) throws(RealmError) -> FrozenValueResults<_Value> {
        try filter(predicateFormat, arguments: args)
    }

    /// `filter(_:_:)` with its arguments as an array.
    @_disfavoredOverload
    public func filter(_ predicateFormat: String, arguments: [Any]) throws(RealmError) -> FrozenValueResults<_Value> {
        let parsed = try QueryParser.parse(predicateFormat, arguments: arguments, forValues: .values(_Value._shape))
        return parsed.steps.reduce(_valueResults) { $0.applying($1) }
    }

    /// The values sorted by `keyPath`, which for values is `self`. Traps for another key path,
    /// as `Results.sorted(byKeyPath:ascending:)` does.
    @_disfavoredOverload
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> FrozenValueResults<_Value> {
        sorted(by: [SortDescriptor(keyPath: keyPath, ascending: ascending)])
    }

    /// The values sorted by `sortDescriptors` (each of `self`).
    @_disfavoredOverload
    public func sorted<S: Sequence>(by sortDescriptors: S) -> FrozenValueResults<_Value> where S.Element == SortDescriptor {
        let results = _valueResults
        let descriptors = Array(sortDescriptors)
        for descriptor in descriptors { Results<_Value>.require(descriptor.keyPath, "sort", in: results.scope) }
        return results.applying(.sort(descriptors.map(\.querySort)))
    }

    /// The first of each distinct value of `keyPaths` (each `self`), in order.
    @_disfavoredOverload
    public func distinct<S: Sequence>(by keyPaths: S) -> FrozenValueResults<_Value> where S.Element == String {
        let results = _valueResults
        let paths = Array(keyPaths)
        for path in paths { Results<_Value>.require(path, "distinct", in: results.scope) }
        return results.applying(.distinct(paths))
    }
}

extension _FrozenValueQuerying {
    /// The values sorted by themselves, smallest first (`ascending`) or largest first, in
    /// sections of equal values of `block`, at the values' version (as
    /// `Results.sectioned(by:ascending:)` sections live values).
    public func sectioned<Key: Hashable & Sendable>(
        by block: @escaping @Sendable (_Value) -> Key, ascending: Bool = true
    ) -> FrozenSectionedValueResults<Key, _Value> {
        FrozenSectionedValueResults(results: sorted(by: [SortDescriptor(keyPath: "self", ascending: ascending)]), sectionKey: block)
    }
}

extension _FrozenValueQuerying where _Value: SortableType {
    /// The values sorted, smallest first (`ascending`, nil before any value) or largest first,
    /// as `Results.sorted(ascending:)` sorts them.
    public func sorted(ascending: Bool = true) -> FrozenValueResults<_Value> {
        sorted(by: [SortDescriptor(keyPath: "self", ascending: ascending)])
    }

    /// The first of each distinct value, in order.
    public func distinct() -> FrozenValueResults<_Value> {
        distinct(by: ["self"])
    }
}

extension FrozenValueResults: _FrozenValueQuerying {
    public var _valueResults: FrozenValueResults<Element> { self }

    /// The scope queries of these values are checked in: the value itself.
    var scope: QueryValidator.Scope { .values(.values(Element._shape)) }

    /// These results with `step` applied to their values.
    func applying(_ step: QueryStep) -> FrozenValueResults<Element> {
        let kept = ValueSource.positions(of: [step], in: values.values)
        return FrozenValueResults(
            source: source, steps: steps + [step], positions: kept.map { positions[$0] }, values: kept.map { values.values[$0] })
    }
}

extension FrozenList: _FrozenValueQuerying {
    public var _valueResults: FrozenValueResults<Element> { FrozenValueResults(source: self, steps: []) }
}

extension FrozenMutableSet: _FrozenValueQuerying {
    public var _valueResults: FrozenValueResults<Element> { FrozenValueResults(source: self, steps: []) }
}

extension FrozenMap: _FrozenValueQuerying {
    public var _valueResults: FrozenValueResults<Value> { FrozenValueResults(source: self, steps: []) }
}
