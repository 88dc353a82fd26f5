import BurrowStorage
import BurrowStore

/// What a collection's queries give: live `Results`, or `FrozenResults` for a frozen
/// collection. Both answer the same query operations, each returning results of their own
/// kind, so the collections forward them once (`_ObjectCollectionQuerying`).
public protocol _QueryResults {
    /// The class of the objects.
    associatedtype _Object: ObjectBase
    func `where`(_ isIncluded: (Query<_Object>) -> Query<Bool>) -> Self
    func filter(_ predicateFormat: String, arguments: [Any]) throws(RealmError) -> Self
    func sorted(byKeyPath keyPath: String, ascending: Bool) -> Self
    func sorted<S: Sequence>(by sortDescriptors: S) -> Self where S.Element == SortDescriptor
    func distinct<S: Sequence>(by keyPaths: S) -> Self where S.Element == String
    func min<T: MinMaxType>(ofProperty property: String) -> T?
    func max<T: MinMaxType>(ofProperty property: String) -> T?
    func sum<T: AddableType>(ofProperty property: String) -> T
    func average<T: AddableType>(ofProperty property: String) -> T?
}

extension Results: _QueryResults where Element: ObjectBase {
    /// The class of the objects.
    public typealias _Object = Element
}

extension FrozenResults: _QueryResults {
    /// The class of the objects.
    public typealias _Object = T
}

/// Queries on a frozen collection of objects: `FrozenResults` over the collection's objects
/// (in the collection's order; a map's values in the order of their keys), of its version.
/// (`List`, `MutableSet` and `LinkingObjects` query as every `RealmCollection` does, and a
/// live `Map` as `Map+Query.swift` says.)
public protocol _ObjectCollectionQuerying {
    /// The results the collection's queries give.
    associatedtype _Results: _QueryResults
    /// Results over the collection's objects. Traps for an unmanaged collection, which has no
    /// realm to query, as in RealmSwift.
    var _queryResults: _Results { get }
}

extension _ObjectCollectionQuerying {
    /// The collection's objects satisfying `isIncluded`, in collection order (see
    /// `Results.where(_:)`).
    public func `where`(_ isIncluded: (Query<_Results._Object>) -> Query<Bool>) -> _Results {
        _queryResults.where(isIncluded)
    }

    /// The collection's objects satisfying a query string (see `Results.filter(_:_:)`).
    /// Throws `RealmError` for a bad query.
    public func filter(_ predicateFormat: String, _ args: Any...) throws(RealmError) -> _Results {
        try _queryResults.filter(predicateFormat, arguments: args)
    }

    /// The collection's objects sorted by `keyPath`.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> _Results {
        _queryResults.sorted(byKeyPath: keyPath, ascending: ascending)
    }

    /// The collection's objects sorted by several key paths.
    public func sorted<S: Sequence>(by sortDescriptors: S) -> _Results where S.Element == SortDescriptor {
        _queryResults.sorted(by: sortDescriptors)
    }

    /// The first of the collection's objects for each distinct combination of the values at
    /// `keyPaths`.
    public func distinct<S: Sequence>(by keyPaths: S) -> _Results where S.Element == String {
        _queryResults.distinct(by: keyPaths)
    }

    /// The smallest value of `property` among the collection's objects (nil if none).
    public func min<T: MinMaxType>(ofProperty property: String) -> T? { _queryResults.min(ofProperty: property) }
    /// The largest value of `property` among the collection's objects (nil if none).
    public func max<T: MinMaxType>(ofProperty property: String) -> T? { _queryResults.max(ofProperty: property) }
    /// The sum of `property` over the collection's objects (0 if none).
    public func sum<T: AddableType>(ofProperty property: String) -> T { _queryResults.sum(ofProperty: property) }
    /// The average of `property` over the collection's objects (nil if none).
    public func average<T: AddableType>(ofProperty property: String) -> T? { _queryResults.average(ofProperty: property) }
}

/// An optional object, the value type of a `Map` of objects (`Map<String, Dog?>`), to queries.
public protocol _QueryOptionalObject {
    /// The class of the object.
    associatedtype _Object: ObjectBase
    /// The object, if there is one.
    var _queryObject: _Object? { get }
}

extension Optional: _QueryOptionalObject where Wrapped: ObjectBase {
    /// The wrapped object.
    public var _queryObject: Wrapped? { self }
}
