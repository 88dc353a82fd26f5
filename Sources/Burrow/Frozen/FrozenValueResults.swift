import BurrowStore

/// Results of values frozen at one version: the values of `scores.sorted()`,
/// `tags.where { $0.starts(with: "a") }` or a map's values as they were then, in result order.
/// Immutable and `Sendable`, so any task or actor can read them.
///
///     let top: FrozenValueResults<Int> = try player.scores.sorted(ascending: false).freeze()
///     Task.detached { print(top.prefix(3)) }
///
/// They take further queries (`where`, `filter`, `sorted`, `distinct`), evaluated on their
/// values, and the aggregates (`min()`, `max()`, `sum()`, `average()`). An `AnyRealmValue`
/// holding an object holds a frozen object of the same version. `thaw()` gives the live
/// results again: the same query on the live collection.
public struct FrozenValueResults<Element: RealmCollectionValue>: RandomAccessCollection, Sendable, CustomStringConvertible {
    /// The collection the values come from, frozen.
    let source: any FrozenValueCollection
    /// The query steps, from the live results' first on (applied again when thawed).
    let steps: [QueryStep]
    /// Where each value is in `source`, in result order.
    let positions: [Int]
    /// The values, in result order.
    let values: FrozenStoredValues

    /// The values of `source` that `steps` keep, in the order they give.
    init(source: any FrozenValueCollection, steps: [QueryStep]) {
        let elements = source.storedValues
        let positions = ValueSource.positions(of: steps, in: elements)
        self.init(source: source, steps: steps, positions: positions, values: positions.map { elements[$0] })
    }

    init(source: any FrozenValueCollection, steps: [QueryStep], positions: [Int], values: [_StoredValue]) {
        self.source = source
        self.steps = steps
        self.positions = positions
        self.values = FrozenStoredValues(values: values)
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { positions.count }

    /// The value at `position`. Like an array, traps out of bounds.
    public subscript(position: Int) -> Element { Element._fromStored(values.values[position]) }

    /// Always true: frozen results never change.
    public var isFrozen: Bool { true }

    /// The version of the file these results are a view of.
    public var versionNumber: UInt64 { source.version.version }

    /// The live results these are a frozen view of (the same query on the live collection), in
    /// the live realm of its file that belongs to the caller's isolation (as `Frozen.thaw()`),
    /// or nil if the collection's object was deleted since.
    ///
    /// Throws `RealmError` if the file cannot be opened.
    public func thaw(isolation: isolated (any Actor)? = #isolation) throws -> Results<Element>? {
        try ThawedRealms.realm(thawing: source.version, isolation: isolation).thaw(self)
    }

    /// The values in RealmSwift's format for results, under this type's name:
    /// `FrozenValueResults<int> <0x…> (` then `[0] 5` a line (at most 100).
    public var description: String {
        CollectionDescription.describe("FrozenValueResults", of: self, count: count, instance: nil, depth: ObjectBase.descriptionMaxDepth)
    }
}

extension Results {
    /// The results of values (`scores.sorted()`, `tags.distinct()`, a map's values) as of the
    /// realm's current version, frozen: `Sendable`, immutable. Results of objects give
    /// `FrozenResults` instead (where the element type is known to be a class).
    ///
    /// Throws `RealmError`: `.wrongState` inside a write transaction; `.invalidObject` if the
    /// collection's object was deleted; `.invalidArgument` for results of objects reached
    /// through generic code that knows only `RealmCollectionValue`.
    @_disfavoredOverload
    public func freeze() throws -> FrozenValueResults<Element> {
        try frozenValues()
    }

    /// `freeze()` of results of values, with its error type.
    func frozenValues() throws(RealmError) -> FrozenValueResults<Element> {
        guard let source = query.source else {
            throw RealmError(
                .invalidArgument,
                "Results<\(Element.self)> hold objects, so freeze() gives FrozenResults; call it where \(Element.self) is known to be a class.")
        }
        return FrozenValueResults(source: try source.freeze(), steps: steps)
    }
}

extension Realm {
    /// The live results for `results` in this realm (the same query on the live collection),
    /// or nil if the collection's object was deleted since (or is not in this realm's file).
    public func thaw<Element>(_ results: FrozenValueResults<Element>) -> Results<Element>? {
        guard let values = results.source.thawedValues(in: self) else { return nil }
        return results.steps.reduce(Results<Element>(realm: self, values: values)) { $0.appending($1) }
    }
}
