import BurrowStorage
import BurrowStore

/// Shared by `List`, `MutableSet` and `Map` for schema discovery and storage.
public protocol _CollectionValue: _PersistedValue {
    var _isEmpty: Bool { get }
}

extension _CollectionValue {
    public static func _isEmptyValue(_ value: Self) -> Bool { value._isEmpty }
}

/// An ordered collection of values or objects, as a `@Persisted` property:
///
///     @Persisted var dogs: List<Dog>
///     @Persisted var scores: List<Int>
///
/// Unmanaged, a list is a plain array. Managed, it reads and writes its object's field: changes
/// need a write transaction (outside one they trap, as in RealmSwift), and appending an
/// unmanaged object adds it to the realm.
public final class List<Element: _Persistable>: RandomAccessCollection, MutableCollection, _CollectionValue, CustomStringConvertible, HeldCollection {
    /// The elements of an unmanaged list.
    private var storage: [Element] = []
    /// Set while the list is managed. Unchecked for exclusivity, so that reading pays no access
    /// tracking: see `HeldCollection` for when it changes.
    @exclusivity(unchecked) var binding: CollectionBinding?
    /// Set for a list inside a managed `AnyRealmValue` (then `binding` is nil): where it is.
    let nested: NestedCollectionBinding?

    /// A new, empty, unmanaged list.
    public init() {
        binding = nil
        nested = nil
    }

    init(owner: ObjectBase, property: Int) {
        binding = CollectionBinding(owner: owner, property: property)
        nested = nil
    }

    /// The list inside a managed `AnyRealmValue` at `place`.
    init(nested place: NestedCollectionBinding) {
        binding = nil
        nested = place.viewed(as: .list)
    }

    /// Every element as stored now, in order (one scan).
    private var elements: [Element] {
        if let nested { return nestedValues(nested).enumerated().map { element($1, at: $0) } }
        guard let binding, let field = binding.field else { return storage }
        guard case .elements(let values) = binding.context.readContent(binding.state.table, binding.state.key, field) else { return [] }
        return values.enumerated().map { element($1, at: $0) }
    }

    /// The element stored as `value` at `index`: a list or dictionary inside an
    /// `AnyRealmValue` as the live collection there.
    @inline(__always)
    private func element(_ value: _StoredValue, at index: Int) -> Element {
        guard value.isNestedCollection else { return Element._fromStored(value) }
        let place =
            nested?.child(.index(index)) ?? binding.map { NestedCollectionBinding(owner: $0.owner, property: $0.property, root: .listElement(index)) }
        // Only an `AnyRealmValue` holds a list or a dictionary.
        guard let place else { return Element._fromStored(value) }
        return AnyRealmValue.view(of: value, at: place) as! Element
    }

    /// The elements of the list inside an `AnyRealmValue` at `place`, as stored now.
    private func nestedValues(_ place: NestedCollectionBinding) -> [_StoredValue] {
        guard case .list(let values)? = place.read() else { return [] }
        return values
    }

    /// Runs `change` in the owner's write transaction (managed), on the stored elements of a
    /// list inside an `AnyRealmValue` (`nested`), or on the array (unmanaged).
    private func change(
        unmanaged: (inout [Element]) -> Void,
        nested nestedChange: (inout [_StoredValue]) -> Void,
        managed: (Realm, Table, ObjectKey, Int, RealmWrite) throws(RealmError) -> Void
    ) {
        if let nested {
            nested.modify { value in
                guard case .list(var values) = value else { return }
                nestedChange(&values)
                value = .list(values)
            }
            return
        }
        guard let binding else {
            unmanaged(&storage)
            return
        }
        _ = binding.write(managed)
    }

    public var startIndex: Int { 0 }

    /// The number of elements (one field read when managed).
    public var endIndex: Int {
        if let nested { return nestedValues(nested).count }
        guard let binding, let field = binding.field else { return storage.count }
        return binding.context.collectionCount(binding.state.table, binding.state.key, field)
    }

