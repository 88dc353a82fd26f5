import Burrow

/// `burrow export FILE [--format json] [--output PATH]`: every object of the file, with the
/// schema, as one JSON document that `burrow import` reads back:
///
///     {
///       "burrowExport": 1,
///       "schemaVersion": 0,
///       "classes": [ {class schema}, … ],
///       "objects": {
///         "Dog": [
///           {object}, …
///         ], …
///       }
///     }
///
/// Classes are in name order, objects in the order the file keeps them, one per line.
/// Embedded objects are inside their parents; values are as `ObjectEncoder` writes them.
@MainActor
enum ExportCommand {
    /// The version of the export document's layout, in its `burrowExport` member.
    static let formatVersion = 1

    /// Writes the export of the file `arguments` names. Throws `ToolError` (status 1) or
    /// `UsageError` (status 2).
    static func run(_ arguments: CommandArguments) throws {
        _ = try arguments.choice("format", of: ["json"], default: "json")
        let path = arguments.operands[0]
        let realm = try DatabaseFile.openForReading(path)
        let output = try arguments.values["output"].map(TextOutput.file) ?? TextOutput.standardOutput()
        let schema = realm.schema
        let encoder = ObjectEncoder(schema: schema, showsLinkingObjects: false)
        var progress = ProgressLine()
        try output.line("{")
        try output.line("  \"burrowExport\": \(formatVersion),")
        try output.line("  \"schemaVersion\": \(realm.configuration.schemaVersion),")
        try output.line("  \"classes\": [")
        for (index, objectSchema) in schema.objectSchema.enumerated() {
            try output.line("    " + JSONWriter.text(of: SchemaJSON.node(objectSchema)) + (index == schema.objectSchema.count - 1 ? "" : ","))
        }
        try output.line("  ],")
        try output.line("  \"objects\": {")
        let topLevel = schema.objectSchema.filter { !$0.isEmbedded }
        var exported = 0
        for (classIndex, objectSchema) in topLevel.enumerated() {
            let objects = realm.dynamicObjects(objectSchema.className)
            let count = objects.count
            try output.write("    " + JSONValue.quoted(objectSchema.className) + ": [")
            for (index, object) in objects.enumerated() {
                progress.update("exporting \(objectSchema.className): \(index) of \(count) objects")
                try output.write((index == 0 ? "\n      " : ",\n      ") + JSONWriter.text(of: encoder.node(of: object, objectSchema)))
            }
            exported += count
            try output.line((count == 0 ? "]" : "\n    ]") + (classIndex == topLevel.count - 1 ? "" : ","))
        }
        try output.line("  }")
        try output.line("}")
        progress.finish()
        try output.close()
        if let file = arguments.values["output"] {
            print("Exported \(exported) objects of \(topLevel.count) classes to \(file).")
        }
    }
}
