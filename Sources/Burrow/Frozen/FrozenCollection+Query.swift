import BurrowStore

/// Queries on a frozen `List`, `MutableSet`, `Map` or `LinkingObjects` of objects
/// (`_ObjectCollectionQuerying`): each runs in the frozen version, on the collection's objects
/// (in the collection's order; a map's values in the order of their keys, nil values left out),
/// and gives `FrozenResults`, as queries on the live collection give `Results`.
extension FrozenCollection {
    /// Frozen results of this version over the objects with `keys`, of class `type`.
    func results<Object: ObjectBase>(of type: Object.Type, keys: [ObjectKey]) -> FrozenResults<Object> {
        FrozenResults(version: version, table: version.table(for: type), keys: keys)
    }
}

extension FrozenList: _ObjectCollectionQuerying where Element: ObjectBase {
    /// The list's objects, in list order.
    public var _queryResults: FrozenResults<Element> {
        frozen.results(of: Element.self, keys: map { $0._state!.key })
    }
}

extension FrozenMutableSet: _ObjectCollectionQuerying where Element: ObjectBase {
    /// The set's objects.
    public var _queryResults: FrozenResults<Element> {
        frozen.results(of: Element.self, keys: map { $0._state!.key })
    }
}

extension FrozenMap: _ObjectCollectionQuerying where Value: _QueryOptionalObject {
    /// The map's objects, in the order of their keys; keys holding nil are left out.
    public var _queryResults: FrozenResults<Value._Object> {
        frozen.results(of: Value._Object.self, keys: values.compactMap { $0._queryObject?._state?.key })
    }
}

extension FrozenLinkingObjects: _ObjectCollectionQuerying {
    /// The objects that linked here.
    public var _queryResults: FrozenResults<Element> {
        frozen.results(of: Element.self, keys: frozen.collection.keys)
    }
}
