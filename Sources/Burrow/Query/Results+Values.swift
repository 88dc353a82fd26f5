import BurrowStore
import Foundation

/// Where results of values come from: a managed collection of values (`List<Int>`,
/// `MutableSet<String?>`, a `Map`'s values, a `List<AnyRealmValue>`), read anew at each
/// evaluation so that the results follow the collection. Confined to its realm's isolation.
final class ValueSource {
    /// The collection's values now, in its order (a map's in the order of its keys).
    let elements: () -> [_StoredValue]
    /// Whether the collection can no longer be read (its object was deleted).
    let isInvalidated: () -> Bool
    /// The collection frozen at the realm's current version (what `freeze()` of its results
    /// runs their steps on).
    let freeze: () throws(RealmError) -> any FrozenValueCollection
    /// The collection followed from the realm's current version, for the change streams of
    /// its results.
    let track: (_ keyPaths: Set<String>?) throws(RealmError) -> any ValueCollectionTracking
    /// What one value is to the query validator: its type, queried as `self`.
    let element: QueryValidator.PathInfo

    /// The source of the values of `collection`, a managed list, set or map.
    init<Collection: ValueResultsSource>(_ collection: Collection) {
        elements = {
            // As in RealmSwift, results of a collection whose object was deleted are
            // invalidated, and reading them traps.
            precondition(
                !collection.isInvalidated,
                "Results have been invalidated: the object that owns this \(Collection.self) was deleted or invalidated. Fetch the object again and query its collection."
            )
            return collection.storedValues
        }
        isInvalidated = { collection.isInvalidated }
        freeze = { () throws(RealmError) in try collection.frozenForm() }
        track = { keyPaths throws(RealmError) in
            ValueCollectionTracker<Collection.FrozenForm>(owner: try collection.observedOwner(), keyPaths: keyPaths)
        }
        element = .values(Collection.Value._shape)
    }

    /// The positions in `elements` of the values `steps` keep, in the order they give.
    static func positions(of steps: [QueryStep], in elements: [_StoredValue]) -> [Int] {
        guard !steps.isEmpty else { return Array(elements.indices) }
        // A value no query can compare (an unmanaged object, which a managed collection
        // never holds) compares as null.
        let compared = elements.map { element in (try? QueryValue(element)) ?? .null }
        return QueryExecutor.evaluation(of: steps, elements: compared)
    }
}

extension Results {
    /// The values of results of values (`query.source` set) at the realm's current change
    /// stamp: the collection's values, through the query's steps. Evaluated when the realm
    /// changed since the last evaluation.
    var currentValues: [_StoredValue] {
        let evaluation = query
        guard evaluation.stamp != owner.changeStamp, let source = evaluation.source else { return evaluation.values }
        let elements = source.elements()
        let steps = evaluation.steps
        evaluation.values = steps.isEmpty ? elements : ValueSource.positions(of: steps, in: elements).map { elements[$0] }
        evaluation.stamp = owner.changeStamp
        return evaluation.values
    }

    /// The scope the queries of these results are checked in: the objects' class, or for
    /// results of values, the value itself.
    var queryScope: QueryValidator.Scope {
        if let source = query.source { return .values(source.element) }
        return .object(elementInfo)
    }
}

/// A type whose values `sorted(ascending:)` and `distinct()` order by themselves, as
/// RealmSwift's: numbers, strings, data, dates, `Decimal128`, `AnyRealmValue`, enums of a
/// persistable raw type, and their optionals.
public protocol SortableType: _Persistable {}

extension Int: SortableType {}
extension Int8: SortableType {}
extension Int16: SortableType {}
extension Int32: SortableType {}
extension Int64: SortableType {}
extension Float: SortableType {}
extension Double: SortableType {}
extension Decimal128: SortableType {}
extension String: SortableType {}
extension Data: SortableType {}
extension Date: SortableType {}
extension AnyRealmValue: SortableType {}
extension Optional: SortableType where Wrapped: SortableType & _OptionalPersistable {}

/// Sorting and deduplicating results of values by the values themselves, as RealmSwift's
/// `sorted(ascending:)` and `distinct()`.
extension Results where Element: SortableType {
    /// The values sorted, smallest first (`ascending`, nil before any value) or largest first.
    /// Sorting is stable. Strings sort by their Unicode scalars, numbers of every type
    /// together; in `AnyRealmValue`s, values of different kinds sort by kind (numbers, then
    /// strings, data, dates, object ids, UUIDs, objects).
    public func sorted(ascending: Bool = true) -> Results<Element> {
        sorted(by: [SortDescriptor(keyPath: "self", ascending: ascending)])
    }

    /// The first of each distinct value, in order.
    public func distinct() -> Results<Element> {
        distinct(by: ["self"])
    }
}
