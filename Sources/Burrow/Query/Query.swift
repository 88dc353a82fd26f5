import BurrowStore
import Foundation

/// Options of string comparisons in the typed query DSL.
public struct StringOptions: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    /// Options from their raw bits (1: case-insensitive, 2: diacritic-insensitive).
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// Letters compare without regard to case: `"rex"` matches `"Rex"`.
    public static let caseInsensitive = StringOptions(rawValue: 1)
    /// Letters compare without regard to diacritics: `"e"` matches `"é"`.
    public static let diacriticInsensitive = StringOptions(rawValue: 2)

    var query: QueryStringOptions {
        var options: QueryStringOptions = []
        if contains(.caseInsensitive) { options.insert(.caseInsensitive) }
        if contains(.diacriticInsensitive) { options.insert(.diacriticInsensitive) }
        return options
    }
}

/// A term of the typed query DSL that `Results.where(_:)` hands its closure, as in RealmSwift:
///
///     dogs.where { $0.age < 2 && $0.name.starts(with: "R") }
///     people.where { $0.dogs.age > 5 }                  // any dog older than 5
///     people.where { $0.dogs.count >= 2 && $0.address.city == "Oslo" }
///
/// `Query<T>` stands for a value of type `T` read from each object: a property
/// (`$0.age`), a path through links (`$0.favoriteToy.name`), through a collection
/// (`$0.dogs.age`, true if any element satisfies the condition), or an aggregate
/// (`$0.dogs.count`, `$0.scores.avg`). Comparing it makes a `Query<Bool>`, a condition;
/// conditions combine with `&&`, `||` and `!`.
@dynamicMemberLookup
public struct Query<T> {
    enum Node {
        case path(QueryPath)
        case aggregate(QueryPath, QueryAggregate)
        case predicate(QueryPredicate)
        /// `(condition).count`: how many elements of the collection the condition's key
        /// paths go through satisfy it; which collection is found for the queried class.
        case subquery(QueryPredicate)
        /// The first `count` conditions of `chain`, all of which (or one of which) must hold:
        /// what `&&` (`||`) makes.
        case chain(QueryConditionChain, count: Int)
    }

    let node: Node

    init(_ node: Node) { self.node = node }

    /// The query of the queried object itself (the closure's argument).
    init() { node = .path(QueryPath([])) }

    var path: QueryPath {
        switch node {
        case .path(let path), .aggregate(let path, _): return path
        case .predicate, .subquery, .chain: preconditionFailure("A condition (\(predicate)) is used where a key path is expected.")
        }
    }

    var expression: QueryExpression {
        switch node {
        case .path(let path): .path(path)
        case .aggregate(let path, let aggregate): .aggregate(path, aggregate)
        // The empty path marks the collection as not found yet (see `resolvingSubqueries`).
        case .subquery(let p): .subquery(QueryPath([]), p)
        case .predicate, .chain: preconditionFailure("A condition (\(predicate)) is used where a value is expected.")
        }
    }

    func appending(_ component: QueryPath.Component) -> QueryPath {
        var components = path.components
        components.append(component)
        return QueryPath(components)
    }

    func compare<U>(_ op: QueryOperator, _ value: QueryValue, options: QueryStringOptions = []) -> Query<U> {
        Query<U>(.predicate(.compare(expression, op, .constant(value), options: options)))
    }

    func compare<U, V>(_ op: QueryOperator, _ other: Query<V>) -> Query<U> {
        Query<U>(.predicate(.compare(expression, op, other.expression)))
    }

    /// The condition this query stands for: a comparison, or a `Bool` property being true.
    var predicate: QueryPredicate {
        switch node {
        case .predicate(let p): p
        case .chain(let chain, let count):
            chain.isConjunction ? .and(Array(chain.conditions.prefix(count))) : .or(Array(chain.conditions.prefix(count)))
        default: .compare(expression, .equal, .constant(.bool(true)))
        }
    }

    /// The predicate `isIncluded` builds for `T`, checked against `T`'s schema. Traps with
    /// the reason if it is invalid (the DSL's types rule out most mistakes).
    static func predicate(_ isIncluded: (Query<T>) -> Query<Bool>) -> QueryPredicate where T: ObjectBase {
        predicate(isIncluded, in: .object(ClassInfo.of(T.self)))
    }

