import Burrow
import BurrowStore

/// A class's schema as JSON, in `burrow schema --format json` and in exports:
///
///     {"name": "Dog", "embedded": false, "properties": [
///       {"name": "_id", "type": "objectId", "primaryKey": true, "indexed": true},
///       {"name": "owner", "type": "object", "objectClass": "Person", "optional": true},
///       {"name": "tags", "type": "string", "collection": "list"}]}
///
/// `optional`, `primaryKey` and `indexed` are written only when true, `collection` (`list`,
/// `set` or `map`) only for a collection, `objectClass` only for a link. A class with
/// `LinkingObjects` properties lists them after its properties, as computed properties:
///
///     "linkingObjects": [{"name": "owners", "objectClass": "Person", "property": "dogs"}]
enum SchemaJSON {
    /// `schema` as JSON.
    static func node(_ schema: ObjectSchema) -> ValueNode {
        var members: [(String, ValueNode)] = [
            ("name", .string(schema.className)),
            ("embedded", .scalar(schema.isEmbedded ? "true" : "false")),
            ("properties", .elements(schema.properties.map(node))),
        ]
        if !schema.computedProperties.isEmpty {
            members.append(("linkingObjects", .elements(schema.computedProperties.map(linkingObjectsNode))))
        }
        return .members(members)
    }

    /// A `LinkingObjects` property as JSON: its name, and the class and property whose links
    /// it follows back.
    static func linkingObjectsNode(_ property: Property) -> ValueNode {
        .members([
            ("name", .string(property.name)), ("objectClass", .string(property.objectClassName ?? "")),
            ("property", .string(property.linkOriginPropertyName ?? "")),
        ])
    }

    /// `property` as JSON.
    static func node(_ property: Property) -> ValueNode {
        var members: [(String, ValueNode)] = [("name", .string(property.name)), ("type", .string(property.type.rawValue))]
        if let target = property.objectClassName { members.append(("objectClass", .string(target))) }
        if property.collection != .single { members.append(("collection", .string(property.collection.rawValue))) }
        if property.isOptional { members.append(("optional", .scalar("true"))) }
        if property.isPrimary { members.append(("primaryKey", .scalar("true"))) }
        if property.isIndexed { members.append(("indexed", .scalar("true"))) }
        return .members(members)
    }

    /// The class `value` describes. Throws `ToolError` naming what is wrong.
    static func objectSchema(_ value: JSONValue) throws(ToolError) -> ObjectSchema {
        guard case .string(let name)? = value["name"] else { throw ToolError(message: "a class in \"classes\" has no \"name\"") }
        guard case .array(let properties)? = value["properties"] else { throw ToolError(message: "class \(name) has no \"properties\" array") }
        var embedded = false
        if let flag = value["embedded"] {
            guard case .bool(let isEmbedded) = flag else { throw ToolError(message: "\"embedded\" of class \(name) is not true or false") }
            embedded = isEmbedded
        }
        var described: [Property] = []
        for property in properties {
            guard case .string(let propertyName)? = property["name"] else { throw ToolError(message: "a property of class \(name) has no \"name\"") }
            let what = "property \(name).\(propertyName)"
            guard case .string(let typeName)? = property["type"], let type = PropertyType(rawValue: typeName), type != .linkingObjects else {
                throw ToolError(
                    message: "\(what) has no \"type\" of: bool, int, float, double, string, data, date, objectId, uuid, decimal128, object, any")
            }
            var collection = CollectionKind.single
            if let kind = property["collection"] {
                guard case .string(let kindName) = kind, let parsed = CollectionKind(rawValue: kindName) else {
                    throw ToolError(message: "\"collection\" of \(what) is not one of single, list, set, map")
                }
                collection = parsed
            }
            var target: String?
            if let objectClass = property["objectClass"] {
                guard case .string(let className) = objectClass else { throw ToolError(message: "\"objectClass\" of \(what) is not a class name") }
                target = className
            }
            if type == .object, target == nil { throw ToolError(message: "\(what) is a link without an \"objectClass\"") }
            func flag(_ key: String) throws(ToolError) -> Bool {
                guard let value = property[key] else { return false }
                guard case .bool(let flag) = value else { throw ToolError(message: "\"\(key)\" of \(what) is not true or false") }
                return flag
            }
            described.append(
                Property(
                    name: propertyName, type: type, isOptional: try flag("optional"), collection: collection,
                    objectClassName: target, isPrimary: try flag("primaryKey"), isIndexed: try flag("indexed")))
        }
        if let linkingObjects = value["linkingObjects"] {
            guard case .array(let entries) = linkingObjects else { throw ToolError(message: "\"linkingObjects\" of class \(name) is not an array") }
            for entry in entries {
                guard case .string(let propertyName)? = entry["name"], case .string(let origin)? = entry["objectClass"],
                    case .string(let originProperty)? = entry["property"]
                else {
                    throw ToolError(
                        message: "an entry of \"linkingObjects\" of class \(name) lacks one of \"name\", \"objectClass\" and \"property\"")
                }
                described.append(Property(linkingObjectsNamed: propertyName, originClassName: origin, originPropertyName: originProperty))
            }
        }
        return ObjectSchema(className: name, properties: described, isEmbedded: embedded)
    }
}
