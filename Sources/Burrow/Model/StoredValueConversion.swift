import BurrowStorage
import BurrowStore
import Foundation

/// Turns the loosely typed values users pass to `init(value:)`, `setValue(_:forKey:)` and
/// `create(_:value:)` into stored values of a property's type, as RealmSwift accepts them:
/// any integer for an integer property (range checked), integers for floating-point and
/// `Decimal128` properties, dictionaries, arrays and objects for links.
enum StoredValueConversion {
    static func convert(_ value: Any, to shape: _PropertyShape, property: String) throws(RealmError) -> _StoredValue {
        if isNil(value) {
            guard shape.isOptional || shape.type == .any else {
                throw RealmError(.invalidArgument, "Property '\(property)' is not optional, so it cannot be set to nil.")
            }
            return .null
        }
        if shape.type == .any, isSwiftCollection(value) { return try nestedAnyValue(value, property: property) }
        if let stored = storedValue(value, as: shape.type) { return stored }
        // A `CustomPersistable` value (given for an optional or `AnyRealmValue` property, or in
        // a dictionary of values) converts as what it is stored as.
        if let custom = value as? any _CustomPersistable { return try convert(custom.persistableValue, to: shape, property: property) }
        if shape.type == .object, let objectType = shape.objectType {
            return .object(try object(value, of: objectType, property: property))
        }
        throw mismatch(value, shape, property)
    }

    /// A linked object from an object of the right class, or a new unmanaged one from a
    /// dictionary or array of its property values.
    static func object(_ value: Any, of type: ObjectBase.Type, property: String) throws(RealmError) -> ObjectBase {
        // Swift collections first: `as? ObjectBase` would bridge a dictionary or an array,
        // with all it nests, to Foundation's classes.
        if isSwiftCollection(value) { return try NestedValueWorklist.object(from: value, of: type) }
        if let object = value as? ObjectBase {
            guard object.isInstance(of: type) else {
                throw RealmError(
                    .invalidArgument, "Property '\(property)' links to \(type), but the value is \(withArticle("\(Swift.type(of: object))")).")
            }
            return object
        }
        throw RealmError(
            .invalidArgument,
            "Property '\(property)' links to \(type); give an object, a dictionary of its properties or an array of them in declaration order, not \(describe(value))."
        )
    }

    /// Whether `value` is a Swift dictionary with `String` keys or an array. Casts to a class
    /// (`as? List<…>`, `as? ObjectBase`) test this first, since on a collection they would
    /// bridge it, with all it nests, to Foundation's classes.
    static func isSwiftCollection(_ value: Any) -> Bool {
        value is [String: Any] || value is [Any]
    }

    /// The stored form of `value` when its Swift type matches `type` directly.
    private static func storedValue(_ value: Any, as type: PropertyType) -> _StoredValue? {
        switch type {
        case .bool: return (value as? Bool).map { .bool($0) }
        case .int: return integer(value).map { .int($0) }
        case .float:
            if let f = value as? Float { return .float(f) }
            if let d = value as? Double { return .float(Float(d)) }
            return integer(value).map { .float(Float($0)) }
        case .double:
            if let d = value as? Double { return .double(d) }
            if let f = value as? Float { return .double(Double(f)) }
            return integer(value).map { .double(Double($0)) }
        case .string:
            if let s = value as? String { return .string(s) }
            if let s = value as? Substring { return .string(String(s)) }
            return nil
        case .data:
            if let d = value as? Data { return .data(d) }
            if let b = value as? [UInt8] { return .data(Data(b)) }
            return nil
        case .date: return (value as? Date).map { .date($0) }
        case .objectId: return (value as? ObjectId).map { .objectId($0) }
        case .uuid: return (value as? UUID).map { .uuid($0) }
        case .decimal128:
            if let d = value as? Decimal128 { return .decimal128(d) }
            if let i = integer(value) { return .decimal128(Decimal128(i)) }
            if let d = value as? Double { return .decimal128(Decimal128(d)) }
            return nil
        case .any:
            // No case holds a collection; casting one to `Data` or `Object` would bridge it.
            if isSwiftCollection(value) { return nil }
            if let any = value as? AnyRealmValue { return any._stored }
            return AnyRealmValue(inferring: value)?._stored
        case .object, .linkingObjects:
            return nil
        }
    }

