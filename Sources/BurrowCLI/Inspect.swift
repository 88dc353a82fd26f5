import Burrow
import BurrowStorage
import BurrowStore
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `burrow info`, `dump` and `verify`: read-only looks at a file.
@MainActor
enum Inspect {
    /// Prints what opening did when it fell back past the newest commit or found a meta page
    /// damaged; the command then exits with status 1. Returns whether there was such a report.
    static func printRecovery(of snapshot: Snapshot, path: String) -> Bool {
        guard let recovery = snapshot.storage.recovery else { return false }
        printError("burrow: \(path) did not open whole: \(recovery.description)")
        DatabaseFile.openedDamaged = true
        return true
    }

    /// `info`: the file's statistics, then its classes with their object counts, or with
    /// `--raw` its trees with their entry counts.
    static func info(_ arguments: CommandArguments) throws {
        let path = arguments.operands[0]
        let snapshot = try DatabaseFile.openSnapshot(path)
        _ = printRecovery(of: snapshot, path: path)
        let stats = try snapshot.storage.statistics()
        let names = try StoredNames(snapshot)
        print(
            """
            file:           \(path)
            format:         \(snapshot.format)\(snapshot.format < Meta.formatVersion ? " (upgraded to \(Meta.formatVersion) by its next write)" : "")
            version:        \(stats.version)
            page size:      \(counted(stats.pageSize, "byte"))
            pages:          \(stats.pageCount) (\(stats.usedPages) in use, \(stats.freePages) free)
            file size:      \(counted(stats.fileSize, "byte"))
            """)
        if arguments.flags.contains("raw") {
            for name in try snapshot.treeNames() {
                let count = try snapshot.tree(named: name)?.count ?? 0
                let meaning = names.meaning(ofTree: name).map { "  (\($0))" } ?? ""
                print("tree \"\(name)\": \(counted(count, "entry"))\(meaning)")
            }
            return
        }
        print("schema version: \(names.schemaVersion.map(String.init) ?? "none (no class stored yet)")")
        print("classes:        \(names.classes.count)")
        for stored in names.classes.values.sorted(by: { $0.name < $1.name }) {
            let count = try snapshot.tree(named: "rows/\(stored.id)")?.count ?? 0
            var notes: [String] = []
            if let key = stored.properties.first(where: { $0.isPrimary == true }) { notes.append("primary key \(key.name)") }
            let indexed = stored.properties.filter { $0.isIndexed == true && $0.isPrimary != true }.map(\.name)
            if !indexed.isEmpty { notes.append("indexed: \(indexed.joined(separator: ", "))") }
            notes.append(counted(stored.properties.count, "property"))
            print(
                "  \(stored.isEmbedded ? "embedded class" : "class") \(stored.name): \(counted(count, "object")) (\(notes.joined(separator: "; ")))"
            )
        }
    }

    /// `dump`: every class and object, or with `--raw` every tree and entry in hex.
    static func dump(_ arguments: CommandArguments) throws {
        let path = arguments.operands[0]
        guard arguments.flags.contains("raw") else { return try dumpObjects(path) }
        let snapshot = try DatabaseFile.openSnapshot(path)
        _ = printRecovery(of: snapshot, path: path)
        let names = try StoredNames(snapshot)
        let output = TextOutput.standardOutput()
        for name in try snapshot.treeNames() {
            guard let tree = try snapshot.tree(named: name) else { continue }
            try output.line("tree \"\(name)\" (\(counted(tree.count, "entry")))\(names.meaning(ofTree: name).map { ", \($0)" } ?? "")")
            var cursor = tree.makeCursor()
            var more = try cursor.first()
            while more {
                try output.line("  \(hex(cursor.key)) = \(hex(try cursor.value()))")
                more = try cursor.next()
            }
        }
        try output.close()
    }

    /// Every class, as `burrow schema` shows it, and its objects, one compact JSON object a
    /// line.
    private static func dumpObjects(_ path: String) throws {
        let realm = try DatabaseFile.openForReading(path)
        let schema = realm.schema
        let encoder = ObjectEncoder(schema: schema, showsLinkingObjects: true)
        let output = TextOutput.standardOutput()
        var progress = ProgressLine()
        try output.line("schema version \(realm.configuration.schemaVersion)")
        for objectSchema in schema.objectSchema {
            try output.line()
            if objectSchema.isEmbedded {
                try output.write(SchemaCommand.lines(objectSchema, in: schema, count: nil))
                try output.line("  (its objects are inside their parents)")
                continue
            }
            let objects = realm.dynamicObjects(objectSchema.className)
            let count = objects.count
            try output.write(SchemaCommand.lines(objectSchema, in: schema, count: count))
            for (index, object) in objects.enumerated() {
                progress.update("\(objectSchema.className): \(index) of \(counted(count, "object"))")
                try output.line("  " + JSONWriter.text(of: encoder.node(of: object, objectSchema)))
            }
        }
        progress.finish()
        try output.close()
    }

