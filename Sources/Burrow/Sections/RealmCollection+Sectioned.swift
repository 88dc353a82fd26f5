/// Sectioning a managed collection (`List`, `MutableSet`, `LinkingObjects`,
/// `AnyRealmCollection`), as RealmSwift's `RealmCollection` does: the live results of its
/// elements, sectioned as `Results` sections them (see `Results.sectioned`). Like the queries,
/// these trap for an unmanaged collection, which has no realm to query.
extension RealmCollection {
    /// The values sorted by themselves, in sections of equal values of `block`
    /// (`scores.sectioned(by: { $0 / 10 })`).
    public func sectioned<Key: Hashable & Sendable>(
        by block: @escaping @Sendable (Element) -> Key, ascending: Bool = true
    ) -> SectionedResults<Key, Element> {
        _results().sectioned(by: block, ascending: ascending)
    }

    /// The elements sorted by `sortDescriptors`, in sections of equal values of `block`.
    public func sectioned<Key: Hashable & Sendable>(
        by block: @escaping @Sendable (Element) -> Key, sortDescriptors: [SortDescriptor]
    ) -> SectionedResults<Key, Element> {
        _results().sectioned(sortDescriptors: sortDescriptors, block)
    }

    /// The elements sorted by `sortDescriptors`, in sections of equal values of `keyBlock`.
    public func sectioned<Key: Hashable & Sendable>(
        sortDescriptors: [SortDescriptor], _ keyBlock: @escaping @Sendable (Element) -> Key
    ) -> SectionedResults<Key, Element> {
        _results().sectioned(sortDescriptors: sortDescriptors, keyBlock)
    }
}

extension RealmCollection where Element: _ObjectResultsValue {
    /// The objects sorted by the property `keyPath` reads, in sections of equal values of
    /// `keyPath` (`person.dogs.sectioned(by: \.color)`).
    public func sectioned<Key: Hashable & Sendable>(
        by keyPath: KeyPath<Element, Key> & Sendable, ascending: Bool = true
    ) -> SectionedResults<Key, Element> {
        _results().sectioned(by: keyPath, ascending: ascending)
    }

    /// The objects sorted by `sortDescriptors`, in sections of equal values of `keyPath`, whose
    /// property the first sort descriptor must sort by.
    public func sectioned<Key: Hashable & Sendable>(
        by keyPath: KeyPath<Element, Key> & Sendable, sortDescriptors: [SortDescriptor]
    ) -> SectionedResults<Key, Element> {
        _results().sectioned(by: keyPath, sortDescriptors: sortDescriptors)
    }
}
