import BurrowStore

/// A managed collection whose values results can hold (`List`, `MutableSet`, `Map`): its
/// values now, its frozen form, and its observed owner, for `ValueSource`.
protocol ValueResultsSource: _PersistedValue {
    /// The type of the values.
    associatedtype Value: _Persistable
    /// The frozen collection (`FrozenList`, `FrozenMutableSet`, `FrozenMap`).
    associatedtype FrozenForm: FrozenValueCollection where FrozenForm.Live == Self
    /// The values now, in the collection's order.
    var storedValues: [_StoredValue] { get }
    /// Whether the collection can no longer be read.
    var isInvalidated: Bool { get }
    /// The collection frozen at its realm's current version. Throws as `freeze()` does.
    func frozenForm() throws(RealmError) -> FrozenForm
    /// The collection's owner, to follow from version to version. Throws as `changes()` fails.
    func observedOwner() throws(RealmError) -> CollectionOwner<Self>
}

extension List: ValueResultsSource {
    typealias Value = Element
    var storedValues: [_StoredValue] { map(\._stored) }
    func observedOwner() throws(RealmError) -> CollectionOwner<List<Element>> {
        try CollectionOwner(binding, nested: nested, what: "List<\(Element.self)>")
    }
}

extension MutableSet: ValueResultsSource {
    typealias Value = Element
    var storedValues: [_StoredValue] { map(\._stored) }
    func observedOwner() throws(RealmError) -> CollectionOwner<MutableSet<Element>> {
        try CollectionOwner(binding, nested: nil, what: "MutableSet<\(Element.self)>")
    }
}

extension Map: ValueResultsSource {
    var storedValues: [_StoredValue] { values.map(\._stored) }
    func observedOwner() throws(RealmError) -> CollectionOwner<Map<Key, Value>> {
        try CollectionOwner(binding, nested: nested, what: "Map<\(Key.self), \(Value.self)>")
    }
}
