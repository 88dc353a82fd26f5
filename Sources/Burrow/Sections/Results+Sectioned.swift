import BurrowStore

/// Dividing results into sections, as RealmSwift's `sectioned` methods do. Each sorts the results
/// and returns live `SectionedResults` whose sections are the distinct section keys. The primary
/// sort must decide the section key, so that each section's objects come together and sections
/// come in sort order.
///
/// None of them throws or traps: results that cannot be sectioned (no sort descriptor, a sort
/// key path that is unknown or through a collection, a section key path that is not the primary
/// sort) give sectioned results with no sections, whose `changes()` yields the error as its
/// one element and whose `freeze()` throws it; the error is logged at `.error` too.
///
/// The section key is computed from the objects (live ones, and frozen ones for frozen sectioned
/// results and change streams, on the task reading the stream), so a section block must be
/// `@Sendable`; a closure literal that captures nothing or only `Sendable` values is.
extension Results where Element: _ObjectResultsValue {
    /// The results sorted by the property `keyPath` reads, in sections of equal values of
    /// `keyPath`:
    ///
    ///     let byColor = dogs.sectioned(by: \.color)
    ///     let byInitial = dogs.sectioned(by: \.firstLetter, ascending: false)   // a computed property of `name`
    ///
    /// `keyPath` is a `@Persisted` property, or a computed property of exactly one (whose
    /// values sort in the order of its keys, such as the property's first letter); the results
    /// are sorted by that property.
    public func sectioned<Key: Hashable & Sendable>(
        by keyPath: KeyPath<Element, Key> & Sendable, ascending: Bool = true
    ) -> SectionedResults<Key, Element> {
        let sectionKey: @Sendable (Element) -> Key = { $0[keyPath: keyPath] }
        do {
            let property = try KeyPathName.propertyRead(by: keyPath)
            return sectioned(sortDescriptors: [SortDescriptor(keyPath: property, ascending: ascending)], sectionKey)
        } catch {
            return failed(error, sectionKey)
        }
    }

    /// The results sorted by `sortDescriptors`, in sections of equal values of `keyPath`. The
    /// first sort descriptor must sort by the property `keyPath` reads (as RealmSwift requires);
    /// the others order the objects within a section.
    public func sectioned<Key: Hashable & Sendable>(
        by keyPath: KeyPath<Element, Key> & Sendable, sortDescriptors: [SortDescriptor]
    ) -> SectionedResults<Key, Element> {
        let sectionKey: @Sendable (Element) -> Key = { $0[keyPath: keyPath] }
        let property: String
        do {
            property = try KeyPathName.propertyRead(by: keyPath)
        } catch {
            return failed(error, sectionKey)
        }
        if let primary = sortDescriptors.first, primary.keyPath != property {
            return failed(
                RealmError(
                    .invalidArgument,
                    "The section key path must match the primary sort descriptor: \(keyPath) reads '\(property)', but the results would be sorted first by '\(primary.keyPath)'. Put a SortDescriptor of '\(property)' first."
                ),
                sectionKey)
        }
        return sectioned(sortDescriptors: sortDescriptors, sectionKey)
    }
}

/// The block forms, for results of objects and of values alike.
extension Results {
    /// The values sorted by themselves, smallest first (`ascending`) or largest first, in
    /// sections of equal values of `block`, as RealmSwift's "sectioned results on primitives":
    ///
    ///     let byTens = scores.sectioned(by: { $0 / 10 })
    ///     let byInitial = tags.sectioned(by: { $0.first.map(String.init) ?? "" }, ascending: false)
    ///
    /// Results of objects, which do not sort by themselves, section by a key path or with sort
    /// descriptors instead; here they give failed sectioned results (see above).
    public func sectioned<Key: Hashable & Sendable>(
        by block: @escaping @Sendable (Element) -> Key, ascending: Bool = true
    ) -> SectionedResults<Key, Element> {
        sectioned(sortDescriptors: [SortDescriptor(keyPath: "self", ascending: ascending)], block)
    }

    /// The results sorted by `sortDescriptors`, in sections of equal values of `block`.
    public func sectioned<Key: Hashable & Sendable>(
        by block: @escaping @Sendable (Element) -> Key, sortDescriptors: [SortDescriptor]
    ) -> SectionedResults<Key, Element> {
        sectioned(sortDescriptors: sortDescriptors, block)
    }

    /// The results sorted by `sortDescriptors`, in sections of equal values of `keyBlock`:
    ///
    ///     let byInitial = dogs.sectioned(sortDescriptors: [SortDescriptor(keyPath: "name")]) {
    ///         $0.name.first.map(String.init) ?? ""
    ///     }
    ///
    /// The first sort descriptor must decide the key: objects with one key must sort together,
    /// or the sections' order is that of their keys' first objects.
    public func sectioned<Key: Hashable & Sendable>(
        sortDescriptors: [SortDescriptor], _ keyBlock: @escaping @Sendable (Element) -> Key
    ) -> SectionedResults<Key, Element> {
        guard !sortDescriptors.isEmpty else {
            return failed(
                RealmError(
                    .invalidArgument,
                    "Cannot section results without a sort descriptor: the primary sort decides the sections' order. Pass the SortDescriptor of the property the section key comes from."
                ),
                keyBlock)
        }
        do {
            for descriptor in sortDescriptors {
                try QueryValidator.checkOrderingKeyPath(descriptor.keyPath, in: queryScope, purpose: "sort")
            }
        } catch {
            return failed(error, keyBlock)
        }
        return SectionedResults(results: sorted(by: sortDescriptors), sectionKey: keyBlock)
    }

    /// Sectioned results that failed with `error`: no sections, the error logged.
    func failed<Key>(_ error: RealmError, _ sectionKey: @escaping @Sendable (Element) -> Key) -> SectionedResults<Key, Element> {
        Logger.log(.error, "Cannot section \(Element.self) results: \(error.description)")
        return SectionedResults(results: self, sectionKey: sectionKey, failure: error)
    }
}
