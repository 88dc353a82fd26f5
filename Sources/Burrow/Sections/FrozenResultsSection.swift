import BurrowStorage
import BurrowStore

/// One section of `FrozenSectionedResults`: the frozen objects whose section key is `key`, in
/// result order, as of one version. Immutable and `Sendable`; `Identifiable` by its key.
public struct FrozenResultsSection<Key: Hashable & Sendable, T: ObjectBase>: RandomAccessCollection, Sendable, Identifiable, Equatable,
    CustomStringConvertible
{
    public typealias Element = Frozen<T>

    /// The sectioned results this section is a part of.
    let parent: FrozenSectionedResults<Key, T>
    /// The key of the objects in this section.
    public let key: Key
    /// The positions of the section's objects in the sorted results.
    private let positions: [Int]

    /// The section of `key` in `parent` (empty if no object has the key).
    init(parent: FrozenSectionedResults<Key, T>, key: Key) {
        self.parent = parent
        self.key = key
        positions = parent.layout.positions(of: key) ?? []
    }

    /// The section's key.
    public var id: Key { key }

    /// Always 0.
    public var startIndex: Int { 0 }
    /// The number of objects in the section.
    public var endIndex: Int { positions.count }

    /// The object at `position`, which must be less than `count`.
    public subscript(position: Int) -> Frozen<T> {
        parent.results[SectionLayout.position(of: position, in: positions, section: key, "object")]
    }

    /// Always true: a frozen section never changes.
    public var isFrozen: Bool { true }

    /// Whether no object had this section's key at this version (a section stream's element
    /// after its last object left it).
    public var isInvalidated: Bool { parent.layout.positions(of: key) == nil }

    /// The version of the file this section is a view of.
    public var versionNumber: UInt64 { parent.versionNumber }

    /// The live section of this key in `thaw()` of the sectioned results (see
    /// `FrozenSectionedResults.thaw()`), or nil if no object has the key there now.
    ///
    /// Throws as `FrozenSectionedResults.thaw()` does.
    public func thaw(isolation: isolated (any Actor)? = #isolation) throws -> ResultsSection<Key, T>? {
        let live = try parent.thaw(isolation: isolation)
        guard live.layout.positions(of: key) != nil else { return nil }
        return ResultsSection(parent: live, key: key)
    }

    /// Whether both are the section of one key in equal frozen sectioned results.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.key == rhs.key && lhs.parent == rhs.parent }

    /// A short description: the types, and how many sections or objects.
    public var description: String { "FrozenResultsSection<\(Key.self), \(T.self)>(\(key), \(counted(count, "object")) at version \(versionNumber))" }
}

extension ResultsSection where T: ObjectBase {
    /// The section as of the realm's current version, frozen: `Sendable`, immutable (empty if
    /// no object has its key now).
    ///
    /// Throws as `SectionedResults.freeze()` does.
    public func freeze() throws -> FrozenResultsSection<Key, T> {
        FrozenResultsSection(parent: try parent.frozen(), key: key)
    }
}
