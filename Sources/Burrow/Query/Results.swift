import BurrowStorage
import BurrowStore

/// The objects of one class in a realm, optionally filtered, sorted, deduplicated and limited:
/// lazily evaluated and live. A `Results` reads nothing until it is used, and it re-evaluates
/// its whole query when its realm moves to a new version or the open write transaction
/// changes the objects. Confined to its realm's isolation, like the realm.
///
/// As in RealmSwift, results can also hold the values of a managed collection of values
/// (`Results<Int>` from `scores.sorted()`, `Results<String>` from
/// `tags.filter("self BEGINSWITH 'a'")`), or a map's optional objects (`Results<Dog?>` from
/// `dogsByName.sorted(byKeyPath: "age")`); those are live the same way, re-read from their
/// collection when it changes.
public struct Results<Element: RealmCollectionValue>: RandomAccessCollection, CustomStringConvertible {
    let owner: Realm
    /// The query: its steps and where the objects come from, with what it found last.
    let query: ResultsQuery
    /// The realm's count of `invalidate()` calls when these results were made: once it moves,
    /// they are invalidated, as RealmSwift's are.
    let invalidations: UInt64

    /// Every object of `Element` (`base` nil), or the objects of a collection, which
    /// `sourceInvalidated` says has become invalidated (its object deleted); for results of
    /// `DynamicObject`, of the class stored as `className`.
    ///
    /// `frozenBase` reads the collection's keys at any frozen version of the file, for change
    /// streams (which evaluate the query at each new version); without it, results of the
    /// collection have no change stream.
    init(
        realm: Realm, base: QueryBase? = nil, frozenBase: FrozenQueryBase? = nil, className: String? = nil,
        sourceInvalidated: (() -> Bool)? = nil
    ) {
        owner = realm
        query = ResultsQuery(base: base, frozenBase: frozenBase, className: className, sourceInvalidated: sourceInvalidated)
        invalidations = realm.invalidations
    }

    /// The values of a collection of values, read from `source` at each evaluation.
    init(realm: Realm, values source: ValueSource) {
        owner = realm
        query = ResultsQuery(values: source)
        invalidations = realm.invalidations
    }

    /// `other`'s query read as `Element`s: the objects of results of projections, or the
    /// projections of results of objects (of the projections' root class).
    init<Other>(rebinding other: Results<Other>) {
        assert(Results<Other>.objectClass == Self.objectClass, "internal error: \(Other.self) results read as \(Element.self)")
        self.init(realm: other.owner, query: other.query, invalidations: other.invalidations)
    }

    /// Results of `query`, made when the realm had been invalidated `invalidations` times.
    init(realm: Realm, query: ResultsQuery, invalidations: UInt64) {
        owner = realm
        self.query = query
        self.invalidations = invalidations
    }

    /// The query steps, in the order they were chained.
    var steps: [QueryStep] { query.steps }

    /// Where the objects come from: nil for every object of the class, else the keys of a
    /// collection (a list, a set, linking objects), read anew at each evaluation.
    var base: QueryBase? { query.base }

    /// These results with one more query step.
    func appending(_ step: QueryStep) -> Results<Element> {
        Results(realm: owner, query: ResultsQuery(appending: step, to: query), invalidations: invalidations)
    }

    /// The class of the objects: `Element`, or for results of a map's optional objects
    /// (`Results<Dog?>`), the wrapped class. Only results of objects ask.
    static var objectClass: ObjectBase.Type {
        guard let type = Element._shape.objectType else {
            preconditionFailure("internal error: results of \(Element.self) values read as objects")
        }
        return type
    }

    /// `object`, made from the results' table, as an `Element`: a projection of it, made from
    /// it; or the object itself, as the results' class or (for a map's objects) the optional
    /// of it. Not `as!`: with `Element` unconstrained, that is a generic dynamic cast on every
    /// object read (measured: the indexed lookup `where { }.first` lost about 6% to it). A
    /// class reference and an optional of one have the same layout, and the object is of the
    /// results' class (its table's), so the reference is reinterpreted as it is.
    @inline(__always)
    static func element(_ object: ObjectBase) -> Element {
        if Element._isProjection { return Element._fromStored(.object(object)) }
        assert(object is Element, "internal error: a \(type(of: object)) read as \(Element.self)")
        return unsafeBitCast(object, to: Element.self)
    }

