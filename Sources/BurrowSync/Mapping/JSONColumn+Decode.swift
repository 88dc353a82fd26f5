import Burrow
import BurrowStore
import Foundation

/// Reading a `jsonb` column back: the value the dynamic API takes for the property (an array
/// for a list or set, a dictionary for a map or an embedded object, an `AnyRealmValue`), with
/// links as objects. Walks nested values with a stack of its own.
extension JSONColumn {
    /// Finds or makes the object of a class with a primary key (a link's target).
    typealias LinkResolver = (_ className: String, _ primaryKey: StoreValue) throws -> DynamicObject

    /// A container being filled: a list's or set's elements, a map's entries, or an embedded
    /// object's properties.
    private final class Frame {
        enum Kind {
            case array
            case map
            case embedded
        }

        let kind: Kind
        /// Its parts still to read: the key (map key or property name), the JSON, the property
        /// whose type it has, and whether it is one element of that property.
        let parts: [(key: String, json: Any, property: StoredProperty, isElement: Bool)]
        var next = 0
        var elements: [Any] = []
        var entries: [String: Any] = [:]
        /// The key this container goes under in its parent.
        var key = ""

        init(_ kind: Kind, _ parts: [(key: String, json: Any, property: StoredProperty, isElement: Bool)]) {
            self.kind = kind
            self.parts = parts
        }

        func add(_ value: Any, key: String) {
            if kind == .array { elements.append(value) } else { entries[key] = value }
        }

        var value: Any { kind == .array ? elements : entries }
    }

    private enum Step {
        case leaf(Any)
        case container(Frame)
    }

