/// A column of a table in a `.realm` file: its name, what it holds, and where.
///
/// A column's key (realm-core's `ColKey`) packs its leaf index (bits 0–15: the cluster slot is
/// the index plus one), its type (16–21), its attributes (22–29: 16 nullable, 32 list, 64
/// dictionary, 128 set) and a tag. The types: 0 int, 1 bool, 2 string, 4 binary, 6 mixed, 8
/// timestamp, 9 float, 10 double, 11 decimal, 12 link, 13 list of links (before format 24), 14
/// backlink, 15 ObjectId, 16 typed link, 17 UUID.
package struct RealmColumn: Sendable, Equatable {
    /// The column's type, as realm-core numbers it.
    package enum ColumnType: Int, Sendable {
        case int = 0
        case bool = 1
        case string = 2
        case binary = 4
        case mixed = 6
        case timestamp = 8
        case float = 9
        case double = 10
        case decimal = 11
        case link = 12
        case linkList = 13
        case backlink = 14
        case objectId = 15
        case typedLink = 16
        case uuid = 17
    }

    /// Whether the column holds one value per object, or a collection.
    package enum Collection: Sendable, Equatable {
        case single, list, set, dictionary
    }

    /// The column's name; empty for a backlink column.
    package let name: String
    package let type: ColumnType
    package let collection: Collection
    package let isNullable: Bool
    /// Whether the column has a search index (or is the primary key of a format-22-or-later file).
    package let isIndexed: Bool
    /// The cluster slot (leaf index) the column's values are in.
    let leafIndex: Int
    /// The key of the table a link column links to, or a backlink column's links come from.
    package let targetTable: Int?
    /// For a backlink column: the key of the column whose links it counts.
    package let originColumn: Int64?
    /// The column's key.
    package let key: Int64
    /// For an enumerated string column: the strings its leaves index.
    let enumKeys: [String?]?

    /// The kind of leaf that holds the column's values, or a collection's elements.
    var elementKind: ValueLeaf.Kind {
        switch type {
        case .int: .int(nullable: isNullable)
        case .bool: .bool
        case .string: .string
        case .binary: .binary
        case .mixed: .mixed
        case .timestamp: .timestamp
        case .float: .float
        case .double: .double
        case .decimal: .decimal
        case .link, .linkList: collection == .single ? .link(table: targetTable ?? 0) : .linkKeys(table: targetTable ?? 0)
        case .backlink: .int(nullable: false)
        case .objectId: .objectId
        case .typedLink: .typedLink
        case .uuid: .uuid
        }
    }
}
