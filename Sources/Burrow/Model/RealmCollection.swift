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
/// The queries (`filter`, `where`, `sorted`, `distinct`) give live `Results`: of objects for
/// a collection of objects, of values for a collection of values (`scores.sorted()`,
/// `tags.filter("self BEGINSWITH 'a'")`). Like RealmSwift's, they trap for an unmanaged
/// collection, which has no realm to query. `index(matching:)` and the aggregates (`min`,
/// `max`, `sum`, `average`) work on unmanaged collections too.
public protocol RealmCollection<Element>: RandomAccessCollection, CustomStringConvertible, _ValueAggregatable
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
    /// Live `Results` over the collection's elements, objects or values. The queries start
    /// from it; it traps for an unmanaged collection.
    func _results() -> Results<Element>
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

    /// Traps: only a managed collection can be queried.
    static func unqueryable(_ what: String) -> Never {
        preconditionFailure("Only a managed \(what) can be queried; add its object to a realm first.")
    }
}

/// The queries of any collection: each gives live `Results` over the collection's elements
/// (in the collection's order), evaluated on use and re-evaluated as the collection and its
/// objects change. A collection of values is queried by the values themselves: the closure's
/// argument is the value (`$0 > 5`), a query string names it `self`. They trap for an
/// unmanaged collection, which has no realm to query; `index(matching:)` and the aggregates
/// read an unmanaged collection's elements instead.
extension RealmCollection {
    /// The collection's elements satisfying `isIncluded`, written with the typed query DSL
    /// (see `Results.where(_:)`).
    public func `where`(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results<Element> {
        _results().where(isIncluded)
    }

    /// The collection's elements satisfying a query string, with `%@` for the arguments that
    /// follow (see `Results.filter(_:_:)`). Throws `RealmError` (`.invalidArgument`) for a bad
    /// query.
    public func filter(_ predicateFormat: String, _ args: Any...) throws(RealmError) -> Results<Element> {
        try _results().filter(predicateFormat, arguments: args)
    }

    /// The collection's elements sorted by several key paths: by the first, then among equals
    /// by the next (for values, the one key path is `self`).
    public func sorted<S: Sequence>(by sortDescriptors: S) -> Results<Element> where S.Element == SortDescriptor {
        _results().sorted(by: sortDescriptors)
    }

    /// The position of the first element satisfying `isIncluded`, or nil if none does. A
    /// collection of values is searched in memory, unmanaged too, as in RealmSwift.
    public func index(matching isIncluded: (Query<Element>) -> Query<Bool>) -> Int? {
        guard Element._holdsObjects else {
            return firstPosition(of: [.filter(Query<Element>.predicate(isIncluded, in: .values(.values(Element._shape))))])
        }
        return position(of: self.where(isIncluded).first)
    }

    /// The position of the first element satisfying a query string, or nil if none does.
    /// Throws `RealmError` (`.invalidArgument`) for a bad query.
    public func index(matching predicateFormat: String, _ args: Any...) throws(RealmError) -> Int? {
        guard Element._holdsObjects else {
            return firstPosition(of: try QueryParser.parse(predicateFormat, arguments: args, forValues: .values(Element._shape)).steps)
        }
        return position(of: try _results().filter(predicateFormat, arguments: args).first)
    }

    private func position(of match: Element?) -> Int? {
        match.flatMap { index(of: $0) }
    }

    /// The position in this collection of values of the first value `steps` give.
    private func firstPosition(of steps: [QueryStep]) -> Int? {
        let values = map { element in (try? QueryValue(element._stored)) ?? .null }
        return QueryExecutor.evaluation(of: steps, elements: values).first
    }
}

/// Sorting and deduplicating a collection of values by the values themselves.
extension RealmCollection where Element: SortableType {
    /// The values sorted, smallest first (`ascending`) or largest first (see
    /// `Results.sorted(ascending:)`).
    public func sorted(ascending: Bool = true) -> Results<Element> {
        _results().sorted(ascending: ascending)
    }

    /// The first of each distinct value, in order.
    public func distinct() -> Results<Element> {
        _results().distinct()
    }
}

/// The queries and aggregates of a collection of objects by their properties.
extension RealmCollection where Element: ObjectBase {
    /// The collection's objects sorted by the value at `keyPath`. Traps for an unknown key path.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        _results().sorted(byKeyPath: keyPath, ascending: ascending)
    }

    /// The collection's objects sorted by the property `keyPath` names.
    public func sorted<V>(by keyPath: KeyPath<Element, V>, ascending: Bool = true) -> Results<Element> {
        _results().sorted(by: keyPath, ascending: ascending)
    }

    /// The first of the collection's objects for each distinct combination of the values at
    /// `keyPaths`.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Element == String {
        _results().distinct(by: keyPaths)
    }

    /// The first of the collection's objects for each distinct combination of the properties
    /// `keyPaths` name.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Element == PartialKeyPath<Element> {
        distinct(by: keyPaths.map(KeyPathName.sortPath(ofPartial:)))
    }

    /// The smallest value of the property `keyPath` names among the collection's objects (nil
    /// if there are none).
    public func min<T: MinMaxType>(of keyPath: KeyPath<Element, T>) -> T? {
        min(ofProperty: KeyPathName.name(of: keyPath))
    }

    /// The largest value of the property `keyPath` names among the collection's objects (nil
    /// if there are none).
    public func max<T: MinMaxType>(of keyPath: KeyPath<Element, T>) -> T? {
        max(ofProperty: KeyPathName.name(of: keyPath))
    }

    /// The sum of the property `keyPath` names over the collection's objects (0 if there are
    /// none).
    public func sum<T: AddableType>(of keyPath: KeyPath<Element, T>) -> T {
        sum(ofProperty: KeyPathName.name(of: keyPath))
    }

    /// The average of the property `keyPath` names over the collection's objects (nil if there
    /// are none).
    public func average<T: AddableType>(of keyPath: KeyPath<Element, T>) -> T? {
        average(ofProperty: KeyPathName.name(of: keyPath))
    }
}

