import Burrow
import BurrowStore
import Foundation

// An object's identity for links to classes without a primary key: its object key, which
// stays the same for the object's life. RealmSwift's `ObjectKeyIdentifiable` gives it.
extension DynamicObject: ObjectKeyIdentifiable {}

/// How the tool writes objects and their values, the same in `objects`, `dump` and `export`
/// (see the README's tool section):
///
/// - a value of a typed property as JSON of its type: numbers (a float or a double that is not
///   finite as the string `"NaN"`, `"Infinity"` or `"-Infinity"`), strings, `data` in base64,
///   dates in ISO 8601 (UTC, with as many fraction digits as the stored value needs to read
///   back exactly), `objectId`, `uuid` and `decimal128` as strings;
/// - a link as the primary key of the object it links to, or, when its class has none, as
///   `{"$key": N}`, the linked object's object key; an embedded object as a nested object;
/// - lists and sets as arrays, maps as objects;
/// - an `any` value as JSON where JSON tells the type (null, booleans, integers, doubles
///   written with a fraction or an exponent, strings) and tagged otherwise: `{"$float": …}`,
///   `{"$double": "NaN"}`, `{"$data": base64}`, `{"$date": iso}`, `{"$oid": …}`, `{"$uuid": …}`,
///   `{"$decimal": …}`, `{"$link": class, "primaryKey": …}` or `{"$link": class, "$key": N}`,
///   and a list or dictionary as `{"$list": [...]}` or `{"$dictionary": {...}}` of such values;
/// - an object of a class without a primary key carries its object key as member `"$key"`;
/// - where asked for, a `LinkingObjects` property the file records is a member after the
///   stored ones: an array of the linking objects, each as a link to it is written.
struct ObjectEncoder {
    /// The file's classes by name.
    let classes: [String: ObjectSchema]
    /// Whether objects carry their `LinkingObjects` properties (computed from the links, so
    /// never in an export, which `import` reads back).
    let showsLinkingObjects: Bool

    /// An encoder of objects of the classes of `schema`, with their `LinkingObjects`
    /// properties if `showsLinkingObjects`.
    init(schema: Schema, showsLinkingObjects: Bool) {
        self.init(classes: schema.objectSchema, showsLinkingObjects: showsLinkingObjects)
    }

    /// An encoder of objects of `classes` (the first of two of one name counts), with their
    /// `LinkingObjects` properties if `showsLinkingObjects`.
    init(classes: [ObjectSchema], showsLinkingObjects: Bool) {
        self.classes = Dictionary(classes.map { ($0.className, $0) }, uniquingKeysWith: { first, _ in first })
        self.showsLinkingObjects = showsLinkingObjects
    }

    /// The properties of class `schema` this encoder writes, in order: the stored ones, then
    /// the `LinkingObjects` ones if it shows them.
    func properties(of schema: ObjectSchema) -> [Property] {
        showsLinkingObjects ? schema.properties + schema.computedProperties : schema.properties
    }

    /// The members of `object` (of class `schema`): `"$key"` for a top-level object of a
    /// class without a primary key, then every property `properties(of:)` lists. Embedded
    /// objects among the values are produced when their turn comes.
    func members(of object: DynamicObject, _ schema: ObjectSchema) -> [(String, ValueNode)] {
        let properties = properties(of: schema)
        var members: [(String, ValueNode)] = []
        members.reserveCapacity(properties.count + 1)
        if !schema.isEmbedded, schema.primaryKeyProperty == nil { members.append(("$key", .scalar(String(object.id)))) }
        for property in properties {
            members.append((property.name, node(of: object[property.name], property)))
        }
        return members
    }

    /// `object` as a JSON object (its members lazily).
    func node(of object: DynamicObject, _ schema: ObjectSchema) -> ValueNode {
        .object(AnyIterator(LazyMembers(encoder: self, object: object, schema: schema)))
    }

