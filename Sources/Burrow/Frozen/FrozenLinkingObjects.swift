import BurrowStore

/// `LinkingObjects` frozen at one version: the objects that linked to an object then, as
/// frozen objects. Immutable and `Sendable`, so any task or actor can read it, with no lock and
/// no data race.
///
///     let owners: FrozenLinkingObjects<Person> = try dog.owners.freeze()
///     Task.detached { print(owners.map(\.name)) }
///
/// Later writes do not change it. `thaw()` gives the live `LinkingObjects` back.
public struct FrozenLinkingObjects<Element: ObjectBase>: RandomAccessCollection, Sendable, CustomStringConvertible {
    let frozen: FrozenCollection<LinkingObjects<Element>>

    public var startIndex: Int { 0 }
    public var endIndex: Int { frozen.collection.count }

    /// The linking object at `position`: a frozen object of this version.
    public subscript(position: Int) -> Element { frozen.collection[position] }

    /// The property of `Element` whose links this follows.
    public var propertyName: String { frozen.collection.propertyName }

    /// Always true: frozen linking objects never change.
    public var isFrozen: Bool { true }

    /// The version of the file these linking objects are a view of.
    public var versionNumber: UInt64 { frozen.versionNumber }

    /// The live `LinkingObjects` this is a frozen view of, in the live realm of its file that
    /// belongs to the caller's isolation (as `Frozen.thaw()`), or nil if its object was deleted
    /// since.
    ///
    /// Throws `RealmError` if the file cannot be opened.
    public func thaw(isolation: isolated (any Actor)? = #isolation) throws -> LinkingObjects<Element>? {
        try frozen.thaw(isolation: isolation)
    }

    public var description: String { "Frozen\(frozen.collection.description) at version \(versionNumber)" }
}

extension LinkingObjects {
    /// The linking objects as of the realm's current version, frozen: `Sendable` and immutable.
    ///
    /// Throws `RealmError`: `.invalidObject` for the linking objects of an unmanaged object (or
    /// of a deleted one); `.wrongState` inside a write transaction (whose changes are not a
    /// version yet).
    public func freeze() throws -> FrozenLinkingObjects<Element> {
        guard let linkedObject, let ownerProperty else {
            throw RealmError(.invalidObject, "Only the LinkingObjects of a managed object can be frozen; add its object to a realm first.")
        }
        return FrozenLinkingObjects(
            frozen: try FrozenCollection(owner: linkedObject, property: ownerProperty, what: "object of these LinkingObjects<\(Element.self)>"))
    }
}

extension Realm {
    /// The live linking objects for `linkingObjects` in this realm, or nil if their object was
    /// deleted since (or is not in this realm's file).
    public func thaw<Element>(_ linkingObjects: FrozenLinkingObjects<Element>) -> LinkingObjects<Element>? {
        linkingObjects.frozen.thaw(in: self)
    }
}
