import BurrowStore

extension SectionedResults where SectionElement: SendableMetatype {
    /// A stream of the changes of these sectioned values (`scores.sectioned(by: { $0 / 10 })`),
    /// as `changes(keyPaths:)` of sectioned objects describes, with `FrozenSectionedValueResults`:
    /// a value entering, leaving, or moving between sections is deleted and inserted. Sectioned
    /// objects give `FrozenSectionedResults` changes instead.
    @_disfavoredOverload
    public func changes(keyPaths: [String]? = nil) -> ChangeStream<SectionedResultsChange<FrozenSectionedValueResults<Key, SectionElement>>> {
        valueStream(keyPaths: keyPaths) { sectioned, _, diff in .whole(sectioned, diff) }
    }

    /// A stream whose elements `describe` makes from the sections of values at each version.
    func valueStream<Output: Sendable>(
        keyPaths: [String]?,
        describe:
            @escaping SectionedResultsObserver<FrozenSectionedValueResults<Key, SectionElement>, ValueResultsObserver<SectionElement>, Output>
            .Describe
    ) -> ChangeStream<SectionedResultsChange<Output>> {
        stream(describe: describe) { () throws(RealmError) in
            let observer = try results.valueObserver(keyPaths: keyPaths)
            return (observer, FrozenSectionedValueResults(results: observer.results, sectionKey: sectionKey))
        }
    }
}

extension ResultsSection where T: SendableMetatype {
    /// A stream of this section's changes, as `changes(keyPaths:)` of a section of objects
    /// describes, with `FrozenValueResultsSection`s. Sections of objects give
    /// `FrozenResultsSection` changes instead.
    @_disfavoredOverload
    public func changes(keyPaths: [String]? = nil) -> ChangeStream<SectionedResultsChange<FrozenValueResultsSection<Key, T>>> {
        let key = self.key
        return parent.valueStream(keyPaths: keyPaths) { sectioned, old, diff in
            .section(FrozenValueResultsSection(parent: sectioned, key: key), of: sectioned, old: old, diff)
        }
    }
}
