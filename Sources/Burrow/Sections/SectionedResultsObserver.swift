import BurrowStore

/// Watches sectioned results for a change stream: moves a `ResultsObserver` of the sorted
/// results from version to version, sections the results again at each, and has `describe`
/// turn the sections and their `SectionedResultsDiff` into the stream's element (for the whole
/// sectioned results, or one section).
struct SectionedResultsObserver<Key: Hashable & Sendable, T: ObjectBase, Element: Sendable>: ChangeObserver {
    /// The stream's element for `sectioned`, whose sections were `old` before; `diff` is nil for
    /// the first element. Nil for no element.
    typealias Describe = @Sendable (_ sectioned: FrozenSectionedResults<Key, T>, _ old: SectionLayout<Key>, _ diff: SectionedResultsDiff?) -> Element?

    private var results: ResultsObserver<T>
    /// The sectioned results at the baseline.
    private var sectioned: FrozenSectionedResults<Key, T>
    let describe: Describe

    init(results: ResultsObserver<T>, sectionKey: @escaping @Sendable (T) -> Key, steps: [QueryStep]?, describe: @escaping Describe) {
        self.results = results
        sectioned = FrozenSectionedResults(results: results.results, sectionKey: sectionKey, steps: steps)
        self.describe = describe
    }

    var baseline: FrozenVersion { results.baseline }
    var isFinished: Bool { false }

    func initial() -> Element? { describe(sectioned, sectioned.layout, nil) }

    mutating func advance(to version: FrozenVersion, changes: ChangeSet) -> Element? {
        let old = sectioned
        let resultsDiff: CollectionDiff
        switch results.advance(to: version, changes: changes) {
        case .update(_, let deletions, let insertions, let modifications)?:
            resultsDiff = CollectionDiff(deletions: deletions, insertions: insertions, modifications: modifications)
        case .initial?, .error?, nil:
            if changes.isComplete && changes.changedTableIds.isEmpty {
                // No object of any class changed: the same sections, at the new version.
                sectioned = FrozenSectionedResults(results: results.results, layout: old.layout, of: old)
                return nil
            }
            // The results kept their objects and order, but a section key may read what changed.
            resultsDiff = CollectionDiff()
        }
        sectioned = FrozenSectionedResults(results: results.results, sectionKey: old.sectionKey, steps: old.steps)
        return describe(sectioned, old.layout, SectionedResultsDiff(from: old.layout, to: sectioned.layout, results: resultsDiff))
    }
}
