import Burrow
import BurrowStore
import Foundation

/// Writes salvaged objects (`ObjectSalvage`) as `ObjectEncoder` writes the objects of a sound
/// file, so that `export --salvage` writes the document `export` writes: the same values, links
/// by primary key or `{"$key": N}`, embedded objects inside their parents.
struct SalvageEncoder {
    let salvage: ObjectSalvage
    private let encoder: ObjectEncoder

    init(salvage: ObjectSalvage) {
        self.salvage = salvage
        encoder = ObjectEncoder(classes: salvage.classes, showsLinkingObjects: false)
    }

    /// `object`, of class `schema`, as a JSON object (its members lazily, so that a chain of
    /// embedded objects is written one level at a time).
    func node(of object: SalvagedObject, _ schema: ObjectSchema) -> ValueNode {
        var index = -1
        return .object(
            AnyIterator {
                if index == -1 {
                    index = 0
                    if !schema.isEmbedded, schema.primaryKeyProperty == nil { return ("$key", .scalar(String(object.key))) }
                }
                guard index < schema.properties.count, index < object.values.count else { return nil }
                let property = schema.properties[index]
                index += 1
                return (property.name, node(of: object.values[index - 1], property))
            })
    }

    /// One value of `property`.
    private func node(of value: SalvagedValue, _ property: Property) -> ValueNode {
        switch value {
        case .null: return .null
        case .plain(let plain): return property.type == .any ? encoder.any(plain) : encoder.plain(plain)
        case .link(let className, let key, let primaryKey):
            let hasPrimaryKey = encoder.classes[className]?.primaryKeyProperty != nil
            if property.type == .any {
                return .members([
                    ("$link", .string(className)), hasPrimaryKey ? ("primaryKey", encoder.plain(primaryKey)) : ("$key", .scalar(String(key))),
                ])
            }
            return hasPrimaryKey ? encoder.plain(primaryKey) : .key(key)
        case .embedded(let className, let key):
            guard let schema = encoder.classes[className], let object = salvage.embedded(className, key: key) else { return .null }
            return node(of: object, schema)
        case .elements(let elements):
            return .array(AnyIterator(elements.lazy.map { node(of: $0, property) }.makeIterator()))
        case .entries(let entries):
            return .object(AnyIterator(entries.lazy.map { ($0.0, node(of: $0.1, property)) }.makeIterator()))
        // An AnyRealmValue's, as `ObjectEncoder.any` writes them (the writer reaches the
        // elements one at a time, so nesting takes no stack here).
        case .list(let elements):
            return .members([("$list", .array(AnyIterator(elements.lazy.map { node(of: $0, property) }.makeIterator())))])
        case .dictionary(let entries):
            return .members([("$dictionary", .object(AnyIterator(entries.lazy.map { ($0.0, node(of: $0.1, property)) }.makeIterator())))])
        }
    }
}
