import BurrowStore
import Foundation

/// A property wrapper that shows the results of a query on the main actor's realm in
/// sections, and follows their changes, as RealmSwift's `@ObservedSectionedResults`:
///
///     @ObservedSectionedResults(Dog.self, sectionKeyPath: \.color) var byColor
///     @ObservedSectionedResults(Dog.self, sectionBlock: { $0.name.first.map(String.init) ?? "" },
///                               sortDescriptors: [SortDescriptor(keyPath: "name")]) var byInitial
///
///     for section in byColor { print(section.key, section.count) }
///     $byColor.remove(atOffsets: offsets, section: byColor[0])     // one write transaction
///
/// `byColor` is live `SectionedResults` (see `Results.sectioned(by:ascending:)`) of the realm
/// `Realm(configuration:)` gives on the main actor. The objects are sorted by
/// `sortDescriptors`; sectioned by a key path with no sort descriptors, they are sorted by that
/// key path, as in RealmSwift. A section block needs sort descriptors whose first one decides
/// the section key. Reading the sections registers with Observation, and each commit that
/// changes the objects, from any actor, is reported once the main actor takes it in.
///
/// Sectioning that cannot work (a block with no sort descriptors, a key path that is not the
/// primary sort) shows no sections and sets `error`, where RealmSwift traps. Where RealmSwift
/// takes `filter: NSPredicate`, this wrapper takes the same format as a query string, as
/// `@ObservedResults` does. The section key path and block must be `Sendable` (a key-path
/// literal, or a closure literal capturing nothing), since frozen sections and change streams
/// compute keys on other tasks.
///
/// `@ObservedSectionedResults(DogCard.self, sectionKeyPath: \.title) var cards` sections the
/// projections of the root class's objects, as in RealmSwift: a projected property as the
/// section key path sorts by the root property it reads, and `filter`, `sortDescriptors` and
/// `keyPaths` name the root's properties.
///
/// Isolation: the main actor.
@MainActor
@propertyWrapper
public struct ObservedSectionedResults<Key: Hashable & Sendable, ResultType: _ObservedResultsValue>: BoundCollection {
    public typealias Element = ResultType

    /// The filtered, unsorted results the sections are made of (sectioning sorts them).
    let storage: ResultsStorage<ResultType>
    let sections: SectionsState<Key, ResultType>

    private init(
        _ sectioning: SectionsState<Key, ResultType>.Sectioning, sortDescriptors: [SortDescriptor],
        filter: ResultsStorage<ResultType>.Filter?, keyPaths: [String]?, configuration: Realm.Configuration?,
        follow: @escaping @MainActor (ResultsStorage<ResultType>, Results<ResultType>) -> Void
    ) {
        storage = ResultsStorage(configuration: configuration, keyPaths: keyPaths, follow: follow)
        storage.query = ResultsStorage.Query(filter: filter, sortDescriptors: [])
        sections = SectionsState(sectioning, sortDescriptors: sortDescriptors)
    }

    /// The live sections, on the main actor's realm.
    public var wrappedValue: SectionedResults<Key, ResultType> {
        sections.sectioned(storage)
    }

    /// The wrapper itself: its quick writes, `filter`, `where`, `sortDescriptors` and `error`.
    public var projectedValue: Self { self }

    /// The query string the objects are filtered by; setting it shows the new sections.
    /// Exclusive with `where`.
    public var filter: String? {
        get { storage.filterFormat }
        nonmutating set { storage.filterFormat = newValue }
    }

    /// The sort of the objects, whose first descriptor decides the sections' order; setting it
    /// shows the sections anew.
    public var sortDescriptors: [SortDescriptor] {
        get { sections.sortDescriptors }
        nonmutating set {
            sections.sortDescriptors = newValue
            storage.changed()
        }
    }

    /// The error of the last quick write that failed (nil once one succeeds), or why the
    /// sections could not be shown. Observable.
    public var error: RealmError? { storage.error }

    /// Brings the sections up to date, as SwiftUI's `DynamicProperty.update()` does before a
    /// view is drawn: the realm reads its newest version.
    public func update() { storage.update() }

    /// Deletes the objects at `offsets` of `section` (those their projections project, for
    /// projections), in one write transaction, as
    /// `.onDelete { $byColor.remove(atOffsets: $0, section: section) }` asks. An offset out of
    /// bounds changes nothing and sets `error`.
    public func remove(atOffsets offsets: IndexSet, section: ResultsSection<Key, ResultType>) {
        let realm = storage.results.realm
        storage.quickWrite(in: realm) {
            try QuickWriteOffsets.check(offsets, count: section.count)
            try realm?.delete(offsets.map { section[$0].shownObject })
        }
    }
}

extension ObservedSectionedResults where ResultType: Object {
    /// Objects of `type` in sections of equal values at `sectionKeyPath`, sorted by
    /// `sortDescriptors` (by `sectionKeyPath` if there are none; otherwise the first must sort
    /// by it), filtered by the query string `filter`, with changes of `keyPaths` only counting
    /// as modifications.
    public init(
        _ type: ResultType.Type, sectionKeyPath: KeyPath<ResultType, Key> & Sendable, sortDescriptors: [SortDescriptor] = [],
        filter: String? = nil, keyPaths: [String]? = nil, configuration: Realm.Configuration? = nil
    ) {
        self.init(
            .keyPath(sectionKeyPath), sortDescriptors: sortDescriptors, filter: filter.map { .string($0) }, keyPaths: keyPaths,
            configuration: configuration, follow: { $0.followObjects($1) })
    }

