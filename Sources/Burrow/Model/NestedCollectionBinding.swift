import BurrowStore

/// Where a list or dictionary inside a managed `AnyRealmValue` is: the object, the property,
/// the place in the property that holds the outermost value (the property itself, or an
/// element of a `List<AnyRealmValue>` or `Map<String, AnyRealmValue>` property), and the path
/// from that value down to the collection, one index or key a level.
///
/// The property keeps the whole value in one field, so the collection is read by reading that
/// value and following the path, and changed by writing the value back changed: each read or
/// change costs time in proportion to the whole value. As in RealmSwift the collection follows
/// its place, not its contents: after the list that holds it is reordered, a nested list
/// reads what is at its index now.
struct NestedCollectionBinding {
    /// The place in the property that holds the outermost value.
    enum Root: Equatable {
        case field
        case listElement(Int)
        case mapValue(String)
    }

    /// One level of the path: an index into a list or a key into a dictionary.
    enum Step: Equatable {
        case index(Int)
        case key(String)
    }

    /// Which collection the place is expected to hold.
    enum Kind {
        case list
        case dictionary
    }

    let owner: ObjectBase
    let property: Int
    let root: Root
    private(set) var path: [Step] = []
    /// Set by the `List` or `Map` that views the place: a place that holds the other kind of
    /// collection now holds none of this one (the value there was replaced).
    private(set) var kind = Kind.list

    init(owner: ObjectBase, property: Int, root: Root) {
        self.owner = owner
        self.property = property
        self.root = root
    }

    /// The same place in another instance of the object (frozen at some version, or live).
    func moved(to owner: ObjectBase) -> NestedCollectionBinding {
        var moved = NestedCollectionBinding(owner: owner, property: property, root: root)
        moved.path = path
        moved.kind = kind
        return moved
    }

    /// This place, expected to hold a collection of `kind`.
    func viewed(as kind: Kind) -> NestedCollectionBinding {
        var viewed = self
        viewed.kind = kind
        return viewed
    }

    /// The collection one level further down, at `step`.
    func child(_ step: Step) -> NestedCollectionBinding {
        var child = self
        child.path.append(step)
        return child
    }

    /// Whether `other` is this collection: of the same object (managed, so by key), property,
    /// place and path.
    func isSame(as other: NestedCollectionBinding) -> Bool {
        guard property == other.property, root == other.root, path == other.path, kind == other.kind else { return false }
        if owner === other.owner { return true }
        guard let mine = owner._state, let theirs = other.owner._state else { return false }
        return mine.key == theirs.key && mine.table.id == theirs.table.id
    }

    /// The collection as stored now (`.list` or `.dictionary`), or nil if its place holds no
    /// such collection any more: the object was deleted, or the value was replaced or removed.
    func read() -> _StoredValue? {
        guard var value = readRoot() else { return nil }
        for step in path {
            guard let next = Self.value(at: step, in: value) else { return nil }
            value = next
        }
        return holdsKind(value) ? value : nil
    }

    /// Changes the collection with `change`, given its value, and writes the property's value
    /// back. Needs a write transaction (outside one it traps, as every managed change does); an
    /// error (the collection gone, a value the realm cannot take) is recorded and thrown at
    /// commit.
    func modify(_ change: (inout _StoredValue) -> Void) {
        guard case .live(let realm) = owner._state?.source else {
            preconditionFailure("Cannot modify a collection of a frozen object; thaw the object into a live realm first.")
        }
        let write = realm.requireWrite()
        // The values from the outermost down to the collection's.
        var chain: [_StoredValue] = []
        if let value = readRoot() {
            chain.append(value)
            for step in path {
                guard let next = Self.value(at: step, in: chain[chain.count - 1]) else { break }
                chain.append(next)
            }
        }
        guard chain.count == path.count + 1, var value = chain.popLast(), holdsKind(value) else {
            write.fail(Self.goneError(describedKind))
            return
        }
        change(&value)
        for step in path.reversed() {
            var parent = chain.removeLast()
            Self.replace(step, in: &parent, with: value)
            value = parent
        }
        guard let state = owner._state else { return }
        switch root {
        case .field:
            realm.writeField(state.table, state.key, property, value)
        case .listElement(let index):
            guard let field = state.table.fieldOf[property] else { return }
            do {
                try realm.listSet(state.table, state.key, field, value, at: index, in: write)
            } catch {
                write.fail(error)
            }
        case .mapValue(let key):
            guard let field = state.table.fieldOf[property] else { return }
            do {
                try realm.mapSet(state.table, state.key, field, key, value, in: write)
            } catch {
                write.fail(error)
            }
        }
    }

    /// Throws `.invalidObject` if the collection no longer exists, for freezing or observing
    /// it; `what` names it (`List<AnyRealmValue>`).
    func checkExists(_ what: String) throws(RealmError) {
        if read() == nil { throw Self.goneError(what) }
    }

    /// The error of using a collection (`what`) that no longer exists.
    private static func goneError(_ what: String) -> RealmError {
        RealmError(
            .invalidObject,
            "This \(what) inside an AnyRealmValue no longer exists: its object was deleted, or the value holding it was replaced or removed.")
    }

    /// The realm of the collection's object.
    var realm: Realm? { owner.realm }
    /// Whether the collection no longer exists (its object deleted, or its value replaced).
    var isInvalidated: Bool { owner.isInvalidated || read() == nil }
    /// Whether the collection belongs to a frozen object.
    var isFrozen: Bool { owner.isFrozen }

    private var describedKind: String {
        kind == .list ? "list" : "dictionary"
    }

    /// Whether `value` is a collection of the place's kind.
    private func holdsKind(_ value: _StoredValue) -> Bool {
        switch (kind, value) {
        case (.list, .list), (.dictionary, .dictionary): true
        default: false
        }
    }

    /// The outermost value: what the root place holds now.
    private func readRoot() -> _StoredValue? {
        guard let state = owner._state, state.exists else { return nil }
        switch root {
        case .field:
            return owner._readField(property)
        case .listElement(let index):
            guard let field = state.table.fieldOf[property] else { return nil }
            return state.source.context.listElement(state.table, state.key, field, at: index)
        case .mapValue(let key):
            guard let field = state.table.fieldOf[property] else { return nil }
            return state.source.context.mapValue(state.table, state.key, field, key)
        }
    }

    /// What `value` holds at `step`: the element at an index of a list, the value under a key
    /// of a dictionary; nil if it holds none there.
    private static func value(at step: Step, in value: _StoredValue) -> _StoredValue? {
        switch (value, step) {
        case (.list(let elements), .index(let index)): elements.indices.contains(index) ? elements[index] : nil
        case (.dictionary(let entries), .key(let key)): entries[key]
        default: nil
        }
    }

    /// Puts `child` at `step` of `value`.
    private static func replace(_ step: Step, in value: inout _StoredValue, with child: _StoredValue) {
        switch (value, step) {
        case (.list(var elements), .index(let index)):
            elements[index] = child
            value = .list(elements)
        case (.dictionary(var entries), .key(let key)):
            entries[key] = child
            value = .dictionary(entries)
        default: break
        }
    }
}

/// A collection that may be a list or dictionary inside an `AnyRealmValue`: `List` and `Map`.
protocol NestedCollectionView {
    /// The collection at `place`.
    init(nested place: NestedCollectionBinding)
}

extension List: NestedCollectionView {}
extension Map: NestedCollectionView {}
