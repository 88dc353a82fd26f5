import Burrow
import BurrowStore

/// A synced class as a PostgreSQL table: the table is named as the class, and each stored
/// property is a column named as the property, of the type `Column.sqlType` gives.
struct SyncedTable: Sendable {
    /// One column: the property it holds, and how its values are written and read.
    struct Column: Sendable {
        let property: StoredProperty
        /// The column's PostgreSQL type.
        let sqlType: String
        /// For a link to an object with a primary key: the target class and its primary key,
        /// whose value the column holds.
        let linkTarget: (className: String, primaryKey: StoredProperty)?
        /// Whether the column is `jsonb` (see `JSONColumn`): a collection, an embedded object or
        /// an `AnyRealmValue`.
        var isJSON: Bool { sqlType == "jsonb" }

        /// The column name, quoted for SQL.
        var quotedName: String { SQL.identifier(property.name) }

        /// A parameter placeholder (`$n`) as an expression of the column's type.
        func parameter(_ number: Int) -> String {
            switch sqlType {
            case "timestamptz": "to_timestamp($\(number)::double precision)"
            default: "$\(number)::\(sqlType)"
            }
        }

        /// The column as a select list expression whose text form `SyncValues` reads.
        var selected: String {
            switch sqlType {
            case "timestamptz": "extract(epoch from \(quotedName))::text"
            default: "\(quotedName)::text"
            }
        }
    }

    let className: String
    let columns: [Column]
    /// The index in `columns` of the primary key.
    let primaryKeyColumn: Int

    var primaryKey: Column { columns[primaryKeyColumn] }
    var quotedName: String { SQL.identifier(className) }

    /// The table of `className` in `schema`. Throws for a class sync cannot map: not in the
    /// file, embedded, without a primary key, or with a link to a class without one.
    init(_ className: String, in schema: FileSchema) throws(RealmError) {
        guard let stored = schema.classNamed(className) else {
            throw RealmError(.invalidArgument, "\(className) cannot be synced: the file has no class of that name.")
        }
        var columns: [Column] = []
        var primaryKeyColumn: Int?
        for property in stored.properties where property.type != .linkingObjects {
            if property.isPrimary { primaryKeyColumn = columns.count }
            columns.append(try Self.column(property, of: className, in: schema))
        }
        guard let primaryKeyColumn else {
            throw RealmError(
                .invalidArgument, "\(className) cannot be synced: a synced class needs a primary key, which names its row in PostgreSQL.")
        }
        self.className = className
        self.columns = columns
        self.primaryKeyColumn = primaryKeyColumn
    }

    private static func column(_ property: StoredProperty, of className: String, in schema: FileSchema) throws(RealmError) -> Column {
        var linkTarget: (className: String, primaryKey: StoredProperty)?
        if property.type == .object, let targetName = property.objectClassName, let target = schema.classNamed(targetName),
            !target.isEmbedded
        {
            guard let targetKey = target.properties.first(where: \.isPrimary) else {
                throw RealmError(
                    .invalidArgument,
                    "\(className).\(property.name) cannot be synced: it links to \(targetName), which has no primary key to name its objects by.")
            }
            linkTarget = (targetName, targetKey)
        }
        if property.collection != .single || property.type == .any || (property.type == .object && linkTarget == nil) {
            return Column(property: property, sqlType: "jsonb", linkTarget: linkTarget)
        }
        if let linkTarget { return Column(property: property, sqlType: sqlType(of: linkTarget.primaryKey.type), linkTarget: linkTarget) }
        return Column(property: property, sqlType: sqlType(of: property.type), linkTarget: nil)
    }

    /// The PostgreSQL type of a column holding values of `type`.
    static func sqlType(of type: PropertyType) -> String {
        switch type {
        case .bool: "boolean"
        case .int: "bigint"
        case .float: "real"
        case .double: "double precision"
        case .string: "text"
        case .data: "bytea"
        case .date: "timestamptz"
        case .objectId: "text"
        case .uuid: "uuid"
        case .decimal128: "numeric"
        case .object, .any, .linkingObjects: "jsonb"
        }
    }
}

/// Quoting for SQL text made from names and lists.
enum SQL {
    /// `elements` as the text of a PostgreSQL array (`{"a","b"}`), each element quoted.
    static func arrayLiteral(_ elements: [String]) -> String {
        var text = "{"
        text.reserveCapacity(elements.reduce(2) { $0 + $1.utf8.count + 3 })
        for (index, element) in elements.enumerated() {
            if index > 0 { text += "," }
            text += "\""
            if element.utf8.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
                for character in element {
                    if character == "\"" || character == "\\" { text += "\\" }
                    text.append(character)
                }
            } else {
                text += element
            }
            text += "\""
        }
        return text + "}"
    }

    /// `name` as a quoted identifier: in double quotes, each double quote doubled.
    static func identifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

extension Array {
    /// The array in consecutive slices of at most `size` elements.
    func chunked(_ size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: Swift.max(1, size)).map { self[$0..<Swift.min($0 + Swift.max(1, size), count)] }
    }
}