    /// `verify`: checks the pages and trees, then the objects; exits with status 1 on damage.
    static func verify(_ arguments: CommandArguments) throws {
        let path = arguments.operands[0]
        var progress = ProgressLine()
        progress.show("verifying \(path): pages and trees…")
        let snapshot = try DatabaseFile.openSnapshot(path)
        let recovered = printRecovery(of: snapshot, path: path)
        let report = snapshot.check()
        guard report.isSound else {
            progress.show("verifying \(path): what can still be read…")
            let salvage = try ObjectSalvage(snapshot, checked: report)
            progress.finish()
            let count = report.problems.count + report.unlistedProblems
            print("\(path): damaged. Version \(report.version) has \(counted(count, "problem")):")
            for line in Salvage.lines(of: salvage.report, names: StoredNames(salvage), written: false) { print("  " + line) }
            print(
                "The objects on sound pages can be copied into a new file with `burrow recover \(path) NEW-FILE`, or exported with `burrow export --salvage \(path)`."
            )
            exit(1)
        }
        progress.show("verifying \(path): objects…")
        let objects = try ObjectVerifier.verify(snapshot)
        progress.finish()
        guard objects.isSound else {
            print("\(path): damaged objects in version \(objects.version):")
            for finding in objects.findings { print("  \(finding)") }
            if objects.unlistedFindings > 0 { print("  … and \(objects.unlistedFindings) more") }
            exit(1)
        }
        let counts =
            "\(counted(report.trees, "tree")), \(counted(report.entries, "entry")), \(counted(report.reachablePages, "page")) in use, \(report.freePages) free of \(report.pageCount)"
        guard !recovered else {
            print("\(path): not sound: it did not open whole (above). Version \(report.version), the one it opened, is consistent: \(counts).")
            exit(1)
        }
        print("\(path): sound. Version \(report.version), \(counts).")
    }

    /// `bytes` in hex, at most `limit` of them, with the count when there are more.
    static func hex(_ bytes: UnsafeRawBufferPointer, limit: Int = 64) -> String {
        let digits = Array("0123456789abcdef")
        var text = ""
        for byte in bytes.prefix(limit) {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
        return bytes.count > limit ? text + "… (\(counted(bytes.count, "byte")))" : text
    }
}

/// The classes and properties of a file by the ids its trees are named with, read from the
/// `schema` tree (FileFormat.md describes it), so that `info` and `dump --raw` can say what
/// each tree holds.
struct StoredNames {
    struct StoredClass: Decodable {
        let id: UInt32
        let name: String
        let isEmbedded: Bool
        let properties: [StoredProperty]
    }

    struct StoredProperty: Decodable {
        let name: String
        let isPrimary: Bool?
        let isIndexed: Bool?
    }

    private struct Info: Decodable {
        let schemaVersion: UInt64
    }

    /// The stored classes by name.
    private(set) var classes: [String: StoredClass] = [:]
    private var byId: [UInt32: StoredClass] = [:]
    /// The stored schema version, or nil if the file stores no schema yet.
    private(set) var schemaVersion: UInt64?

    /// The names stored in `snapshot`'s `schema` tree (none if it has no such tree).
    init(_ snapshot: Snapshot) throws {
        guard let tree = try snapshot.tree(named: "schema") else { return }
        var cursor = tree.makeCursor()
        var more = try cursor.first()
        while more {
            let key = String(decoding: cursor.key, as: UTF8.self)
            let value = Data(try cursor.value())
            if key == "info" {
                schemaVersion = (try? JSONDecoder().decode(Info.self, from: value))?.schemaVersion
            } else if key.hasPrefix("class/"), let stored = try? JSONDecoder().decode(StoredClass.self, from: value) {
                classes[stored.name] = stored
                byId[stored.id] = stored
            }
            more = try cursor.next()
        }
    }

    /// The names of the classes a salvage read from a damaged file's schema.
    init(_ salvage: ObjectSalvage) {
        for objectSchema in salvage.classes {
            guard let id = salvage.classIds[objectSchema.className] else { continue }
            let stored = StoredClass(
                id: id, name: objectSchema.className, isEmbedded: objectSchema.isEmbedded,
                properties: objectSchema.properties.map { StoredProperty(name: $0.name, isPrimary: $0.isPrimary, isIndexed: $0.isIndexed) })
            classes[stored.name] = stored
            byId[id] = stored
        }
        schemaVersion = salvage.schemaVersion
    }

    /// What the tree named `name` holds, in the words of classes and properties.
    func meaning(ofTree name: String) -> String? {
        let parts = name.split(separator: "/").map(String.init)
        if name == "schema" { return "the stored schema" }
        if name == "sequences" { return "object key sequences" }
        guard parts.count >= 2, let id = UInt32(parts[1]), let stored = byId[id] else { return nil }
        var property: String?
        if parts.count == 3, let field = Int(parts[2]), field < stored.properties.count {
            property = "\(stored.name).\(stored.properties[field].name)"
        }
        switch parts[0] {
        case "rows": return "objects of \(stored.name)"
        case "pk": return "primary keys of \(stored.name)"
        case "links": return "links to \(stored.name) objects"
        case "blobs": return "long values of \(stored.name)"
        case "index": return property.map { "index of \($0)" }
        case "list": return property.map { "elements of the lists \($0)" }
        case "set": return property.map { "elements of the sets \($0)" }
        case "map": return property.map { "entries of the maps \($0)" }
        default: return nil
        }
    }
}
