import BurrowStore

extension List {
    /// A stream of this list's changes: first `.initial` with the list as it is, then an
    /// `.update` for each commit that changed it (coalesced while the consumer is busy), with the
    /// indices of the elements deleted, inserted and modified. The elements are frozen lists,
    /// which any task can read. A list inside an `AnyRealmValue` is observed at its place: if
    /// the value there is replaced by one that is not a list, the stream reports every element
    /// deleted and ends.
    ///
    /// A value replaced in place is reported as deleted and inserted at its index; an object
    /// element is modified when the object changed (`keyPaths` limits that to those of its
    /// properties). If the list's object is deleted, the stream reports every element deleted
    /// and ends. The list must be managed and not frozen; otherwise, or inside a write
    /// transaction, the stream yields one `.error` and ends.
    public func changes(keyPaths: [String]? = nil) -> ChangeStream<RealmCollectionChange<FrozenList<Element>>> {
        ElementsObserver<FrozenList<Element>>.stream(binding, nested: nested, what: "List<\(Element.self)>", keyPaths: keyPaths)
    }
}

extension MutableSet {
    /// A stream of this set's changes, as `List.changes(keyPaths:)` describes, with indices in
    /// the set's order (frozen sets, as the set iterates).
    public func changes(keyPaths: [String]? = nil) -> ChangeStream<RealmCollectionChange<FrozenMutableSet<Element>>> {
        ElementsObserver<FrozenMutableSet<Element>>.stream(binding, nested: nil, what: "MutableSet<\(Element.self)>", keyPaths: keyPaths)
    }
}

extension Map {
    /// A stream of this map's changes: first `.initial` with the map as it is, then an `.update`
    /// for each commit that changed it (coalesced while the consumer is busy), with the keys
    /// removed, added, and whose value changed (or whose object changed: `keyPaths` limits that
    /// to those of its properties). The elements are frozen maps, which any task can read.
    ///
    /// If the map's object is deleted (or, for a dictionary inside an `AnyRealmValue`, the
    /// value at its place is replaced by one that is not a dictionary), the stream reports every
    /// key removed and ends. The map must be managed and not frozen; otherwise, or inside a
    /// write transaction, the stream yields one `.error` and ends.
    public func changes(keyPaths: [String]? = nil) -> ChangeStream<RealmMapChange<FrozenMap<Key, Value>>> {
        do {
            let owner = try CollectionOwner<Map<Key, Value>>(binding, nested: nested, what: "Map<\(Key.self), \(Value.self)>")
            return ChangeStream(core: StreamCore(MapObserver<Key, Value>(owner, keyPaths: observedPropertyNames(keyPaths))))
        } catch {
            return ChangeStream(core: StreamCore(failing: .error(error)))
        }
    }
}

/// The observed collection: a collection property of one object, frozen at the observer's
/// baseline, with what reading it at another version needs.
struct CollectionOwner<Live: _PersistedValue>: Sendable {
    private(set) var frozen: FrozenCollection<Live>
    /// The property's stored type, for decoding links in elements.
    let propertyType: PropertyType
    /// The name of the class its elements link to, if they are objects.
    let linkedClassName: String?

    /// The collection `binding` reads (or the list or dictionary at `nested` inside an
    /// `AnyRealmValue`), frozen; throws if it cannot be observed.
    init(_ binding: CollectionBinding?, nested: NestedCollectionBinding?, what: String) throws(RealmError) {
        guard let (owner, property) = nested.map({ ($0.owner, $0.property) }) ?? binding.map({ ($0.owner, $0.property) }) else {
            throw RealmError(.invalidObject, "Only the \(what) of a managed object has changes; add its object to a realm first.")
        }
        guard !owner.isFrozen else {
            throw RealmError(.wrongState, "A frozen \(what) never changes; observe the live one instead (thaw it first).")
        }
        try nested?.checkExists(what)
        frozen = try FrozenCollection(owner: owner, property: property, nested: nested, what: "object that owns this \(what)")
        baseline = frozen.version
        // Managed: freezing it would have thrown otherwise. A nested collection's property is
        // an `AnyRealmValue` (or a collection of them), whose type is `.any`.
        let stored = owner._state!.table.info.properties[property]
        propertyType = stored.type
        linkedClassName = stored.objectClassName
    }

