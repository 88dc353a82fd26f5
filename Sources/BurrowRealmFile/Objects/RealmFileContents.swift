/// What an app's `.realm` file holds as RealmSwift sees it: the classes (realm-core's tables
/// named `class_` and the class's name) with their objects, and the schema version the app
/// gave the file (the `metadata` table's one object). Other tables are realm-core's or sync's
/// own, and are not the app's data.
package struct RealmFileContents {
    /// One class: its table, its name without the prefix, and its objects.
    package struct Class {
        package let name: String
        package let table: RealmTable
        package let objects: [RealmObject]
    }

    /// The classes, in the file's table order.
    package let classes: [Class]
    /// The schema version the app set, nil if it set none.
    package let schemaVersion: UInt64?

    /// The prefix of the tables that hold an app's classes.
    package static let classPrefix = "class_"

    /// The classes and objects of `file`, every object read.
    package init(_ file: RealmFile) throws(RealmFileError) {
        var classes: [Class] = []
        var schemaVersion: UInt64?
        for entry in file.group.tables {
            if entry.name == "metadata" {
                let table = try file.group.table(entry)
                if let column = table.columns.firstIndex(where: { $0.name == "version" && $0.type == .int }),
                    let first = try file.group.objects(of: table).first, case .int(let version) = first.values[column], version >= 0
                {
                    schemaVersion = UInt64(version)
                }
                continue
            }
            guard entry.name.hasPrefix(Self.classPrefix) else { continue }
            let table = try file.group.table(entry)
            classes.append(
                Class(name: String(entry.name.dropFirst(Self.classPrefix.count)), table: table, objects: try file.group.objects(of: table)))
        }
        self.classes = classes
        self.schemaVersion = schemaVersion
    }

    /// The number of objects of every class, embedded ones included.
    package var objectCount: Int { classes.reduce(0) { $0 + $1.objects.count } }

    /// The class whose table's key is `key`.
    package func `class`(tableKey key: Int) -> Class? { classes.first { $0.table.key == key } }
}
