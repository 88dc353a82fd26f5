/// Queries on a frozen `List`, `MutableSet`, `Map` or `LinkingObjects` of objects: each runs in
/// the frozen version, on the collection's objects (in the collection's order; a map's values in
/// the order of their keys, nil values left out), and gives `FrozenResults`, as queries on the
/// live collection give `Results`.
public protocol _FrozenObjectCollectionQuerying {
    /// The class of the collection's objects.
    associatedtype _Object: ObjectBase
    /// The collection's objects, as frozen results of its version.
    var _frozenResults: FrozenResults<_Object> { get }
}

extension _FrozenObjectCollectionQuerying {
    /// The collection's objects satisfying `isIncluded`, in collection order (see
    /// `Results.where(_:)`).
    public func `where`(_ isIncluded: (Query<_Object>) -> Query<Bool>) -> FrozenResults<_Object> {
        _frozenResults.where(isIncluded)
    }

    /// The collection's objects satisfying a query string (see `Results.filter(_:_:)`). Throws
    /// `RealmError` (`.invalidArgument`) for a bad query.
    public func filter(_ predicateFormat: String, _ args: Any...) throws(RealmError) -> FrozenResults<_Object> {
        try _frozenResults.filter(predicateFormat, arguments: args)
    }

    /// The collection's objects sorted by `keyPath`. Traps for an unknown key path.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> FrozenResults<_Object> {
        _frozenResults.sorted(byKeyPath: keyPath, ascending: ascending)
    }

    /// The collection's objects sorted by several key paths.
    public func sorted<S: Sequence>(by sortDescriptors: S) -> FrozenResults<_Object> where S.Element == SortDescriptor {
        _frozenResults.sorted(by: sortDescriptors)
    }

    /// The first of the collection's objects for each distinct combination of the values at
    /// `keyPaths`.
    public func distinct<S: Sequence>(by keyPaths: S) -> FrozenResults<_Object> where S.Element == String {
        _frozenResults.distinct(by: keyPaths)
    }

    /// The smallest value of `property` among the collection's objects (nil if none).
    public func min<T: MinMaxType>(ofProperty property: String) -> T? { _frozenResults.min(ofProperty: property) }
    /// The largest value of `property` among the collection's objects (nil if none).
    public func max<T: MinMaxType>(ofProperty property: String) -> T? { _frozenResults.max(ofProperty: property) }
    /// The sum of `property` over the collection's objects (0 if none).
    public func sum<T: AddableType>(ofProperty property: String) -> T { _frozenResults.sum(ofProperty: property) }
    /// The average of `property` over the collection's objects (nil if none).
    public func average<T: AddableType>(ofProperty property: String) -> T? { _frozenResults.average(ofProperty: property) }
}

extension FrozenCollection {
    /// Frozen results of this version over the objects with `keys`, of class `type`.
    func results<Object: ObjectBase>(of type: Object.Type, keys: [ObjectKey]) -> FrozenResults<Object> {
        FrozenResults(version: version, table: version.table(for: type), keys: keys)
    }
}

extension FrozenList: _FrozenObjectCollectionQuerying where Element: ObjectBase {
    /// The list's objects, in list order.
    public var _frozenResults: FrozenResults<Element> {
        frozen.results(of: Element.self, keys: map { $0._state!.key })
    }
}

extension FrozenMutableSet: _FrozenObjectCollectionQuerying where Element: ObjectBase {
    /// The set's objects.
    public var _frozenResults: FrozenResults<Element> {
        frozen.results(of: Element.self, keys: map { $0._state!.key })
    }
}

extension FrozenMap: _FrozenObjectCollectionQuerying where Value: _QueryOptionalObject {
    /// The map's objects, in the order of their keys; keys holding nil are left out.
    public var _frozenResults: FrozenResults<Value._Object> {
        frozen.results(of: Value._Object.self, keys: values.compactMap { $0._queryObject?._state?.key })
    }
}

extension FrozenLinkingObjects: _FrozenObjectCollectionQuerying {
    /// The objects that linked here.
    public var _frozenResults: FrozenResults<Element> {
        frozen.results(of: Element.self, keys: frozen.collection.keys)
    }
}
