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
        stream(keyPaths: keyPaths) { sectioned, _, diff in .whole(sectioned, diff) }
    }

    /// A stream whose elements `describe` makes from the sections at each version.
    func stream<Output: Sendable>(
        keyPaths: [String]?,
        describe: @escaping SectionedResultsObserver<FrozenSectionedResults<Key, SectionElement>, ResultsObserver<SectionElement>, Output>.Describe
    ) -> ChangeStream<SectionedResultsChange<Output>> {
        stream(describe: describe) { () throws(RealmError) in
            let observer = try results.observer(keyPaths: keyPaths)
            return (observer, FrozenSectionedResults(results: observer.results, sectionKey: sectionKey, steps: thawingSteps))
        }
    }
}

extension SectionedResults {
    /// A stream of sectioned results whose elements `describe` makes from the sections at each
    /// version, following the results with the observer `start` makes (with the sections at its
    /// baseline): a stream of the one error if the sectioning failed or `start` throws.
    func stream<Sections, Inner, Output>(
        describe: @escaping SectionedResultsObserver<Sections, Inner, Output>.Describe,
        start: () throws(RealmError) -> (Inner, Sections)
    ) -> ChangeStream<SectionedResultsChange<Output>> {
        do throws(RealmError) {
            if let failure { throw failure }
            let (observer, sectioned) = try start()
            return ChangeStream(core: StreamCore(SectionedResultsObserver(results: observer, sectioned: sectioned, describe: describe)))
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
            .section(FrozenResultsSection(parent: sectioned, key: key), of: sectioned, old: old, diff)
        }
    }
}

extension SectionedResultsChange {
    /// The element of a stream of whole sectioned results, `sectioned`, which changed by `diff`
    /// (nil for the first element): nil if nothing changed.
    static func whole(_ sectioned: Collection, _ diff: SectionedResultsDiff?) -> Self? {
        guard let diff else { return .initial(sectioned) }
        return diff.isEmpty ? nil : .update(sectioned, diff)
    }

    /// The element of a stream of one section, `section` of `sectioned`, whose sections were
    /// `old` before and changed by `diff` (nil for the first element): nil if nothing changed
    /// in the section.
    static func section<Sections: FrozenSections>(
        _ section: Collection, of sectioned: Sections, old: SectionLayout<Sections.Key>, _ diff: SectionedResultsDiff?
    ) -> Self? where Collection: Identifiable, Collection.ID == Sections.Key {
        guard let diff else { return .initial(section) }
        let part = diff.restricted(to: section.id, from: old, to: sectioned.layout)
        return part.isEmpty ? nil : .update(section, part)
    }

    /// The `.update` of `collection` by `diff`.
    static func update(_ collection: Collection, _ diff: SectionedResultsDiff) -> Self {
        func indexPaths(_ paths: [SectionPlace]) -> [IndexPath] { paths.map { IndexPath(indexes: [$0.section, $0.item]) } }
        return .update(
            collection, deletions: indexPaths(diff.deletions), insertions: indexPaths(diff.insertions),
            modifications: indexPaths(diff.modifications), sectionsToInsert: IndexSet(diff.sectionsToInsert),
            sectionsToDelete: IndexSet(diff.sectionsToDelete))
    }
}