    /// The dynamic API's value of `property` that `text`, the column's JSON, describes.
    /// Throws `RealmError` for JSON that does not describe one.
    static func value(
        ofJSON text: String, for property: StoredProperty, in schema: FileSchema, resolve: LinkResolver
    ) throws -> Any {
        let json: Any
        do {
            json = try JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)
        } catch {
            throw RealmError(.invalidArgument, "the JSON cannot be read (\(error.localizedDescription))")
        }
        var root: Any?
        var stack: [Frame] = []
        func place(_ step: Step, key: String) {
            switch step {
            case .leaf(let value):
                if let parent = stack.last { parent.add(value, key: key) } else { root = value }
            case .container(let frame):
                frame.key = key
                stack.append(frame)
            }
        }
        place(try step(json, property, isElement: false, in: schema, resolve: resolve), key: "")
        while let top = stack.last {
            if top.next < top.parts.count {
                let part = top.parts[top.next]
                top.next += 1
                place(try step(part.json, part.property, isElement: part.isElement, in: schema, resolve: resolve), key: part.key)
            } else {
                stack.removeLast()
                if let parent = stack.last { parent.add(top.value, key: top.key) } else { root = top.value }
            }
        }
        return root ?? NSNull()
    }

    /// What `json` is as a value of `property` (one element of it, if `isElement`): a leaf, or
    /// a container whose parts are read next.
    private static func step(
        _ json: Any, _ property: StoredProperty, isElement: Bool, in schema: FileSchema, resolve: LinkResolver
    ) throws -> Step {
        if !isElement && property.collection != .single {
            if json is NSNull { return .leaf(property.collection == .map ? [String: Any]() : [Any]()) }
            if property.collection == .map {
                guard let object = json as? [String: Any] else { throw mismatch(json, "a JSON object (a map)") }
                return .container(Frame(.map, object.sorted { $0.key < $1.key }.map { ($0.key, $0.value, property, true) }))
            }
            guard let array = json as? [Any] else { throw mismatch(json, "a JSON array (a list or set)") }
            return .container(Frame(.array, array.map { ("", $0, property, true) }))
        }
        if json is NSNull { return .leaf(property.type == .any ? AnyRealmValue.none : NSNull()) }
        switch property.type {
        case .object:
            guard let targetName = property.objectClassName, let target = schema.classNamed(targetName) else {
                throw mismatch(json, "a link")
            }
            if target.isEmbedded {
                guard let object = json as? [String: Any] else { throw mismatch(json, "a JSON object (an embedded \(targetName))") }
                let parts = target.properties.compactMap { stored -> (String, Any, StoredProperty, Bool)? in
                    object[stored.name].map { (stored.name, $0, stored, false) }
                }
                return .container(Frame(.embedded, parts))
            }
            guard let key = target.properties.first(where: \.isPrimary), let value = scalar(json, as: key.type) else {
                throw mismatch(json, "the primary key of a \(targetName)")
            }
            return .leaf(try resolve(targetName, value))
        case .any:
            return .leaf(try anyValue(json, in: schema, resolve: resolve))
        default:
            guard let value = scalar(json, as: property.type), let swiftValue = SyncValues.swiftValue(value) else {
                throw mismatch(json, "a \(property.type)")
            }
            return .leaf(swiftValue)
        }
    }

    /// An `AnyRealmValue` from its tagged JSON (`{"type": "int", "value": 5}`, a list
    /// `{"type": "list", "value": [...]}`, a dictionary `{"type": "dictionary", "value": {...}}`),
    /// nested lists and dictionaries read with a loop.
    private static func anyValue(_ json: Any, in schema: FileSchema, resolve: LinkResolver) throws -> AnyRealmValue {
        try NestedValues.fold(
            json,
            shape: { (node: Any) throws -> NestedValues.Shape<Any> in
                guard let object = node as? [String: Any], let type = object["type"] as? String else { return .leaf }
                switch type {
                case "list":
                    guard let elements = object["value"] as? [Any] else { throw mismatch(node, "a list of AnyRealmValues") }
                    return .list(elements)
                case "dictionary":
                    guard let entries = object["value"] as? [String: Any] else { throw mismatch(node, "a dictionary of AnyRealmValues") }
                    return .dictionary(entries.map { (key: $0.key, value: $0.value) })
                default:
                    return .leaf
                }
            },
            leaf: { (node: Any) throws -> AnyRealmValue in try scalarAnyValue(node, in: schema, resolve: resolve) },
            list: { (elements: [AnyRealmValue]) throws -> AnyRealmValue in .fromArray(elements) },
            dictionary: { (entries: [(key: String, value: AnyRealmValue)]) throws -> AnyRealmValue in
                .fromDictionary(Dictionary(entries.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 }))
            })
    }

    /// An `AnyRealmValue` that is no list or dictionary, from its tagged JSON.
    private static func scalarAnyValue(_ json: Any, in schema: FileSchema, resolve: LinkResolver) throws -> AnyRealmValue {
        guard let object = json as? [String: Any], let type = object["type"] as? String, let value = object["value"] else {
            throw mismatch(json, "an AnyRealmValue ({\"type\": …, \"value\": …})")
        }
        if type == "link" {
            guard let className = object["class"] as? String, let target = schema.classNamed(className),
                let key = target.properties.first(where: \.isPrimary), let primaryKey = scalar(value, as: key.type)
            else { throw mismatch(json, "a link to an object with a primary key") }
            return .object(try resolve(className, primaryKey))
        }
        // The type names are `PropertyType`'s own (`JSONColumn.tagged` writes them).
        guard let propertyType = PropertyType(rawValue: type), let stored = scalar(value, as: propertyType) else {
            throw mismatch(json, "an AnyRealmValue")
        }
        return AnyRealmValue._fromStored(stored._mapLink { _ -> ObjectBase? in nil })
    }

    /// A value of `type` from its JSON form; nil if `json` is not one.
    static func scalar(_ json: Any, as type: PropertyType) -> StoreValue? {
        switch type {
        case .bool:
            guard let number = json as? NSNumber, isBoolean(number) else { return nil }
            return .bool(number.boolValue)
        case .int:
            guard let number = json as? NSNumber, !isBoolean(number) else { return nil }
            if String(cString: number.objCType) != "d" { return .int(number.int64Value) }
            return Int64(exactly: number.doubleValue).map { .int($0) }
        case .float, .double:
            let value: Double
            switch json {
            case let text as String:
                switch text {
                case "NaN": value = .nan
                case "Infinity": value = .infinity
                case "-Infinity": value = -.infinity
                default: return nil
                }
            case let number as NSNumber where !isBoolean(number): value = number.doubleValue
            default: return nil
            }
            return type == .float ? .float(Float(value)) : .double(value)
        case .string: return (json as? String).map { .string($0) }
        case .data: return (json as? String).flatMap { Data(base64Encoded: $0) }.map { .data($0) }
        case .date:
            guard let number = json as? NSNumber, !isBoolean(number) else { return nil }
            return .date(Date(timeIntervalSince1970: number.doubleValue))
        case .objectId: return (json as? String).flatMap { try? ObjectId(string: $0) }.map { .objectId($0) }
        case .uuid: return (json as? String).flatMap { UUID(uuidString: $0) }.map { .uuid($0) }
        case .decimal128:
            let text = (json as? String) ?? (json as? NSNumber).map { "\($0)" }
            return text.flatMap { try? Decimal128(string: $0) }.map { .decimal128($0) }
        case .object, .any, .linkingObjects: return nil
        }
    }

    /// Whether JSON's parser made `number` from `true` or `false` (Foundation keeps them as
    /// numbers of C type `char`).
    private static func isBoolean(_ number: NSNumber) -> Bool { String(cString: number.objCType) == "c" }

    private static func mismatch(_ json: Any, _ expected: String) -> RealmError {
        RealmError(.invalidArgument, "\(String(describing: json).prefix(100)) is not \(expected)")
    }
}
