/// Shared by `List`, `MutableSet` and `Map` for schema discovery and storage.
public protocol _CollectionValue: _PersistedValue {
    var _isEmpty: Bool { get }
}

/// An ordered collection of values or objects, as a `@Persisted` property:
///
///     @Persisted var dogs: List<Dog>
///     @Persisted var scores: List<Int>
///
/// Unmanaged, a list is a plain array. Managed, it reads and writes its object's field: changes
/// need a write transaction (outside one they trap, as in RealmSwift), and appending an
/// unmanaged object adds it to the realm.
public final class List<Element: _Persistable>: RandomAccessCollection, MutableCollection, _CollectionValue, CustomStringConvertible {
    /// The elements of an unmanaged list.
    private var storage: [Element] = []
    private let binding: CollectionBinding?

    /// A new, empty, unmanaged list.
    public init() { binding = nil }

    init(owner: ObjectBase, property: Int) {
        binding = CollectionBinding(owner: owner, property: property)
    }

    /// The elements as stored now.
    private var elements: [Element] {
        guard let binding, let field = binding.field else { return storage }
        guard case .elements(let values) = binding.context.readContent(binding.state.table, binding.state.key, field) else { return [] }
        return values.map(Element._fromStored)
    }

    private func replace(_ elements: [Element]) {
        guard let binding else {
            storage = elements
            return
        }
        let stored = elements.map(\._stored)
        _ = binding.write { realm, table, key, field, write throws(RealmError) in
            try realm.setField(table, key, field, .elements(stored), in: write)
        }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { elements.count }

    public subscript(position: Int) -> Element {
        get { elements[position] }
        set {
            var all = elements
            all[position] = newValue
            replace(all)
        }
    }

    /// Appends `element`.
    public func append(_ element: Element) {
        replace(elements + [element])
    }

    /// Appends every element of `elements`.
    public func append<S: Sequence>(objectsIn elements: S) where S.Element == Element {
        replace(self.elements + Array(elements))
    }

    /// Appends every element of `elements`.
    public func append<S: Sequence>(contentsOf elements: S) where S.Element == Element {
        append(objectsIn: elements)
    }

    /// Inserts `element` at `index`.
    public func insert(_ element: Element, at index: Int) {
        var all = elements
        all.insert(element, at: index)
        replace(all)
    }

    /// Removes and returns the element at `index`.
    @discardableResult
    public func remove(at index: Int) -> Element {
        var all = elements
        let removed = all.remove(at: index)
        replace(all)
        return removed
    }

    /// Removes the last element.
    public func removeLast() {
        var all = elements
        all.removeLast()
        replace(all)
    }

    /// Removes every element.
    public func removeAll() {
        replace([])
    }

    /// Moves the element at `from` to `to`.
    public func move(from: Int, to: Int) {
        var all = elements
        let element = all.remove(at: from)
        all.insert(element, at: to)
        replace(all)
    }

    /// Exchanges the elements at `i` and `j`.
    public func swapAt(_ i: Int, _ j: Int) {
        var all = elements
        all.swapAt(i, j)
        replace(all)
    }

    /// Replaces the element at `index`.
    public func replace(index: Int, object: Element) {
        self[index] = object
    }

    /// The realm of the list's object, or nil if unmanaged.
    public var realm: Realm? { binding?.owner.realm }
    /// Whether the list's object was deleted.
    public var isInvalidated: Bool { binding?.owner.isInvalidated ?? false }
    /// Whether the list belongs to a frozen object.
    public var isFrozen: Bool { binding?.owner.isFrozen ?? false }

    public var description: String { "List<\(Element.self)>(\(elements.map { "\($0)" }.joined(separator: ", ")))" }

    // MARK: _PersistedValue

    public var _isEmpty: Bool { elements.isEmpty }
    public static var _shape: _PropertyShape { Element._shape.with(collection: .list) }
    public static func _defaultValue() -> List<Element> { List() }
    public static func _get(_ object: ObjectBase, _ property: Int) -> List<Element> { List(owner: object, property: property) }
    public static func _set(_ value: List<Element>, _ object: ObjectBase, _ property: Int) {
        List(owner: object, property: property).replace(value.elements)
    }
    public static func _convert(_ value: Any, property: String) throws(RealmError) -> List<Element> {
        if let list = value as? List<Element> { return list }
        guard let sequence = value as? any Sequence else {
            throw RealmError(.invalidArgument, "Property '\(property)' is a List; give an array or another collection, not \(StoredValueConversion.describe(value)).")
        }
        let list = List()
        for element in AnySequenceOfAny(sequence) { list.storage.append(try Element._convert(element, property: property)) }
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
