import BurrowStorage
import BurrowStore

/// One section of `FrozenSectionedValueResults`: the values whose section key is `key`, in
/// result order, as of one version. Immutable and `Sendable`; `Identifiable` by its key.
public struct FrozenValueResultsSection<Key: Hashable & Sendable, T: RealmCollectionValue>: RandomAccessCollection, Sendable, Identifiable,
    Equatable, CustomStringConvertible
{
    public typealias Element = T

    /// The sectioned results this section is a part of.
    let parent: FrozenSectionedValueResults<Key, T>
    /// The key of the values in this section.
    public let key: Key
    /// The positions of the section's values in the sorted results.
    private let positions: [Int]

    /// The section of `key` in `parent` (empty if no value has the key).
    init(parent: FrozenSectionedValueResults<Key, T>, key: Key) {
        self.parent = parent
        self.key = key
        positions = parent.layout.positions(of: key) ?? []
    }

    /// The section's key.
    public var id: Key { key }

    /// Always 0.
    public var startIndex: Int { 0 }
    /// The number of values in the section.
    public var endIndex: Int { positions.count }

    /// The value at `position`, which must be less than `count`.
    public subscript(position: Int) -> T {
        parent.results[SectionLayout.position(of: position, in: positions, section: key, "value")]
    }

    /// Always true: a frozen section never changes.
    public var isFrozen: Bool { true }

    /// Whether no value had this section's key at this version (a section stream's element
    /// after its last value left it).
    public var isInvalidated: Bool { parent.layout.positions(of: key) == nil }

    /// The version of the file this section is a view of.
    public var versionNumber: UInt64 { parent.versionNumber }

    /// The live section of this key in `thaw()` of the sectioned results, or nil if the
    /// collection's object was deleted or no value has the key there now.
    ///
    /// Throws as `FrozenSectionedValueResults.thaw()` does.
    public func thaw(isolation: isolated (any Actor)? = #isolation) throws -> ResultsSection<Key, T>? {
        guard let live = try parent.thaw(isolation: isolation), live.layout.positions(of: key) != nil else { return nil }
        return ResultsSection(parent: live, key: key)
    }

    /// Whether both are the section of one key in equal frozen sectioned results.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.key == rhs.key && lhs.parent == rhs.parent }

    /// A short description: the types, the key and how many values.
    public var description: String {
        "FrozenValueResultsSection<\(Key.self), \(T.self)>(\(key), \(counted(count, "value")) at version \(versionNumber))"
    }
}

extension ResultsSection {
    /// The section of values as of the realm's current version, frozen: `Sendable`, immutable
    /// (empty if no value has its key now). Sections of objects give `FrozenResultsSection`.
    ///
    /// Throws as `SectionedResults.freeze()` of values does.
    @_disfavoredOverload
    public func freeze() throws -> FrozenValueResultsSection<Key, T> {
        FrozenValueResultsSection(parent: try parent.frozenValues(), key: key)
    }
}