    /// The element at `position` (O(log n) when managed). Like an array, traps out of bounds.
    public subscript(position: Int) -> Element {
        get {
            if let nested {
                let values = nestedValues(nested)
                precondition(
                    values.indices.contains(position), "Index \(position) is out of bounds (the list has \(counted(values.count, "element")))")
                return element(values[position], at: position)
            }
            guard let binding, let field = binding.field else { return storage[position] }
            guard let value = binding.context.listElement(binding.state.table, binding.state.key, field, at: position) else {
                preconditionFailure("Index \(position) is out of bounds (the list has \(counted(count, "element")))")
            }
            return element(value, at: position)
        }
        set {
            checkIndex(position, allowingEnd: false)
            change(unmanaged: { $0[position] = newValue }, nested: { $0[position] = newValue._stored }) {
                realm, table, key, field, write throws(RealmError) in
                try realm.listSet(table, key, field, newValue._stored, at: position, in: write)
            }
        }
    }

    /// Iterates over the elements as they are when iteration starts (one scan when managed), as
    /// RealmSwift does: appending, inserting, moving or removing elements, or deleting objects,
    /// inside the loop visits each of those elements exactly once, in their order at the start.
    /// A deleted object is still visited, invalidated (`isInvalidated`). `count` and subscripts
    /// stay live.
    public func makeIterator() -> IndexingIterator<[Element]> {
        elements.makeIterator()
    }

    /// The elements, each transformed by `transform`, as iteration visits them (one scan).
    public func map<T, E: Error>(_ transform: (Element) throws(E) -> T) throws(E) -> [T] {
        try elements.map(transform)
    }

    private func checkIndex(_ index: Int, allowingEnd: Bool) {
        let count = self.count
        precondition(
            index >= 0 && (index < count || allowingEnd && index == count),
            "Index \(index) is out of bounds (the list has \(counted(count, "element")))")
    }

    /// Appends `element` (O(log n) when managed).
    public func append(_ element: Element) {
        insert(element, at: count)
    }

    /// Appends every element of `elements`.
    public func append<S: Sequence>(objectsIn elements: S) where S.Element == Element {
        for element in Array(elements) { append(element) }
    }

    /// Appends every element of `elements`.
    public func append<S: Sequence>(contentsOf elements: S) where S.Element == Element {
        append(objectsIn: elements)
    }

    /// Inserts `element` at `index` (0 through `count`; O(log n) when managed).
    public func insert(_ element: Element, at index: Int) {
        checkIndex(index, allowingEnd: true)
        change(unmanaged: { $0.insert(element, at: index) }, nested: { $0.insert(element._stored, at: index) }) {
            realm, table, key, field, write throws(RealmError) in
            try realm.listInsert(table, key, field, element._stored, at: index, in: write)
        }
    }

    /// Removes and returns the element at `index` (O(log n) when managed).
    @discardableResult
    public func remove(at index: Int) -> Element {
        checkIndex(index, allowingEnd: false)
        let removed = self[index]
        change(unmanaged: { $0.remove(at: index) }, nested: { $0.remove(at: index) }) { realm, table, key, field, write throws(RealmError) in
            try realm.listRemove(table, key, field, at: index, in: write)
        }
        return removed
    }

    /// Removes every element.
    public func removeAll() {
        change(unmanaged: { $0.removeAll() }, nested: { $0.removeAll() }) { realm, table, key, field, write throws(RealmError) in
            try realm.clearCollection(table, key, field, in: write)
        }
    }

    /// Moves the element at `from` to `to`, so that it is then at index `to` (O(log n) when
    /// managed). Both must be valid indices (a bad one traps, as in RealmSwift). The element
    /// itself moves: an embedded object stays the same object.
    public func move(from: Int, to: Int) {
        checkIndex(from, allowingEnd: false)
        checkIndex(to, allowingEnd: false)
        change(unmanaged: { $0.insert($0.remove(at: from), at: to) }, nested: { $0.insert($0.remove(at: from), at: to) }) {
            realm, table, key, field, write throws(RealmError) in
            try realm.listMove(table, key, field, from: from, to: to, in: write)
        }
    }

    /// Exchanges the elements at `i` and `j` (O(log n) when managed). Both must be valid
    /// indices (a bad one traps, as in RealmSwift). The elements themselves move: embedded
    /// objects stay the same objects.
    public func swapAt(_ i: Int, _ j: Int) {
        checkIndex(i, allowingEnd: false)
        checkIndex(j, allowingEnd: false)
        guard i != j else { return }
        change(unmanaged: { $0.swapAt(i, j) }, nested: { $0.swapAt(i, j) }) { realm, table, key, field, write throws(RealmError) in
            try realm.listSwap(table, key, field, i, j, in: write)
        }
    }