    /// The predicate `isIncluded` builds, checked in `scope`: against a class's schema for a
    /// query of objects (`T` the class, or for a map's objects, `T?`), or for a query of values
    /// (`T` the value type; the closure's argument is the value itself). Traps with the reason
    /// if it is invalid.
    static func predicate(_ isIncluded: (Query<T>) -> Query<Bool>, in scope: QueryValidator.Scope) -> QueryPredicate {
        do {
            let built = isIncluded(Query<T>()).predicate
            // Conditions combined in a loop can nest without bound (`q = !(q || c)`): checked
            // without recursion, before anything walks the predicate recursively.
            let depth = built.nestingDepth
            guard depth <= QueryPredicate.maximumDepth else {
                preconditionFailure(
                    "The query's conditions nest \(depth) levels deep; at most \(QueryPredicate.maximumDepth) are allowed. Chains of && (or of ||) are flat and may be of any length: combine conditions in a loop with one operator, or use IN for many values."
                )
            }
            guard case .object(let info) = scope else {
                try QueryValidator.validate(built, in: scope)
                return built
            }
            let predicate = try built.resolvingSubqueries(in: info)
            try QueryValidator.validate(predicate, for: info)
            return predicate
        } catch {
            preconditionFailure(error.description)
        }
    }

    /// A constant for the query: a stored value, or a link to a managed object. Traps for an
    /// unmanaged object, which no row can link to.
    static func constant<V: _Persistable>(_ value: V) -> QueryValue {
        do {
            return try QueryValue(value._stored)
        } catch {
            preconditionFailure(error.description)
        }
    }
}

// MARK: - Key paths

extension Query where T: ObjectBase {
    /// The property `member` of the object.
    public subscript<V>(dynamicMember member: KeyPath<T, V>) -> Query<V> {
        if case .path(let path) = node, path.components.isEmpty {
            // The queried object's own property: the key path's memoized path.
            return Query<V>(.path(KeyPathName.path(of: member)))
        }
        return Query<V>(.path(appending(.property(KeyPathName.name(of: member)))))
    }
}

/// `Optional`, to the query DSL: links are optional, and their properties can be queried.
public protocol _QueryOptional {
    /// The type of the value when there is one.
    associatedtype Wrapped
}

extension Optional: _QueryOptional {}

extension Query where T: _QueryOptional, T.Wrapped: ObjectBase {
    /// The property `member` of the linked object (nil if there is no link).
    public subscript<V>(dynamicMember member: KeyPath<T.Wrapped, V>) -> Query<V> {
        Query<V>(.path(appending(.property(KeyPathName.name(of: member)))))
    }
}

/// `List`, `MutableSet` and `LinkingObjects`, to the query DSL.
public protocol _QueryCollection {
    /// The type of the collection's elements.
    associatedtype _QueryElement
}

extension List: _QueryCollection {
    /// The list's element type, to the query DSL.
    public typealias _QueryElement = Element
}
extension MutableSet: _QueryCollection {
    /// The set's element type, to the query DSL.
    public typealias _QueryElement = Element
}

extension LinkingObjects: _QueryCollection {
    /// The linking objects' class, to the query DSL.
    public typealias _QueryElement = Element
}

extension Query where T: _QueryCollection, T._QueryElement: ObjectBase {
    /// The property `member` of the collection's objects: a condition on it holds if it holds
    /// for any of them (`$0.dogs.age > 5`).
    public subscript<V>(dynamicMember member: KeyPath<T._QueryElement, V>) -> Query<V> {
        Query<V>(.path(appending(.property(KeyPathName.name(of: member)))))
    }
}

extension Query where T: _QueryCollection {
    /// The number of elements.
    public var count: Query<Int> { Query<Int>(.aggregate(path, .count)) }
}

extension Query where T: _QueryCollection, T._QueryElement: _Persistable {
    /// Whether the collection contains `value`.
    public func contains(_ value: T._QueryElement) -> Query<Bool> {
        compare(.equal, Self.constant(value))
    }

    /// Whether the collection contains any of `values`.
    public func containsAny<S: Sequence>(in values: S) -> Query<Bool> where S.Element == T._QueryElement {
        Query<Bool>(.predicate(.compare(expression, .equal, .list(values.map { Self.constant($0) }))))
    }

    /// Whether any element equals `rhs` (in a subquery: the element counted does).
    public static func == (lhs: Query<T>, rhs: T._QueryElement) -> Query<Bool> { lhs.compare(.equal, constant(rhs)) }
    /// Whether any element differs from `rhs` (in a subquery: the element counted does).
    public static func != (lhs: Query<T>, rhs: T._QueryElement) -> Query<Bool> { lhs.compare(.notEqual, constant(rhs)) }
}

