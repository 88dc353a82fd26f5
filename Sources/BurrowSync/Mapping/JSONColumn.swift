import Burrow
import BurrowStore
import Foundation

/// The `jsonb` form of the properties that are not one plain value: lists and sets (arrays),
/// maps (objects), embedded objects (objects of their properties, at any depth) and
/// `AnyRealmValue`.
///
/// An element is written as JSON has it where it can be: a boolean, a number (integers
/// exactly; `NaN` and infinities as the strings `"NaN"`, `"Infinity"`, `"-Infinity"`), a
/// string. The other types are strings too: `Data` in base64, `ObjectId` as 24 hexadecimal
/// digits, `UUID` in its usual form, `Decimal128` as its digits; a `Date` is a number of
/// seconds since 1970. A link is the target's primary key. An `AnyRealmValue` says its type:
/// `{"type": "int", "value": 5}`, a link `{"type": "link", "class": "Person", "value": 7}`, a
/// list `{"type": "list", "value": [...]}` and a dictionary `{"type": "dictionary", "value":
/// {...}}` of such values.
///
/// Writing walks embedded objects with a stack of its own, so a chain of any depth takes the
/// same machine stack.
enum JSONColumn {
    /// What is left to write.
    private enum Step {
        /// Literal JSON text.
        case text(String)
        /// The JSON of field `field` of object `key` of `table`.
        case field(Table, ObjectKey, Int)
        /// The JSON of one value of `property`'s type (an element, a map value, a single value).
        case value(StoreValue, StoredProperty)
        /// An embedded object: its properties as a JSON object.
        case embedded(Table, ObjectKey)
    }

    /// The JSON text of field `field` of object `key` of `table`, read through `session`.
    static func text(of table: Table, _ key: ObjectKey, field: Int, in session: SyncSession) throws -> String {
        var output = ""
        var steps: [Step] = [.field(table, key, field)]
        let store = session.realm.objectStore
        while let step = steps.popLast() {
            switch step {
            case .text(let text):
                output += text
            case .field(let table, let key, let field):
                let property = table.stored.properties[field]
                let target = store.linkTarget(table, field)
                guard let tree = table.collectionTrees[field] else {
                    steps.append(.value(try session.storedValue(table, key, field), property))
                    continue
                }
                let content = try FieldContent<ObjectLink>.collection(
                    key, in: tree, of: store.reader, property, linkTarget: target, resolve: { .object(ObjectLink(table: $0, key: $1)) })
                switch content {
                case .single(let value):
                    steps.append(.value(value, property))
                case .elements(let elements):
                    steps.append(.text("]"))
                    for (index, element) in elements.enumerated().reversed() {
                        steps.append(.value(element, property))
                        if index > 0 { steps.append(.text(",")) }
                    }
                    steps.append(.text("["))
                case .entries(let entries):
                    steps.append(.text("}"))
                    for (index, entry) in entries.enumerated().reversed() {
                        steps.append(.value(entry.value, property))
                        steps.append(.text((index > 0 ? "," : "") + quoted(entry.key) + ":"))
                    }
                    steps.append(.text("{"))
                }
            case .value(.list(let elements), let property):
                steps.append(.text("]}"))
                for (index, element) in elements.enumerated().reversed() {
                    steps.append(.value(element, property))
                    if index > 0 { steps.append(.text(",")) }
                }
                steps.append(.text("{\"type\":\"list\",\"value\":["))
            case .value(.dictionary(let entries), let property):
                steps.append(.text("}}"))
                let sorted = entries.sorted { NestedValues.keyPrecedes($0.key, $1.key) }
                for (index, entry) in sorted.enumerated().reversed() {
                    steps.append(.value(entry.value, property))
                    steps.append(.text((index > 0 ? "," : "") + quoted(entry.key) + ":"))
                }
                steps.append(.text("{\"type\":\"dictionary\",\"value\":{"))
            case .value(let value, let property):
                guard case .object(let link) = value else {
                    output += property.type == .any ? tagged(value) : plain(value)
                    continue
                }
                guard let linked = store.table(id: link.table, dynamic: true) else {
                    output += "null"
                    continue
                }
                if linked.stored.isEmbedded {
                    steps.append(.embedded(linked, link.key))
                    continue
                }
                let primaryKey = try linked.primaryKeyField.map { try session.storedValue(linked, link.key, $0) } ?? .null
                output +=
                    property.type == .any
                    ? "{\"type\":\"link\",\"class\":\(quoted(linked.name)),\"value\":\(plain(primaryKey))}" : plain(primaryKey)
            case .embedded(let table, let key):
                steps.append(.text("}"))
                for field in table.stored.properties.indices.reversed() {
                    steps.append(.field(table, key, field))
                    steps.append(.text((field > 0 ? "," : "") + quoted(table.stored.properties[field].name) + ":"))
                }
                steps.append(.text("{"))
            }
        }
        return output
    }

    /// A value of a known type as JSON.
    static func plain(_ value: StoreValue) -> String {
        switch value {
        // Lists and dictionaries are written by `text(of:_:field:in:)`, element by element.
        case .null, .object, .list, .dictionary: "null"
        case .bool(let value): value ? "true" : "false"
        case .int(let value): String(value)
        case .float(let value): number(Double(value), value.description)
        case .double(let value): number(value, value.description)
        case .string(let value): quoted(value)
        case .data(let value): quoted(value.base64EncodedString())
        case .date(let value): number(value.timeIntervalSince1970, value.timeIntervalSince1970.description)
        case .objectId(let value): quoted(value.stringValue)
        case .uuid(let value): quoted(value.uuidString.lowercased())
        case .decimal128(let value): quoted(value.isNaN ? "NaN" : value.stringValue)
        }
    }

    /// An `AnyRealmValue` as JSON that says its type, by `PropertyType`'s name (links are
    /// written by the caller).
    static func tagged(_ value: StoreValue) -> String {
        guard let type = value.valueType else { return "null" }
        return "{\"type\":\"\(type.rawValue)\",\"value\":\(plain(value))}"
    }

    private static func number(_ value: Double, _ description: String) -> String {
        if value.isNaN { return "\"NaN\"" }
        if value.isInfinite { return value < 0 ? "\"-Infinity\"" : "\"Infinity\"" }
        return description
    }

    /// `string` as a JSON string.
    static func quoted(_ string: String) -> String {
        var output = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20:
                output += String(format: "\\u%04x", scalar.value)
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output + "\""
    }
}
