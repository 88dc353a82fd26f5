import BurrowStore
import Foundation

/// Foundation's `#Predicate`, translated into Burrow's predicate IR:
///
///     try dogs.filter(#Predicate<Dog> { $0.age < 2 && $0.name.starts(with: "R") })
///
/// Translated: `==`, `!=`, `<`, `<=`, `>`, `>=`, `&&`, `||`, `!`, constants and captured
/// values, key paths of `@Persisted` properties (through links with `?.` or `!`),
/// `starts(with:)`, `contains(_:)` on strings, `[…].contains($0.x)` (IN), and
/// `$0.list.contains(x)`. Anything else throws `RealmError` naming the construct.
extension Results where Element: ObjectBase {
    /// The objects satisfying a Foundation `Predicate`. Throws `RealmError`
    /// (`.invalidArgument`) naming any construct the predicate uses that Burrow cannot
    /// translate, or an invalid comparison.
    public func filter(_ predicate: Predicate<Element>) throws(RealmError) -> Results<Element> {
        appending(.filter(try PredicateTranslator.translate(predicate, for: Element.self)))
    }
}

extension FrozenResults {
    /// The objects satisfying a Foundation `Predicate` (see `Results.filter(_:)`).
    public func filter(_ predicate: Predicate<T>) throws(RealmError) -> FrozenResults<T> {
        applying(.filter(try PredicateTranslator.translate(predicate, for: T.self)))
    }
}

/// Walks a `Predicate`'s expression tree. Each expression type Burrow understands conforms to
/// `TranslatablePredicateExpression`; its children are translated through `term(_:)`, which
/// names any type that does not conform.
struct PredicateTranslator {
    /// What an expression stands for: a condition, a key path from the queried object, or a
    /// constant.
    enum Term {
        case condition(QueryPredicate)
        case path(QueryPath)
        case constant(QueryValue)
        case list([QueryValue])
    }

    var variables: [PredicateExpressions.VariableID: QueryPath] = [:]

    static func translate<T: ObjectBase>(_ predicate: Predicate<T>, for type: T.Type) throws(RealmError) -> QueryPredicate {
        var translator = PredicateTranslator()
        translator.variables[predicate.variable.key] = QueryPath([])
        let result: QueryPredicate
        switch try translator.term(predicate.expression) {
        case .condition(let condition): result = condition
        case .path(let path): result = .compare(.path(path), .equal, .constant(.bool(true)))
        case .constant(.bool(let value)): result = .constant(value)
        default: throw RealmError(.invalidArgument, "The predicate's body is not a condition.")
        }
        try QueryValidator.validate(result, for: ClassInfo.of(T.self))
        return result
    }

    mutating func term(_ expression: Any) throws(RealmError) -> Term {
        guard let translatable = expression as? any TranslatablePredicateExpression else {
            throw RealmError(
                .invalidArgument,
                "The predicate uses \(Self.describe(type(of: expression))), which Burrow cannot translate into a query yet; use the where { } DSL or a query string for it."
            )
        }
        return try translatable.translate(&self)
    }

    mutating func condition(_ expression: Any) throws(RealmError) -> QueryPredicate {
        switch try term(expression) {
        case .condition(let c): return c
        case .path(let p): return .compare(.path(p), .equal, .constant(.bool(true)))
        case .constant(.bool(let b)): return .constant(b)
        default: throw RealmError(.invalidArgument, "The predicate combines a value with && or ||, or negates it, where a condition is expected.")
        }
    }

    mutating func side(_ expression: Any) throws(RealmError) -> QueryExpression {
        switch try term(expression) {
        case .path(let p): return .path(p)
        case .constant(let v): return .constant(v)
        case .list(let values): return .list(values)
        case .condition(let c): throw RealmError(.invalidArgument, "The predicate compares a condition (\(c)) as a value.")
        }
    }

    mutating func compare(_ lhs: Any, _ op: QueryOperator, _ rhs: Any) throws(RealmError) -> Term {
        .condition(.compare(try side(lhs), op, try side(rhs)))
    }

    /// `PredicateExpressions.Equal<…>` as `Equal`, for messages.
    static func describe(_ type: Any.Type) -> String {
        let name = String(describing: type)
        return name.split(separator: "<").first.map(String.init) ?? name
    }
}

/// A `PredicateExpressions` type Burrow translates.
protocol TranslatablePredicateExpression {
    func translate(_ translator: inout PredicateTranslator) throws(RealmError) -> PredicateTranslator.Term
}