    /// The version the observer last moved to. `frozen` is at this version or, after commits
    /// that could not change the collection, an earlier one with the same contents.
    private(set) var baseline: FrozenVersion
    /// Whether the owner exists at the baseline.
    private(set) var ownerExists = true

    /// The stored elements at the baseline, in the collection's order (for a map, with their
    /// keys), or nil if the owner does not exist there.
    func storedElements() -> [(mapKey: String?, bytes: [UInt8])]? {
        if let nested = frozen.nested {
            guard ownerExists, let value = nested.read() else { return nil }
            return Self.elements(of: value)
        }
        let version = frozen.version
        guard ownerExists, let table = frozen.ownerTable(at: version),
            let field = table.fieldOf[frozen.property],
            let tree = table.collectionTrees[field]
        else { return nil }
        var elements: [(mapKey: String?, bytes: [UInt8])] = []
        do {
            try ObjectStore.forEachStoredElement(of: frozen.key, in: tree, of: version.reader, table.stored.properties[field]) { mapKey, element in
                elements.append((mapKey, Array(element)))
            }
        } catch {
            version.fail(error)
        }
        return elements
    }

    /// The elements of `value`, a list or dictionary inside an `AnyRealmValue`, as a
    /// collection property's are stored (a dictionary's in the order of its keys).
    private static func elements(of value: _StoredValue) -> [(mapKey: String?, bytes: [UInt8])] {
        func bytes(_ element: _StoredValue) -> [UInt8] {
            var bytes: [UInt8] = []
            ValueCodec.appendAny(element._mapLink { $0._state.map { ObjectLink(table: $0.table.id, key: $0.key) } }, to: &bytes)
            return bytes
        }
        switch value {
        case .list(let elements): return elements.map { (nil, bytes($0)) }
        case .dictionary(let entries): return entries.sorted { NestedValues.keyPrecedes($0.key, $1.key) }.map { ($0.key, bytes($0.value)) }
        default: return []
        }
    }

    /// Moves the baseline to `version`, which `changes` made, and reads what the collection
    /// holds there if it may have changed.
    mutating func advance(to version: FrozenVersion, changes: ChangeSet, keyPaths: Set<String>?) -> CollectionStep {
        let oldVersion = baseline
        guard frozen.ownerTable(at: version) != nil else {
            return .unreadable(
                RealmError(
                    .schemaMismatch, "The class of the object that owns this collection no longer matches its stored schema; the change stream ends.")
            )
        }
        if !mayHaveChanged(changes) {
            // The frozen collection stays at the version it shows, which still holds.
            baseline = version
            return .unchanged
        }
        move(to: version)
        return .elements(storedElements() ?? [], linkModified: linkModifications(from: oldVersion, to: version, changes, keyPaths: keyPaths))
    }

    /// Whether `changes`, made after the baseline, may have changed the collection: false only
    /// when they are all known, leave the owner's field alone, and modify or delete no object of
    /// the class the elements link to (so that a commit elsewhere costs no reading of the
    /// collection).
    private func mayHaveChanged(_ changes: ChangeSet) -> Bool {
        guard changes.isComplete, let table = frozen.ownerTable(at: frozen.version), let field = table.fieldOf[frozen.property] else {
            return true
        }
        let ownerChanges = changes.changes(of: frozen.tableId)
        if ownerChanges.deleted.contains(frozen.key) { return true }
        if let fields = ownerChanges.modified[frozen.key], fields.contains(field) || fields.contains(ChangeSet.ClassChanges.allFields) {
            return true
        }
        switch propertyType {
        case .object:
            guard let target = linkedClassName.flatMap({ frozen.version.storedClassId(named: $0) }) else { return true }
            // An object made since can be in the collection only if its field changed.
            let targetChanges = changes.changes(of: target)
            return !targetChanges.modified.isEmpty || !targetChanges.deleted.isEmpty
        case .any:
            return !changes.changedTableIds.isEmpty
        default:
            return false
        }
    }

