import BurrowStorage
import BurrowStore

/// An unordered collection of unique values or objects, as a `@Persisted` property:
///
///     @Persisted var citiesVisited: MutableSet<String>
///
/// Managed, each element is an entry of a tree of its own, so `insert`, `remove` and `contains`
/// cost O(log n) and `count` reads one field. Changes need a write transaction (outside one
/// they trap, as in RealmSwift). Iteration follows the elements' stored order (by value).
public final class MutableSet<Element: _Persistable>: RandomAccessCollection, _CollectionValue, CustomStringConvertible, HeldCollection {
    private var storage: [Element] = []
    /// Set while the set is managed. Unchecked for exclusivity, so that reading pays no access
    /// tracking: see `HeldCollection` for when it changes.
    @exclusivity(unchecked) var binding: CollectionBinding?

    /// A new, empty, unmanaged set.
    public init() { binding = nil }

    init(owner: ObjectBase, property: Int) {
        binding = CollectionBinding(owner: owner, property: property)
    }

    var elements: [Element] {
        guard let binding, let field = binding.field else { return storage }
        guard case .elements(let values) = binding.context.readContent(binding.state.table, binding.state.key, field) else { return [] }
        return values.map(Element._fromStored)
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
    /// The element at `position`, in the set's stored order (O(log n) when managed, as a list's
    /// is: not a scan of the set). Traps out of bounds.
    public subscript(position: Int) -> Element {
        guard let binding, let field = binding.field else { return storage[position] }
        guard let value = binding.context.listElement(binding.state.table, binding.state.key, field, at: position) else {
            preconditionFailure("Index \(position) is out of bounds (the set has \(counted(count, "element")))")
        }
        return Element._fromStored(value)
    }

    /// Iterates over the elements as they are when iteration starts (one scan when managed):
    /// inserting or removing elements, or deleting objects, inside the loop visits each of
    /// those elements exactly once. A deleted object is still visited, invalidated.
    public func makeIterator() -> IndexingIterator<[Element]> {
        elements.makeIterator()
    }

    /// The elements, each transformed by `transform`, as iteration visits them (one scan).
    public func map<T, E: Error>(_ transform: (Element) throws(E) -> T) throws(E) -> [T] {
        try elements.map(transform)
    }

    /// The number of elements (one field read when managed).
    public var count: Int {
        guard let binding, let field = binding.field else { return storage.count }
        return binding.context.collectionCount(binding.state.table, binding.state.key, field)
    }

    public var isEmpty: Bool { count == 0 }

    /// Whether the set contains `element` (one lookup when managed).
    public func contains(_ element: Element) -> Bool {
        guard let binding, let field = binding.field else {
            return storage.contains { StoredIdentity.same($0._stored, element._stored) }
        }
        guard case .object(let object) = element._stored, object._state == nil else {
            return binding.context.setContains(binding.state.table, binding.state.key, field, element._stored)
        }
        return false  // an unmanaged object is in no managed set
    }

    /// Inserts `element` if the set does not contain it yet.
    public func insert(_ element: Element) {
        guard let binding else {
            if !contains(element) { storage.append(element) }
            return
        }
        _ = binding.write { realm, table, key, field, write throws(RealmError) in
            try realm.setInsert(table, key, field, element._stored, in: write)
        }
    }

    /// Inserts every element of `elements`.
    public func insert<S: Sequence>(objectsIn elements: S) where S.Element == Element {
        for element in Array(elements) { insert(element) }
    }

    /// Removes `element` if the set contains it.
    public func remove(_ element: Element) {
        guard let binding else {
            storage.removeAll { StoredIdentity.same($0._stored, element._stored) }
            return
        }
        _ = binding.write { realm, table, key, field, write throws(RealmError) in
            try realm.setRemove(table, key, field, element._stored, in: write)
        }
    }

    /// Removes every element.
    public func removeAll() {
        guard let binding else {
            storage.removeAll()
            return
        }
        _ = binding.write { realm, table, key, field, write throws(RealmError) in
            try realm.clearCollection(table, key, field, in: write)
        }
    }

    /// Inserts every element of `other`.
    public func formUnion<S: Sequence>(_ other: S) where S.Element == Element {
        insert(objectsIn: other)
    }

    /// Removes every element that `other` does not contain.
    public func formIntersection<S: Sequence>(_ other: S) where S.Element == Element {
        let keep = Array(other)
        for element in elements where !keep.contains(where: { StoredIdentity.same($0._stored, element._stored) }) {
            remove(element)
        }
    }

    /// Removes every element of `other`.
    public func subtract<S: Sequence>(_ other: S) where S.Element == Element {
        for element in Array(other) { remove(element) }
    }

    /// Whether the set and `other` have an element in common.
    public func intersects<S: Sequence>(_ other: S) -> Bool where S.Element == Element {
        other.contains { contains($0) }
    }

    /// Whether every element of this set is in `other`.
    public func isSubset<S: Sequence>(of other: S) -> Bool where S.Element == Element {
        let superset = Array(other)
        return elements.allSatisfy { element in superset.contains { StoredIdentity.same($0._stored, element._stored) } }
    }

    /// The realm of the set's object, or nil if unmanaged.
    public var realm: Realm? { binding?.owner.realm }
    /// Whether the set's object was deleted.
    public var isInvalidated: Bool { binding?.owner.isInvalidated ?? false }
    /// Whether the set belongs to a frozen object.
    public var isFrozen: Bool { binding?.owner.isFrozen ?? false }

    func dropUnmanagedElements() { storage = [] }

    /// The elements as RealmSwift prints a set: `MutableSet<int> <0x…> (` then `[0] 5` a line.
    public var description: String { description(maxDepth: ObjectBase.descriptionMaxDepth) }

    func description(maxDepth depth: Int) -> String {
        let elements = self.elements
        return CollectionDescription.describe("MutableSet", of: elements, count: elements.count, instance: self, depth: depth)
    }

    // MARK: _PersistedValue

    public var _isEmpty: Bool { isEmpty }
    public static var _shape: _PropertyShape { Element._shape.with(collection: .set) }
    public static func _defaultValue() -> MutableSet<Element> { MutableSet() }
    public static func _get(_ object: ObjectBase, _ property: Int) -> MutableSet<Element> { MutableSet(owner: object, property: property) }
    public static func _set(_ value: MutableSet<Element>, _ object: ObjectBase, _ property: Int) {
        CollectionBinding.replaceContent(of: object, property: property, with: .elements(value.elements.map(\._stored)))
    }
    public static func _convert(_ value: Any, property: String) throws(RealmError) -> MutableSet<Element> {
        // Another set is copied, as in RealmSwift: adding this value's object must not take it.
        let set = MutableSet()
        if !StoredValueConversion.isSwiftCollection(value), let other = value as? MutableSet<Element> {
            set.storage = other.elements
            return set
        }
        for element in try CollectionBinding.elements(of: value, as: Element.self, property: property, kind: "MutableSet") { set.insert(element) }
        return set
    }
    public var _anyValue: Any { self }
}
