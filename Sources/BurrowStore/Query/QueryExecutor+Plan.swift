import BurrowStorage

/// Running a `QueryPlan`: what each plan reads for the consumers of a query. Which plan a
/// query gets, and why, is `QueryPlan`'s to decide; these only carry it out. Static: a plan
/// that reads no row (a count of every object, a probe) needs no executor, and the others make
/// the one they use.
extension QueryExecutor {
    /// The object keys `plan` gives, in result order, and the rows the evaluation read for them
    /// (nil if it read none): what iteration, subscripts and frozen results hold. A `probe` or
    /// `filter` is `filterTable`'s (index candidates, or a scan); a `rowFilter` or `scan` is one
    /// scan with the plan's compiled filter; an `evaluation` is `evaluation(of:table:base:)`.
    /// Traps if a read fails (`evaluation(of:in:)` throws instead).
    package static func evaluate(_ plan: QueryPlan, in context: any RowReader) -> (keys: [ObjectKey], rows: [UnsafeRawBufferPointer]?) {
        do {
            return try evaluation(of: plan, in: context)
        } catch {
            context.fail(error)
        }
    }

    /// `evaluate(_:in:)`, throwing where it would trap.
    package static func evaluation(of plan: QueryPlan, in context: any RowReader) throws(StorageError) -> (
        keys: [ObjectKey], rows: [UnsafeRawBufferPointer]?
    ) {
        switch plan.strategy {
        case .nothing:
            return ([], nil)
        case .everyObject(let table):
            return (try context.objectKeys(table), nil)
        case .probe(let table, _, let predicate), .filter(let table, let predicate):
            return try QueryExecutor(context: context).filterTable(predicate, table)
        case .rowFilter(let table, let filter), .scan(let table, let filter):
            return try QueryExecutor(context: context).scanTable(filter, table)
        case .evaluation(let table, let steps, let base):
            return try QueryExecutor(context: context).evaluation(of: steps, table: table, base: base?.keys())
        }
    }

    /// The object keys `plan` gives (`evaluation(of:in:)` without the rows).
    package static func keys(of plan: QueryPlan, in context: any RowReader) throws(StorageError) -> [ObjectKey] {
        try evaluation(of: plan, in: context).keys
    }

    /// How many objects `plan` gives, without keeping their keys where the plan allows it: every
    /// object of a class from its rows tree's counts, reading no key; one filter as its index
    /// candidates or one scan that counts the matches. An `evaluation` counts the keys it gives
    /// (results that keep those keys count them themselves). Traps if a read fails.
    package static func count(of plan: QueryPlan, in context: any RowReader) -> Int {
        do {
            switch plan.strategy {
            case .nothing:
                return 0
            case .everyObject(let table):
                return try context.reader.count(table.rowsTree)
            case .probe(let table, _, let predicate), .filter(let table, let predicate):
                return try QueryExecutor(context: context).countMatches(predicate, table)
            case .rowFilter(let table, let filter), .scan(let table, let filter):
                return try QueryExecutor(context: context).countMatches(filter, table)
            case .evaluation:
                return try keys(of: plan, in: context).count
            }
        } catch {
            context.fail(error)
        }
    }

    /// The aggregate of the property at `keyPath` over the objects of `plan`: every object of a
    /// class folded as one scan reads its rows, no key listed; otherwise over the objects of
    /// `keys` (the plan's keys, which results may hold already). Traps if a read fails.
    package static func aggregate(
        _ aggregate: QueryAggregate, of keyPath: QueryPath, _ plan: QueryPlan, in context: any RowReader, keys: () -> [ObjectKey]
    ) -> QueryValue {
        switch plan.strategy {
        case .nothing:
            return Self.aggregate(aggregate, of: [])
        case .everyObject(let table):
            return QueryExecutor(context: context).aggregate(aggregate, of: keyPath, in: table, keys: nil)
        case .probe(let table, _, _), .rowFilter(let table, _), .scan(let table, _), .filter(let table, _), .evaluation(let table, _, _):
            return QueryExecutor(context: context).aggregate(aggregate, of: keyPath, in: table, keys: keys())
        }
    }
}
