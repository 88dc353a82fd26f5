import BurrowStore
import Foundation

/// Sectioned results of values (`scores.sectioned(by: { $0 / 10 })`) frozen at one version:
/// its sections as they were then, each a collection of the values. Immutable and `Sendable`,
/// so any task or actor can read it; what change streams of sectioned values carry.
///
///     let byTens = try player.scores.sectioned(by: { $0 / 10 }).freeze()
///     Task.detached { for section in byTens { print(section.key, Array(section)) } }
///
/// `thaw()` gives live sectioned results again, in the live realm of the caller's isolation.
public struct FrozenSectionedValueResults<Key: Hashable & Sendable, T: RealmCollectionValue>: RandomAccessCollection, Sendable, Equatable,
    CustomStringConvertible
{
    public typealias Element = FrozenValueResultsSection<Key, T>

    /// The sorted values, frozen.
    let results: FrozenValueResults<T>
    let layout: SectionLayout<Key>
    /// The section key of a value (kept for `thaw()` and for the next version of a stream).
    let sectionKey: @Sendable (T) -> Key

    /// The sections of `results`, by the section keys of its values.
    init(results: FrozenValueResults<T>, sectionKey: @escaping @Sendable (T) -> Key) {
        self.init(results: results, layout: SectionLayout(sectionKeys: results.lazy.map(sectionKey)), sectionKey: sectionKey)
    }

    /// `results` in the sections `layout` (known to be theirs).
    init(results: FrozenValueResults<T>, layout: SectionLayout<Key>, sectionKey: @escaping @Sendable (T) -> Key) {
        self.results = results
        self.layout = layout
        self.sectionKey = sectionKey
    }

    /// Always 0.
    public var startIndex: Int { 0 }
    /// The number of sections.
    public var endIndex: Int { layout.keys.count }

    /// The section at `position`, which must be less than `count`.
    public subscript(position: Int) -> FrozenValueResultsSection<Key, T> {
        FrozenValueResultsSection(parent: self, key: layout.key(at: position))
    }

    /// The value at `indexPath`: the value at `indexPath.item` (its second index) of the
    /// section at `indexPath.section` (its first). Both must be in bounds.
    public subscript(indexPath: IndexPath) -> T {
        let place = indexPath.sectionedPlace
        return self[place.section][place.item]
    }

    /// The key of every section, in section order.
    public var allKeys: [Key] { layout.keys }

    /// Always true: frozen sectioned results never change.
    public var isFrozen: Bool { true }

    /// Always false: frozen sectioned results stay readable.
    public var isInvalidated: Bool { false }

    /// The version of the file these sections are a view of.
    public var versionNumber: UInt64 { results.versionNumber }

    /// The live sectioned results these are a frozen view of (the same sectioning of the same
    /// query on the live collection), in the live realm of the file that belongs to the
    /// caller's isolation (as `Frozen.thaw()`), or nil if the collection's object was deleted.
    ///
    /// Throws `RealmError` if the file cannot be opened.
    public func thaw(isolation: isolated (any Actor)? = #isolation) throws -> SectionedResults<Key, T>? {
        try results.thaw(isolation: isolation).map { SectionedResults(results: $0, sectionKey: sectionKey) }
    }

    /// Whether both hold the same values in the same sections, at one version of one file.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.results.source.version.isSameVersion(as: rhs.results.source.version) && lhs.results.positions == rhs.results.positions
            && lhs.layout == rhs.layout
    }

    /// A short description: the types, and how many sections.
    public var description: String {
        "FrozenSectionedValueResults<\(Key.self), \(T.self)> (\(count) sections at version \(versionNumber))"
    }
}

extension FrozenSectionedValueResults: FrozenSections {
    func resectioned(_ results: FrozenValueResults<T>) -> Self { Self(results: results, sectionKey: sectionKey) }
    func moved(to results: FrozenValueResults<T>) -> Self { Self(results: results, layout: layout, sectionKey: sectionKey) }
}

extension SectionedResults {
    /// The sectioned values as of the realm's current version, frozen: `Sendable`, immutable.
    /// Sectioned objects give `FrozenSectionedResults` instead.
    ///
    /// Throws `RealmError`: the error the sectioning failed with, if it did; otherwise as
    /// `freeze()` of results of values throws.
    @_disfavoredOverload
    public func freeze() throws -> FrozenSectionedValueResults<Key, SectionElement> {
        try frozenValues()
    }

    /// `freeze()` of sectioned values, with its error type.
    func frozenValues() throws(RealmError) -> FrozenSectionedValueResults<Key, SectionElement> {
        if let failure { throw failure }
        return FrozenSectionedValueResults(results: try results.frozenValues(), sectionKey: sectionKey)
    }
}

extension Realm {
    /// The live sectioned results for `frozen` in this realm, or nil if the collection's object
    /// was deleted since (or is not in this realm's file).
    public func thaw<Key, T>(_ frozen: FrozenSectionedValueResults<Key, T>) -> SectionedResults<Key, T>? {
        thaw(frozen.results).map { SectionedResults(results: $0, sectionKey: frozen.sectionKey) }
    }
}