    /// The members of an object, produced one property at a time, so that writing a chain
    /// of embedded objects holds one property's value per level.
    private struct LazyMembers: IteratorProtocol {
        let encoder: ObjectEncoder
        let object: DynamicObject
        let schema: ObjectSchema
        let properties: [Property]
        var index = -1

        init(encoder: ObjectEncoder, object: DynamicObject, schema: ObjectSchema) {
            self.encoder = encoder
            self.object = object
            self.schema = schema
            properties = encoder.properties(of: schema)
        }

        mutating func next() -> (String, ValueNode)? {
            if index == -1 {
                index = 0
                if !schema.isEmbedded, schema.primaryKeyProperty == nil { return ("$key", .scalar(String(object.id))) }
            }
            guard index < properties.count else { return nil }
            let property = properties[index]
            index += 1
            return (property.name, encoder.node(of: object[property.name], property))
        }
    }

    /// The value of `property` as read from a dynamic object.
    func node(of value: Any?, _ property: Property) -> ValueNode {
        if property.type == .linkingObjects {
            guard let objects = value as? Results<DynamicObject> else { return .elements([]) }
            return .array(AnyIterator(objects.lazy.map { link($0) }.makeIterator()))
        }
        switch property.collection {
        case .single:
            return single(value, property)
        case .list, .set:
            guard let elements = (value as? any ElementSource)?.anyElements else { return .null }
            return .array(AnyIterator(elements.lazy.map { single($0, property) }.makeIterator()))
        case .map:
            guard let entries = (value as? any EntrySource)?.anyEntries else { return .null }
            return .object(AnyIterator(entries.lazy.map { ($0.0, single($0.1, property)) }.makeIterator()))
        }
    }

    /// One value of `property`'s type (a single value, or an element of a collection).
    func single(_ value: Any?, _ property: Property) -> ValueNode {
        guard let value = unwrapOptional(value) else { return .null }
        switch property.type {
        case .any: return any(value)
        case .object, .linkingObjects:
            guard let object = dynamic(value) else { return .null }
            return link(object)
        default: return plain(value)
        }
    }

    /// A link to `object`: its primary key, its object key, or, embedded, the object itself.
    func link(_ object: DynamicObject) -> ValueNode {
        let schema = object.objectSchema
        if schema.isEmbedded { return node(of: object, schema) }
        guard let key = schema.primaryKeyProperty else {
            return .key(object.id)
        }
        return plain(unwrapOptional(object[key.name]))
    }

    /// A value of a plain (not a link, not `any`) type, as JSON of its type.
    func plain(_ value: Any?) -> ValueNode {
        guard let value = unwrapOptional(value) else { return .null }
        switch value {
        case let v as Bool: return .scalar(v ? "true" : "false")
        case let v as Int: return .scalar(String(v))
        case let v as Int64: return .scalar(String(v))
        case let v as Float: return v.isFinite ? .scalar(v.description) : .string(Self.nonFinite(Double(v)))
        case let v as Double: return v.isFinite ? .scalar(v.description) : .string(Self.nonFinite(v))
        case let v as String: return .string(v)
        case let v as Data: return .string(v.base64EncodedString())
        case let v as Date: return .string(DateText.string(v))
        case let v as ObjectId: return .string(v.stringValue)
        case let v as UUID: return .string(v.uuidString)
        case let v as Decimal128: return .string(v.description)
        default: return .string(String(describing: value))
        }
    }

