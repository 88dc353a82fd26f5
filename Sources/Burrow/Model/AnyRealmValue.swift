import BurrowStorage
import BurrowStore
import Foundation

/// A property that holds a value of any stored type, or nothing, tagged with its type:
///
///     @Persisted var companion: AnyRealmValue
///     dog.companion = .string("Rex")
///     dog.companion = .object(otherDog)
///
/// It may also hold a list or a dictionary of `AnyRealmValue`s, which may nest in each other
/// up to 100 levels deep, as in RealmSwift:
///
///     dog.companion = .fromArray([.string("ball"), .fromDictionary(["color": .string("red")])])
///     dog.companion.listValue?[1].dictionaryValue?["color"]   // .string("red")
///
/// Read from a managed object, such a list or dictionary is live: it reads the property as it
/// is now, and changing it (in a write transaction) writes the property. The property keeps the
/// whole value together, so a read or change of a nested collection costs time in proportion
/// to the whole value: for large collections, use a `List` or `Map` property.
public enum AnyRealmValue: Hashable, _Persistable, CustomStringConvertible {
    case none
    case int(Int)
    case bool(Bool)
    case float(Float)
    case double(Double)
    case string(String)
    case data(Data)
    case date(Date)
    case objectId(ObjectId)
    case uuid(UUID)
    case decimal128(Decimal128)
    case object(Object)
    /// A dictionary of `AnyRealmValue`s under string keys.
    case dictionary(Map<String, AnyRealmValue>)
    /// A list of `AnyRealmValue`s.
    case list(List<AnyRealmValue>)

    /// `.none`, as RealmSwift's `AnyRealmValue()`.
    public init() { self = .none }

    /// A value holding a new unmanaged `Map` with the entries of `dictionary`.
    public static func fromDictionary(_ dictionary: [String: AnyRealmValue]) -> AnyRealmValue {
        let map = Map<String, AnyRealmValue>()
        for (key, value) in dictionary { map[key] = value }
        return .dictionary(map)
    }

    /// A value holding a new unmanaged `List` with the elements of `array`.
    public static func fromArray(_ array: [AnyRealmValue]) -> AnyRealmValue {
        let list = List<AnyRealmValue>()
        list.append(objectsIn: array)
        return .list(list)
    }

    /// The value wrapped as the case for its type, or nil for a type `AnyRealmValue` cannot hold.
    init?(inferring value: Any) {
        switch value {
        case let v as AnyRealmValue: self = v
        case let v as Int: self = .int(v)
        case let v as Bool: self = .bool(v)
        case let v as Float: self = .float(v)
        case let v as Double: self = .double(v)
        case let v as String: self = .string(v)
        case let v as Data: self = .data(v)
        case let v as Date: self = .date(v)
        case let v as ObjectId: self = .objectId(v)
        case let v as UUID: self = .uuid(v)
        case let v as Decimal128: self = .decimal128(v)
        case let v as Object: self = .object(v)
        case let v as List<AnyRealmValue>: self = .list(v)
        case let v as Map<String, AnyRealmValue>: self = .dictionary(v)
        default: return nil
        }
    }

    /// Whether `a` equals `b`. Lists and dictionaries of managed objects are equal when they are
    /// the same collection (of the same object and property, at the same place); unmanaged ones
    /// when their contents are equal, as in RealmSwift.
    public static func == (a: AnyRealmValue, b: AnyRealmValue) -> Bool {
        // Pairs still to compare: nested contents are compared with a loop, not recursion.
        var pending = [(a, b)]
        var compared = 0
        while let (x, y) = pending.popLast() {
            compared += 1
            switch (x, y) {
            case (.none, .none): continue
            case (.int(let x), .int(let y)): if x != y { return false }
            case (.bool(let x), .bool(let y)): if x != y { return false }
            case (.float(let x), .float(let y)): if x != y { return false }
            case (.double(let x), .double(let y)): if x != y { return false }
            case (.string(let x), .string(let y)): if x != y { return false }
            case (.data(let x), .data(let y)): if x != y { return false }
            case (.date(let x), .date(let y)): if x != y { return false }
            case (.objectId(let x), .objectId(let y)): if x != y { return false }
            case (.uuid(let x), .uuid(let y)): if x != y { return false }
            case (.decimal128(let x), .decimal128(let y)): if x != y { return false }
            case (.object(let x), .object(let y)):
                guard x === y || (x._state != nil && x._state?.key == y._state?.key && x._state?.table === y._state?.table) else { return false }
            case (.list(let x), .list(let y)):
                if x === y { continue }
                switch x.sameness(as: y) {
                case .same: continue
                case .different: return false
                case .compareContents:
                    // A list that holds itself has no end to compare: it is only equal to itself.
                    guard let xs = x.unmanagedElements, let ys = y.unmanagedElements, xs.count == ys.count, compared <= Self.comparisonLimit
                    else { return false }
                    pending.append(contentsOf: zip(xs, ys))
                }
            case (.dictionary(let x), .dictionary(let y)):
                if x === y { continue }
                switch x.sameness(as: y) {
                case .same: continue
                case .different: return false
                case .compareContents:
                    guard let xs = x.unmanagedEntries, let ys = y.unmanagedEntries, xs.count == ys.count, compared <= Self.comparisonLimit
                    else { return false }
                    for (key, value) in xs {
                        guard let other = ys[key] else { return false }
                        pending.append((value, other))
                    }
                }
            default: return false
            }
        }
        return true
    }

