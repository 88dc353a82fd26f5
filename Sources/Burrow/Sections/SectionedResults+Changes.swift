import BurrowStore
import Foundation

extension SectionedResults where SectionElement: ObjectBase {
    /// A stream of these sectioned results' changes: first `.initial` with the sections as they
    /// are, then an `.update` for each commit that changed them (coalesced while the consumer is
    /// busy), with the index paths of the objects deleted, inserted and modified and the
    /// sections deleted and inserted, as `SectionedResultsChange` describes. The elements are
    /// `FrozenSectionedResults`, which any task can read.
    ///
    ///     for await change in byColor.changes() {
    ///         if case .update(let sections, let deletions, let insertions, _, let sectionsToInsert, let sectionsToDelete) = change { … }
    ///     }
    ///
    /// `keyPaths` limits modifications to changes of those properties (the first component of
    /// each path is used); objects entering, leaving or moving between sections are always
    /// reported. The section keys are computed on the task reading the stream, from frozen
    /// objects. A write made `withoutNotifying: [stream.token]` produces no element.
    ///
    /// Made inside a write transaction, or on sectioned results that could not be made, the
    /// stream yields one `.error` and ends. Call it where the results live (the main actor,
    /// an actor); iterate it from any task.
    public func changes(keyPaths: [String]? = nil) -> ChangeStream<SectionedResultsChange<FrozenSectionedResults<Key, SectionElement>>> {
        stream(keyPaths: keyPaths) { sectioned, _, diff in
            guard let diff else { return .initial(sectioned) }
            return diff.isEmpty ? nil : .update(sectioned, diff)
        }
    }

    /// A stream whose elements `describe` makes from the sections at each version.
    func stream<Element: Sendable>(
        keyPaths: [String]?, describe: @escaping SectionedResultsObserver<Key, SectionElement, SectionedResultsChange<Element>>.Describe
    ) -> ChangeStream<SectionedResultsChange<Element>> {
        if let failure { return ChangeStream(core: StreamCore(failing: .error(failure))) }
        do {
            let observer = try results.observer(keyPaths: keyPaths)
            return ChangeStream(
                core: StreamCore(SectionedResultsObserver(results: observer, sectionKey: sectionKey, steps: thawingSteps, describe: describe)))
        } catch {
            return ChangeStream(core: StreamCore(failing: .error(error)))
        }
    }
}

extension ResultsSection where T: ObjectBase {
    /// A stream of this section's changes, as RealmSwift's `ResultsSection.observe`: first
    /// `.initial` with the section as it is, then an `.update` for each commit that changed it:
    /// its objects deleted and modified (index paths in the previous sectioned results), its
    /// objects inserted (in the new ones), and its section deleted (`sectionsToDelete`) or
    /// inserted (`sectionsToInsert`) when its last object left it or an object brought its key
    /// back. Commits that change only other sections produce no element. The elements are
    /// `FrozenResultsSection`s of this key (empty while no object has it).
    ///
    /// `keyPaths`, errors and isolation as for `SectionedResults.changes(keyPaths:)`.
    public func changes(keyPaths: [String]? = nil) -> ChangeStream<SectionedResultsChange<FrozenResultsSection<Key, T>>> {
        let key = self.key
        return parent.stream(keyPaths: keyPaths) { sectioned, old, diff in
            let section = FrozenResultsSection(parent: sectioned, key: key)
            guard let diff else { return .initial(section) }
            let part = diff.restricted(to: key, from: old, to: sectioned.layout)
            return part.isEmpty ? nil : .update(section, part)
        }
    }
}

extension SectionedResultsChange {
    /// The `.update` of `collection` by `diff`.
    static func update(_ collection: Collection, _ diff: SectionedResultsDiff) -> Self {
        func indexPaths(_ paths: [SectionPlace]) -> [IndexPath] { paths.map { IndexPath(indexes: [$0.section, $0.item]) } }
        return .update(
            collection, deletions: indexPaths(diff.deletions), insertions: indexPaths(diff.insertions),
            modifications: indexPaths(diff.modifications), sectionsToInsert: IndexSet(diff.sectionsToInsert),
            sectionsToDelete: IndexSet(diff.sectionsToDelete))
    }
}
