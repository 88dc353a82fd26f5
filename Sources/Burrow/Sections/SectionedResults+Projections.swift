import BurrowStore

/// Freezing and following sectioned results of projections. A projection is a view of a live
/// object, with no frozen form of its own, so these freeze and stream the sections of the
/// projected objects: the same sections, by the same keys, each holding `Frozen` root objects.
/// Project a frozen object to read it through the projection on any task:
///
///     let cards = try realm.objects(DogCard.self).sectioned(by: \.color).freeze()
///     Task.detached { for section in cards { print(section.key, section.map { DogCard(projecting: $0.frozenObject).title }) } }
///
/// The section keys come from the projections, made of frozen objects on the task that reads
/// the sections; `keyPaths` name the root class's properties.
extension SectionedResults where SectionElement: ProjectionObservable & _ObjectResultsValue {
    /// The sectioned results as of the realm's current version, frozen, as sections of the
    /// projected objects. Throws as `freeze()` of sectioned objects does.
    public func freeze() throws -> FrozenSectionedResults<Key, SectionElement.Root> {
        try ofRoots().freeze()
    }

    /// A stream of these sectioned results' changes, as `changes(keyPaths:)` of sectioned
    /// objects gives it, with sections of the projected objects.
    public func changes(keyPaths: [String]? = nil) -> ChangeStream<SectionedResultsChange<FrozenSectionedResults<Key, SectionElement.Root>>> {
        ofRoots().changes(keyPaths: keyPaths)
    }

    /// The same sections of the objects the projections project: the same query, a key
    /// computed from each object's projection.
    func ofRoots() -> SectionedResults<Key, SectionElement.Root> {
        let sectionKey = sectionKey
        return SectionedResults<Key, SectionElement.Root>(
            results: Results(rebinding: results), sectionKey: { sectionKey(SectionElement(projecting: $0)) }, failure: failure)
    }
}

extension ResultsSection where T: ProjectionObservable & _ObjectResultsValue {
    /// The section as of the realm's current version, frozen, as a section of the projected
    /// objects. Throws as `freeze()` of a section of objects does.
    public func freeze() throws -> FrozenResultsSection<Key, T.Root> {
        try ResultsSection<Key, T.Root>(parent: parent.ofRoots(), key: key).freeze()
    }

    /// A stream of this section's changes, as `changes(keyPaths:)` of a section of objects gives
    /// it, with sections of the projected objects.
    public func changes(keyPaths: [String]? = nil) -> ChangeStream<SectionedResultsChange<FrozenResultsSection<Key, T.Root>>> {
        ResultsSection<Key, T.Root>(parent: parent.ofRoots(), key: key).changes(keyPaths: keyPaths)
    }
}
