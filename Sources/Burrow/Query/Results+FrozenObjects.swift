import BurrowStore

/// Freezing and following results whose elements are views of objects rather than the objects
/// themselves: projections, and a map's optional objects (`Results<Dog?>`). Both freeze and
/// stream the objects: the same query, as `FrozenResults` of `Frozen` objects.
///
/// A projection is a view of a live object, with no frozen form of its own; project a frozen
/// object to read it through the projection on any task:
///
///     let cards = try realm.objects(DogCard.self).freeze()
///     Task.detached { print(cards.map { DogCard(projecting: $0.frozenObject).title }) }
extension Results {
    /// The projected objects as of the realm's current version, frozen. Throws as `freeze()` of
    /// results of objects does.
    public func freeze<Root>() throws -> FrozenResults<Root> where Element: Projection<Root> {
        try Results<Root>(rebinding: self).freeze()
    }

    /// A stream of these results' changes, as `changes(keyPaths:)` of results of objects gives
    /// it, with frozen results of the projected objects; `keyPaths` name the root class's
    /// properties.
    public func changes<Root>(keyPaths: [String]? = nil) -> ChangeStream<RealmCollectionChange<FrozenResults<Root>>>
    where Element: Projection<Root> {
        Results<Root>(rebinding: self).changes(keyPaths: keyPaths)
    }

    /// A map's objects as of the realm's current version, frozen (its keys holding nil left
    /// out, as in the results). Throws as `freeze()` of results of objects does.
    public func freeze<Wrapped: ObjectBase>() throws -> FrozenResults<Wrapped> where Element == Wrapped? {
        try Results<Wrapped>(rebinding: self).freeze()
    }

    /// A stream of these results of a map's objects, as `changes(keyPaths:)` of results of
    /// objects gives it: an object the map gains or loses that the query keeps is inserted or
    /// deleted, in the order of the map's keys.
    public func changes<Wrapped: ObjectBase>(keyPaths: [String]? = nil) -> ChangeStream<RealmCollectionChange<FrozenResults<Wrapped>>>
    where Element == Wrapped? {
        Results<Wrapped>(rebinding: self).changes(keyPaths: keyPaths)
    }
}