    /// The list (from an array) or dictionary (from a dictionary with `String` keys) that an
    /// `AnyRealmValue` property is given as Swift collections, at any depth up to
    /// `NestedValues.maximumDepth`; elements may be `AnyRealmValue`s or values of its types.
    /// Built with a loop.
    private static func nestedAnyValue(_ value: Any, property: String) throws(RealmError) -> _StoredValue {
        typealias Node = (value: Any, depth: Int)
        return try NestedValues.fold(
            (value, 0) as Node,
            shape: { (node: Node) throws(RealmError) -> NestedValues.Shape<Node> in
                let children: NestedValues.Shape<Any>
                if let array = node.value as? [Any] {
                    children = .list(array)
                } else if let dictionary = node.value as? [String: Any] {
                    children = .dictionary(dictionary.map { (key: $0.key, value: $0.value) })
                } else {
                    return .leaf
                }
                guard node.depth < NestedValues.maximumDepth else {
                    throw RealmError(
                        .invalidArgument,
                        "The value for property '\(property)' nests arrays and dictionaries more than \(NestedValues.maximumDepth) levels deep; an AnyRealmValue nests at most \(NestedValues.maximumDepth) levels, as in RealmSwift."
                    )
                }
                switch children {
                case .leaf: return .leaf
                case .list(let elements): return .list(elements.map { ($0, node.depth + 1) })
                case .dictionary(let entries): return .dictionary(entries.map { (key: $0.key, value: ($0.value, node.depth + 1)) })
                }
            },
            leaf: { (node: Node) throws(RealmError) -> _StoredValue in
                if isNil(node.value) { return .null }
                guard let stored = storedValue(node.value, as: .any) else {
                    throw RealmError(
                        .invalidArgument,
                        "Property '\(property)' is an AnyRealmValue, and its value holds \(describe(node.value)), which an AnyRealmValue cannot hold."
                    )
                }
                return stored
            },
            list: { (elements: [_StoredValue]) throws(RealmError) -> _StoredValue in .list(elements) },
            dictionary: { (entries: [(key: String, value: _StoredValue)]) throws(RealmError) -> _StoredValue in
                .dictionary(Dictionary(entries.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 }))
            })
    }

    /// Any integer that fits in 64 bits.
    private static func integer(_ value: Any) -> Int64? {
        switch value {
        case let i as Int: return Int64(i)
        case let i as Int64: return i
        case let i as Int32: return Int64(i)
        case let i as Int16: return Int64(i)
        case let i as Int8: return Int64(i)
        case let i as UInt8: return Int64(i)
        case let i as UInt16: return Int64(i)
        case let i as UInt32: return Int64(i)
        case let i as UInt64: return Int64(exactly: i)
        case let i as UInt: return Int64(exactly: i)
        default: return nil
        }
    }

    static func isNil(_ value: Any) -> Bool {
        if case Optional<Any>.none = value { return true }
        // The metatype, not `value is NSNull`, which would bridge a dictionary or an array.
        if type(of: value) is NSNull.Type { return true }
        return false
    }

    private static func mismatch(_ value: Any, _ shape: _PropertyShape, _ property: String) -> RealmError {
        let expected = shape.type == .object ? "\(shape.objectType.map { "\($0)" } ?? "an object")" : shape.type.description
        return RealmError(
            .invalidArgument, "Property '\(property)' holds \(expected)\(shape.isOptional ? "?" : ""), but the value given is \(describe(value)).")
    }

    /// The error for an array of `given` values for an object of `className`, which stores
    /// only `stored` properties (an array gives them in declaration order).
    static func tooManyValues(for className: String, stored: Int, given: Int) -> RealmError {
        RealmError(
            .invalidArgument, "\(className) has \(counted(stored, "stored property")), but the array gives \(counted(given, "value")).")
    }

    static func describe(_ value: Any) -> String {
        // Collections by their size: describing one walks all it nests, recursively.
        if let dictionary = value as? [String: Any] { return "\(type(of: value)) with \(counted(dictionary.count, "entry"))" }
        if let array = value as? [Any] { return "\(type(of: value)) with \(counted(array.count, "element"))" }
        let text = String(describing: value)
        return "\(type(of: value)) \(text.count > 40 ? String(text.prefix(40)) + "…" : text)"
    }

    /// Checks that an integer fits the property's Swift type (`Int8` … `Int64`).
    static func checkRange<T: FixedWidthInteger>(_ value: Int64, as type: T.Type, property: String) throws(RealmError) -> T {
        guard let narrowed = T(exactly: value) else {
            throw RealmError(.invalidArgument, "\(value) does not fit property '\(property)', which is \(T.self) (\(T.min)...\(T.max)).")
        }
        return narrowed
    }
}
