import BurrowStore
import Foundation
import Testing

@testable import BurrowRealmFile

/// Format 24's files, every property type, written by realm-core and dumped by realm-core
/// (`Fixtures/README.md`): every object the reader reads equals realm-core's own reading of it,
/// value for value, backlinks included.
struct RealmFileDumpTests {
    /// The AllTypes file is also encrypted with the key 0, 1, …, 63; its dump is the same.
    static let encryptionKey = (0..<64).map { UInt8($0) }

    @Test(arguments: [
        ("format24_all_types.realm", "format24_all_types.expected.json", false),
        ("format24_encrypted.realm", "format24_all_types.expected.json", true),
        ("format24_many.realm", "format24_many.expected.json", false),
    ])
    func everyObjectReadsAsRealmCoreReadsIt(_ name: String, _ dump: String, _ encrypted: Bool) throws {
        let file = try RealmFile(path: RealmFileFixtures.path(name), encryptionKey: encrypted ? Self.encryptionKey : nil)
        #expect(file.formatVersion == 24)
        let expected = try Self.expectedObjects(dump)
        var tables: [Int: RealmTable] = [:]
        for entry in file.group.tables { tables[entry.key] = try file.group.table(entry) }
        var compared = 0
        for table in tables.values {
            for object in try file.group.objects(of: table) {
                let id = "\(table.name) \(object.key)"
                guard let line = expected[id] else {
                    Issue.record("\(id) is not in realm-core's dump")
                    continue
                }
                let actual = Self.dumpForm(object, of: table, tables: tables)
                let want = Self.normalized(["values": line["values"] ?? [:], "backlinks": line["backlinks"] ?? [:]])
                let actualText = try Self.text(actual)
                let expectedText = try Self.text(want)
                #expect(actualText == expectedText, "\(id)")
                compared += 1
            }
        }
        #expect(compared == expected.count, "objects read \(compared), in the dump \(expected.count)")
    }

    /// The dump's live objects by "table key"; tombstones are not objects.
    static func expectedObjects(_ name: String) throws -> [String: [String: Any]] {
        var objects: [String: [String: Any]] = [:]
        let text = try String(contentsOf: RealmFileFixtures.directory.appendingPathComponent(name), encoding: .utf8)
        for line in text.split(separator: "\n") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            if object["tombstone"] as? Bool == true { continue }
            let table = try #require(object["table"] as? String)
            let key = try #require((object["key"] as? NSNumber)?.int64Value)
            objects["\(table) \(key)"] = object
        }
        return objects
    }

    /// The dump's form of `value` with the details that are text for people (a float's text, a
    /// link's target's primary key or embedded values) left out: floats and decimals by their
    /// bits, links by table and key.
    static func normalized(_ value: Any) -> Any {
        if let object = value as? [String: Any] {
            if let bits = object["bits"] as? String { return ["bits": hexNumber(bits)] }
            if let high = object["high"] as? String, let low = object["low"] as? String { return ["high": hexNumber(high), "low": hexNumber(low)] }
            if let table = object["table"], let key = object["key"] { return ["table": table, "key": key] }
            return object.mapValues(normalized)
        }
        if let array = value as? [Any] { return array.map(normalized) }
        return value
    }

    static func hexNumber(_ text: String) -> String { UInt64(text.dropFirst(2), radix: 16).map { String($0) } ?? text }

    static func text(_ value: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed]), as: UTF8.self)
    }

    /// `object` in the dump's form: its values by column name, its backlinks by origin.
    static func dumpForm(_ object: RealmObject, of table: RealmTable, tables: [Int: RealmTable]) -> [String: Any] {
        var values: [String: Any] = [:]
        var backlinks: [String: Any] = [:]
        for (index, column) in table.columns.enumerated() {
            let value = object.values[index]
            if column.type == .backlink {
                guard let origin = column.targetTable.flatMap({ tables[$0] }),
                    let originColumn = origin.columns.first(where: { $0.key == column.originColumn })
                else { continue }
                guard case .list(let links) = value else { continue }
                backlinks["\(origin.name).\(originColumn.name)"] = links.compactMap { link -> Any? in
                    guard case .link(_, let key) = link else { return nil }
                    return NSNumber(value: key)
                }
                continue
            }
            // A collection of mixed values is a plain array or object of typed values.
            switch (column.collection, value) {
            case (.list, .list(let elements)), (.set, .set(let elements)):
                values[column.name] = elements.map { plain($0, mixed: column.type == .mixed, tables: tables) }
            case (.dictionary, .dictionary(let entries)):
                values[column.name] = Dictionary(
                    entries.map { ($0.key, plain($0.value, mixed: column.type == .mixed, tables: tables)) }, uniquingKeysWith: { first, _ in first })
            default:
                values[column.name] = plain(value, mixed: column.type == .mixed, tables: tables)
            }
        }
        return ["values": values, "backlinks": backlinks]
    }

    /// A value in the dump's (normalized) form; `mixed`: with its type, as an AnyRealmValue.
    static func plain(_ value: RealmValue, mixed: Bool, tables: [Int: RealmTable]) -> Any {
        func typed(_ type: String, _ plain: Any) -> Any { mixed ? ["type": type, "value": plain] : plain }
        switch value {
        case .null: return NSNull()
        case .int(let value): return typed("int", NSNumber(value: value))
        case .bool(let value): return typed("bool", value)
        case .float(let value): return typed("float", ["bits": String(value.bitPattern)])
        case .double(let value): return typed("double", ["bits": String(value.bitPattern)])
        case .string(let value): return typed("string", value)
        case .binary(let bytes): return typed("binary", ["size": bytes.count, "hex": bytes.map { String(format: "%02x", $0) }.joined()])
        case .timestamp(let seconds, let nanoseconds):
            return typed("timestamp", ["seconds": NSNumber(value: seconds), "nanoseconds": NSNumber(value: nanoseconds)])
        case .decimal(let value): return typed("decimal128", ["high": String(value.bidBits.high), "low": String(value.bidBits.low)])
        case .objectId(let value): return typed("objectId", value.description.lowercased())
        case .uuid(let value): return typed("uuid", value.uuidString.lowercased())
        case .link(let table, let key): return typed("typedLink", ["table": tables[table]?.name ?? "table \(table)", "key": NSNumber(value: key)])
        case .list(let values), .set(let values): return typed("list", values.map { plain($0, mixed: mixed, tables: tables) })
        case .dictionary(let entries):
            return typed(
                "dictionary",
                Dictionary(entries.map { ($0.key, plain($0.value, mixed: mixed, tables: tables)) }, uniquingKeysWith: { first, _ in first }))
        }
    }
}
