/// The one form every query takes, whatever wrote it (the typed `where { }` DSL or a query
/// string): a tree of conditions over key paths of the queried class. `Sendable`, so frozen
/// results keep their query. `QueryValidator` checks a predicate against a class's schema
/// before it runs; `QueryExecutor` runs it on encoded rows.
///
/// A chain of `AND`s (or of `OR`s) is one node with every condition in it, however long the
/// chain: the tree is as deep as the query's nesting (parentheses, `NOT`, `SUBQUERY`), which
/// the front ends bound (`maximumDepth`), so code that walks it recursively needs little stack.
package enum QueryPredicate: Sendable, CustomStringConvertible {
    /// TRUEPREDICATE or FALSEPREDICATE.
    case constant(Bool)
    /// Every condition holds (two or more, none of them an `.and`).
    case and([QueryPredicate])
    /// Some condition holds (two or more, none of them an `.or`).
    case or([QueryPredicate])
    indirect case not(QueryPredicate)
    /// Not boxed: a comparison is a class reference already.
    case comparison(QueryComparison)

    /// How deeply conditions may nest (parentheses, `NOT`, `SUBQUERY`, and in the typed DSL
    /// conditions combined in a loop that alternates `&&` and `||`). Chains of `AND` or `OR`
    /// are flat and have no limit.
    package static let maximumDepth = 200

    /// `a AND b`, with the conditions of either side that are ANDs already taken in.
    package static func conjunction(_ a: QueryPredicate, _ b: QueryPredicate) -> QueryPredicate {
        .and(a.conjuncts + b.conjuncts)
    }

    /// `a OR b`, with the conditions of either side that are ORs already taken in.
    package static func disjunction(_ a: QueryPredicate, _ b: QueryPredicate) -> QueryPredicate {
        .or(a.disjuncts + b.disjuncts)
    }

    /// `AND` of `conditions` (at least one), or the one condition.
    package static func all(_ conditions: [QueryPredicate]) -> QueryPredicate {
        conditions.count == 1 ? conditions[0] : .and(conditions.flatMap(\.conjuncts))
    }

    /// `OR` of `conditions` (at least one), or the one condition.
    package static func any(_ conditions: [QueryPredicate]) -> QueryPredicate {
        conditions.count == 1 ? conditions[0] : .or(conditions.flatMap(\.disjuncts))
    }

    package var description: String {
        switch self {
        case .constant(let value): value ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .and(let conditions): "(" + conditions.map(\.description).joined(separator: " AND ") + ")"
        case .or(let conditions): "(" + conditions.map(\.description).joined(separator: " OR ") + ")"
        case .not(let a): "NOT \(a)"
        case .comparison(let c): c.description
        }
    }

    /// How deeply the predicate's conditions nest (a comparison without a subquery: 1), found
    /// without recursion, so that a predicate too deep to walk recursively can be refused.
    package var nestingDepth: Int {
        if case .comparison(let c) = self {
            // Each side tested in place: a switch over the tuple of both would copy them.
            var nests = false
            if case .subquery = c.lhs { nests = true }
            if case .subquery = c.rhs { nests = true }
            if !nests { return 1 }
        }
        var deepest = 0
        // Starts empty, so a lone condition (the common case) allocates nothing.
        var pending: [(QueryPredicate, Int)] = []
        var next: (QueryPredicate, Int)? = (self, 1)
        while let (predicate, depth) = next {
            deepest = max(deepest, depth)
            switch predicate {
            case .constant: break
            case .and(let conditions), .or(let conditions):
                for condition in conditions { pending.append((condition, depth + 1)) }
            case .not(let inner): pending.append((inner, depth + 1))
            case .comparison(let c):
                if case .subquery(_, let inner) = c.lhs { pending.append((inner, depth + 1)) }
                if case .subquery(_, let inner) = c.rhs { pending.append((inner, depth + 1)) }
            }
            next = pending.popLast()
        }
        return deepest
    }

    /// The predicate's conditions that must all hold (its top-level `AND`).
    package var conjuncts: [QueryPredicate] {
        if case .and(let conditions) = self { return conditions }
        return [self]
    }

    /// The predicate's conditions of which one must hold (its top-level `OR`).
    package var disjuncts: [QueryPredicate] {
        if case .or(let conditions) = self { return conditions }
        return [self]
    }
}