    /// The table of `Element` in the realm's current version (nil if it has no objects yet):
    /// for dynamic results, the stored class's dynamic table.
    var table: Table? {
        if let className = query.className { return owner.store.dynamicTable(named: className) }
        do {
            return try owner.table(for: Self.objectClass, creating: false)
        } catch {
            // `objects(_:)` cannot throw, as in RealmSwift. Configure `objectTypes` to have
            // a schema mismatch thrown when the realm opens instead.
            preconditionFailure("\(error.description) (Set Realm.Configuration.objectTypes to have this checked when the realm opens.)")
        }
    }

    /// The class of the objects: `Element`'s, or for results of `DynamicObject` the stored
    /// class's (or, before the file stores it, the program's Swift class of that name).
    var elementInfo: ClassInfo {
        guard let className = query.className else { return ClassInfo.of(Self.objectClass) }
        if let table { return table.info }
        if let type = Realm.swiftClass(named: className, among: owner.knownTypes) { return ClassInfo.of(type) }
        return ClassInfo.of(Self.objectClass)
    }

    /// How the query is answered in the realm's current version (see `QueryPlan`): what
    /// `first`, `count`, iteration, subscripts, `setValue(_:forKey:)` and the aggregates run.
    /// Records the plan's kind in the query (`ResultsQuery.plannedKind`).
    func plan() -> QueryPlan {
        let plan = QueryPlan(query, table: table, base: query.base, writing: owner.write != nil, in: owner)
        query.plannedKind = plan.kind
        return plan
    }

    /// The query evaluated at the realm's current change stamp: its keys, and the rows read for
    /// them where the plan keeps them. Evaluates `plan` (made now if not given) unless the
    /// keys of this stamp are known.
    func current(planned given: QueryPlan?) -> ResultsQuery {
        let evaluation = query
        if evaluation.stamp != owner.changeStamp {
            let plan = given ?? self.plan()
            let (keys, rows) = QueryExecutor.evaluate(plan, in: owner)
            evaluation.table = plan.table
            evaluation.keys = keys
            evaluation.rows = plan.keepsRows ? rows : nil
            evaluation.stamp = owner.changeStamp
        }
        return evaluation
    }

    private var current: ResultsQuery { current(planned: nil) }

    /// The table and keys of the results now (evaluating them if the realm changed).
    var evaluated: (table: Table?, keys: [ObjectKey]) {
        let evaluation = current
        return (evaluation.table, evaluation.keys)
    }

    /// The first object, or nil if there is none. Results not evaluated at the realm's
    /// current version whose query is one condition an index answers exactly (`==` on the
    /// primary key or an indexed property: the `probe` plan) find it with one probe of that
    /// index, as `object(ofType:forPrimaryKey:)` does, instead of evaluating every match
    /// (and without making the whole plan).
    public var first: Element? {
        if query.source != nil { return currentValues.first.map(Element._fromStored) }
        guard query.stamp != owner.changeStamp else { return first(planned: nil) }
        guard let table else { return first(planned: plan()) }
        let probed: ObjectKey??
        do {
            probed = try owner.store.firstKey(probing: query, table, base: query.base)
        } catch {
            owner.fail(error)
        }
        guard let probed else { return first(planned: plan()) }
        query.plannedKind = .probe
        guard let key = probed else { return nil }
        return Self.element(owner.object(table, key))
    }

    /// The first object of the results evaluated with `plan` (made if needed).
    private func first(planned plan: QueryPlan?) -> Element? {
        let evaluation = current(planned: plan)
        guard let key = evaluation.keys.first else { return nil }
        let object = Self.element(owner.object(evaluation.table!, key, row: evaluation.rows?[0]))
        return object
    }

    /// How many objects there are. Results not evaluated at the realm's current version are
    /// counted as their plan says: every object of a class from its tree without reading a
    /// key, as RealmSwift counts a table; the objects of one filter of a class without keeping
    /// their keys; any other query by evaluating it (and keeping its keys).
    public var count: Int {
        if query.source != nil { return currentValues.count }
        guard query.stamp != owner.changeStamp else { return query.keys.count }
        let plan = self.plan()
        if case .evaluation = plan.strategy { return current(planned: plan).keys.count }
        return QueryExecutor.count(of: plan, in: owner)
    }

    /// Whether there are no objects (counted as `count` counts).
    public var isEmpty: Bool { count == 0 }

    public var startIndex: Int { 0 }
    public var endIndex: Int { query.source != nil ? currentValues.count : current.keys.count }

