import Burrow
import BurrowStorage
import BurrowStore

/// `burrow schema FILE [--format text|json]`: the classes a file stores, read from the file
/// alone: each property's type, optionality, collection, primary key, index and the class a
/// link goes to, which classes are embedded, and the schema version.
@MainActor
enum SchemaCommand {
    /// Prints the schema of the file `arguments` names. Throws `ToolError` (status 1) or
    /// `UsageError` (status 2).
    static func run(_ arguments: CommandArguments) throws {
        let format = try arguments.choice("format", of: ["text", "json"], default: "text")
        let path = arguments.operands[0]
        let realm = try DatabaseFile.openForReading(path)
        let schema = realm.schema
        let output = TextOutput.standardOutput()
        if format == "json" {
            try output.line("{")
            try output.line("  \"schemaVersion\": \(realm.configuration.schemaVersion),")
            try output.line("  \"classes\": [")
            for (index, objectSchema) in schema.objectSchema.enumerated() {
                let separator = index == schema.objectSchema.count - 1 ? "" : ","
                try output.line("    " + JSONWriter.text(of: SchemaJSON.node(objectSchema)) + separator)
            }
            try output.line("  ]")
            try output.line("}")
        } else {
            try output.line("schema version \(realm.configuration.schemaVersion)")
            if schema.objectSchema.isEmpty { try output.line("(no classes)") }
            for objectSchema in schema.objectSchema {
                try output.line()
                try output.write(
                    lines(objectSchema, in: schema, count: objectSchema.isEmbedded ? nil : realm.dynamicObjects(objectSchema.className).count))
            }
        }
        try output.close()
    }

    /// One class as text: a heading, then a line per property.
    static func lines(_ objectSchema: ObjectSchema, in schema: Schema, count: Int?) -> String {
        var text = objectSchema.isEmbedded ? "embedded class \(objectSchema.className)" : "class \(objectSchema.className)"
        if let count { text += " (\(counted(count, "object")))" }
        text += "\n"
        let rows =
            objectSchema.properties.map { property in
                (property.name, typeText(property), notes(property, in: schema))
            }
            + objectSchema.computedProperties.map { property in
                (property.name, typeText(property), "computed from \(property.objectClassName ?? "?").\(property.linkOriginPropertyName ?? "?")")
            }
        let nameWidth = rows.map(\.0.count).max() ?? 0
        let typeWidth = rows.map(\.1.count).max() ?? 0
        for (name, type, notes) in rows {
            var line = "  " + name.padded(nameWidth) + "  " + (notes.isEmpty ? type : type.padded(typeWidth) + "  " + notes)
            while line.last == " " { line.removeLast() }
            text += line + "\n"
        }
        return text
    }

    /// A property's type as a Swift declaration would name it: `int`, `string?`,
    /// `List<Dog>`, `Map<String, double?>`, `Person?`, `LinkingObjects<Person>`.
    static func typeText(_ property: Property) -> String {
        if property.type == .linkingObjects { return "LinkingObjects<\(property.objectClassName ?? "?")>" }
        let element =
            (property.type == .object ? property.objectClassName ?? "?" : property.type.rawValue)
            + (property.isOptional && property.type != .any ? "?" : "")
        switch property.collection {
        case .single: return element
        case .list: return "List<\(element)>"
        case .set: return "MutableSet<\(element)>"
        case .map: return "Map<String, \(element)>"
        }
    }

    /// What else is true of a property: its primary key, its index, where its links go.
    static func notes(_ property: Property, in schema: Schema) -> String {
        var notes: [String] = []
        if property.isPrimary { notes.append("primary key") } else if property.isIndexed { notes.append("indexed") }
        if property.type == .object, let target = property.objectClassName {
            let plural = property.collection != .single
            if schema[target]?.isEmbedded == true {
                notes.append(plural ? "embedded objects" : "embedded object")
            } else {
                notes.append(plural ? "links to \(target)" : "link to \(target)")
            }
        }
        return notes.joined(separator: ", ")
    }
}

extension String {
    /// This text followed by spaces up to `width` characters.
    func padded(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