    /// How many values `==` compares at most: past it, unmanaged collections that hold
    /// themselves are taken as different.
    private static let comparisonLimit = 10_000_000

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .none: hasher.combine(0)
        case .int(let v): hasher.combine(v)
        case .bool(let v): hasher.combine(v)
        case .float(let v): hasher.combine(v)
        case .double(let v): hasher.combine(v)
        case .string(let v): hasher.combine(v)
        case .data(let v): hasher.combine(v)
        case .date(let v): hasher.combine(v)
        case .objectId(let v): hasher.combine(v)
        case .uuid(let v): hasher.combine(v)
        case .decimal128(let v): hasher.combine(v)
        case .object(let v): hasher.combine(v._state?.key.rawValue ?? UInt64(UInt(bitPattern: ObjectIdentifier(v).hashValue)))
        // By kind alone, as RealmSwift hashes them: equal collections hash alike.
        case .dictionary: hasher.combine(12)
        case .list: hasher.combine(13)
        }
    }

    /// The int, if this is `.int`.
    public var intValue: Int? { if case .int(let v) = self { v } else { nil } }
    /// The Bool, if this is `.bool`.
    public var boolValue: Bool? { if case .bool(let v) = self { v } else { nil } }
    /// The float, if this is `.float`.
    public var floatValue: Float? { if case .float(let v) = self { v } else { nil } }
    /// The double, if this is `.double`.
    public var doubleValue: Double? { if case .double(let v) = self { v } else { nil } }
    /// The string, if this is `.string`.
    public var stringValue: String? { if case .string(let v) = self { v } else { nil } }
    /// The data, if this is `.data`.
    public var dataValue: Data? { if case .data(let v) = self { v } else { nil } }
    /// The date, if this is `.date`.
    public var dateValue: Date? { if case .date(let v) = self { v } else { nil } }
    /// The ObjectId, if this is `.objectId`.
    public var objectIdValue: ObjectId? { if case .objectId(let v) = self { v } else { nil } }
    /// The UUID, if this is `.uuid`.
    public var uuidValue: UUID? { if case .uuid(let v) = self { v } else { nil } }
    /// The Decimal128, if this is `.decimal128`.
    public var decimal128Value: Decimal128? { if case .decimal128(let v) = self { v } else { nil } }
    /// The object, if this is `.object`.
    public var objectValue: Object? { if case .object(let v) = self { v } else { nil } }
    /// The object as `T`, if this is `.object` of that class.
    public func object<T: Object>(_ type: T.Type) -> T? { objectValue as? T }
    /// The map, if this is `.dictionary`.
    public var dictionaryValue: Map<String, AnyRealmValue>? { if case .dictionary(let v) = self { v } else { nil } }
    /// The list, if this is `.list`.
    public var listValue: List<AnyRealmValue>? { if case .list(let v) = self { v } else { nil } }

    public var description: String {
        switch self {
        case .none: "none"
        case .int(let v): "int(\(v))"
        case .bool(let v): "bool(\(v))"
        case .float(let v): "float(\(v))"
        case .double(let v): "double(\(v))"
        case .string(let v): "string(\(v))"
        case .data(let v): "data(\(counted(v.count, "byte")))"
        case .date(let v): "date(\(v))"
        case .objectId(let v): "objectId(\(v))"
        case .uuid(let v): "uuid(\(v))"
        case .decimal128(let v): "decimal128(\(v))"
        case .object(let v): "object(\(type(of: v)))"
        case .list, .dictionary: "\(_stored)"
        }
    }

    public static var _shape: _PropertyShape { _PropertyShape(.any, optional: true) }
    public static func _defaultValue() -> AnyRealmValue { .none }

    /// Reads property `property` of the managed `object`: a list or dictionary it holds is
    /// read live, through the property.
    public static func _get(_ object: ObjectBase, _ property: Int) -> AnyRealmValue {
        view(of: object._readField(property), at: NestedCollectionBinding(owner: object, property: property, root: .field))
    }

    /// `value`, read at `place`: a list or dictionary as the live collection there, any other
    /// value as it is.
    static func view(of value: _StoredValue, at place: NestedCollectionBinding) -> AnyRealmValue {
        switch value {
        case .list: .list(List(nested: place))
        case .dictionary: .dictionary(Map(nested: place))
        default: _fromStored(value)
        }
    }

    /// The value of `value`, with a list or dictionary as new unmanaged collections.
    public static func _fromStored(_ value: _StoredValue) -> AnyRealmValue {
        guard value.isNestedCollection else { return scalar(value) }
        return NestedValues.fold(
            value, shape: \.nestedShape, leaf: scalar,
            list: { elements in
                let list = List<AnyRealmValue>()
                list.append(objectsIn: elements)
                return .list(list)
            },
            dictionary: { entries in
                let map = Map<String, AnyRealmValue>()
                for (key, value) in entries { map[key] = value }
                return .dictionary(map)
            })
    }

    private static func scalar(_ value: _StoredValue) -> AnyRealmValue {
        switch value {
        case .null, .list, .dictionary: .none
        case .bool(let v): .bool(v)
        case .int(let v): .int(Int(v))
        case .float(let v): .float(v)
        case .double(let v): .double(v)
        case .string(let v): .string(v)
        case .data(let v): .data(v)
        case .date(let v): .date(v)
        case .objectId(let v): .objectId(v)
        case .uuid(let v): .uuid(v)
        case .decimal128(let v): .decimal128(v)
        case .object(let v): (v as? Object).map { .object($0) } ?? .none
        }
    }

    /// The stored form. A list or dictionary is read whole (a managed one as stored now); one
    /// nested deeper than `NestedValues.maximumDepth` (or holding itself) gives a value just
    /// past that depth, which a realm refuses to store.
    public var _stored: _StoredValue {
        switch self {
        case .none: .null
        case .int(let v): .int(Int64(v))
        case .bool(let v): .bool(v)
        case .float(let v): .float(v)
        case .double(let v): .double(v)
        case .string(let v): .string(v)
        case .data(let v): .data(v)
        case .date(let v): .date(v)
        case .objectId(let v): .objectId(v)
        case .uuid(let v): .uuid(v)
        case .decimal128(let v): .decimal128(v)
        case .object(let v): .object(v)
        case .list, .dictionary: nestedStored
        }
    }

    /// `_stored` of a list or dictionary, built with a loop.
    private var nestedStored: _StoredValue {
        do {
            return try NestedValues.fold(
                NestedNode(value: self, depth: 0), shape: { (node: NestedNode) throws(NestedNode.TooDeep) in try node.shape() },
                leaf: { (node: NestedNode) throws(NestedNode.TooDeep) -> _StoredValue in node.leafStored },
                list: { (elements: [_StoredValue]) throws(NestedNode.TooDeep) -> _StoredValue in .list(elements) },
                dictionary: { (entries: [(key: String, value: _StoredValue)]) throws(NestedNode.TooDeep) -> _StoredValue in
                    .dictionary(Dictionary(entries.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 }))
                })
        } catch {
            // Too deep, or a list that holds itself: `_stored` cannot throw, so it gives empty
            // lists one level deeper than a value may nest, which every store of a value
            // refuses (`Realm.checkNested`) with the message that says why.
            var value = _StoredValue.list([])
            for _ in 0..<NestedValues.maximumDepth { value = .list([value]) }
            return value
        }
    }
}