/// Ordering conditions on the elements of a collection of values: true if any element
/// satisfies them (RealmSwift's `$0.scores > 5`); in a subquery, `($0.scores > 5).count`,
/// the element counted must.
extension Query where T: _QueryCollection, T._QueryElement: _QueryComparable {
    /// Some element is less than `rhs`.
    public static func < (lhs: Query<T>, rhs: T._QueryElement) -> Query<Bool> { lhs.compare(.less, constant(rhs)) }
    /// Some element is less than or equal to `rhs`.
    public static func <= (lhs: Query<T>, rhs: T._QueryElement) -> Query<Bool> { lhs.compare(.lessOrEqual, constant(rhs)) }
    /// Some element is greater than `rhs`.
    public static func > (lhs: Query<T>, rhs: T._QueryElement) -> Query<Bool> { lhs.compare(.greater, constant(rhs)) }
    /// Some element is greater than or equal to `rhs`.
    public static func >= (lhs: Query<T>, rhs: T._QueryElement) -> Query<Bool> { lhs.compare(.greaterOrEqual, constant(rhs)) }
}

extension Query where T: _QueryCollection, T._QueryElement: _QueryNumeric {
    /// The smallest element (nil for an empty collection).
    public var min: Query<T._QueryElement> { Query<T._QueryElement>(.aggregate(path, .min)) }
    /// The largest element (nil for an empty collection).
    public var max: Query<T._QueryElement> { Query<T._QueryElement>(.aggregate(path, .max)) }
    /// The sum of the elements (0 for an empty collection).
    public var sum: Query<T._QueryElement> { Query<T._QueryElement>(.aggregate(path, .sum)) }
    /// The average of the elements (nil for an empty collection).
    public var avg: Query<T._QueryElement> { Query<T._QueryElement>(.aggregate(path, .avg)) }

}

extension Query where T: _QueryCollection, T._QueryElement: _QueryNumeric & Comparable {
    /// Whether every element lies in `range` (true for an empty collection).
    public func contains(_ range: Range<T._QueryElement>) -> Query<Bool> {
        Query<Bool>(
            .predicate(
                .and([
                    .compare(expression, .greaterOrEqual, .constant(Self.constant(range.lowerBound)), quantifier: .all),
                    .compare(expression, .less, .constant(Self.constant(range.upperBound)), quantifier: .all),
                ])))
    }

    /// Whether every element lies in `range` (true for an empty collection).
    public func contains(_ range: ClosedRange<T._QueryElement>) -> Query<Bool> {
        Query<Bool>(
            .predicate(.compare(expression, .between, .list([Self.constant(range.lowerBound), Self.constant(range.upperBound)]), quantifier: .all)))
    }
}

extension Query where T: _QueryNumeric {
    /// The smallest of the values a path through a collection reaches (`$0.dogs.age.min`).
    public var min: Query<T> { Query<T>(.aggregate(path, .min)) }
    /// The largest of the values a path through a collection reaches.
    public var max: Query<T> { Query<T>(.aggregate(path, .max)) }
    /// The sum of the values a path through a collection reaches.
    public var sum: Query<T> { Query<T>(.aggregate(path, .sum)) }
    /// The average of the values a path through a collection reaches.
    public var avg: Query<T> { Query<T>(.aggregate(path, .avg)) }
}

/// `Map`, to the query DSL.
public protocol _QueryMap {
    /// The type of the map's values.
    associatedtype _QueryValue
}

extension Map: _QueryMap {
    /// The map's value type, to the query DSL.
    public typealias _QueryValue = Value
}

extension Query where T: _QueryMap {
    /// The number of entries.
    public var count: Query<Int> { Query<Int>(.aggregate(path, .count)) }
    /// The map's keys: a condition on them holds if it holds for any key.
    public var keys: Query<String> { Query<String>(.path(appending(.keys))) }
    /// The map's values: a condition on them holds if it holds for any value.
    public var values: Query<T._QueryValue> { Query<T._QueryValue>(.path(appending(.values))) }

    /// The value under `key` (nil where the map has no such key).
    public subscript(key: String) -> Query<T._QueryValue> {
        Query<T._QueryValue>(.path(appending(.mapKey(key))))
    }
}

extension Query where T: _QueryMap, T._QueryValue: _Persistable {
    /// Whether any value of the map is `value`.
    public func contains(_ value: T._QueryValue) -> Query<Bool> {
        compare(.equal, Self.constant(value))
    }
}

// MARK: - Conditions

