import BurrowStorage
import BurrowStore
import Foundation

/// A type a `List`, `MutableSet`, `Map`, `Results` or any `RealmCollection` can hold: the values
/// and objects a property can store, as in RealmSwift. The same protocol as `_Persistable`,
/// under RealmSwift's name; like RealmSwift's, it refines `Hashable`, so generic code over
/// collection values can compare and hash them.
public typealias RealmCollectionValue = _Persistable

/// What `Results`, `List`, `MutableSet`, `LinkingObjects` and `AnyRealmCollection` share, as
/// RealmSwift's `RealmCollection`: code generic over it works with any of them.
///
///     func names<C: RealmCollection>(_ dogs: C) throws -> [String] where C.Element == Dog {
///         try dogs.filter("age > 1").sorted(byKeyPath: "name").map(\.name)
///     }
///
/// A live collection is confined to its realm's isolation, like the realm; it is not
/// `Sendable`. Freeze the concrete collection (`freeze()`) to hand it to another task, and
/// observe it with the concrete collection's `changes()` (RealmSwift's `observe`).
///
/// The queries (`filter`, `where`, `sorted`, `distinct`, `index(matching:)`) are for
/// collections of objects and give live `Results`; like RealmSwift's, they trap for an
/// unmanaged collection, which has no realm to query. The aggregates (`min`, `max`, `sum`,
/// `average(ofProperty:)`) work on unmanaged collections too.
public protocol RealmCollection<Element>: RandomAccessCollection, CustomStringConvertible
where Element: RealmCollectionValue, Index == Int {
    /// The realm the collection belongs to, or nil for an unmanaged `List` or `MutableSet`.
    var realm: Realm? { get }
    /// Whether the collection can no longer be read: its object was deleted, or its realm
    /// closed. Unmanaged collections and `Results` of an open realm are never invalidated.
    var isInvalidated: Bool { get }
    /// Whether the collection is a view of one version that never changes. Live collections
    /// are not; Burrow's frozen collections are separate types (`FrozenResults`, `FrozenList`…).
    var isFrozen: Bool { get }
    /// The position of `object` in the collection, or nil if it is not there. Objects are
    /// matched by identity (a managed object by its row), values by equality.
    func index(of object: Element) -> Int?
    /// Sets `key` to `value` on every object of the collection, as `setValue(_:forKey:)` on
    /// each. On a managed collection it needs a write transaction (outside one it traps, as any
    /// managed change does); a value that does not fit is thrown by the commit.
    func setValue(_ value: Any?, forKey key: String)
    /// Live `Results` over the collection's objects, of class `type` (the collection's
    /// `Element`). The queries of collections of objects start from it.
    func _results<T: ObjectBase>(_ type: T.Type) -> Results<T>
}

extension RealmCollection {
    /// The position of `object` in the collection, or nil if it is not there: an object as
    /// `isSameObject(as:)` matches it (a managed one by its row in the same file, an unmanaged
    /// one by identity), a value by equality.
    public func index(of object: Element) -> Int? {
        let target = object._stored
        guard case .object(let targetObject) = target else { return firstIndex { StoredIdentity.same($0._stored, target) } }
        return firstIndex { element in
            guard case .object(let candidate) = element._stored else { return false }
            return candidate.isSameObject(as: targetObject)
        }
    }

    /// The elements at `indexes`, in order. Traps for an index out of bounds, as the subscript
    /// does (and RealmSwift does).
    public func objects(at indexes: IndexSet) -> [Element] {
        indexes.map { self[$0] }
    }

    /// Sets `key` to `value` on every object of the collection (see the requirement). Does
    /// nothing for a collection of values.
    public func setValue(_ value: Any?, forKey key: String) {
        for element in self {
            guard case .object(let object) = element._stored else { return }
            object.setValue(value, forKey: key)
        }
    }

    /// Traps: only a managed collection of objects can be queried.
    static func unqueryable(_ what: String) -> Never {
        preconditionFailure("Only a managed \(what) of objects can be queried; add its object to a realm first.")
    }
}

/// The queries of a collection of objects: each gives live `Results` over the collection's
/// objects (in the collection's order), evaluated on use and re-evaluated as the collection and
/// its objects change. They trap for an unmanaged collection, which has no realm to query;
/// the aggregates read an unmanaged collection's elements instead.
extension RealmCollection where Element: ObjectBase {
    /// The collection's objects satisfying `isIncluded`, written with the typed query DSL (see
    /// `Results.where(_:)`).
    public func `where`(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results<Element> {
        _results(Element.self).where(isIncluded)
    }

    /// The collection's objects satisfying a query string, with `%@` for the arguments that
    /// follow (see `Results.filter(_:_:)`). Throws `RealmError` (`.invalidArgument`) for a bad
    /// query.
    public func filter(_ predicateFormat: String, _ args: Any...) throws(RealmError) -> Results<Element> {
        try _results(Element.self).filter(predicateFormat, arguments: args)
    }

    /// The collection's objects sorted by the value at `keyPath`. Traps for an unknown key path.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        _results(Element.self).sorted(byKeyPath: keyPath, ascending: ascending)
    }

    /// The collection's objects sorted by the property `keyPath` names.
    public func sorted<V>(by keyPath: KeyPath<Element, V>, ascending: Bool = true) -> Results<Element> {
        _results(Element.self).sorted(by: keyPath, ascending: ascending)
    }

    /// The collection's objects sorted by several key paths: by the first, then among equals by
    /// the next.
    public func sorted<S: Sequence>(by sortDescriptors: S) -> Results<Element> where S.Element == SortDescriptor {
        _results(Element.self).sorted(by: sortDescriptors)
    }

