import BurrowStore

/// Freezing and following results of projections. A projection is a view of a live object, with
/// no frozen form of its own, so these freeze and stream the projected objects: the same query,
/// as `FrozenResults` of `Frozen` root objects. Project a frozen object to read it through the
/// projection on any task:
///
///     let cards = try realm.objects(DogCard.self).freeze()
///     Task.detached { print(cards.map { DogCard(projecting: $0.frozenObject).title }) }
extension Results where Element: ProjectionObservable {
    /// The projected objects as of the realm's current version, frozen. Throws as `freeze()` of
    /// results of objects does.
    public func freeze() throws -> FrozenResults<Element.Root> {
        try Results<Element.Root>(rebinding: self).freeze()
    }

    /// A stream of these results' changes, as `changes(keyPaths:)` of results of objects gives
    /// it, with frozen results of the projected objects; `keyPaths` name the root class's
    /// properties.
    public func changes(keyPaths: [String]? = nil) -> ChangeStream<RealmCollectionChange<FrozenResults<Element.Root>>> {
        Results<Element.Root>(rebinding: self).changes(keyPaths: keyPaths)
    }
}
