import BurrowStore

/// Frozen sectioned results, of objects (`FrozenSectionedResults`) or of values
/// (`FrozenSectionedValueResults`), as a change stream remakes them at each version.
protocol FrozenSections: Sendable {
    associatedtype Key: Hashable & Sendable
    /// The frozen sorted results the sections divide.
    associatedtype Results: Sendable
    /// The sections, by position in `Results`.
    var layout: SectionLayout<Key> { get }
    /// The same sectioning of `results`: its sections computed anew.
    func resectioned(_ results: Results) -> Self
    /// These sections over `results`, which hold the same elements with the same values.
    func moved(to results: Results) -> Self
}

/// A change observer of frozen results, whose results at the baseline it shows.
protocol ResultsFollowing<Results>: ChangeObserver where Element == RealmCollectionChange<Results> {
    associatedtype Results: Sendable
    /// The results at the baseline.
    var results: Results { get }
}

extension ResultsObserver: ResultsFollowing {}
extension ValueResultsObserver: ResultsFollowing {}

/// Watches sectioned results for a change stream: moves an observer of the sorted results from
/// version to version (`ResultsObserver`, `ValueResultsObserver`), sections the results again
/// at each, and has `describe` turn the sections and their `SectionedResultsDiff` into the
/// stream's element (for the whole sectioned results, or one section).
struct SectionedResultsObserver<Sections: FrozenSections, Inner: ResultsFollowing<Sections.Results>, Output: Sendable>: ChangeObserver {
    /// The stream's element for `sectioned`, whose sections were `old` before; `diff` is nil for
    /// the first element. Nil for no element.
    typealias Describe =
        @Sendable (_ sectioned: Sections, _ old: SectionLayout<Sections.Key>, _ diff: SectionedResultsDiff?) -> SectionedResultsChange<
            Output
        >?

    private var results: Inner
    /// The sectioned results at the baseline.
    private var sectioned: Sections
    let describe: Describe

    /// Follows `results`, whose results at the baseline `sectioned` divides.
    init(results: Inner, sectioned: Sections, describe: @escaping Describe) {
        self.results = results
        self.sectioned = sectioned
        self.describe = describe
    }

    var baseline: FrozenVersion { results.baseline }
    var isFinished: Bool { results.isFinished }

    func initial() -> SectionedResultsChange<Output>? { describe(sectioned, sectioned.layout, nil) }

    mutating func advance(to version: FrozenVersion, changes: ChangeSet) -> SectionedResultsChange<Output>? {
        let old = sectioned
        let resultsDiff: CollectionDiff
        switch results.advance(to: version, changes: changes) {
        case .update(_, let deletions, let insertions, let modifications)?:
            resultsDiff = CollectionDiff(deletions: deletions, insertions: insertions, modifications: modifications)
        case .error(let error)?:
            return .error(error)
        case .initial?, nil:
            if changes.isComplete && changes.changedTableIds.isEmpty {
                // No object of any class changed: the same sections, at the new version.
                sectioned = old.moved(to: results.results)
                return nil
            }
            // The results kept their elements and order, but a section key may read what changed.
            resultsDiff = CollectionDiff()
        }
        sectioned = old.resectioned(results.results)
        return describe(sectioned, old.layout, SectionedResultsDiff(from: old.layout, to: sectioned.layout, results: resultsDiff))
    }
}