/// Conditions combined with `&&` (or `||`) one at a time, as a loop does, kept in one
/// buffer shared by the queries of the chain: each `&&` appends to it in place when its
/// left side is the newest query of the chain, so that a chain of n conditions takes O(n)
/// to build and is one flat node of the predicate, however long. A query of the chain
/// reads only its own prefix, so combining an older one again copies that prefix first.
final class QueryConditionChain {
    let isConjunction: Bool
    var conditions: [QueryPredicate]

    init(isConjunction: Bool, _ conditions: [QueryPredicate]) {
        self.isConjunction = isConjunction
        self.conditions = conditions
    }

    /// `lhs && rhs` (or `lhs || rhs`, if not `isConjunction`).
    static func combine(_ lhs: Query<Bool>, _ rhs: Query<Bool>, isConjunction: Bool) -> Query<Bool> {
        let chain: QueryConditionChain
        if case .chain(let existing, let count) = lhs.node, existing.isConjunction == isConjunction {
            chain =
                existing.conditions.count == count
                ? existing : QueryConditionChain(isConjunction: isConjunction, Array(existing.conditions.prefix(count)))
        } else {
            let first = lhs.predicate
            chain = QueryConditionChain(isConjunction: isConjunction, isConjunction ? first.conjuncts : first.disjuncts)
        }
        let added = rhs.predicate
        chain.conditions.append(contentsOf: isConjunction ? added.conjuncts : added.disjuncts)
        return Query<Bool>(.chain(chain, count: chain.conditions.count))
    }
}

extension Query where T == Bool {
    /// Both conditions.
    public static func && (lhs: Query<Bool>, rhs: Query<Bool>) -> Query<Bool> {
        QueryConditionChain.combine(lhs, rhs, isConjunction: true)
    }

    /// Either condition.
    public static func || (lhs: Query<Bool>, rhs: Query<Bool>) -> Query<Bool> {
        QueryConditionChain.combine(lhs, rhs, isConjunction: false)
    }

    /// The opposite condition.
    public static prefix func ! (query: Query<Bool>) -> Query<Bool> {
        Query(.predicate(.not(query.predicate)))
    }
}

extension Query where T: _Persistable {
    /// Equal to `rhs` (numbers by value, strings by their exact characters).
    public static func == (lhs: Query<T>, rhs: T) -> Query<Bool> { lhs.compare(.equal, constant(rhs)) }
    /// Not equal to `rhs`.
    public static func != (lhs: Query<T>, rhs: T) -> Query<Bool> { lhs.compare(.notEqual, constant(rhs)) }
    /// Equal to the other side's value.
    public static func == (lhs: Query<T>, rhs: Query<T>) -> Query<Bool> { lhs.compare(.equal, rhs) }
    /// Not equal to the other side's value.
    public static func != (lhs: Query<T>, rhs: Query<T>) -> Query<Bool> { lhs.compare(.notEqual, rhs) }

    /// Equal to one of `values`.
    public func `in`<S: Sequence>(_ values: S) -> Query<Bool> where S.Element == T {
        Query<Bool>(.predicate(.compare(expression, .equal, .list(values.map { Self.constant($0) }))))
    }
}

/// Values with an order, to the query DSL: numbers, dates, strings, ObjectIds, UUIDs,
/// `AnyRealmValue`, and their optionals.
public protocol _QueryComparable: _Persistable {}
/// Numbers, to the query DSL (and their optionals).
public protocol _QueryNumeric: _QueryComparable {}

extension Int: _QueryNumeric {}
extension Int8: _QueryNumeric {}
extension Int16: _QueryNumeric {}
extension Int32: _QueryNumeric {}
extension Int64: _QueryNumeric {}
extension Float: _QueryNumeric {}
extension Double: _QueryNumeric {}
extension Decimal128: _QueryNumeric {}
extension Date: _QueryComparable {}
extension String: _QueryComparable {}
extension ObjectId: _QueryComparable {}
extension UUID: _QueryComparable {}
extension AnyRealmValue: _QueryComparable {}
extension Optional: _QueryComparable where Wrapped: _QueryComparable & _OptionalPersistable {}
extension Optional: _QueryNumeric where Wrapped: _QueryNumeric & _OptionalPersistable {}