    /// The object (or value) at `position`, which must be less than `count`.
    public subscript(position: Int) -> Element {
        if query.source != nil {
            let values = currentValues
            precondition(
                position >= 0 && position < values.count,
                "Index \(position) is out of bounds (\(Element.self) results have \(counted(values.count, "value")))")
            return Element._fromStored(values[position])
        }
        let evaluation = current
        precondition(
            position >= 0 && position < evaluation.keys.count,
            "Index \(position) is out of bounds (\(Element.self) results have \(counted(evaluation.keys.count, "object")))")
        return Self.element(owner.object(evaluation.table!, evaluation.keys[position], row: evaluation.rows?[position]))
    }

    /// Iterates over the objects as they were when iteration began, as RealmSwift does: the
    /// loop walks the object keys the results held at that moment, so deleting, changing or
    /// adding objects inside the loop (even taking an object out of the filter, or moving it in
    /// the sort) visits each of those objects exactly once, in their order at the start. An
    /// object deleted before the loop reaches it is still visited, invalidated
    /// (`isInvalidated`), as RealmSwift's enumeration yields it. `count`, `first` and
    /// subscripts stay live: inside the loop they see the changes.
    ///
    /// `for`-`in`, `forEach`, `map`, `filter`, `reduce`, `enumerated()` and `lazy` all iterate
    /// this way. Confined to the realm's isolation, like the results.
    public func makeIterator() -> Iterator {
        if query.source != nil { return Iterator(owner: owner, values: currentValues) }
        let evaluation = current
        return Iterator(owner: owner, table: evaluation.table, keys: evaluation.keys, rows: evaluation.rows, stamp: evaluation.stamp)
    }

    /// The objects, each transformed by `transform`, visited as iteration visits them (as they
    /// were when the call began; see `makeIterator()`).
    public func map<T, E: Error>(_ transform: (Element) throws(E) -> T) throws(E) -> [T] {
        var iterator = makeIterator()
        var mapped: [T] = []
        mapped.reserveCapacity(iterator.count)
        while let object = iterator.next() { mapped.append(try transform(object)) }
        return mapped
    }

    /// Iterates over the objects of `Results` as they were when iteration began: the object
    /// keys evaluated then (shared with the results, not copied); for results of values, the
    /// values. Confined to the realm's isolation.
    public struct Iterator: IteratorProtocol {
        private let owner: Realm
        private let table: Table?
        private let keys: [ObjectKey]
        /// The rows the evaluation read for `keys`, valid while the realm stays at `stamp`.
        private let rows: [UnsafeRawBufferPointer]?
        private let stamp: UInt64
        /// For results of values: the values evaluated when iteration began.
        private let values: [_StoredValue]?
        private var position = 0

        init(owner: Realm, table: Table?, keys: [ObjectKey], rows: [UnsafeRawBufferPointer]?, stamp: UInt64) {
            self.owner = owner
            self.table = table
            self.keys = keys
            self.rows = rows
            self.stamp = stamp
            values = nil
        }

        init(owner: Realm, values: [_StoredValue]) {
            self.owner = owner
            table = nil
            keys = []
            rows = nil
            stamp = 0
            self.values = values
        }

        /// How many elements the iteration visits in all.
        var count: Int { values?.count ?? keys.count }

        /// The next object (invalidated if it was deleted since iteration began) or value, or
        /// nil.
        public mutating func next() -> Element? {
            if let values {
                guard position < values.count else { return nil }
                defer { position += 1 }
                return Element._fromStored(values[position])
            }
            guard position < keys.count else { return nil }
            defer { position += 1 }
            // A row read by the evaluation lives as long as the version it was read in: only
            // while the realm has not changed since.
            let row = owner.changeStamp == stamp ? rows?[position] : nil
            let object = Results.element(owner.object(table!, keys[position], row: row))
            return object
        }
    }

    /// Sets `key` to `value` on every object, as `setValue(_:forKey:)` on each would: a bulk
    /// update that reads no property it does not change. Must be called in a write
    /// transaction; a value that does not fit is recorded and thrown at commit.
    public func setValue(_ value: Any?, forKey key: String) {
        // Values have no properties to set, as `setValue(_:forKey:)` of any collection of values.
        guard query.source == nil else { return }
        let plan = self.plan()
        switch plan.strategy {
        case .nothing:
            return
        case .everyObject(let table):
            // Every object of the class: the rows are walked without listing their keys.
            owner.setValue(value, forKey: key, ofObjects: .all, keys: { owner.store.allKeys(table) }, in: table)
        case .rowFilter(let table, let filter):
            // One filter of row tests: each row tested as the update walks the rows.
            let matcher = ObjectStore.RowMatcher(filter, table, in: owner)
            owner.setValue(value, forKey: key, ofObjects: .matching(matcher), keys: { current(planned: plan).keys }, in: table)
        default:
            let evaluation = current(planned: plan)
            guard let table = evaluation.table else { return }
            owner.setValue(value, forKey: key, ofObjects: .keys(evaluation.keys), keys: { evaluation.keys }, in: table)
        }
    }