/// A path from an object of the queried class to the values a condition tests:
/// `name`, `favoriteToy.name`, `dogs.age` (through a collection: many values),
/// `parks['Boston']`, `parks.@keys`.
package struct QueryPath: Sendable, Hashable, CustomStringConvertible {
    /// How many steps (properties, `@links.Class.property`, map keys) a key path may take: far
    /// more than a model needs, and few enough that following one never exhausts the stack.
    package static let maximumSteps = 200

    package enum Component: Sendable, Hashable {
        /// A property of the object reached so far.
        case property(String)
        /// The value under a key of the map reached so far.
        case mapKey(String)
        /// The keys of the map reached so far.
        case keys
        /// The values of the map reached so far (what a map path means without this too).
        case values
        /// `@links.Class.property`: the objects of class `className` whose link `property`
        /// points at the object reached so far, as a `LinkingObjects` property declares them.
        case backlinks(className: String, property: String)
        /// `@links`: every link to the object reached so far, from any class and property
        /// (the query language counts them, `@links.@count`).
        case allBacklinks
    }

    package var components: [Component]

    package init(_ components: [Component]) { self.components = components }

    /// A path of properties, `"a.b.c"` split at its dots.
    package init(dotted: String) {
        components = dotted.split(separator: ".", omittingEmptySubsequences: false).map { .property(String($0)) }
    }

    package var description: String {
        // The object itself, or inside a SUBQUERY over values, the element.
        guard !components.isEmpty else { return "SELF" }
        var text = ""
        for component in components {
            switch component {
            case .property(let name): text += (text.isEmpty ? "" : ".") + name
            case .mapKey(let key): text += "['\(key)']"
            case .keys: text += ".@keys"
            case .values: text += ".@values"
            case .backlinks(let className, let property): text += (text.isEmpty ? "" : ".") + "@links.\(className).\(property)"
            case .allBacklinks: text += (text.isEmpty ? "" : ".") + "@links"
            }
        }
        return text
    }
}

/// An aggregate of the values a path reaches in one object: `dogs.@count`, `dogs.@sum.age`.
package enum QueryAggregate: String, Sendable {
    case count, sum, avg, min, max
}

/// One side of a comparison.
package enum QueryExpression: Sendable, CustomStringConvertible {
    case constant(QueryValue)
    /// Several constants: the right side of `IN {…}` or `BETWEEN {a, b}`, or an array argument.
    case list([QueryValue])
    case path(QueryPath)
    case aggregate(QueryPath, QueryAggregate)
    /// `SUBQUERY(path, $x, predicate).@count`: how many of the objects of the collection at
    /// `path` satisfy `predicate` (whose key paths start at those objects).
    indirect case subquery(QueryPath, QueryPredicate)

    package var description: String {
        switch self {
        case .constant(let v): v.description
        case .list(let values): "{" + values.map(\.description).joined(separator: ", ") + "}"
        case .path(let p): p.description
        case .subquery(let p, let predicate): "SUBQUERY(\(p), $x, \(predicate)).@count"
        case .aggregate(let p, .count): "\(p).@count"
        case .aggregate(let p, let a):
            // `dogs.age.@sum` reads as the query language's `dogs.@sum.age`.
            p.components.count > 1
                ? "\(QueryPath(Array(p.components.dropLast()))).@\(a.rawValue).\(QueryPath([p.components.last!]))" : "\(p).@\(a.rawValue)"
        }
    }

    package var path: QueryPath? {
        switch self {
        case .path(let p), .aggregate(let p, _), .subquery(let p, _): p
        default: nil
        }
    }
}

