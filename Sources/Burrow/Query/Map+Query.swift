import BurrowStore

/// The queries of a managed `Map`, as RealmSwift's: live `Results` over the map's values, in
/// the order of their keys, re-read from the map at each evaluation. A map of values gives
/// results of its values (`Results<Int>`), queried by the values themselves (`$0 > 5`,
/// `"self > 5"`); a map of objects gives results of its optional objects (`Results<Dog?>`),
/// queried by their properties, with the keys holding nil left out, as in RealmSwift. They trap
/// for an unmanaged map, which has no realm to query; the aggregates read an unmanaged map's
/// values instead.
extension Map {
    /// Live results over the map's values. Traps for an unmanaged map.
    func _results() -> Results<Value> {
        guard let realm else { preconditionFailure("Only a managed Map can be queried; add its object to a realm first.") }
        guard Value._holdsObjects else { return Results(realm: realm, values: ValueSource(self)) }
        return Results(
            realm: realm,
            base: QueryBase {
                self.values.compactMap { value in
                    guard case .object(let object) = value._stored else { return nil }
                    return object._state?.key
                }
            },
            frozenBase: FrozenQueryBase.collection(binding), sourceInvalidated: { self.isInvalidated })
    }

    /// The map's values satisfying `isIncluded`, written with the typed query DSL (see
    /// `Results.where(_:)`).
    public func `where`(_ isIncluded: (Query<Value>) -> Query<Bool>) -> Results<Value> {
        _results().where(isIncluded)
    }

    /// The map's values satisfying a query string (see `Results.filter(_:_:)`). Throws
    /// `RealmError` (`.invalidArgument`) for a bad query.
    public func filter(_ predicateFormat: String, _ args: Any...) throws(RealmError) -> Results<Value> {
        try _results().filter(predicateFormat, arguments: args)
    }

    /// The map's values sorted by the value at `keyPath` (`"self"` for a map of values).
    /// Traps for an unknown key path.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Value> {
        _results().sorted(byKeyPath: keyPath, ascending: ascending)
    }

    /// The map's values sorted by several key paths: by the first, then among equals by the
    /// next.
    public func sorted<S: Sequence>(by sortDescriptors: S) -> Results<Value> where S.Element == SortDescriptor {
        _results().sorted(by: sortDescriptors)
    }

    /// The first of the map's values for each distinct combination of the values at
    /// `keyPaths` (`["self"]` for a map of values).
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Value> where S.Element == String {
        _results().distinct(by: keyPaths)
    }

    // The aggregates read an unmanaged map's values, as RealmSwift's do; each traps unless
    // `property` holds one number (or date, for `min` and `max`) per object (`"self"` for a
    // map of values).

    /// The smallest value of `property` among the map's objects (nil if there are none).
    public func min<T: MinMaxType>(ofProperty property: String) -> T? { propertyAggregates.min(property) }

    /// The largest value of `property` among the map's objects (nil if there are none).
    public func max<T: MinMaxType>(ofProperty property: String) -> T? { propertyAggregates.max(property) }

    /// The sum of `property` over the map's objects (0 if there are none).
    public func sum<T: AddableType>(ofProperty property: String) -> T { propertyAggregates.sum(property) }

    /// The average of `property` over the map's objects (nil if there are none).
    public func average<T: AddableType>(ofProperty property: String) -> T? { propertyAggregates.average(property) }

    private var propertyAggregates: PropertyAggregates<Value> {
        PropertyAggregates(results: realm == nil ? nil : _results(), elements: { self.values })
    }
}

extension Map where Value: SortableType {
    /// The map's values sorted, smallest first (`ascending`) or largest first (see
    /// `Results.sorted(ascending:)`).
    public func sorted(ascending: Bool = true) -> Results<Value> {
        _results().sorted(ascending: ascending)
    }
}

/// The key-path forms of a map of objects' sorting and aggregates, as RealmSwift's.
extension Map where Value: _QueryOptionalObject {
    /// The map's objects sorted by the property `keyPath` names.
    public func sorted<T>(by keyPath: KeyPath<Value._Object, T>, ascending: Bool = true) -> Results<Value> {
        sorted(byKeyPath: KeyPathName.sortPath(of: keyPath), ascending: ascending)
    }

    /// The smallest value of the property `keyPath` names among the map's objects.
    public func min<T: MinMaxType>(of keyPath: KeyPath<Value._Object, T>) -> T? {
        min(ofProperty: KeyPathName.name(of: keyPath))
    }

    /// The largest value of the property `keyPath` names among the map's objects.
    public func max<T: MinMaxType>(of keyPath: KeyPath<Value._Object, T>) -> T? {
        max(ofProperty: KeyPathName.name(of: keyPath))
    }

    /// The sum of the property `keyPath` names over the map's objects.
    public func sum<T: AddableType>(of keyPath: KeyPath<Value._Object, T>) -> T {
        sum(ofProperty: KeyPathName.name(of: keyPath))
    }

    /// The average of the property `keyPath` names over the map's objects.
    public func average<T: AddableType>(of keyPath: KeyPath<Value._Object, T>) -> T? {
        average(ofProperty: KeyPathName.name(of: keyPath))
    }
}

/// Freezing and following the results of a map of objects.
extension Results where Element: _QueryOptionalObject {
    /// The map's objects these results hold, as of the realm's current version, frozen (see
    /// `Results.freeze()`): `FrozenResults` of the objects' class.
    public func freeze() throws -> FrozenResults<Element._Object> {
        try Results<Element._Object>(rebinding: self).freeze()
    }

    /// A stream of these results' changes, as `changes(keyPaths:)` of results of objects gives
    /// it, with frozen results of the objects' class: an object the map gains or loses that the
    /// query keeps is inserted or deleted, in the order of the map's keys.
    public func changes(keyPaths: [String]? = nil) -> ChangeStream<RealmCollectionChange<FrozenResults<Element._Object>>> {
        Results<Element._Object>(rebinding: self).changes(keyPaths: keyPaths)
    }
}