    /// The first of the collection's objects for each distinct combination of the values at
    /// `keyPaths`.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Element == String {
        _results(Element.self).distinct(by: keyPaths)
    }

    /// The position of the first object satisfying `isIncluded`, or nil if none does.
    public func index(matching isIncluded: (Query<Element>) -> Query<Bool>) -> Int? {
        position(of: self.where(isIncluded).first)
    }

    /// The position of the first object satisfying a query string, or nil if none does.
    /// Throws `RealmError` (`.invalidArgument`) for a bad query.
    public func index(matching predicateFormat: String, _ args: Any...) throws(RealmError) -> Int? {
        position(of: try _results(Element.self).filter(predicateFormat, arguments: args).first)
    }

    private func position(of match: Element?) -> Int? {
        match.flatMap { index(of: $0) }
    }

    // The aggregates work on unmanaged collections too, as in RealmSwift: those are read
    // element by element. Each traps unless `property` holds one number (or date, for `min`
    // and `max`) per object.

    /// The smallest value of `property` among the collection's objects (nil if there are none).
    public func min<T: MinMaxType>(ofProperty property: String) -> T? {
        guard realm != nil else { return unmanagedAggregate(.min, property, allowDates: true).converted() }
        return _results(Element.self).min(ofProperty: property)
    }

    /// The largest value of `property` among the collection's objects (nil if there are none).
    public func max<T: MinMaxType>(ofProperty property: String) -> T? {
        guard realm != nil else { return unmanagedAggregate(.max, property, allowDates: true).converted() }
        return _results(Element.self).max(ofProperty: property)
    }

    /// The sum of `property` over the collection's objects (0 if there are none).
    public func sum<T: AddableType>(ofProperty property: String) -> T {
        guard realm != nil else { return unmanagedAggregate(.sum, property, allowDates: false).converted() ?? T._fromStored(.int(0)) }
        return _results(Element.self).sum(ofProperty: property)
    }

    /// The average of `property` over the collection's objects (nil if there are none).
    public func average<T: AddableType>(ofProperty property: String) -> T? {
        guard realm != nil else { return unmanagedAggregate(.avg, property, allowDates: false).converted() }
        return _results(Element.self).average(ofProperty: property)
    }

    private func unmanagedAggregate(_ aggregate: QueryAggregate, _ property: String, allowDates: Bool) -> QueryValue {
        Results<Element>.requireAggregatable(aggregate, property, allowDates: allowDates, in: ClassInfo.of(Element.self))
        return self.aggregate(aggregate, at: property)
    }
}

// MARK: Conformances

extension Results: RealmCollection {
    /// Whether the results' realm was closed, or invalidated (`invalidate()`) since they were
    /// made.
    public var isInvalidated: Bool { !owner.isOpen || invalidations != owner.invalidations }

    /// Whether these are results of a frozen realm (they never change). Results of a live realm
    /// are not; `freeze()` gives `FrozenResults`.
    public var isFrozen: Bool { owner.isFrozen }

    /// The position of `object` in the results, or nil if it is not there (or is unmanaged, or
    /// of another realm file). Found among the object keys, without reading objects.
    public func index(of object: Element) -> Int? {
        guard let state = object._state, state.source.storage === owner.storage else { return nil }
        let (table, keys) = evaluated
        guard table?.id == state.table.id else { return nil }
        return keys.firstIndex(of: state.key)
    }

    /// These results, as results of `type` (their own class).
    public func _results<T: ObjectBase>(_ type: T.Type) -> Results<T> { self as! Results<T> }
}

extension List: RealmCollection {
    /// Results over the list's objects, in list order.
    public func _results<T: ObjectBase>(_ type: T.Type) -> Results<T> {
        guard let realm else { Self.unqueryable("List") }
        return Results(realm: realm, base: QueryBase { self.map { $0._stored.objectKey } })
    }
}

extension MutableSet: RealmCollection {
    /// Results over the set's objects.
    public func _results<T: ObjectBase>(_ type: T.Type) -> Results<T> {
        guard let realm else { Self.unqueryable("MutableSet") }
        return Results(realm: realm, base: QueryBase { self.map { $0._stored.objectKey } })
    }
}

extension LinkingObjects: RealmCollection {
    /// The realm of the object these link to, or nil if it is unmanaged.
    public var realm: Realm? { linkedObject?.realm }
    /// Whether the object these link to was deleted.
    public var isInvalidated: Bool { linkedObject?.isInvalidated ?? false }
    /// Whether the object these link to is frozen.
    public var isFrozen: Bool { linkedObject?.isFrozen ?? false }

    /// Results over the objects linking here, read anew at each evaluation.
    public func _results<T: ObjectBase>(_ type: T.Type) -> Results<T> {
        guard let owner = linkedObject, let realm = owner.realm, let state = owner._state else {
            Self.unqueryable("LinkingObjects")
        }
        let propertyName = self.propertyName
        return Results(
            realm: realm,
            base: QueryBase {
                let executor = QueryExecutor(context: realm)
                guard let origin = realm.store.storedClassId(named: ClassInfo.storedName(of: Element.self)).flatMap(realm.table(id:)),
                    let field = origin.stored.fieldIndex(of: propertyName)
                else { return [] }
                do throws(StorageError) {
                    return try executor.backlinks(to: state.key, of: state.table, from: origin, field: field)
                } catch {
                    realm.fail(error)
                }
            })
    }
}

extension _StoredValue {
    /// The object key of a managed object element, as collections of objects hold them.
    var objectKey: ObjectKey {
        guard case .object(let object) = self, let state = object._state else {
            preconditionFailure("internal error: a managed collection of objects holds an unmanaged object")
        }
        return state.key
    }
}
