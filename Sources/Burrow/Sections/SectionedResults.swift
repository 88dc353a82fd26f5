import BurrowStore
import Foundation

/// Sorted results divided into sections by a key computed from each object, as RealmSwift's
/// `SectionedResults`: a collection of `ResultsSection`s, one per distinct key, in the order of
/// the results' primary sort; each section holds its objects in result order.
///
///     let byColor = realm.objects(Dog.self).sectioned(by: \.color, ascending: true)
///     for section in byColor {
///         print(section.key, section.map(\.name))
///     }
///     let first = byColor[IndexPath(item: 0, section: 0)]
///
/// Results and collections of values section the same way, sorted by the values themselves:
///
///     let byTens = player.scores.sectioned(by: { $0 / 10 }, ascending: false)
///
/// Lazy and live, like `Results`: the sections are computed on first use and again whenever
/// the realm moves to a new version or the open write transaction changes objects, so a section
/// appears when an object first has its key and disappears when the last one leaves it.
/// Confined to its realm's isolation, like the results; `freeze()` gives a `Sendable`
/// `FrozenSectionedResults`, and `changes(keyPaths:)` a stream of changes any task can read.
///
/// Sectioned results that could not be made (an empty list of sort descriptors, a section key
/// path that is not the primary sort, a key path no sort can use) have no sections; their
/// `changes()` yields the error and `freeze()` throws it.
public struct SectionedResults<Key: Hashable & Sendable, SectionElement: RealmCollectionValue>: RandomAccessCollection, Equatable,
    CustomStringConvertible
{
    public typealias Element = ResultsSection<Key, SectionElement>

    /// The results, sorted by the sectioning's sort descriptors.
    let results: Results<SectionElement>
    /// The section key of an object.
    let sectionKey: @Sendable (SectionElement) -> Key
    /// Why the results could not be sectioned, or nil.
    let failure: RealmError?
    let evaluation = SectionedResultsEvaluation<Key>()

    init(results: Results<SectionElement>, sectionKey: @escaping @Sendable (SectionElement) -> Key, failure: RealmError? = nil) {
        self.results = results
        self.sectionKey = sectionKey
        self.failure = failure
    }

    /// The sections as of the realm's current state (computed again if the realm changed).
    var layout: SectionLayout<Key> {
        guard failure == nil else { return SectionLayout() }
        let stamp = results.owner.changeStamp
        if evaluation.stamp != stamp {
            evaluation.layout = SectionLayout(sectionKeys: results.map(sectionKey))
            evaluation.stamp = stamp
        }
        return evaluation.layout
    }

    /// Always 0.
    public var startIndex: Int { 0 }
    /// The number of sections.
    public var endIndex: Int { layout.keys.count }

    /// The section at `position`, which must be less than `count`. The section follows its key:
    /// it is the section of that key as the sectioned results change.
    public subscript(position: Int) -> ResultsSection<Key, SectionElement> {
        ResultsSection(parent: self, key: layout.key(at: position))
    }

    /// The object at `indexPath`: the object at `indexPath.item` (its second index) of the
    /// section at `indexPath.section` (its first). Both must be in bounds.
    public subscript(indexPath: IndexPath) -> SectionElement {
        let place = indexPath.sectionedPlace
        return self[place.section][place.item]
    }

    /// Iterates over the sections there were when iteration began (each a live section of its
    /// key), as RealmSwift's iteration does: sections appearing or going inside the loop neither
    /// skip nor repeat one.
    public func makeIterator() -> Iterator { Iterator(parent: self, keys: layout.keys.makeIterator()) }

    /// Iterates over the sections of `SectionedResults` as they were when iteration began.
    /// Confined to the realm's isolation.
    public struct Iterator: IteratorProtocol {
        let parent: SectionedResults
        var keys: IndexingIterator<[Key]>

        /// The next section, or nil.
        public mutating func next() -> ResultsSection<Key, SectionElement>? {
            keys.next().map { ResultsSection(parent: parent, key: $0) }
        }
    }

    /// The key of every section, in section order.
    public var allKeys: [Key] { layout.keys }

    /// The realm of the results.
    public var realm: Realm? { results.realm }

    /// Whether the results' realm was closed or invalidated (`invalidate()`) since they were made.
    public var isInvalidated: Bool { results.isInvalidated }

    /// Whether these are sectioned results of a frozen realm (they never change). `freeze()`
    /// gives `FrozenSectionedResults`.
    public var isFrozen: Bool { results.isFrozen }

    /// Whether `lhs` and `rhs` are the same sectioned results: one `sectioned` call, or copies of
    /// its value. Two calls give unequal sectioned results even when their sections are the
    /// same, as in RealmSwift.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.evaluation === rhs.evaluation }

    /// A short description: the types, and how many sections or objects.
    public var description: String {
        if let failure { return "SectionedResults<\(Key.self), \(SectionElement.self)> (failed: \(failure.description))" }
        return "SectionedResults<\(Key.self), \(SectionElement.self)> (\(count) sections)"
    }
}
