import BurrowStore

/// What the frozen collections (`FrozenList`, `FrozenMutableSet`, `FrozenMap`,
/// `FrozenLinkingObjects`) hold: a collection property of a frozen object, bound to one pinned
/// version, and the way back to the live collection.
///
/// A frozen collection is the live collection type bound to a frozen owner object, so reading
/// it is the code that reads any managed collection, against a `FrozenVersion` instead of a
/// realm.
struct FrozenCollection<Collection: _PersistedValue>: @unchecked Sendable {
    // Sendable although `collection` (a `List`, `MutableSet`, `Map` or `LinkingObjects`) and
    // `owner` are not: both are bound, when this value is made, to `version`, an immutable
    // pinned snapshot, and the frozen owner's state is never written after binding. The frozen
    // collection types expose only reads, which go through the owner's state and `version`
    // (whose only mutable state, its table cache, is behind a lock), so every access from any
    // thread reads immutable memory. The unmanaged storage of a bound collection is never used.
    let version: FrozenVersion
    let tableId: UInt32
    let key: ObjectKey
    /// The frozen owner object.
    let owner: ObjectBase
    /// The index of the collection property in the owner's class.
    let property: Int
    /// For a list or dictionary inside an `AnyRealmValue` of property `property`, its place
    /// in `owner`; nil for the collection property itself.
    let nested: NestedCollectionBinding?
    /// The collection property of `owner` (or the collection at `nested`), read at `version`.
    let collection: Collection

    /// Freezes collection property `property` of the managed object `owner` (live or frozen),
    /// or the list or dictionary at `nested` inside it. `what` names the collection in messages.
    ///
    /// Throws `.invalidObject` if `owner` is unmanaged or deleted, `.wrongState` inside a write
    /// transaction (whose changes are not a version yet).
    init(owner live: ObjectBase, property: Int, nested: NestedCollectionBinding? = nil, what: String) throws(RealmError) {
        let (version, table, key) = try live.frozenLocation(freezing: what)
        self.init(version: version, table: table, key: key, property: property, nested: nested, ownerExists: true)
    }

    /// Collection property `property` of object `key` of `table` (or the list or dictionary at
    /// `nested` inside it), at `version`. An object that does not exist there (`ownerExists`
    /// false) has an empty collection (a change stream's last element after its owner was
    /// deleted), an unmanaged one, which reads nothing.
    init(version: FrozenVersion, table: Table, key: ObjectKey, property: Int, nested: NestedCollectionBinding?, ownerExists: Bool) {
        self.version = version
        tableId = table.id
        self.key = key
        self.property = property
        owner = version.object(table, key)
        self.nested = nested?.moved(to: owner)
        collection = ownerExists ? Self.collection(of: owner, property, at: self.nested) : Collection._defaultValue()
    }

    /// The live collection in `realm`, or nil if the owner was deleted since (or `realm` is of
    /// another file).
    func thaw(in realm: Realm) -> Collection? {
        guard let live = realm.liveObject(of: type(of: owner), frozenAt: version, tableId: tableId, key: key) else { return nil }
        let place = nested?.moved(to: live)
        // A nested collection whose place no longer holds a collection of its kind is gone.
        if let place, place.read() == nil { return nil }
        return Self.collection(of: live, property, at: place)
    }

    /// Collection property `property` of `owner`, or the list or dictionary at `nested`.
    private static func collection(of owner: ObjectBase, _ property: Int, at nested: NestedCollectionBinding?) -> Collection {
        guard let nested, let view = Collection.self as? any NestedCollectionView.Type else { return Collection._get(owner, property) }
        return view.init(nested: nested) as? Collection ?? Collection._defaultValue()
    }

    /// The live collection in the live realm of the caller's isolation (see `Frozen.thaw()`).
    func thaw(isolation: (any Actor)?) throws -> Collection? {
        thaw(in: try ThawedRealms.realm(thawing: version, isolation: isolation))
    }

    /// The version of the file the collection is frozen at.
    var versionNumber: UInt64 { version.version }

    /// The owner's table at `version` (another version of its file): its Swift class's, or for
    /// a dynamic owner the dynamic one, whose property indices `property` follows.
    func ownerTable(at version: FrozenVersion) -> Table? {
        version.table(id: tableId, dynamic: owner.classInfo.isDynamic)
    }
}