/// The aggregates of any collection by a property of its objects (or `"self"`, its values).
/// They work on unmanaged collections too, as in RealmSwift: those are read element by
/// element. Each traps unless `property` holds one number (or date, for `min` and `max`) per
/// element.
extension RealmCollection {
    /// The smallest value of `property` among the collection's elements (nil if there are
    /// none).
    public func min<T: MinMaxType>(ofProperty property: String) -> T? { propertyAggregates.min(property) }

    /// The largest value of `property` among the collection's elements (nil if there are none).
    public func max<T: MinMaxType>(ofProperty property: String) -> T? { propertyAggregates.max(property) }

    /// The sum of `property` over the collection's elements (0 if there are none).
    public func sum<T: AddableType>(ofProperty property: String) -> T { propertyAggregates.sum(property) }

    /// The average of `property` over the collection's elements (nil if there are none).
    public func average<T: AddableType>(ofProperty property: String) -> T? { propertyAggregates.average(property) }

    private var propertyAggregates: PropertyAggregates<Element> {
        PropertyAggregates(results: realm == nil ? nil : _results(), elements: { Array(self) })
    }
}

// MARK: Conformances

extension Results: RealmCollection {
    /// Whether the results' realm was closed, or invalidated (`invalidate()`) since they were
    /// made, or (for results of a collection) the collection's object was deleted: as in
    /// RealmSwift, reading them then traps.
    public var isInvalidated: Bool {
        !owner.isOpen || invalidations != owner.invalidations || query.sourceInvalidated?() == true
    }

    /// Whether these are results of a frozen realm (they never change). Results of a live realm
    /// are not; `freeze()` gives `FrozenResults`.
    public var isFrozen: Bool { owner.isFrozen }

    /// The position of `object` in the results, or nil if it is not there (or is unmanaged, or
    /// of another realm file). Found among the object keys, without reading objects. In
    /// results of values, the position of the first equal value.
    public func index(of object: Element) -> Int? {
        let target = object._stored
        if query.source != nil { return currentValues.firstIndex { StoredIdentity.same($0, target) } }
        guard case .object(let targetObject) = target, let state = targetObject._state, state.source.storage === owner.storage else { return nil }
        let (table, keys) = evaluated
        guard table?.id == state.table.id else { return nil }
        return keys.firstIndex(of: state.key)
    }

    /// These results themselves.
    public func _results() -> Results<Element> { self }
}

extension ValueResultsSource where Self: RealmCollection {
    /// Live results over the elements of this managed `List` or `MutableSet` of `realm`, in
    /// its order: its objects' keys, or its values, read anew at each evaluation. `binding` is
    /// where the collection is, for reading it at other versions (see `FrozenQueryBase`).
    func elementResults(in realm: Realm, binding: CollectionBinding?) -> Results<Element> {
        guard Element._holdsObjects else { return Results(realm: realm, values: ValueSource(self)) }
        return Results(
            realm: realm, base: QueryBase { self.map { $0._stored.objectKey } }, frozenBase: FrozenQueryBase.collection(binding),
            sourceInvalidated: { self.isInvalidated })
    }
}

extension _Persistable {
    /// Whether a collection of this type holds objects (links), not values.
    static var _holdsObjects: Bool { _shape.type == .object }
}

extension List: RealmCollection {
    /// Results over the list's elements, in list order.
    public func _results() -> Results<Element> {
        guard let realm else { Self.unqueryable("List") }
        return elementResults(in: realm, binding: binding)
    }
}

extension MutableSet: RealmCollection {
    /// Results over the set's elements.
    public func _results() -> Results<Element> {
        guard let realm else { Self.unqueryable("MutableSet") }
        return elementResults(in: realm, binding: binding)
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
    public func _results() -> Results<Element> {
        guard let owner = linkedObject, let realm = owner.realm, let state = owner._state else {
            Self.unqueryable("LinkingObjects")
        }
        let columnName = ClassInfo.of(Element.self).columnName(of: propertyName)
        let frozenBase = FrozenQueryBase.backlinks(
            to: state.key, ofTable: state.table.id, dynamicOwner: owner.classInfo.isDynamic, isFrozen: owner.isFrozen,
            from: ClassInfo.storedName(of: Element.self),
            dynamicOrigin: false, column: columnName)
        return Results(
            realm: realm,
            base: QueryBase {
                let executor = QueryExecutor(context: realm)
                guard let origin = realm.store.storedClassId(named: ClassInfo.storedName(of: Element.self)).flatMap(realm.table(id:)),
                    let field = origin.stored.fieldIndex(of: columnName)
                else { return [] }
                do throws(StorageError) {
                    return try executor.backlinks(to: state.key, of: state.table, from: origin, field: field)
                } catch {
                    realm.fail(error)
                }
            },
            frozenBase: frozenBase,
            sourceInvalidated: { owner.isInvalidated })
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
