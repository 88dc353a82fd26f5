import Burrow
import BurrowStorage
import BurrowStore
import Foundation

/// `burrow objects FILE CLASS [--where QUERY] [--sort KEYPATH[,desc]] [--limit N]
/// [--format table|json|csv]`: the objects of one class, filtered by a query string (the
/// language of `Results.filter(_:)`), sorted and limited, as a table, JSON or CSV.
@MainActor
enum ObjectsCommand {
    /// From how many objects on the progress line shows how far the listing got.
    static let largeClass = 10_000

    /// Prints the objects `arguments` ask for. Throws `ToolError` (status 1) or `UsageError`
    /// (status 2) for a bad option, class, query or key path.
    static func run(_ arguments: CommandArguments) throws {
        let format = try arguments.choice("format", of: ["table", "json", "csv"], default: "table")
        var limit: Int?
        if let text = arguments.values["limit"] {
            guard let count = Int(text), count >= 0 else {
                throw UsageError(message: "--limit needs a number of objects (0 or more), not \"\(text)\"")
            }
            limit = count
        }
        let sort = try arguments.values["sort"].map(sortClause)
        let path = arguments.operands[0]
        let className = arguments.operands[1]
        let realm = try DatabaseFile.openForReading(path)
        let schema = realm.schema
        guard let objectSchema = schema[className] else {
            let names = schema.objectSchema.map(\.className)
            throw UsageError(
                message: "\(path) stores no class \(className)"
                    + (names.isEmpty ? " (it stores none)" : "; its classes are: \(names.joined(separator: ", "))"))
        }
        guard !objectSchema.isEmbedded else {
            throw UsageError(message: "\(className) is an embedded class: its objects are shown within their parents' objects")
        }
        var results = realm.dynamicObjects(className)
        do {
            if let query = arguments.values["where"] { results = try results.filter(query) }
        } catch {
            throw UsageError(message: "--where: \(withoutQuery(error.description))")
        }
        do {
            if let sort { results = try results.filter("TRUEPREDICATE SORT(\(sort))") }
        } catch {
            throw UsageError(message: "--sort: \(withoutQuery(error.description))")
        }
        let count = limit.map { min($0, results.count) } ?? results.count
        let encoder = ObjectEncoder(schema: schema, showsLinkingObjects: true)
        let output = TextOutput.standardOutput()
        var progress = ProgressLine()
        /// The objects, one at a time, with the progress line kept up to date for a large class.
        func eachObject(_ body: (DynamicObject) throws -> Void) throws {
            for index in 0..<count {
                if count >= Self.largeClass { progress.update("\(className): \(index) of \(counted(count, "object"))") }
                try body(results[index])
            }
            progress.finish()
        }
        switch format {
        case "json":
            try output.line("[")
            var index = 0
            try eachObject { object in
                index += 1
                try output.line(JSONWriter.text(of: encoder.node(of: object, objectSchema)) + (index == count ? "" : ","))
            }
            try output.line("]")
        case "csv":
            let columns = header(objectSchema, encoder)
            try output.write(CSV.row(columns))
            try eachObject { object in
                try output.write(CSV.row(encoder.members(of: object, objectSchema).map { CellText.of($0.1, null: "") }))
            }
        default:
            var table = Table(header: header(objectSchema, encoder))
            try eachObject { object in
                table.rows.append(encoder.members(of: object, objectSchema).map { CellText.of($0.1, null: "null") })
            }
            try output.write(table.text)
            try output.line("(\(counted(count, "object")))")
        }
        try output.close()
    }

    /// A query error's message without the query it ends with: the user wrote the query (it
    /// may be long), or did not (the SORT clause a `--sort` is checked in).
    static func withoutQuery(_ message: String) -> String {
        message.range(of: " Query: ", options: .backwards).map { String(message[..<$0.lowerBound]) } ?? message
    }

    /// The column names of a class: `$key` for a class without a primary key, then the
    /// properties `encoder` writes.
    static func header(_ schema: ObjectSchema, _ encoder: ObjectEncoder) -> [String] {
        (schema.primaryKeyProperty == nil ? ["$key"] : []) + encoder.properties(of: schema).map(\.name)
    }

