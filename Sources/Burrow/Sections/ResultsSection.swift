import BurrowStorage
import BurrowStore

/// One section of `SectionedResults`: the objects whose section key is `key`, in result order,
/// as RealmSwift's `ResultsSection`. `Identifiable` by its key.
///
/// Live: it reads its sectioned results' current sections, so it follows its key as the realm
/// changes. Once no object has the key, the section is empty and `isInvalidated`; it fills
/// again if an object takes the key. Confined to its realm's isolation; `freeze()` gives a
/// `Sendable` `FrozenResultsSection`.
public struct ResultsSection<Key: Hashable & Sendable, T: RealmCollectionValue>: RandomAccessCollection, Identifiable, Equatable,
    CustomStringConvertible
{
    public typealias Element = T

    /// The sectioned results this section is a part of.
    let parent: SectionedResults<Key, T>
    /// The key of the objects in this section.
    public let key: Key

    init(parent: SectionedResults<Key, T>, key: Key) {
        self.parent = parent
        self.key = key
    }

    /// The section's key.
    public var id: Key { key }

    /// The positions of the section's objects in the sorted results (none once no object has
    /// the key).
    private var positions: [Int] { parent.layout.positions(of: key) ?? [] }

    /// Always 0.
    public var startIndex: Int { 0 }
    /// The number of objects in the section.
    public var endIndex: Int { positions.count }

    /// The object at `position`, which must be less than `count`.
    public subscript(position: Int) -> T {
        parent.results[SectionLayout.position(of: position, in: positions, section: key, "object")]
    }

    /// Iterates over the section's objects as they were when iteration began, as iterating
    /// `Results` does: changes made inside the loop neither skip nor repeat an object, and an
    /// object deleted before the loop reaches it is visited invalidated.
    public func makeIterator() -> Results<T>.Iterator {
        let results = parent.results
        if results.query.source != nil {
            let values = results.currentValues
            return Results<T>.Iterator(owner: results.owner, values: positions.map { values[$0] })
        }
        let (table, keys) = results.evaluated
        return Results<T>.Iterator(owner: results.owner, table: table, keys: positions.map { keys[$0] }, rows: nil, stamp: results.owner.changeStamp)
    }

    /// The realm of the results.
    public var realm: Realm? { parent.realm }

    /// Whether the results' realm was closed or invalidated, or no object has this section's
    /// key any more.
    public var isInvalidated: Bool { parent.isInvalidated || parent.layout.positions(of: key) == nil }

    /// Whether this is a section of a frozen realm's results (it never changes).
    public var isFrozen: Bool { parent.isFrozen }

    /// Whether `lhs` and `rhs` are the section of one key in the same sectioned results.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.parent == rhs.parent && lhs.key == rhs.key }

    /// A short description: the types, and how many sections or objects.
    public var description: String { "ResultsSection<\(Key.self), \(T.self)>(\(key), \(counted(count, "object")))" }
}