/// Ordering conditions: numbers by value (across number types), dates by instant, strings by
/// their UTF-8 bytes, ObjectIds and UUIDs by their bytes. A nil value satisfies none of them.
extension Query where T: _QueryComparable {
    /// Less than `rhs`.
    public static func < (lhs: Query<T>, rhs: T) -> Query<Bool> { lhs.compare(.less, constant(rhs)) }
    /// Less than or equal to `rhs`.
    public static func <= (lhs: Query<T>, rhs: T) -> Query<Bool> { lhs.compare(.lessOrEqual, constant(rhs)) }
    /// Greater than `rhs`.
    public static func > (lhs: Query<T>, rhs: T) -> Query<Bool> { lhs.compare(.greater, constant(rhs)) }
    /// Greater than or equal to `rhs`.
    public static func >= (lhs: Query<T>, rhs: T) -> Query<Bool> { lhs.compare(.greaterOrEqual, constant(rhs)) }
    /// Less than the other side's value.
    public static func < (lhs: Query<T>, rhs: Query<T>) -> Query<Bool> { lhs.compare(.less, rhs) }
    /// Less than or equal to the other side's value.
    public static func <= (lhs: Query<T>, rhs: Query<T>) -> Query<Bool> { lhs.compare(.lessOrEqual, rhs) }
    /// Greater than the other side's value.
    public static func > (lhs: Query<T>, rhs: Query<T>) -> Query<Bool> { lhs.compare(.greater, rhs) }
    /// Greater than or equal to the other side's value.
    public static func >= (lhs: Query<T>, rhs: Query<T>) -> Query<Bool> { lhs.compare(.greaterOrEqual, rhs) }
}

extension Query where T: _QueryNumeric & Comparable {
    /// Within `range` (its upper bound excluded).
    public func contains(_ range: Range<T>) -> Query<Bool> {
        Query<Bool>(
            .predicate(
                .and([
                    .compare(expression, .greaterOrEqual, .constant(Self.constant(range.lowerBound))),
                    .compare(expression, .less, .constant(Self.constant(range.upperBound))),
                ])))
    }

    /// Within `range` (both bounds included): `BETWEEN`.
    public func contains(_ range: ClosedRange<T>) -> Query<Bool> {
        Query<Bool>(.predicate(.compare(expression, .between, .list([Self.constant(range.lowerBound), Self.constant(range.upperBound)]))))
    }
}

/// Enums compare by their raw values.
extension Query where T: PersistableEnum, T.RawValue: Comparable {
    /// Raw value less than `rhs`'s.
    public static func < (lhs: Query<T>, rhs: T) -> Query<Bool> { lhs.compare(.less, constant(rhs)) }
    /// Raw value less than or equal to `rhs`'s.
    public static func <= (lhs: Query<T>, rhs: T) -> Query<Bool> { lhs.compare(.lessOrEqual, constant(rhs)) }
    /// Raw value greater than `rhs`'s.
    public static func > (lhs: Query<T>, rhs: T) -> Query<Bool> { lhs.compare(.greater, constant(rhs)) }
    /// Raw value greater than or equal to `rhs`'s.
    public static func >= (lhs: Query<T>, rhs: T) -> Query<Bool> { lhs.compare(.greaterOrEqual, constant(rhs)) }
}

// MARK: - Strings and data

/// Strings and data (and their optionals), to the query DSL's string operators.
public protocol _QueryBinary: _Persistable {}
/// Strings (and optional strings), to `like`.
public protocol _QueryString: _QueryBinary {}

extension String: _QueryString {}
extension Data: _QueryBinary {}
extension Optional: _QueryBinary where Wrapped: _QueryBinary & _OptionalPersistable {}
extension Optional: _QueryString where Wrapped: _QueryString & _OptionalPersistable {}

extension Query where T: _QueryBinary {
    /// Contains `value`.
    public func contains(_ value: T, options: StringOptions = []) -> Query<Bool> {
        compare(.contains, Self.constant(value), options: options.query)
    }

    /// Starts with `value`.
    public func starts(with value: T, options: StringOptions = []) -> Query<Bool> {
        compare(.beginsWith, Self.constant(value), options: options.query)
    }

    /// Ends with `value`.
    public func ends(with value: T, options: StringOptions = []) -> Query<Bool> {
        compare(.endsWith, Self.constant(value), options: options.query)
    }

    /// Equal to `value`, with options.
    public func equals(_ value: T, options: StringOptions = []) -> Query<Bool> {
        compare(.equal, Self.constant(value), options: options.query)
    }

    /// Not equal to `value`, with options.
    public func notEquals(_ value: T, options: StringOptions = []) -> Query<Bool> {
        compare(.notEqual, Self.constant(value), options: options.query)
    }
}

extension Query where T: _QueryString {
    /// Matches the pattern `value`, where `*` stands for any run of characters and `?` for
    /// exactly one.
    public func like(_ value: T, caseInsensitive: Bool = false) -> Query<Bool> {
        compare(.like, Self.constant(value), options: caseInsensitive ? .caseInsensitive : [])
    }
}