    /// The SORT clause for `--sort KEYPATH[,asc|desc]`. Throws `UsageError` for a key path
    /// that is not one (the query parser checks that it names a property).
    static func sortClause(_ text: String) throws(UsageError) -> String {
        var parts = text.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingSpaces() }
        var direction = "ASC"
        if parts.count == 2 {
            switch parts[1].lowercased() {
            case "desc", "descending": direction = "DESC"
            case "asc", "ascending": direction = "ASC"
            default: throw UsageError(message: "--sort takes KEYPATH or KEYPATH,desc (or ,asc), not \"\(text)\"")
            }
            parts.removeLast()
        }
        let keyPath = parts[0]
        let allowed = keyPath.unicodeScalars.allSatisfy(isKeyPathScalar)
        let segments = keyPath.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 1, !keyPath.isEmpty, allowed, !segments.contains(where: \.isEmpty) else {
            throw UsageError(message: "--sort takes KEYPATH or KEYPATH,desc (or ,asc), not \"\(text)\"")
        }
        return "\(keyPath) \(direction)"
    }

    /// Whether `scalar` may be part of a key path: a letter, a digit, `_`, `$` or `.`.
    private static func isKeyPathScalar(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.properties.isAlphabetic { return true }
        if scalar.value >= 0x30 && scalar.value <= 0x39 { return true }
        return scalar == "_" || scalar == "." || scalar == "$"
    }
}

extension String {
    /// This text without spaces at either end.
    func trimmingSpaces() -> String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}

/// The text of a value in a table cell or a CSV field: strings as they are, links to classes
/// without a primary key as `#key`, nil as `null`, collections and embedded objects as
/// compact JSON.
enum CellText {
    static func of(_ node: ValueNode, null: String) -> String {
        switch node {
        case .scalar(let text): text == "null" ? null : text
        case .text(let text): text
        case .key(let key): "#\(key)"
        case .array, .object: JSONWriter.text(of: node)
        }
    }
}

/// Rows as CSV (RFC 4180): fields with a comma, a quote or a line break are quoted, quotes
/// doubled; lines end with CRLF.
enum CSV {
    static func row(_ fields: [String]) -> String {
        fields.map(field).joined(separator: ",") + "\r\n"
    }

    static func field(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences("\"", with: "\"\"") + "\""
    }
}

/// Rows as an aligned text table, as sqlite3's `.mode table` prints them. A cell shows at
/// most `maximumWidth` characters (the rest as `…`), line breaks and tabs as `\n`, `\t`, and
/// other control characters as `\u{1B}`.
struct Table {
    static let maximumWidth = 40
    let header: [String]
    var rows: [[String]] = []

    var text: String {
        let cells = ([header] + rows).map { $0.map(Self.cell) }
        var widths = header.map { _ in 0 }
        for row in cells { for (column, cell) in row.enumerated() { widths[column] = max(widths[column], cell.count) } }
        let rule = "+" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "+") + "+\n"
        func line(_ row: [String]) -> String {
            "|" + zip(row, widths).map { " " + $0.padded($1) + " " }.joined(separator: "|") + "|\n"
        }
        var text = rule + line(cells[0]) + rule
        for row in cells.dropFirst() { text += line(row) }
        return text + rule
    }

    private static func cell(_ text: String) -> String {
        var shown = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": shown += "\\n"
            case "\r": shown += "\\r"
            case "\t": shown += "\\t"
            // Other control characters (an escape sequence would drive the terminal) as escapes.
            case "\u{00}"..."\u{1F}", "\u{7F}"..."\u{9F}":
                let hex = String(scalar.value, radix: 16, uppercase: true)
                shown += "\\u{" + hex + "}"
            default: shown.unicodeScalars.append(scalar)
            }
        }
        return shown.count > maximumWidth ? String(shown.prefix(maximumWidth - 1)) + "…" : shown
    }
}

extension String {
    /// This text with every `target` replaced by `replacement`.
    func replacingOccurrences(_ target: Character, with replacement: String) -> String {
        var out = ""
        for character in self { if character == target { out += replacement } else { out.append(character) } }
        return out
    }
}
