/// Running a chain of query steps over the values of a collection of values (`List<Int>`,
/// `MutableSet<String?>`, a `Map`'s values, `List<AnyRealmValue>`), held in memory, whose key
/// paths are all the value itself (`self`). Needs no version of the file: the values are
/// given, and a link among them compares by class name and key, as a link constant does.
extension QueryExecutor {
    /// The positions of `elements` (a collection's values, in its order) that `steps` keep, in
    /// the order the steps give: a filter keeps the values its predicate accepts, a sort orders
    /// them by value (stably, null first when ascending), `distinct` keeps the first of each
    /// value, `limit` the first ones.
    package static func evaluation(of steps: [QueryStep], elements: [QueryValue]) -> [Int] {
        var positions = Array(elements.indices)
        for step in steps {
            switch step {
            case .filter(let predicate):
                let compiled = compileOverValues(predicate)
                positions = positions.filter { matches(compiled, element: elements[$0]) }
            case .sort(let descriptors):
                // Every descriptor sorts by the value itself, so the first decides.
                guard let first = descriptors.first else { continue }
                let column = positions.map { elements[$0] }
                positions = sortedPositions(count: positions.count, [first], columns: [column]).map { positions[$0] }
            case .distinct:
                let column = positions.map { elements[$0] }
                positions = distinctPositions(count: positions.count, columns: [column]).map { positions[$0] }
            case .limit(let count):
                positions = Array(positions.prefix(max(0, count)))
            }
        }
        return positions
    }

    /// `predicate` over values compiled on its own: each side is the value or constants
    /// (strings folded as the comparison's options say; links left named, as the values are).
    /// Recursion follows the predicate's nesting, which the front ends bound.
    private static func compileOverValues(_ predicate: QueryPredicate) -> CompiledPredicate {
        switch predicate {
        case .constant(let value): return .constant(value)
        case .and(let conditions): return .and(conditions.map(compileOverValues))
        case .or(let conditions): return .or(conditions.map(compileOverValues))
        case .not(let inner): return .not(compileOverValues(inner))
        case .comparison(let c):
            let c = c.normalized
            func side(_ expression: QueryExpression) -> CompiledSide {
                switch expression {
                case .constant(let value): .values([folded(value, c.options)])
                case .list(let values): .values(values.map { folded($0, c.options) })
                // The validator admits no key path but the value's own.
                default: .element
                }
            }
            return .comparison(CompiledComparison(lhs: side(c.lhs), rhs: side(c.rhs), op: c.op, options: c.options, quantifier: c.quantifier))
        }
    }

    private static func folded(_ value: QueryValue, _ options: QueryStringOptions) -> QueryValue {
        guard !options.isEmpty, case .string(let s) = value else { return value }
        return .string(fold(s, options))
    }
}
