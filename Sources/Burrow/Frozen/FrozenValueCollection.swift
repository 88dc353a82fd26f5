import BurrowStore

/// A frozen collection of values that frozen results of values come from (`FrozenList`,
/// `FrozenMutableSet`, `FrozenMap`): its values at its version, and the way back to the live
/// collection's values.
protocol FrozenValueCollection: Sendable {
    /// The live collection type (`List`, `MutableSet`, `Map`).
    associatedtype Live: ValueResultsSource
    /// The collection property (or nested collection) this is a frozen view of.
    var frozen: FrozenCollection<Live> { get }
    init(frozen: FrozenCollection<Live>)
}

extension FrozenValueCollection {
    /// The version the collection is frozen at.
    var version: FrozenVersion { frozen.version }

    /// The values, in the collection's order (a map's in the order of its keys).
    var storedValues: [_StoredValue] { frozen.collection.storedValues }

    /// The live collection's values in `realm`, or nil if its object was deleted since (or is
    /// not in `realm`'s file).
    func thawedValues(in realm: Realm) -> ValueSource? { frozen.thaw(in: realm).map(ValueSource.init) }
}

extension FrozenList: FrozenValueCollection {}
extension FrozenMutableSet: FrozenValueCollection {}
extension FrozenMap: FrozenValueCollection {}

/// Values read from a frozen collection, in the order of frozen results of values.
struct FrozenStoredValues: @unchecked Sendable {
    // Sendable although `_StoredValue` is not (it may hold an object, in an `AnyRealmValue`):
    // the values are read from a collection frozen at one version, so every object among them
    // is a frozen object bound to that immutable, pinned version, which any thread may read
    // (the invariant `FrozenCollection` states), and the array is never changed once made.
    let values: [_StoredValue]
}
