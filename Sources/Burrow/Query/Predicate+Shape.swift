import BurrowStore
import Foundation

/// The shape of a predicate: everything validation looks at, without the constants' values.
/// Two predicates of the same shape on the same class are both valid or both invalid, so a
/// shape that passed validation lets the next predicate of that shape skip it (`ThreadMemo`):
/// `where { $0.name == x }` run for many `x` is validated once per thread.
extension QueryPredicate {
    /// The predicate with every constant replaced by an empty value of its case (`shape`).
    var shape: QueryPredicate {
        switch self {
        case .constant: return self
        case .and(let conditions): return .and(conditions.map(\.shape))
        case .or(let conditions): return .or(conditions.map(\.shape))
        case .not(let a): return .not(a.shape)
        case .comparison(let c): return .comparison(c.with(lhs: c.lhs.shape, rhs: c.rhs.shape))
        }
    }

    /// Whether the predicate has the shape `shape` (made by `shape`): the same structure, key
    /// paths, operators and options, and constants of the same cases.
    func hasShape(of shape: QueryPredicate) -> Bool {
        // One switch per side, not one over a tuple of both, which would copy them.
        switch self {
        case .comparison(let a):
            guard case .comparison(let b) = shape else { return false }
            return a.op == b.op && a.options == b.options && a.quantifier == b.quantifier
                && a.lhs.hasShape(of: b.lhs) && a.rhs.hasShape(of: b.rhs)
        case .constant(let a):
            guard case .constant(let b) = shape else { return false }
            return a == b
        case .and(let a):
            guard case .and(let b) = shape else { return false }
            return a.count == b.count && zip(a, b).allSatisfy { $0.hasShape(of: $1) }
        case .or(let a):
            guard case .or(let b) = shape else { return false }
            return a.count == b.count && zip(a, b).allSatisfy { $0.hasShape(of: $1) }
        case .not(let a):
            guard case .not(let b) = shape else { return false }
            return a.hasShape(of: b)
        }
    }
}

extension QueryExpression {
    fileprivate var shape: QueryExpression {
        switch self {
        case .constant(let value): .constant(value.shape)
        case .list(let values): .list(values.map(\.shape))
        case .path, .aggregate: self
        case .subquery(let path, let predicate): .subquery(path, predicate.shape)
        }
    }

    fileprivate func hasShape(of shape: QueryExpression) -> Bool {
        switch self {
        case .constant(let a):
            guard case .constant(let b) = shape else { return false }
            return a.hasShape(of: b)
        case .path(let a):
            guard case .path(let b) = shape else { return false }
            return a == b
        case .list(let a):
            guard case .list(let b) = shape else { return false }
            return a.count == b.count && zip(a, b).allSatisfy { $0.hasShape(of: $1) }
        case .aggregate(let a, let x):
            guard case .aggregate(let b, let y) = shape else { return false }
            return a == b && x == y
        case .subquery(let a, let p):
            guard case .subquery(let b, let q) = shape else { return false }
            return a == b && p.hasShape(of: q)
        }
    }
}

extension QueryValue {
    /// An empty value of the same case (of the same class, for an object).
    fileprivate var shape: QueryValue {
        switch self {
        case .object(.stored(let table, _)): .object(.stored(table: table, key: 0))
        case .object(.named(let className, _)): .object(.named(className: className, key: 0))
        default: valueType.flatMap { QueryValue.zero(of: $0) } ?? .null
        }
    }

    fileprivate func hasShape(of shape: QueryValue) -> Bool {
        switch (self, shape) {
        case (.null, .null), (.bool, .bool), (.int, .int), (.float, .float), (.double, .double), (.string, .string),
            (.data, .data), (.date, .date), (.objectId, .objectId), (.uuid, .uuid), (.decimal128, .decimal128):
            true
        case (.object(.stored(let a, _)), .object(.stored(let b, _))): a == b
        case (.object(.named(let a, _)), .object(.named(let b, _))): a == b
        default: false
        }
    }
}