    /// An `any` value, tagged where JSON alone does not tell its type.
    func any(_ value: Any) -> ValueNode {
        var value = value
        // A dynamic object reads a list or dictionary an AnyRealmValue holds as the collection.
        if let list = value as? List<AnyRealmValue> { value = AnyRealmValue.list(list) }
        if let dictionary = value as? Map<String, AnyRealmValue> { value = AnyRealmValue.dictionary(dictionary) }
        if let any = value as? AnyRealmValue {
            switch any {
            case .none: return .null
            case .int(let v): value = v
            case .bool(let v): value = v
            case .float(let v): value = v
            case .double(let v): value = v
            case .string(let v): value = v
            case .data(let v): value = v
            case .date(let v): value = v
            case .objectId(let v): value = v
            case .uuid(let v): value = v
            case .decimal128(let v): value = v
            case .object: value = any.dynamicObject as Any
            // Elements are encoded as the writer reaches them, so nesting takes no stack here.
            case .list(let list):
                return .members([("$list", .array(AnyIterator(list.lazy.map { self.any($0) }.makeIterator())))])
            case .dictionary(let map):
                return .members([("$dictionary", .object(AnyIterator(map.lazy.map { ($0.key, self.any($0.value)) }.makeIterator())))])
            }
        }
        guard let value = unwrapOptional(value) else { return .null }
        func tagged(_ tag: String, _ node: ValueNode) -> ValueNode { .members([(tag, node)]) }
        switch value {
        case is Bool, is Int, is String: return plain(value)
        case let v as Double: return v.isFinite ? .scalar(Self.decimalText(v)) : tagged("$double", .string(Self.nonFinite(v)))
        case is Float: return tagged("$float", plain(value))
        case is Data: return tagged("$data", plain(value))
        case is Date: return tagged("$date", plain(value))
        case is ObjectId: return tagged("$oid", plain(value))
        case is UUID: return tagged("$uuid", plain(value))
        case is Decimal128: return tagged("$decimal", plain(value))
        default:
            guard let object = dynamic(value) else { return .string(String(describing: value)) }
            let schema = object.objectSchema
            if schema.isEmbedded { return node(of: object, schema) }
            if let key = schema.primaryKeyProperty {
                return .members([("$link", .string(schema.className)), ("primaryKey", plain(object[key.name]))])
            }
            return .members([("$link", .string(schema.className)), ("$key", .scalar(String(object.id)))])
        }
    }

    /// A finite double as JSON text that reads back as a double: with a fraction or an
    /// exponent, never as an integer.
    static func decimalText(_ value: Double) -> String {
        let text = value.description
        return text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) ? text : text + ".0"
    }

    /// The text of a float that is not finite, as JSON has no such numbers.
    static func nonFinite(_ value: Double) -> String {
        value.isNaN ? "NaN" : value < 0 ? "-Infinity" : "Infinity"
    }

    /// `value` as a dynamic object, if it is a managed object.
    private func dynamic(_ value: Any) -> DynamicObject? {
        if let object = value as? DynamicObject { return object }
        if let object = value as? Object { return AnyRealmValue.object(object).dynamicObject }
        return nil
    }
}

/// `value` without the optionals around it, or nil for an optional holding nothing (values
/// read through `Any` arrive as optionals boxed in `Any`).
func unwrapOptional(_ value: Any?) -> Any? {
    guard var value else { return nil }
    while let optional = value as? any OptionalBox {
        guard let wrapped = optional.wrappedValue else { return nil }
        value = wrapped
    }
    if type(of: value) is NSNull.Type { return nil }
    return value
}

/// An optional, seen through `Any`.
protocol OptionalBox {
    var wrappedValue: Any? { get }
}

extension Optional: OptionalBox {
    var wrappedValue: Any? { map { $0 as Any } }
}

/// A list or a set of any element type, read as `Any` elements.
protocol ElementSource {
    var anyElements: [Any] { get }
}

extension List: ElementSource {
    var anyElements: [Any] { map { $0 as Any } }
}

extension MutableSet: ElementSource {
    var anyElements: [Any] { map { $0 as Any } }
}

/// A map of any value type, read as `Any` values.
protocol EntrySource {
    var anyEntries: [(String, Any)] { get }
}

extension Map: EntrySource where Key == String {
    var anyEntries: [(String, Any)] { map { ($0.key, $0.value as Any) } }
}
