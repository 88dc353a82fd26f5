import BurrowStore

/// Any `RealmCollection` of `Element` behind one type, as RealmSwift's `AnyRealmCollection`:
/// a property or an array can hold `Results`, a `List`, a `MutableSet` or `LinkingObjects`
/// alike.
///
///     let dogs = AnyRealmCollection(realm.objects(Dog.self))
///     let puppies = AnyRealmCollection(person.dogs)
///
/// Every read and query goes to the wrapped collection, so it is as live as that collection
/// (and as confined to its realm's isolation). To observe or freeze it, use the wrapped
/// collection (`base`).
public struct AnyRealmCollection<Element: RealmCollectionValue>: RealmCollection {
    /// The wrapped collection.
    public let base: any RealmCollection<Element>

    /// Wraps `base`.
    public init<C: RealmCollection>(_ base: C) where C.Element == Element {
        if let erased = base as? AnyRealmCollection<Element> {
            self = erased
        } else {
            self.base = base
        }
    }

    public var startIndex: Int { 0 }
    /// The number of elements of the wrapped collection.
    public var endIndex: Int { base.count }
    /// The element at `position` of the wrapped collection. Traps out of bounds, as it does.
    public subscript(position: Int) -> Element { base[position] }

    /// Iterates as the wrapped collection iterates: over its elements as they are when the
    /// iteration starts.
    public func makeIterator() -> IndexingIterator<[Element]> {
        func elements<C: RealmCollection>(_ collection: C) -> [Element] where C.Element == Element { Array(collection) }
        return elements(base).makeIterator()
    }

    public var realm: Realm? { base.realm }
    public var isInvalidated: Bool { base.isInvalidated }
    public var isFrozen: Bool { base.isFrozen }
    public var description: String { "AnyRealmCollection(\(base.description))" }

    public func index(of object: Element) -> Int? { base.index(of: object) }
    public func setValue(_ value: Any?, forKey key: String) { base.setValue(value, forKey: key) }
    public func _results() -> Results<Element> { base._results() }
}
