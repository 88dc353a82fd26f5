import BurrowStore

/// A `MutableSet` frozen at one version: its elements as they were then. Immutable and
/// `Sendable`, so any task or actor can read it, with no lock and no data race.
///
///     let cities: FrozenMutableSet<String> = try dog.citiesVisited.freeze()
///     Task.detached { print(cities.contains("Toronto")) }
///
/// Later writes to the live set do not change it. Elements that are objects are frozen
/// objects of the same version. `thaw()` gives the live set back.
public struct FrozenMutableSet<Element: _Persistable>: RandomAccessCollection, Sendable, CustomStringConvertible {
    let frozen: FrozenCollection<MutableSet<Element>>

    public var startIndex: Int { 0 }
    /// The number of elements (one field read).
    public var endIndex: Int { frozen.collection.count }

    /// The element at `position`, in the set's stored order (by value).
    public subscript(position: Int) -> Element { frozen.collection[position] }

    /// Iterates over the elements in the set's stored order (one scan).
    public func makeIterator() -> IndexingIterator<[Element]> { frozen.collection.elements.makeIterator() }

    /// Whether the set contained `element` (one lookup).
    public func contains(_ element: Element) -> Bool { frozen.collection.contains(element) }

    /// Whether the set and `other` have an element in common.
    public func intersects<S: Sequence>(_ other: S) -> Bool where S.Element == Element {
        frozen.collection.intersects(other)
    }

    /// Whether every element of this set is in `other`.
    public func isSubset<S: Sequence>(of other: S) -> Bool where S.Element == Element {
        frozen.collection.isSubset(of: other)
    }

    /// Always true: a frozen set never changes.
    public var isFrozen: Bool { true }

    /// The version of the file this set is a view of.
    public var versionNumber: UInt64 { frozen.versionNumber }

    /// The live set this is a frozen view of, in the live realm of its file that belongs to the
    /// caller's isolation (as `Frozen.thaw()`), or nil if its object was deleted since.
    ///
    /// Throws `RealmError` if the file cannot be opened.
    public func thaw(isolation: isolated (any Actor)? = #isolation) throws -> MutableSet<Element>? {
        try frozen.thaw(isolation: isolation)
    }

    public var description: String { "Frozen\(frozen.collection.description) at version \(versionNumber)" }
}

extension MutableSet {
    /// The set as of the realm's current version, frozen: `Sendable` and immutable.
    ///
    /// Throws `RealmError`: `.invalidObject` for an unmanaged set (or one whose object was
    /// deleted); `.wrongState` inside a write transaction (whose changes are not a version yet).
    public func freeze() throws -> FrozenMutableSet<Element> {
        try frozenForm()
    }

    /// `freeze()`, with its error type.
    func frozenForm() throws(RealmError) -> FrozenMutableSet<Element> {
        guard let binding else {
            throw RealmError(.invalidObject, "Only the MutableSet of a managed object can be frozen; add its object to a realm first.")
        }
        return FrozenMutableSet(
            frozen: try FrozenCollection(owner: binding.owner, property: binding.property, what: "object that owns this MutableSet<\(Element.self)>"))
    }
}

extension Realm {
    /// The live set for `set` in this realm, or nil if its object was deleted since (or is not
    /// in this realm's file).
    public func thaw<Element>(_ set: FrozenMutableSet<Element>) -> MutableSet<Element>? {
        set.frozen.thaw(in: self)
    }
}