    /// The realm these results belong to.
    public var realm: Realm? { owner }

    /// The elements as RealmSwift prints results: `Results<Dog> <0x…> (` then `[0] Dog { … }`
    /// a line (at most 100). Evaluates the results.
    public var description: String { description(maxDepth: ObjectBase.descriptionMaxDepth) }

    func description(maxDepth depth: Int) -> String {
        let elements = Array(self)
        return CollectionDescription.describe("Results", of: elements, count: elements.count, instance: query, depth: depth)
    }
}

/// The query of a `Results`: its last step and the query that step extends, so that chaining a
/// step makes one node and copies nothing; and what evaluating it found at one change stamp of
/// its realm: the object keys, and outside write transactions the rows the evaluation read for
/// them (in the pinned version, valid until the stamp changes), which objects made from the
/// results start from instead of looking up.
///
/// Not generic, unlike `Results`: creating an instance of a generic class looks its type up at
/// run time, which costs more than the allocation itself. Confined to its realm's isolation.
final class ResultsQuery {
    /// The query this one extends by `step`; nil for a query of no steps.
    let parent: ResultsQuery?
    let step: QueryStep?
    /// Where the objects come from: nil for every object of the class, else the keys of a
    /// collection (a list, a set, linking objects), read anew at each evaluation.
    let base: QueryBase?
    /// For results of a collection of objects: the keys of the collection at a frozen version.
    let frozenBase: FrozenQueryBase?
    /// For results of `DynamicObject`: the stored class they are objects of.
    let className: String?
    /// For results of values: the collection they come from. Its steps filter, sort and
    /// deduplicate the values (`QueryExecutor.evaluation(of:elements:)`).
    let source: ValueSource?
    /// For results of a collection (of objects or values): whether the collection can no
    /// longer be read (its object was deleted), which invalidates the results.
    let sourceInvalidated: (() -> Bool)?
    private let depth: Int

    var stamp: UInt64 = .max
    var table: Table?
    var keys: [ObjectKey] = []
    var rows: [UnsafeRawBufferPointer]?
    /// For results of values: the values evaluation found, at `stamp`.
    var values: [_StoredValue] = []
    /// The kind of plan made last for this query (by `Results.plan()`), whichever consumer
    /// asked: what tests read to see which plan each consumer ran.
    var plannedKind: QueryPlan.Kind?

    /// The query of no steps over every object of a class (`base` nil) or a collection's.
    init(base: QueryBase?, frozenBase: FrozenQueryBase?, className: String?, sourceInvalidated: (() -> Bool)?) {
        parent = nil
        step = nil
        self.base = base
        self.frozenBase = frozenBase
        self.className = className
        source = nil
        self.sourceInvalidated = sourceInvalidated
        depth = 0
    }

    /// The query of no steps over the values of a collection of values.
    init(values source: ValueSource) {
        parent = nil
        step = nil
        base = nil
        frozenBase = nil
        className = nil
        self.source = source
        sourceInvalidated = source.isInvalidated
        depth = 0
    }

    init(appending step: QueryStep, to parent: ResultsQuery) {
        self.parent = parent
        self.step = step
        base = parent.base
        frozenBase = parent.frozenBase
        className = parent.className
        source = parent.source
        sourceInvalidated = parent.sourceInvalidated
        depth = parent.depth + 1
    }

    /// Whether this is every object of the class, with no steps.
    var isAllObjects: Bool { step == nil && base == nil && source == nil }

    /// The steps, in the order they were chained.
    var steps: [QueryStep] {
        var steps: [QueryStep] = []
        steps.reserveCapacity(depth)
        var node = self
        while let step = node.step, let parent = node.parent {
            steps.append(step)
            node = parent
        }
        return steps.reversed()
    }
}

/// A query's steps, for the planner: one `where` is planned from its node alone.
extension ResultsQuery: QuerySteps {
    var hasNoSteps: Bool { step == nil }

    var onlyFilter: QueryPredicate? {
        guard parent?.step == nil, case .filter(let predicate)? = step else { return nil }
        return predicate
    }
}
