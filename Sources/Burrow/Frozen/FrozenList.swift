import BurrowStore

/// A `List` frozen at one version: its elements, in order, as they were then. Immutable and
/// `Sendable`, so any task or actor can read it, with no lock and no data race.
///
///     let dogs: FrozenList<Dog> = try person.dogs.freeze()
///     Task.detached { print(dogs.map(\.name)) }
///
/// Later writes to the live list do not change it. Elements that are objects are frozen
/// objects of the same version (`isFrozen`; `freeze()` on one gives its `Frozen<T>`).
/// `thaw()` gives the live list back. It keeps its version's pages from being reused while it
/// lives, as every frozen value does.
public struct FrozenList<Element: _Persistable>: RandomAccessCollection, Sendable, CustomStringConvertible {
    let frozen: FrozenCollection<List<Element>>

    public var startIndex: Int { 0 }
    /// The number of elements (one field read).
    public var endIndex: Int { frozen.collection.count }

    /// The element at `position` (O(log n)). Like an array, traps out of bounds.
    public subscript(position: Int) -> Element { frozen.collection[position] }

    /// Iterates over the elements (one scan).
    public func makeIterator() -> IndexingIterator<[Element]> { frozen.collection.makeIterator() }

    /// Always true: a frozen list never changes.
    public var isFrozen: Bool { true }

    /// The version of the file this list is a view of.
    public var versionNumber: UInt64 { frozen.versionNumber }

    /// The live list this is a frozen view of, in the live realm of its file that belongs to
    /// the caller's isolation (as `Frozen.thaw()`), or nil if its object was deleted since.
    ///
    /// Throws `RealmError` if the file cannot be opened.
    public func thaw(isolation: isolated (any Actor)? = #isolation) throws -> List<Element>? {
        try frozen.thaw(isolation: isolation)
    }

    public var description: String { "Frozen\(frozen.collection.description) at version \(versionNumber)" }
}

extension List {
    /// The list as of the realm's current version, frozen: `Sendable`, immutable, in order.
    ///
    /// Throws `RealmError`: `.invalidObject` for an unmanaged list (or one whose object was
    /// deleted, or a list inside an `AnyRealmValue` whose place no longer holds it);
    /// `.wrongState` inside a write transaction (whose changes are not a version yet).
    public func freeze() throws -> FrozenList<Element> {
        try frozenForm()
    }

    /// `freeze()`, with its error type.
    func frozenForm() throws(RealmError) -> FrozenList<Element> {
        if let nested {
            try nested.checkExists("List<\(Element.self)>")
            return FrozenList(
                frozen: try FrozenCollection(
                    owner: nested.owner, property: nested.property, nested: nested, what: "object that holds this List<\(Element.self)>"))
        }
        guard let binding else {
            throw RealmError(.invalidObject, "Only the List of a managed object can be frozen; add its object to a realm first.")
        }
        return FrozenList(
            frozen: try FrozenCollection(owner: binding.owner, property: binding.property, what: "object that owns this List<\(Element.self)>"))
    }
}

extension Realm {
    /// The live list for `list` in this realm, or nil if its object was deleted since (or is
    /// not in this realm's file).
    public func thaw<Element>(_ list: FrozenList<Element>) -> List<Element>? {
        list.frozen.thaw(in: self)
    }
}
