import BurrowStorage
import BurrowStore

/// What a managed collection (a `List`, `MutableSet` or `Map` of a managed object) needs to
/// reach its field: the object's state, the field, and the live realm to write through.
struct CollectionBinding {
    let owner: ObjectBase
    let property: Int

    var state: ObjectState { owner._state! }

    /// Whether `other` is this collection: the same property of the same object (managed, so
    /// by key).
    func isSame(as other: CollectionBinding) -> Bool {
        guard property == other.property else { return false }
        if owner === other.owner { return true }
        guard let mine = owner._state, let theirs = other.owner._state else { return false }
        return mine.key == theirs.key && mine.table.id == theirs.table.id
    }
    var field: Int? { state.table.fieldOf[property] }
    var context: any ReadContext { state.source.context }

    /// Runs `change` in the open write transaction of the owner's live realm. Outside a write
    /// it traps, as every managed change does; on a frozen object it traps too. An error is
    /// recorded and thrown at commit.
    func write<R>(_ change: (Realm, Table, ObjectKey, Int, RealmWrite) throws(RealmError) -> R) -> R? {
        guard case .live(let realm) = state.source else {
            preconditionFailure("Cannot modify a collection of a frozen object; thaw the object into a live realm first.")
        }
        let write = realm.requireWrite()
        guard let field else { return nil }
        do {
            return try change(realm, state.table, state.key, field, write)
        } catch {
            write.fail(error)
            return nil
        }
    }
}

/// How two `List`s or `Map`s compare as values of an `AnyRealmValue`: as one managed
/// collection, as two, or (both unmanaged) by their contents.
enum CollectionSameness {
    case same
    case different
    case compareContents

    /// How a collection placed by `mine` (a property's binding, or a place inside an
    /// `AnyRealmValue`; neither while unmanaged) compares with one placed by `theirs`.
    init(_ mine: (CollectionBinding?, NestedCollectionBinding?), _ theirs: (CollectionBinding?, NestedCollectionBinding?)) {
        switch (mine, theirs) {
        case ((nil, nil), (nil, nil)): self = .compareContents
        case ((_, let mine?), (_, let theirs?)): self = mine.isSame(as: theirs) ? .same : .different
        case ((let mine?, _), (let theirs?, _)): self = mine.isSame(as: theirs) ? .same : .different
        default: self = .different
        }
    }

    /// Whether the two collections are equal, as RealmSwift's `==` has it: one managed
    /// collection, or two unmanaged ones whose contents `contentsEqual` finds equal.
    func isEqual(contentsEqual: () -> Bool) -> Bool {
        switch self {
        case .same: true
        case .different: false
        case .compareContents: contentsEqual()
        }
    }
}

/// A `List`, `MutableSet` or `Map` instance, which an unmanaged object's field may hold. As in
/// RealmSwift, adding the object to a realm makes that instance the object's managed
/// collection, so a collection taken from the object before `add` writes to the realm after it.
/// Cancelling the transaction makes it unmanaged again, with the elements it had; committing it
/// lets go of those.
///
/// `binding` changes only on those three events, which the realm runs in the collection's
/// isolation domain while no access to the collection is in progress.
protocol HeldCollection: AnyObject {
    /// The managed collection this instance reads and writes, or nil while it is unmanaged.
    var binding: CollectionBinding? { get set }
    /// Lets go of the elements the instance held while unmanaged.
    func dropUnmanagedElements()
}

extension HeldCollection {
    /// Makes this collection, if unmanaged, collection property `property` of `owner`, which
    /// has just been added and whose field held it. A collection already managed (an instance
    /// two unmanaged objects shared, added with the first) stays as it is.
    func adopt(owner: ObjectBase, property: Int) {
        if binding == nil { binding = CollectionBinding(owner: owner, property: property) }
    }

    /// Makes this collection unmanaged again, with its unmanaged elements, if `owner` adopted
    /// it (the add was cancelled).
    func release(from owner: ObjectBase) {
        if binding?.owner === owner { binding = nil }
    }

    /// Lets go of the unmanaged elements if `owner` adopted this collection (its add was
    /// committed: the realm holds them now).
    func commitAdoption(by owner: ObjectBase) {
        if binding?.owner === owner { dropUnmanagedElements() }
    }
}

extension CollectionBinding {
    /// Replaces the whole content of collection property `property` of the managed `object`.
    static func replaceContent(of object: ObjectBase, property: Int, with content: FieldContent<ObjectBase>) {
        _ = CollectionBinding(owner: object, property: property).write { realm, table, key, field, write throws(RealmError) in
            try realm.replaceCollection(table, key, field, with: content, in: write)
        }
    }

    /// The elements a value given for a `List` or `MutableSet` property holds, converted: any
    /// sequence (an array, another collection, `Results`).
    static func elements<Element: _Persistable>(
        of value: Any, as: Element.Type, property: String, kind: String
    ) throws(RealmError) -> [Element] {
        guard let sequence = value as? any Sequence else {
            throw RealmError(
                .invalidArgument,
                "Property '\(property)' is \(withArticle(kind)); give an array or another collection, not \(StoredValueConversion.describe(value)).")
        }
        var elements: [Element] = []
        for element in AnySequenceOfAny(sequence) { elements.append(try Element._convert(element, property: property)) }
        return elements
    }
}

/// Equality of stored values as a set sees it: objects by identity (managed ones by object
/// key), everything else by its index-key encoding.
enum StoredIdentity {
    static func same(_ a: _StoredValue, _ b: _StoredValue) -> Bool {
        switch (a, b) {
        case (.object(let x), .object(let y)):
            if x === y { return true }
            guard let sx = x._state, let sy = y._state else { return false }
            return sx.key == sy.key && sx.table.id == sy.table.id
        case (.object, _), (_, .object): return false
        default: return IndexKey.encode(a) == IndexKey.encode(b)
        }
    }
}

extension CollectionBinding {
    /// For a list of objects of an object in a live realm: the realm, the table its elements
    /// are read as, and their object keys in the list's order. Nil for any other collection,
    /// or if the list cannot be read (the per-element path then reports it).
    func linkedObjectKeys() -> (realm: Realm, table: Table, keys: [ObjectKey])? {
        guard case .live(let realm) = state.source, let field else { return nil }
        let table = state.table
        let property = table.stored.properties[field]
        guard property.type == .object, property.collection == .list, let tree = table.collectionTrees[field] else { return nil }
        // The table `readContent` reads the elements as (see `ReadContext.linkedObject`).
        let targetId = context.linkTarget(table, field)
        guard let target = table.info.isDynamic ? realm.store.dynamicTable(id: targetId) : realm.table(id: targetId) else { return nil }
        var keys: [ObjectKey] = []
        var readable = true
        do {
            try ObjectStore.forEachStoredElement(of: state.key, in: tree, of: context.reader, property) { _, element in
                if let link = ValueCodec.linkKey(element, as: .object) { keys.append(link.key) } else { readable = false }
            }
        } catch {
            return nil
        }
        return readable ? (realm, target, keys) : nil
    }
}