extension PredicateExpressions.Variable: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws(RealmError) -> PredicateTranslator.Term {
        guard let path = t.variables[key] else {
            throw RealmError(
                .invalidArgument, "The predicate uses a variable Burrow does not know (a closure inside the predicate); it cannot be translated yet.")
        }
        return .path(path)
    }
}

extension PredicateExpressions.KeyPath: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws(RealmError) -> PredicateTranslator.Term {
        guard case .path(let base) = try t.term(root) else {
            throw RealmError(.invalidArgument, "The predicate reads \(keyPath) from a value that is not an object of the query.")
        }
        let name = try KeyPathName.resolve(keyPath)
        return .path(QueryPath(base.components + [.property(name)]))
    }
}

extension PredicateExpressions.Value: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws(RealmError) -> PredicateTranslator.Term {
        if let list = value as? any Sequence, !(value is String), !(value is Data) {
            var values: [QueryValue] = []
            for element in list {
                guard let converted = try QueryValue.argument(element) else {
                    throw RealmError(.invalidArgument, "The predicate uses \(element) (\(type(of: element))), which queries cannot compare.")
                }
                values.append(converted)
            }
            return .list(values)
        }
        guard let converted = try QueryValue.argument(value) else {
            throw RealmError(.invalidArgument, "The predicate uses \(value) (\(Output.self)), which queries cannot compare.")
        }
        return .constant(converted)
    }
}

extension PredicateExpressions.NilLiteral: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws(RealmError) -> PredicateTranslator.Term { .constant(.null) }
}

extension PredicateExpressions.Equal: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws(RealmError) -> PredicateTranslator.Term { try t.compare(lhs, .equal, rhs) }
}

extension PredicateExpressions.NotEqual: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws(RealmError) -> PredicateTranslator.Term { try t.compare(lhs, .notEqual, rhs) }
}

extension PredicateExpressions.Comparison: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws(RealmError) -> PredicateTranslator.Term {
        let queryOp: QueryOperator
        switch op {
        case .lessThan: queryOp = .less
        case .lessThanOrEqual: queryOp = .lessOrEqual
        case .greaterThan: queryOp = .greater
        case .greaterThanOrEqual: queryOp = .greaterOrEqual
        @unknown default: throw RealmError(.invalidArgument, "The predicate uses the comparison \(op), which Burrow cannot translate.")
        }
        return try t.compare(lhs, queryOp, rhs)
    }
}

extension PredicateExpressions.Conjunction: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws(RealmError) -> PredicateTranslator.Term {
        .condition(.conjunction(try t.condition(lhs), try t.condition(rhs)))
    }
}

extension PredicateExpressions.Disjunction: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws(RealmError) -> PredicateTranslator.Term {
        .condition(.disjunction(try t.condition(lhs), try t.condition(rhs)))
    }
}

extension PredicateExpressions.Negation: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws(RealmError) -> PredicateTranslator.Term {
        .condition(.not(try t.condition(wrapped)))
    }
}

extension PredicateExpressions.SequenceStartsWith: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws(RealmError) -> PredicateTranslator.Term { try t.compare(base, .beginsWith, prefix) }
}

extension PredicateExpressions.CollectionContainsCollection: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws(RealmError) -> PredicateTranslator.Term { try t.compare(base, .contains, other) }
}

extension PredicateExpressions.SequenceContains: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws(RealmError) -> PredicateTranslator.Term {
        // `[a, b].contains($0.x)` is `x IN {a, b}`; `$0.list.contains(v)` is `ANY list == v`.
        switch (try t.side(sequence), try t.side(element)) {
        case (.list(let values), let element): return .condition(.compare(element, .equal, .list(values)))
        case (.path(let path), let element): return .condition(.compare(.path(path), .equal, element))
        default: throw RealmError(.invalidArgument, "The predicate's contains(_:) is neither on a list of values nor on a collection property.")
        }
    }
}

extension PredicateExpressions.ForcedUnwrap: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws(RealmError) -> PredicateTranslator.Term { try t.term(inner) }
}

extension PredicateExpressions.OptionalFlatMap: TranslatablePredicateExpression {
    func translate(_ t: inout PredicateTranslator) throws(RealmError) -> PredicateTranslator.Term {
        guard case .path(let base) = try t.term(wrapped) else {
            throw RealmError(.invalidArgument, "The predicate's optional chaining (?.) is on a value that is not a key path of the query.")
        }
        t.variables[variable.key] = base
        return try t.term(transform)
    }
}