    /// Objects of `type` in sections of equal values at `sectionKeyPath`, filtered with the
    /// typed query `where`.
    public init(
        _ type: ResultType.Type, sectionKeyPath: KeyPath<ResultType, Key> & Sendable, sortDescriptors: [SortDescriptor] = [],
        where: ((Burrow.Query<ResultType>) -> Burrow.Query<Bool>)?, keyPaths: [String]? = nil, configuration: Realm.Configuration? = nil
    ) {
        self.init(
            .keyPath(sectionKeyPath), sortDescriptors: sortDescriptors, filter: `where`.map { .typed($0) }, keyPaths: keyPaths,
            configuration: configuration, follow: { $0.followObjects($1) })
    }

    /// Objects of `type` in sections of equal keys `sectionBlock` gives, sorted by
    /// `sortDescriptors`, whose first descriptor must decide the key, filtered by the query
    /// string `filter`.
    public init(
        _ type: ResultType.Type, sectionBlock: @escaping @Sendable (ResultType) -> Key, sortDescriptors: [SortDescriptor],
        filter: String? = nil, keyPaths: [String]? = nil, configuration: Realm.Configuration? = nil
    ) {
        self.init(
            .block(sectionBlock), sortDescriptors: sortDescriptors, filter: filter.map { .string($0) }, keyPaths: keyPaths,
            configuration: configuration, follow: { $0.followObjects($1) })
    }

    /// Objects of `type` in sections of equal keys `sectionBlock` gives, filtered with the
    /// typed query `where`.
    public init(
        _ type: ResultType.Type, sectionBlock: @escaping @Sendable (ResultType) -> Key, sortDescriptors: [SortDescriptor],
        where: ((Burrow.Query<ResultType>) -> Burrow.Query<Bool>)?, keyPaths: [String]? = nil, configuration: Realm.Configuration? = nil
    ) {
        self.init(
            .block(sectionBlock), sortDescriptors: sortDescriptors, filter: `where`.map { .typed($0) }, keyPaths: keyPaths,
            configuration: configuration, follow: { $0.followObjects($1) })
    }

    /// The typed query the objects are filtered by; setting it shows the new sections.
    /// Exclusive with `filter`. (Projections have none, as with `@ObservedResults`.)
    public var `where`: ((Burrow.Query<ResultType>) -> Burrow.Query<Bool>)? {
        get { storage.typedFilter }
        nonmutating set { storage.typedFilter = newValue }
    }
}

extension ObservedSectionedResults {
    /// The projections of the objects of `type`'s root class, in sections of equal values at
    /// `sectionKeyPath` (a projected property: the objects are sorted by the root property it
    /// reads), sorted by `sortDescriptors` (naming the root's properties; the first must sort by
    /// that property), filtered by the query string `filter` (naming the root's properties),
    /// with changes of `keyPaths` (the root's) only counting as modifications.
    public init<Root: Object>(
        _ type: ResultType.Type, sectionKeyPath: KeyPath<ResultType, Key> & Sendable, sortDescriptors: [SortDescriptor] = [],
        filter: String? = nil, keyPaths: [String]? = nil, configuration: Realm.Configuration? = nil
    ) where ResultType: Projection<Root> {
        self.init(
            .keyPath(sectionKeyPath), sortDescriptors: sortDescriptors, filter: filter.map { .string($0) }, keyPaths: keyPaths,
            configuration: configuration, follow: { $0.followObjects(Results<Root>(rebinding: $1)) })
    }

    /// The projections of the objects of `type`'s root class, in sections of equal keys
    /// `sectionBlock` gives, sorted by `sortDescriptors` (naming the root's properties), whose
    /// first descriptor must decide the key, filtered by the query string `filter`.
    public init<Root: Object>(
        _ type: ResultType.Type, sectionBlock: @escaping @Sendable (ResultType) -> Key, sortDescriptors: [SortDescriptor],
        filter: String? = nil, keyPaths: [String]? = nil, configuration: Realm.Configuration? = nil
    ) where ResultType: Projection<Root> {
        self.init(
            .block(sectionBlock), sortDescriptors: sortDescriptors, filter: filter.map { .string($0) }, keyPaths: keyPaths,
            configuration: configuration, follow: { $0.followObjects(Results<Root>(rebinding: $1)) })
    }
}

/// How `@ObservedSectionedResults` sections its results, and the sections it made last: made
/// again only when the query or the sort changes (the sections are live, so a new version
/// needs no new ones).
@MainActor
final class SectionsState<Key: Hashable & Sendable, T: _ObservedResultsValue> {
    enum Sectioning {
        case keyPath(KeyPath<T, Key> & Sendable)
        case block(@Sendable (T) -> Key)
    }

    let sectioning: Sectioning
    var sortDescriptors: [SortDescriptor] {
        didSet { made = nil }
    }
    private var made: (generation: Int, sections: SectionedResults<Key, T>)?

    init(_ sectioning: Sectioning, sortDescriptors: [SortDescriptor]) {
        self.sectioning = sectioning
        self.sortDescriptors = sortDescriptors
    }

    /// The sections of `storage`'s results, made if the query or the sort changed since the
    /// last ones; a sectioning that cannot work is reported in `storage.error`, until one
    /// works again.
    func sectioned(_ storage: ResultsStorage<T>) -> SectionedResults<Key, T> {
        let results = storage.results
        if let made, made.generation == storage.generation { return made.sections }
        let sections: SectionedResults<Key, T>
        switch sectioning {
        case .keyPath(let keyPath) where sortDescriptors.isEmpty: sections = results.sectioned(by: keyPath, ascending: true)
        case .keyPath(let keyPath): sections = results.sectioned(by: keyPath, sortDescriptors: sortDescriptors)
        case .block(let block): sections = results.sectioned(sortDescriptors: sortDescriptors, block)
        }
        made = (storage.generation, sections)
        storage.reportShown(.sections, failure: sections.failure)
        return sections
    }
}