    /// Moves to `version`, where the owner's class can be read: the collection there (empty
    /// if the owner was deleted).
    private mutating func move(to version: FrozenVersion) {
        baseline = version
        guard let table = frozen.ownerTable(at: version) else { return }
        ownerExists = version.rowExists(table, frozen.key)
        frozen = FrozenCollection(
            version: version, table: table, key: frozen.key, property: frozen.property, nested: frozen.nested, ownerExists: ownerExists)
        // A nested collection whose place holds no such collection any more is gone as well.
        if ownerExists, let nested = frozen.nested, nested.read() == nil { ownerExists = false }
    }

    /// A test of whether the object an element links to was modified between `old` and `new`
    /// (false for elements that are not links).
    private func linkModifications(from old: FrozenVersion, to new: FrozenVersion, _ changes: ChangeSet, keyPaths: Set<String>?) -> ([UInt8]) -> Bool
    {
        var byTable: [UInt32: ObjectModifications] = [:]
        let typedTarget = linkedClassName.flatMap { new.storedClassId(named: $0) }
        let type = propertyType
        return { bytes in
            guard let link = bytes.withUnsafeBytes({ ValueCodec.linkKey($0, as: type) }),
                let tableId = link.table ?? typedTarget
            else { return false }
            if byTable[tableId] == nil {
                byTable[tableId] = ObjectModifications(
                    tableId: tableId, changes: changes, keyPaths: keyPaths,
                    from: (old, old.storedTable(id: tableId)), to: (new, new.storedTable(id: tableId)))
            }
            return byTable[tableId]!.contains(link.key)
        }
    }
}

/// What moving an observed collection's baseline to a new version found.
enum CollectionStep {
    /// Nothing the collection holds can have changed.
    case unchanged
    /// The owner's class can no longer be read as this process declares it (its stored
    /// schema changed): the stream cannot follow it.
    case unreadable(RealmError)
    /// The stored elements now (none if the owner is gone: see `ownerExists`), and a test of
    /// whether the object an element links to was modified.
    case elements([(mapKey: String?, bytes: [UInt8])], linkModified: ([UInt8]) -> Bool)
}

/// A frozen list or set, made from the frozen collection property it wraps.
protocol FrozenElements: Sendable {
    associatedtype Live: _PersistedValue
    init(frozen: FrozenCollection<Live>)
}

extension FrozenList: FrozenElements {}
extension FrozenMutableSet: FrozenElements {}

/// What list, set and map streams share: moving their collection from version to version,
/// ending with an error where it can no longer be read, and after the owner is deleted (every
/// element then reported gone).
protocol CollectionObserver: ChangeObserver {
    associatedtype Live: _PersistedValue
    var owner: CollectionOwner<Live> { get set }
    var keyPaths: Set<String>? { get }
    var isFinished: Bool { get set }
    /// The element that ends the stream with `error`.
    static func failure(_ error: RealmError) -> Element
    /// Takes `stored` as the baseline's elements and returns what changed since the last
    /// ones, or nil if nothing did.
    mutating func change(to stored: [(mapKey: String?, bytes: [UInt8])], linkModified: ([UInt8]) -> Bool) -> Element?
}

extension CollectionObserver {
    var baseline: FrozenVersion { owner.baseline }

    mutating func advance(to version: FrozenVersion, changes: ChangeSet) -> Element? {
        switch owner.advance(to: version, changes: changes, keyPaths: keyPaths) {
        case .unchanged:
            return nil
        case .unreadable(let error):
            isFinished = true
            return Self.failure(error)
        case .elements(let stored, let linkModified):
            // A deleted owner has no elements, and nothing more will change.
            isFinished = !owner.ownerExists
            return change(to: stored, linkModified: linkModified)
        }
    }
}

