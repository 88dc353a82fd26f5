import BurrowStore
import Foundation

/// `SectionedResults` frozen at one version: its sections as they were then, each a collection
/// of `Frozen` objects. Immutable and `Sendable`, so any task or actor can read it, with no lock
/// and no data race; what change streams of sectioned results carry.
///
///     let sections = try dogs.sectioned(by: \.color).freeze()
///     Task.detached { for section in sections { print(section.key, section.map(\.name)) } }
///
/// `thaw()` gives live sectioned results again, in the live realm of the caller's isolation.
public struct FrozenSectionedResults<Key: Hashable & Sendable, T: ObjectBase>: RandomAccessCollection, Sendable, Equatable, CustomStringConvertible {
    public typealias Element = FrozenResultsSection<Key, T>

    /// The sorted results, frozen.
    let results: FrozenResults<T>
    let layout: SectionLayout<Key>
    /// The section key of an object (read from frozen objects here; kept for `thaw()`).
    let sectionKey: @Sendable (T) -> Key
    /// The query steps that make the results from every object of `T`, or nil if the results
    /// were of a collection (which cannot be made again from a query).
    let steps: [QueryStep]?

    /// The sections of `results`, by the section keys of its objects.
    init(results: FrozenResults<T>, sectionKey: @escaping @Sendable (T) -> Key, steps: [QueryStep]?) {
        self.results = results
        self.sectionKey = sectionKey
        self.steps = steps
        layout = SectionLayout(sectionKeys: results.lazy.map { sectionKey($0.frozenObject) })
    }

    /// `results` in the sections `layout` (known to be theirs), sectioned as `other`.
    init(results: FrozenResults<T>, layout: SectionLayout<Key>, of other: Self) {
        self.results = results
        self.layout = layout
        sectionKey = other.sectionKey
        steps = other.steps
    }

    /// Always 0.
    public var startIndex: Int { 0 }
    /// The number of sections.
    public var endIndex: Int { layout.keys.count }

    /// The section at `position`, which must be less than `count`.
    public subscript(position: Int) -> FrozenResultsSection<Key, T> {
        FrozenResultsSection(parent: self, key: layout.key(at: position))
    }

    /// The object at `indexPath`: item `indexPath[1]` of section `indexPath[0]` (`item` and
    /// `section`). Both must be in bounds.
    public subscript(indexPath: IndexPath) -> Frozen<T> {
        let place = indexPath.sectionedPlace
        return self[place.section][place.item]
    }

    /// The key of every section, in section order.
    public var allKeys: [Key] { layout.keys }

    /// Always true: frozen sectioned results never change.
    public var isFrozen: Bool { true }

    /// Always false: a frozen version stays readable as long as it is held.
    public var isInvalidated: Bool { false }

    /// The version of the file these sectioned results are a view of.
    public var versionNumber: UInt64 { results.versionNumber }

    /// Live sectioned results of the same query and sections, in the live realm of the file that
    /// belongs to the caller's isolation (the realm `Frozen.thaw()` uses), at that realm's
    /// current version (at least this one's).
    ///
    /// Throws `RealmError`: `.invalidArgument` for sectioned results of a `List`, `MutableSet`
    /// or `LinkingObjects` (thaw the collection and section it again); an error opening the file.
    public func thaw(isolation: isolated (any Actor)? = #isolation) throws -> SectionedResults<Key, T> {
        guard let version = results.version else { throw Self.cannotThaw }
        let realm = try ThawedRealms.realm(thawing: version, isolation: isolation)
        guard let live = realm.thaw(self) else { throw Self.cannotThaw }
        return live
    }

    private static var cannotThaw: RealmError {
        RealmError(
            .invalidArgument,
            "Sectioned results of a List, MutableSet or LinkingObjects cannot be thawed; thaw the collection's object and section the collection again."
        )
    }

    /// Whether both are the same sections of the same objects at the same version.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        let sameVersion =
            switch (lhs.results.version, rhs.results.version) {
            case (nil, nil): true
            case (let left?, let right?): left.isSameVersion(as: right)
            default: false
            }
        return sameVersion && lhs.results.keys == rhs.results.keys && lhs.layout == rhs.layout
    }

    /// A short description: the types, and how many sections or objects.
    public var description: String { "FrozenSectionedResults<\(Key.self), \(T.self)> (\(count) sections at version \(versionNumber))" }
}

extension FrozenSectionedResults: FrozenSections {
    func resectioned(_ results: FrozenResults<T>) -> Self { Self(results: results, sectionKey: sectionKey, steps: steps) }
    func moved(to results: FrozenResults<T>) -> Self { Self(results: results, layout: layout, of: self) }
}

extension SectionedResults where SectionElement: ObjectBase {
    /// The sectioned results as of the realm's current version, frozen: `Sendable`, immutable.
    ///
    /// Throws `RealmError`: the error that kept the results from being sectioned; `.wrongState`
    /// inside a write transaction; `.corruptFile` if the file is damaged where the query reads.
    public func freeze() throws -> FrozenSectionedResults<Key, SectionElement> {
        try frozen()
    }

    /// `freeze()`, with its error type.
    func frozen() throws(RealmError) -> FrozenSectionedResults<Key, SectionElement> {
        if let failure { throw failure }
        return FrozenSectionedResults(results: try results.frozen(), sectionKey: sectionKey, steps: thawingSteps)
    }

    /// The query steps that make the results again from every object of the class, for
    /// `thaw()`; nil for results of a collection, which no query on the class makes.
    var thawingSteps: [QueryStep]? { results.base == nil ? results.steps : nil }
}

extension Realm {
    /// Live sectioned results of `frozen`'s query and sections in this realm, or nil if it is of
    /// another file, or of a `List`, `MutableSet` or `LinkingObjects` (which cannot be made again
    /// from a query).
    public func thaw<Key, T>(_ frozen: FrozenSectionedResults<Key, T>) -> SectionedResults<Key, T>? {
        guard let steps = frozen.steps, let version = frozen.results.version, version.snapshotReader.snapshot.storage === storage else { return nil }
        let results = steps.reduce(Results<T>(realm: self)) { $0.appending($1) }
        return SectionedResults(results: results, sectionKey: frozen.sectionKey)
    }
}