/// The operator of a comparison.
@usableFromInline
package enum QueryOperator: String, Sendable {
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    case beginsWith = "BEGINSWITH"
    case endsWith = "ENDSWITH"
    case contains = "CONTAINS"
    case like = "LIKE"
    /// `BETWEEN {low, high}`: the right side is a list of two values, both bounds included.
    case between = "BETWEEN"

    package var isOrdering: Bool {
        switch self {
        case .less, .lessOrEqual, .greater, .greaterOrEqual, .between: true
        default: false
        }
    }

    package var isStringOperator: Bool {
        switch self {
        case .beginsWith, .endsWith, .contains, .like: true
        default: false
        }
    }

    /// The operator with its sides swapped: `a < b` is `b > a`.
    package var flipped: QueryOperator {
        switch self {
        case .less: .greater
        case .lessOrEqual: .greaterOrEqual
        case .greater: .less
        case .greaterOrEqual: .lessOrEqual
        default: self
        }
    }
}

/// How a comparison of many values (a path through a collection) holds: for any of them
/// (the default, as RealmSwift's `$0.dogs.age > 5`), for all, or for none.
@usableFromInline
package enum QueryQuantifier: String, Sendable {
    case any = "ANY"
    case all = "ALL"
    case none = "NONE"
}

/// Options of string comparisons: `[c]` (case-insensitive) and `[d]` (diacritic-insensitive).
/// Inlinable, so that an option set literal the API writes (`[]` on every comparison it
/// builds) compiles to a constant there rather than to a generic `SetAlgebra` call.
@usableFromInline
package struct QueryStringOptions: OptionSet, Sendable, Hashable {
    @usableFromInline package let rawValue: UInt8

    @inlinable package init(rawValue: UInt8) { self.rawValue = rawValue }

    package static let caseInsensitive = QueryStringOptions(rawValue: 1)
    package static let diacriticInsensitive = QueryStringOptions(rawValue: 2)

    package var suffix: String {
        switch (contains(.caseInsensitive), contains(.diacriticInsensitive)) {
        case (true, true): "[cd]"
        case (true, false): "[c]"
        case (false, true): "[d]"
        case (false, false): ""
        }
    }
}

/// `lhs op rhs`: for a path through a collection, the quantifier says for which of its values
/// the comparison must hold. A side with several values (a path, or a list) compares as `IN`:
/// `age IN {1, 2}` is `age == 1 OR age == 2`.
///
/// Immutable, and a class: a predicate is copied at every step from its building to its
/// evaluation, and copying a class costs one reference count, where copying the sides' enums
/// (paths, strings, lists) costs one for each value they hold.
package final class QueryComparison: Sendable, CustomStringConvertible {
    package let lhs: QueryExpression
    package let op: QueryOperator
    package let rhs: QueryExpression
    package let options: QueryStringOptions
    package let quantifier: QueryQuantifier

    package init(lhs: QueryExpression, op: QueryOperator, rhs: QueryExpression, options: QueryStringOptions = [], quantifier: QueryQuantifier = .any)
    {
        self.lhs = lhs
        self.op = op
        self.rhs = rhs
        self.options = options
        self.quantifier = quantifier
    }

    /// The comparison with other sides (and operator), the rest unchanged.
    package func with(lhs: QueryExpression, op: QueryOperator? = nil, rhs: QueryExpression) -> QueryComparison {
        QueryComparison(lhs: lhs, op: op ?? self.op, rhs: rhs, options: options, quantifier: quantifier)
    }

    package var description: String {
        let prefix = quantifier == .any ? "" : quantifier.rawValue + " "
        if op == .equal, case .list = rhs { return "\(prefix)\(lhs) IN \(rhs)" }
        return "\(prefix)\(lhs) \(op.rawValue)\(options.suffix) \(rhs)"
    }
}

extension QueryPredicate {
    package static func compare(
        _ lhs: QueryExpression, _ op: QueryOperator, _ rhs: QueryExpression, options: QueryStringOptions = [], quantifier: QueryQuantifier = .any
    ) -> QueryPredicate {
        .comparison(QueryComparison(lhs: lhs, op: op, rhs: rhs, options: options, quantifier: quantifier))
    }
}
