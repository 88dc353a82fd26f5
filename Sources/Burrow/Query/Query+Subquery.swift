import BurrowStore

/// Subqueries in the typed DSL, as RealmSwift writes them: a condition on the elements of one
/// collection, counted.
///
///     people.where { ($0.dogs.age > 5 && $0.dogs.name.starts(with: "R")).count > 0 }
///     items.where { ($0.scores > 5).count > 1 }           // a List<Int>
///
/// Unlike `$0.dogs.age > 5 && $0.dogs.name.starts(with: "R")`, where each condition may hold
/// for a different dog, the conditions of a subquery must hold for the same element. This is
/// the query string's `SUBQUERY(dogs, $d, $d.age > 5 AND $d.name BEGINSWITH 'R').@count`.
extension Query where T == Bool {
    /// The number of elements of the collection this condition's key paths go through that
    /// satisfy it together. Every key path of the condition must go through the same
    /// collection; building the query traps otherwise, naming the key paths.
    public var count: Query<Int> { Query<Int>(.subquery(predicate)) }
}

extension QueryPredicate {
    /// The predicate with each DSL subquery's collection found for `info`'s class (the
    /// shortest part of its key paths that reaches many values) and its key paths made
    /// relative to the collection's elements. Throws if a subquery's key paths go through no
    /// collection, or through different ones.
    func resolvingSubqueries(in info: ClassInfo) throws(RealmError) -> QueryPredicate {
        // Most predicates have none: returned as they are, not rebuilt.
        guard hasPendingSubquery else { return self }
        switch self {
        case .constant: return self
        case .and(let conditions): return .and(try conditions.map { c throws(RealmError) in try c.resolvingSubqueries(in: info) })
        case .or(let conditions): return .or(try conditions.map { c throws(RealmError) in try c.resolvingSubqueries(in: info) })
        case .not(let a): return .not(try a.resolvingSubqueries(in: info))
        case .comparison(let c):
            return .comparison(c.with(lhs: try c.lhs.resolvingSubquery(in: info), rhs: try c.rhs.resolvingSubquery(in: info)))
        }
    }

    private var hasPendingSubquery: Bool {
        switch self {
        case .constant: false
        case .and(let conditions), .or(let conditions): conditions.contains { $0.hasPendingSubquery }
        case .not(let a): a.hasPendingSubquery
        case .comparison(let c): c.lhs.isPendingSubquery || c.rhs.isPendingSubquery
        }
    }

    /// The key paths the predicate reads (a found subquery's collection; the key paths of a
    /// subquery whose collection is not found yet).
    fileprivate var keyPaths: [QueryPath] {
        switch self {
        case .constant: []
        case .and(let conditions), .or(let conditions): conditions.flatMap(\.keyPaths)
        case .not(let a): a.keyPaths
        case .comparison(let c): c.lhs.keyPaths + c.rhs.keyPaths
        }
    }

    /// The predicate with the first `count` components of each key path dropped.
    fileprivate func dropping(_ count: Int) -> QueryPredicate {
        switch self {
        case .constant: return self
        case .and(let conditions): return .and(conditions.map { $0.dropping(count) })
        case .or(let conditions): return .or(conditions.map { $0.dropping(count) })
        case .not(let a): return .not(a.dropping(count))
        case .comparison(let c): return .comparison(c.with(lhs: c.lhs.dropping(count), rhs: c.rhs.dropping(count)))
        }
    }
}

extension QueryExpression {
    /// Whether this is a DSL subquery whose collection is not found yet.
    fileprivate var isPendingSubquery: Bool {
        if case .subquery(let path, _) = self { return path.components.isEmpty }
        return false
    }

    fileprivate var keyPaths: [QueryPath] {
        switch self {
        case .constant, .list: []
        case .path(let p), .aggregate(let p, _): [p]
        case .subquery(let p, let inner): isPendingSubquery ? inner.keyPaths : [p]
        }
    }

    fileprivate func dropping(_ count: Int) -> QueryExpression {
        func drop(_ path: QueryPath) -> QueryPath { QueryPath(Array(path.components.dropFirst(count))) }
        switch self {
        case .constant, .list: return self
        case .path(let p): return .path(drop(p))
        case .aggregate(let p, let aggregate): return .aggregate(drop(p), aggregate)
        case .subquery(let p, let inner): return isPendingSubquery ? .subquery(p, inner.dropping(count)) : .subquery(drop(p), inner)
        }
    }

    fileprivate func resolvingSubquery(in info: ClassInfo) throws(RealmError) -> QueryExpression {
        guard isPendingSubquery, case .subquery(_, let inner) = self else { return self }
        let paths = inner.keyPaths
        guard let first = paths.first else {
            throw RealmError(
                .invalidArgument, "Invalid subquery '(\(inner)).count': its condition reads no key path, so it counts the elements of no collection.")
        }
        var length = 0
        var collection: QueryValidator.PathInfo?
        for end in first.components.indices {
            let reached = try QueryValidator.resolve(QueryPath(Array(first.components[...end])), in: info)
            if reached.isMany {
                length = end + 1
                collection = reached
                break
            }
        }
        guard let collection else {
            throw RealmError(.invalidArgument, "Invalid subquery '(\(inner)).count': '\(first)' goes through no collection of \(info.name).")
        }
        // A map's keys or values are the collection counted, not the map.
        if length < first.components.count, [.keys, .values].contains(first.components[length]) { length += 1 }
        let prefix = Array(first.components.prefix(length))
        if let other = paths.first(where: { Array($0.components.prefix(length)) != prefix }) {
            throw RealmError(
                .invalidArgument,
                "Invalid subquery '(\(inner)).count': its conditions must be on the elements of one collection, and '\(first)' and '\(other)' are not."
            )
        }
        var relative = inner.dropping(length)
        if collection.type == .object || collection.type == .linkingObjects, let element = collection.linkedClass {
            relative = try relative.resolvingSubqueries(in: element)
        }
        return .subquery(QueryPath(prefix), relative)
    }
}