    /// Replaces the element at `index`.
    public func replace(index: Int, object: Element) {
        self[index] = object
    }

    /// Sets `key` to `value` on every object in the list, as `setValue(_:forKey:)` on each
    /// would (a bulk update). For a list of objects only; on a managed list it needs a write
    /// transaction, and an error is recorded and thrown at commit. On a managed list of a live
    /// realm the objects are not created: the value is converted once and written as
    /// `Results.setValue(_:forKey:)` writes it.
    public func setValue(_ value: Any?, forKey key: String) {
        if let binding, let linked = binding.linkedObjectKeys(), !linked.keys.isEmpty {
            linked.realm.setValue(value, forKey: key, ofObjects: .keys(linked.keys), keys: { linked.keys }, in: linked.table)
            return
        }
        for element in self {
            guard case .object(let object) = element._stored else { return }
            object.setValue(value, forKey: key)
        }
    }

    /// The realm of the list's object, or nil if unmanaged.
    public var realm: Realm? { nested?.realm ?? binding?.owner.realm }
    /// Whether the list's object was deleted (for a list inside an `AnyRealmValue`, also
    /// whether the value holding it was replaced or removed).
    public var isInvalidated: Bool { nested?.isInvalidated ?? binding?.owner.isInvalidated ?? false }
    /// Whether the list belongs to a frozen object.
    public var isFrozen: Bool { nested?.isFrozen ?? binding?.owner.isFrozen ?? false }

    func dropUnmanagedElements() { storage = [] }

    /// The elements of an unmanaged list; nil for a managed one.
    var unmanagedElements: [Element]? { binding == nil && nested == nil ? storage : nil }

    /// The list as one stored value, read whole (a managed one as stored now).
    var storedValue: _StoredValue {
        if let nested { return nested.read() ?? .list([]) }
        return .list(elements.map(\._stored))
    }

    /// Whether `other` is this list: the same managed list, another, or (both unmanaged)
    /// a list to compare by its contents.
    func sameness(as other: List) -> CollectionSameness {
        CollectionSameness((binding, nested), (other.binding, other.nested))
    }

    /// The elements as RealmSwift prints a list: `List<Dog> <0x…> (` then `[0] Dog { … }` a
    /// line, objects nested as deep as an object's description prints them.
    public var description: String { description(maxDepth: ObjectBase.descriptionMaxDepth) }

    func description(maxDepth depth: Int) -> String {
        let elements = self.elements
        return CollectionDescription.describe("List", of: elements, count: elements.count, instance: self, depth: depth)
    }

    // MARK: _PersistedValue

    public var _isEmpty: Bool { isEmpty }
    public static var _shape: _PropertyShape { Element._shape.with(collection: .list) }
    public static func _defaultValue() -> List<Element> { List() }
    public static func _get(_ object: ObjectBase, _ property: Int) -> List<Element> { List(owner: object, property: property) }
    public static func _set(_ value: List<Element>, _ object: ObjectBase, _ property: Int) {
        CollectionBinding.replaceContent(of: object, property: property, with: .elements(value.elements.map(\._stored)))
    }
    public static func _convert(_ value: Any, property: String) throws(RealmError) -> List<Element> {
        // Another list is copied, as in RealmSwift: adding this value's object must not take it.
        let list = List()
        if !StoredValueConversion.isSwiftCollection(value), let other = value as? List<Element> {
            list.storage = other.elements
        } else {
            list.storage = try CollectionBinding.elements(of: value, as: Element.self, property: property, kind: "List")
        }
        return list
    }
    public var _anyValue: Any { self }
}

/// Iterates any `Sequence` as `Any` elements (for values given to `init(value:)` and KVC).
struct AnySequenceOfAny: Sequence {
    let elements: [Any]
    init(_ sequence: any Sequence) {
        elements = Self.collect(sequence)
    }
    private static func collect<S: Sequence>(_ sequence: S) -> [Any] { sequence.map { $0 as Any } }
    func makeIterator() -> IndexingIterator<[Any]> { elements.makeIterator() }
}
