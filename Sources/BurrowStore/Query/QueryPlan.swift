import BurrowStorage

/// How a query is answered in one version, decided once, before anything is read, by
/// `QueryPlan.init` from the query's steps, its class's table in that version and where its
/// objects come from. Every consumer of a query asks for its plan and runs what it says
/// (`QueryExecutor+Plan.swift`): `Results`' `first`, `count`, iteration and subscripts,
/// `setValue(_:forKey:)` and aggregates; `freeze()`, change streams' evaluations and the queries
/// and aggregates of `FrozenResults`. No consumer chooses a way of its own.
///
/// The plans, in the order the planner tries them:
///
/// - `nothing`: the class has no table in this version (no object of it was ever stored).
///   Nothing is read; every consumer answers as for no objects.
/// - `everyObject`: every object of the class, no steps. `count` counts the rows tree without
///   reading a key, as RealmSwift counts a table; `setValue` rewrites every row in one pass
///   (`BulkTargets.all`); aggregates fold each row as one scan reads it; iteration lists the
///   keys. Results of a collection are never this plan: their objects are the collection's.
/// - `probe`: one filter of every object, one `==` on the primary key or an indexed property
///   with a constant whose index key is the value itself (`QueryExecutor.indexProbe`). `first`
///   takes the first index entry of the value, one descent and no row read: the entries of one
///   value follow each other in object-key order, so it is the object evaluation puts first.
///   The other consumers run it as `filter`: the index's candidates are the answer.
/// - `rowFilter`: one filter of every object whose conditions are all row tests (a field of
///   the object itself against a constant, `QueryExecutor.RowTest`) and none on the primary
///   key or an indexed property, whose index would find the objects without reading every row.
///   One walk of the rows, each row tested in place; `setValue` tests each row as the update
///   reaches it (`BulkTargets.matching`), without listing the matches first.
/// - `scan`: one filter of every object that no index can answer (no top-level condition on
///   the primary key or an indexed property) but that is not all row tests: one walk of the
///   rows, the row tests in place and the rest by the general evaluator. The compiled filter
///   is kept with the plan, so deciding between `rowFilter` and `scan` costs no second compile.
/// - `filter`: any other one filter of every object: the candidates of the primary key or an
///   index if one applies and lists few enough objects (`QueryExecutor.indexCandidates`), else
///   a scan. `count` counts the matches without keeping their keys.
/// - `evaluation`: everything else (several steps, a sort, distinct or limit, the objects of
///   a collection: a list, a set, linking objects, a map's values, frozen results' own objects):
///   the general evaluation, `QueryExecutor.evaluation(of:table:base:)` (index candidates and
///   row tests for a first filter, one scan for a first sort, then each step on the keys).
///
/// `count` of `rowFilter`, `scan` and `filter` counts the matches without keeping their keys.
/// `Results` evaluated at their realm's current change stamp answer `first`, `count`,
/// iteration and subscripts from the keys they hold, without planning (that is a cache, not a
/// way of answering); `setValue` and aggregates always ask, since every object's plan is
/// cheaper than the keys. Inside a write transaction the plans are the same, but an
/// evaluation keeps no rows (`keepsRows`).
///
/// The plan is decided anew at each version (a new index, or a class first stored, changes
/// it) and costs no allocation up to `probe`, the plan of `where { $0.name == x }.first`.
/// Confined to the isolation of the version it was made for.
package struct QueryPlan {
    /// One probe of the primary key or an index for one value. A struct rather than an enum of
    /// the two: a plan is made for every `first`, and a struct of two fields is copied and
    /// destroyed in line, where an enum with these payloads goes through outlined copies.
    package struct IndexProbe {
        /// The secondary index to take the value's first entry of; nil for the realm's lookup
        /// by primary key.
        package let index: TreeName?
        package let value: QueryValue
    }

    /// The ways a query is answered (see `QueryPlan`).
    package enum Strategy {
        case nothing
        case everyObject(Table)
        /// `predicate` is the filter the probe answers, for consumers other than `first`.
        case probe(Table, IndexProbe, QueryPredicate)
        case rowFilter(Table, QueryExecutor.CompiledFilter)
        case scan(Table, QueryExecutor.CompiledFilter)
        case filter(Table, QueryPredicate)
        /// The steps, on `base`'s keys (nil: every object of the table).
        case evaluation(Table, [QueryStep], base: QueryBase?)
    }

    /// Which plan, without its parts: what tests and descriptions compare.
    package enum Kind: Equatable {
        case nothing, everyObject, probe, rowFilter, scan, filter, evaluation
    }

    package let strategy: Strategy
    /// Whether the rows an evaluation reads may be kept with its keys, for the objects made
    /// from them: in a pinned version, not inside a write transaction, whose next change may
    /// rewrite the pages they lie in.
    package let keepsRows: Bool

    /// The plan of `steps` on the objects of `table` (nil: the class has none in this version),
    /// or on `base`'s (nil: every object of the class), read through `context`. `writing` tells
    /// whether `context` is inside a write transaction. Reads nothing: a filter that no index
    /// can answer is compiled for `table`, which resolves paths only.
    package init(_ steps: some QuerySteps, table: Table?, base: QueryBase?, writing: Bool, in context: any RowReader) {
        keepsRows = !writing
        guard let table else {
            strategy = .nothing
            return
        }
        guard base == nil else {
            strategy = .evaluation(table, steps.steps, base: base)
            return
        }
        if steps.hasNoSteps {
            strategy = .everyObject(table)
            return
        }
        guard let predicate = steps.onlyFilter else {
            strategy = .evaluation(table, steps.steps, base: nil)
            return
        }
        if let probe = QueryExecutor.indexProbe(predicate, table) {
            strategy = .probe(table, probe, predicate)
        } else if QueryExecutor.indexMayAnswer(predicate, table) {
            strategy = .filter(table, predicate)
        } else {
            let compiled = QueryExecutor(context: context).compile(predicate, for: table)
            strategy = Self.onlyRowTests(compiled, of: predicate, table) ? .rowFilter(table, compiled) : .scan(table, compiled)
        }
    }

    /// The index probe of the plan of `steps` on the objects of `table` if that plan is
    /// `probe`, else nil: the planner's first decision, asked alone by `first`, which runs a
    /// probe without making a plan. `init` decides it the same way, by the same
    /// `QueryExecutor.indexProbe`, for one filter of every object.
    package static func probe(_ steps: some QuerySteps, table: Table?, base: QueryBase?) -> IndexProbe? {
        guard let table, base == nil, let predicate = steps.onlyFilter else { return nil }
        return QueryExecutor.indexProbe(predicate, table)
    }

    /// The table of the objects (nil for `nothing`).
    package var table: Table? {
        switch strategy {
        case .nothing: nil
        case .everyObject(let table), .probe(let table, _, _), .rowFilter(let table, _), .scan(let table, _), .filter(let table, _),
            .evaluation(let table, _, _):
            table
        }
    }

    package var kind: Kind {
        switch strategy {
        case .nothing: .nothing
        case .everyObject: .everyObject
        case .probe: .probe
        case .rowFilter: .rowFilter
        case .scan: .scan
        case .filter: .filter
        case .evaluation: .evaluation
        }
    }

    /// Whether `compiled` (`predicate` compiled for `table`) decides every row by its row tests
    /// alone, each on a field of the row that no index covers: every condition a row test,
    /// nothing left for the general evaluator.
    private static func onlyRowTests(_ compiled: QueryExecutor.CompiledFilter, of predicate: QueryPredicate, _ table: Table) -> Bool {
        let conditions: Int
        if case .and(let conjuncts) = predicate { conditions = conjuncts.count } else { conditions = 1 }
        guard compiled.residual == nil, compiled.tests.count == conditions, !compiled.tests.isEmpty else { return false }
        for test in compiled.tests {
            guard test.field < table.stored.properties.count, table.fieldIndexTrees[test.field] == nil,
                !table.stored.properties[test.field].isPrimary
            else { return false }
        }
        return true
    }
}

/// A query's steps as the planner reads them: its shape first (no steps, or one filter), the
/// whole list only for the general evaluation, so that the query of one `where` is planned
/// without making an array of its steps.
package protocol QuerySteps {
    /// Whether there are no steps.
    var hasNoSteps: Bool { get }
    /// The predicate, if the steps are one filter.
    var onlyFilter: QueryPredicate? { get }
    /// Every step, in the order they were chained.
    var steps: [QueryStep] { get }
}

extension Array: QuerySteps where Element == QueryStep {
    package var hasNoSteps: Bool { isEmpty }

    package var onlyFilter: QueryPredicate? {
        guard count == 1, case .filter(let predicate) = self[0] else { return nil }
        return predicate
    }

    package var steps: [QueryStep] { self }
}

/// The keys of the collection a query filters (a list, a set, linking objects), read when the
/// query evaluates, so that they follow the collection as it changes.
package final class QueryBase {
    package let keys: () -> [ObjectKey]

    package init(_ keys: @escaping () -> [ObjectKey]) {
        self.keys = keys
    }
}