/// A value inside an `AnyRealmValue` with how deep it is, as `_stored` walks it.
private struct NestedNode {
    struct TooDeep: Error {}

    let value: AnyRealmValue
    let depth: Int

    /// The unmanaged collection's children; a managed collection is read whole, as a leaf.
    func shape() throws(TooDeep) -> NestedValues.Shape<NestedNode> {
        switch value {
        case .list(let list):
            guard let elements = list.unmanagedElements else { return .leaf }
            guard depth < NestedValues.maximumDepth else { throw TooDeep() }
            return .list(elements.map { NestedNode(value: $0, depth: depth + 1) })
        case .dictionary(let map):
            guard let entries = map.unmanagedEntries else { return .leaf }
            guard depth < NestedValues.maximumDepth else { throw TooDeep() }
            return .dictionary(
                entries.sorted { NestedValues.keyPrecedes($0.key, $1.key) }.map {
                    (key: $0.key, value: NestedNode(value: $0.value, depth: depth + 1))
                })
        default:
            return .leaf
        }
    }

    /// The stored form of a leaf: a managed collection's stored value as it is now.
    var leafStored: _StoredValue {
        switch value {
        case .list(let list): list.storedValue
        case .dictionary(let map): map.storedValue
        default: value._stored
        }
    }
}