/// Watches a list or a set: compares its elements at each new version with the baseline's.
struct ElementsObserver<Frozen: FrozenElements>: CollectionObserver {
    var owner: CollectionOwner<Frozen.Live>
    /// The baseline's stored elements, in order.
    private var elements: [[UInt8]]
    let keyPaths: Set<String>?
    var isFinished = false

    /// The stream of `binding`'s collection, or a stream of its one error.
    static func stream(_ binding: CollectionBinding?, nested: NestedCollectionBinding?, what: String, keyPaths: [String]?)
        -> ChangeStream<RealmCollectionChange<Frozen>>
    {
        do {
            let owner = try CollectionOwner<Frozen.Live>(binding, nested: nested, what: what)
            return ChangeStream(core: StreamCore(Self(owner: owner, keyPaths: observedPropertyNames(keyPaths))))
        } catch {
            return ChangeStream(core: StreamCore(failing: .error(error)))
        }
    }

    private init(owner: CollectionOwner<Frozen.Live>, keyPaths: Set<String>?) {
        self.owner = owner
        self.keyPaths = keyPaths
        elements = (owner.storedElements() ?? []).map(\.bytes)
    }

    func initial() -> RealmCollectionChange<Frozen>? { .initial(Frozen(frozen: owner.frozen)) }

    static func failure(_ error: RealmError) -> RealmCollectionChange<Frozen> { .error(error) }

    mutating func change(to stored: [(mapKey: String?, bytes: [UInt8])], linkModified: ([UInt8]) -> Bool) -> RealmCollectionChange<Frozen>? {
        let old = elements
        elements = stored.map(\.bytes)
        let diff = CollectionDiff(repeating: old, elements, isModified: linkModified)
        if diff.isEmpty { return nil }
        return .update(Frozen(frozen: owner.frozen), deletions: diff.deletions, insertions: diff.insertions, modifications: diff.modifications)
    }
}

/// Watches a map: compares its entries at each new version with the baseline's, by key.
struct MapObserver<Key: _MapKey, Value: _Persistable>: CollectionObserver {
    var owner: CollectionOwner<Map<Key, Value>>
    /// The baseline's entries: key → stored value.
    private var entries: [String: [UInt8]]
    let keyPaths: Set<String>?
    var isFinished = false

    init(_ owner: CollectionOwner<Map<Key, Value>>, keyPaths: Set<String>?) {
        self.owner = owner
        self.keyPaths = keyPaths
        entries = Self.entries(owner.storedElements() ?? [])
    }

    private static func entries(_ stored: [(mapKey: String?, bytes: [UInt8])]) -> [String: [UInt8]] {
        Dictionary(stored.map { ($0.mapKey ?? "", $0.bytes) }, uniquingKeysWith: { _, last in last })
    }

    func initial() -> RealmMapChange<FrozenMap<Key, Value>>? { .initial(FrozenMap(frozen: owner.frozen)) }

    static func failure(_ error: RealmError) -> RealmMapChange<FrozenMap<Key, Value>> { .error(error) }

    mutating func change(to stored: [(mapKey: String?, bytes: [UInt8])], linkModified: ([UInt8]) -> Bool) -> RealmMapChange<FrozenMap<Key, Value>>? {
        let old = entries
        entries = Self.entries(stored)
        let deletions = old.keys.filter { entries[$0] == nil }.sorted()
        var insertions: [String] = []
        var modifications: [String] = []
        for (key, bytes) in entries {
            if let before = old[key] {
                if before != bytes || linkModified(bytes) { modifications.append(key) }
            } else {
                insertions.append(key)
            }
        }
        if deletions.isEmpty && insertions.isEmpty && modifications.isEmpty { return nil }
        return .update(
            FrozenMap(frozen: owner.frozen), deletions: deletions.map(Key.init(_mapKey:)),
            insertions: insertions.sorted().map(Key.init(_mapKey:)), modifications: modifications.sorted().map(Key.init(_mapKey:)))
    }
}
