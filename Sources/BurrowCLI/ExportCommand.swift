import Burrow
import BurrowStorage
import BurrowStore

/// `burrow export FILE [--format json] [--output PATH] [--salvage]`: every object of the file,
/// with the schema, as one JSON document that `burrow import` reads back:
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
/// With `--salvage`, the objects are those a damaged file still holds whole (`Salvage`).
@MainActor
enum ExportCommand {
    /// The version of the export document's layout, in its `burrowExport` member.
    static let formatVersion = 1

    /// Writes the export of the file `arguments` names. Throws `ToolError` (status 1) or
    /// `UsageError` (status 2).
    static func run(_ arguments: CommandArguments) throws {
        _ = try arguments.choice("format", of: ["json"], default: "json")
        let path = arguments.operands[0]
        if arguments.flags.contains("salvage") { return try runSalvage(path, output: arguments.values["output"]) }
        let realm = try DatabaseFile.openForReading(path)
        let output =
            try arguments.values["output"].map { file throws(ToolError) in try TextOutput.file(file, notOver: path) } ?? TextOutput.standardOutput()
        let schema = realm.schema
        let encoder = ObjectEncoder(schema: schema, showsLinkingObjects: false)
        let exported = try write(
            to: output, schemaVersion: realm.configuration.schemaVersion, classes: schema.objectSchema
        ) { objectSchema in
            let objects = realm.dynamicObjects(objectSchema.className)
            return (objects.count, AnyIterator(objects.lazy.map { encoder.node(of: $0, objectSchema) }.makeIterator()))
        }
        if let file = arguments.values["output"] {
            print("Exported \(counted(exported, "object")) of \(counted(schema.objectSchema.filter { !$0.isEmbedded }.count, "class")) to \(file).")
        }
    }

    /// `export --salvage`: the objects the damaged file at `path` still holds whole, with the
    /// report of what was lost on standard error; exits with status 1 when something was lost.
    private static func runSalvage(_ path: String, output file: String?) throws {
        let salvage = try Salvage.read(path)
        let output = try file.map { file throws(ToolError) in try TextOutput.file(file, notOver: path) } ?? TextOutput.standardOutput()
        let encoder = SalvageEncoder(salvage: salvage)
        let exported = try write(to: output, schemaVersion: salvage.schemaVersion, classes: salvage.classes) { objectSchema in
            let objects = salvage.objects(of: objectSchema.className)
            return (objects.count, AnyIterator(objects.lazy.map { encoder.node(of: $0, objectSchema) }.makeIterator()))
        }
        Salvage.printReport(salvage, of: path)
        let written = file.map { " to \($0)" } ?? ""
        if salvage.report.lostNothing {
            if file != nil { print("Exported \(counted(exported, "object"))\(written); nothing was lost.") }
        } else {
            printError(
                "burrow: \(path) is damaged: the export\(written) holds the \(counted(exported, "object")) that could be read, and what is listed above was lost."
            )
            DatabaseFile.openedDamaged = true
        }
    }

    /// Writes the export document of `classes` (in the order given) to `output`;
    /// `objects(class)` gives the count and the JSON of the objects of a top-level class.
    /// Returns how many objects were written.
    static func write(
        to output: TextOutput, schemaVersion: UInt64, classes: [ObjectSchema],
        objects: (ObjectSchema) -> (count: Int, nodes: AnyIterator<ValueNode>)
    ) throws -> Int {
        var progress = ProgressLine()
        try output.line("{")
        try output.line("  \"burrowExport\": \(formatVersion),")
        try output.line("  \"schemaVersion\": \(schemaVersion),")
        try output.line("  \"classes\": [")
        for (index, objectSchema) in classes.enumerated() {
            try output.line("    " + JSONWriter.text(of: SchemaJSON.node(objectSchema)) + (index == classes.count - 1 ? "" : ","))
        }
        try output.line("  ],")
        try output.line("  \"objects\": {")
        let topLevel = classes.filter { !$0.isEmbedded }
        var exported = 0
        for (classIndex, objectSchema) in topLevel.enumerated() {
            let (count, nodes) = objects(objectSchema)
            try output.write("    " + JSONValue.quoted(objectSchema.className) + ": [")
            for (index, node) in nodes.enumerated() {
                progress.update("exporting \(objectSchema.className): \(index) of \(counted(count, "object"))")
                try output.write((index == 0 ? "\n      " : ",\n      ") + JSONWriter.text(of: node))
            }
            exported += count
            try output.line((count == 0 ? "]" : "\n    ]") + (classIndex == topLevel.count - 1 ? "" : ","))
        }
        try output.line("  }")
        try output.line("}")
        progress.finish()
        try output.close()
        return exported
    }
}
