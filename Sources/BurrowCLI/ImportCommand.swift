import Burrow
import BurrowStorage
import BurrowStore
import Foundation

/// `burrow import FILE JSON`: creates the objects of an export (`burrow export`) in FILE,
/// which is created if it does not exist, in one write transaction: all of them, or, on an
/// error, none. The file gets the export's classes if it lacks them; a class it has must be
/// stored as the export describes it. An export may leave out `"classes"` (or some of them)
/// when the file stores them already.
///
/// Objects of classes with a primary key are created with `dynamicCreate(_:value:update:
/// .modified)`, so an object already in the file with the same key is updated. Two objects
/// of the import with one primary key are an error naming both, unless `--merge` asks for the
/// later to update the earlier. Objects of classes without one are always added; links to
/// them name them by the `$key` they carry in the export, and resolve to the objects this
/// import creates. Links are set after every object exists, so the order of classes and
/// objects does not matter.
@MainActor
enum ImportCommand {
    /// Imports the export `arguments` names into the file it names, and prints how many
    /// objects it created and updated. Throws `ToolError` (status 1).
    static func run(_ arguments: CommandArguments) throws {
        let path = arguments.operands[0]
        let counts = try importExport(at: arguments.operands[1], into: path, merging: arguments.flags.contains("merge"))
        print(counts.summary(into: path))
    }

    /// Imports the export document at `source` (`-` for standard input) into the file at
    /// `path`, created if missing (and removed again if the import fails); returns how many
    /// objects were created, updated and merged. Throws `ToolError`.
    static func importExport(at source: String, into path: String, merging: Bool) throws -> ImportCounts {
        let bytes: [UInt8]
        if source == "-" {
            bytes = Array(FileHandle.standardInput.readDataToEndOfFile())
        } else {
            guard let data = FileManager.default.contents(atPath: source) else {
                throw ToolError(message: "\(source): cannot be read (no such file, or no permission)")
            }
            bytes = Array(data)
        }
        let document: JSONValue
        do {
            document = try JSONParser.parse(bytes)
        } catch {
            throw ToolError(message: "\(source) is not valid JSON: \(error)")
        }
        guard case .integer(let version)? = document["burrowExport"] else {
            throw ToolError(message: "\(source) is not an export of burrow (it has no \"burrowExport\" member)")
        }
        guard version == ExportCommand.formatVersion else {
            throw ToolError(message: "\(source) is an export of version \(version); this burrow reads version \(ExportCommand.formatVersion)")
        }
        var schemaVersion: UInt64 = 0
        if let value = document["schemaVersion"] {
            guard case .integer(let number) = value, number >= 0 else {
                throw ToolError(message: "\(source): \"schemaVersion\" is not a number of 0 or more")
            }
            schemaVersion = UInt64(number)
        }
        var classes: [ObjectSchema] = []
        switch document["classes"] {
        case nil: break  // the file's stored classes describe the objects
        case .array(let classList)?: for value in classList { classes.append(try SchemaJSON.objectSchema(value)) }
        case let value?: throw ToolError(message: "\(source): \"classes\" is \(value.kind), not an array of classes.")
        }
        guard case .object(let objectsByClass)? = document["objects"] else { throw ToolError(message: "\(source) has no \"objects\" member") }

        let isNewFile = !FileManager.default.fileExists(atPath: path)
        do {
            return try importObjects(objectsByClass, classes: classes, into: path, newSchemaVersion: schemaVersion, merging: merging)
        } catch {
            // The realm is closed by now: a file this import created holds nothing, and goes.
            if isNewFile { _ = try? Realm.deleteFiles(for: Realm.Configuration(fileURL: URL(fileURLWithPath: path))) }
            throw error
        }
    }

    /// Creates the objects in the file at `path` in one write transaction; returns how many
    /// were created, updated and merged. Classes the export does not describe are taken from
    /// the file's stored schema.
    private static func importObjects(
        _ objectsByClass: [(String, JSONValue)], classes: [ObjectSchema], into path: String, newSchemaVersion schemaVersion: UInt64,
        merging: Bool
    ) throws -> ImportCounts {
        let realm = try DatabaseFile.openForWriting(path, newSchemaVersion: schemaVersion)
        let described = Set(classes.map(\.className))
        let stored = realm.schema.objectSchema.filter { !described.contains($0.className) }
        var importer = Importer(realm: realm, classes: classes + stored, merging: merging)
        var counts = ImportCounts()
        do {
            try realm.write {
                do {
                    try realm.addStoredClasses(classes)
                } catch {
                    throw ToolError(message: "\(path): \((error as? RealmError)?.description ?? "\(error)")")
                }
                counts = try importer.run(objectsByClass)
            }
        } catch let error as ToolError {
            throw ToolError(message: error.message + " Nothing was imported.")
        } catch {
            throw ToolError(message: "\(path): \(error) Nothing was imported.")
        }
        return counts
    }
}

/// What an import did with the objects it read.
struct ImportCounts {
    /// Objects new to the file.
    var created = 0
    /// Objects that updated one the file had, with the same primary key.
    var updated = 0
    /// Objects that updated an earlier object of the same import (with `--merge`).
    var merged = 0

    /// The line the import ends with: "Imported 12 objects into shop.burrow: 10 created,
    /// 1 updated, 1 merged into an earlier object of the import."
    func summary(into path: String) -> String {
        var parts = ["\(created) created"]
        if updated > 0 { parts.append("\(updated) updated") }
        if merged > 0 { parts.append("\(merged) merged into \(merged == 1 ? "an earlier object" : "earlier objects") of the import") }
        return "Imported \(counted(created + updated + merged, "object")) into \(path): \(parts.joined(separator: ", "))."
    }
}

/// The work of one import, inside its write transaction: first every object with its values
/// but not its links, then the links.
@MainActor
struct Importer {
    let realm: Realm
    /// The export's classes by name.
    let classes: [String: ObjectSchema]
    /// The objects of classes without a primary key this import created, by class and by the
    /// `$key` they had in the export.
    private var byExportKey: [String: [UInt64: DynamicObject]] = [:]
    /// The objects whose links are still to set, with their values in the export.
    private var pending: [(object: DynamicObject, schema: ObjectSchema, members: [(String, JSONValue)], place: String)] = []
    /// Whether an object with the primary key of an earlier one of the import updates it
    /// (`--merge`), rather than being an error.
    let merging: Bool
    /// Where in the export each object of a class with a primary key was, by class and key,
    /// for the error naming both objects of one key.
    private var placesByKey: [String: [AnyHashable: String]] = [:]
    private var counts = ImportCounts()
    private var progress = ProgressLine()

    /// An import into `realm` (inside its write transaction) of objects of `classes`.
    init(realm: Realm, classes: [ObjectSchema], merging: Bool) {
        self.realm = realm
        self.merging = merging
        var byName: [String: ObjectSchema] = [:]
        for objectSchema in classes { byName[objectSchema.className] = objectSchema }
        self.classes = byName
    }

    /// Creates the objects of `objectsByClass` and sets their links; returns how many were
    /// created, updated and merged. Throws `ToolError` naming the object and property at fault.
    mutating func run(_ objectsByClass: [(String, JSONValue)]) throws(ToolError) -> ImportCounts {
        for (className, list) in objectsByClass {
            guard let schema = classes[className] else {
                throw ToolError(message: "\"objects\" has objects of \(className), a class that neither \"classes\" nor the file has.")
            }
            guard !schema.isEmbedded else {
                throw ToolError(message: "\"objects\" lists objects of \(className), which is embedded: its objects are inside their parents.")
            }
            guard case .array(let objects) = list else { throw ToolError(message: "the objects of \(className) are not an array.") }
            for (index, value) in objects.enumerated() {
                progress.update("importing \(className): \(index) of \(counted(objects.count, "object"))")
                try create(className, schema, value, place: "\(className)[\(index)]")
            }
        }
        for (index, entry) in pending.enumerated() {
            progress.update("linking: \(index) of \(counted(pending.count, "object"))")
            try setLinks(of: entry.object, entry.schema, entry.members, place: entry.place)
        }
        progress.finish()
        return counts
    }

    // MARK: Objects

    private mutating func create(_ className: String, _ schema: ObjectSchema, _ value: JSONValue, place: String) throws(ToolError) {
        guard case .object(let members) = value else { throw ToolError(message: "\(place) is \(value.kind), not an object.") }
        var exportKey: UInt64?
        var values: [String: Any] = [:]
        var hasLinks = false
        for (name, member) in members {
            if name == "$key", schema.primaryKeyProperty == nil {
                guard case .integer(let key) = member, key >= 0 else {
                    throw ToolError(message: "\(place).$key is not an object key (a number of 0 or more).")
                }
                exportKey = UInt64(key)
                continue
            }
            let property = try self.property(name, of: schema, place: place)
            let (converted, links) = try convert(member, property, place: "\(place).\(name)", resolving: false)
            if let converted { values[name] = converted }
            hasLinks = hasLinks || links
        }
        if let primaryKey = schema.primaryKeyProperty {
            try count(className, primaryKey: primaryKey, value: values[primaryKey.name], member: members, place: place)
        } else {
            counts.created += 1
        }
        let object: DynamicObject
        do {
            object = try realm.dynamicCreate(className, value: values, update: schema.primaryKeyProperty == nil ? .error : .modified)
        } catch {
            throw ToolError(message: "\(place): \((error as? RealmError)?.description ?? "\(error)")")
        }
        if let exportKey {
            guard byExportKey[className, default: [:]][exportKey] == nil else {
                throw ToolError(message: "\(place): another \(className) has $key \(exportKey).")
            }
            byExportKey[className, default: [:]][exportKey] = object
        }
        if hasLinks { pending.append((object, schema, members, place)) }
    }

    /// Counts the object at `place`, of a class with a primary key whose value in the export is
    /// `value`, as created, updated (the file has an object with that key) or merged (an
    /// earlier object of the import has it, with `--merge`). Throws `ToolError` for a missing
    /// key, and for a key an earlier object of the import has, without `--merge`.
    private mutating func count(
        _ className: String, primaryKey: Property, value: Any?, member members: [(String, JSONValue)], place: String
    ) throws(ToolError) {
        guard let value, let member = members.first(where: { $0.0 == primaryKey.name })?.1 else {
            throw ToolError(message: "\(place) has no \"\(primaryKey.name)\", the primary key of \(className).")
        }
        let key = (value as? AnyHashable) ?? AnyHashable(NSNull())
        if let earlier = placesByKey[className]?[key] {
            guard merging else {
                throw ToolError(
                    message:
                        "\(earlier) and \(place) are both the \(className) with primary key \(JSONWriter.text(of: ObjectEncoderValue.node(member))). Give each its own key, or pass --merge to have the later update the earlier."
                )
            }
            counts.merged += 1
            return
        }
        placesByKey[className, default: [:]][key] = place
        if realm.dynamicObject(ofType: className, forPrimaryKey: value) == nil {
            counts.created += 1
        } else {
            counts.updated += 1
        }
    }

    private func property(_ name: String, of schema: ObjectSchema, place: String) throws(ToolError) -> Property {
        guard let property = schema.properties.first(where: { $0.name == name }) else {
            throw ToolError(
                message:
                    "\(place): \(schema.className) has no property \"\(name)\"; its properties are: \(schema.properties.map(\.name).joined(separator: ", "))."
            )
        }
        return property
    }

    /// Sets the links of `object` (and of the embedded objects it holds) from `members`.
    /// Embedded objects wait in a worklist, so a chain of them takes no recursion.
    private func setLinks(of object: DynamicObject, _ schema: ObjectSchema, _ members: [(String, JSONValue)], place: String) throws(ToolError) {
        var work = [(object, schema, members, place)]
        while let (object, schema, members, place) = work.popLast() {
            for (name, member) in members where !(name == "$key" && schema.primaryKeyProperty == nil) {
                let property = try self.property(name, of: schema, place: place)
                if isEmbeddedLink(property) {
                    guard let target = classes[property.objectClassName ?? ""] else { continue }
                    for (embedded, value, at) in try embeddedObjects(object[name], member, property, place: "\(place).\(name)") {
                        guard case .object(let nested) = value else { continue }
                        work.append((embedded, target, nested, at))
                    }
                } else if property.type == .object || property.type == .any && Self.hasLink(member) {
                    let (value, _) = try convert(member, property, place: "\(place).\(name)", resolving: true)
                    object[name] = value ?? NSNull()
                }
            }
        }
    }

    /// The embedded objects a property holds, each with its value in the export.
    private func embeddedObjects(_ value: Any?, _ member: JSONValue, _ property: Property, place: String) throws(ToolError) -> [(
        DynamicObject, JSONValue, String
    )] {
        switch (property.collection, member) {
        case (.single, _):
            guard let object = unwrapOptional(value) as? DynamicObject else { return [] }
            return [(object, member, place)]
        case (.list, .array(let elements)):
            let objects = (value as? any ElementSource)?.anyElements.compactMap { unwrapOptional($0) as? DynamicObject } ?? []
            return zip(objects, elements).enumerated().map { ($1.0, $1.1, "\(place)[\($0)]") }
        case (.map, .object(let entries)):
            let objects = (value as? any EntrySource)?.anyEntries ?? []
            var byKey: [String: DynamicObject] = [:]
            for (key, element) in objects { if let object = unwrapOptional(element) as? DynamicObject { byKey[key] = object } }
            return entries.compactMap { key, element in byKey[key].map { ($0, element, "\(place)[\(JSONValue.quoted(key))]") } }
        default:
            return []
        }
    }

    private func isEmbeddedLink(_ property: Property) -> Bool {
        property.type == .object && classes[property.objectClassName ?? ""]?.isEmbedded == true
    }

    /// Whether an `any` value in the export is a link or holds one.
    static func hasLink(_ value: JSONValue) -> Bool {
        switch value {
        case .object(let members): members.first?.0 == "$link" || members.contains { hasLink($0.1) }
        case .array(let elements): elements.contains(where: hasLink)
        default: false
        }
    }

    // MARK: Values

    /// What `dynamicCreate` or a property set takes for `value` of `property`, and whether
    /// links were left out of it. Without `resolving`, a link, or an `any` value holding one,
    /// is left out (nil), and so are the links of the embedded objects it makes; with it,
    /// links become the objects they name.
    private func convert(_ value: JSONValue, _ property: Property, place: String, resolving: Bool) throws(ToolError) -> (Any?, Bool) {
        let isLink = property.type == .object && !isEmbeddedLink(property)
        if !resolving, isLink || property.type == .any && Self.hasLink(value) {
            if case .null = value { return (nil, false) }
            return (nil, true)
        }
        var leftOut = false
        func element(_ value: JSONValue, _ at: String) throws(ToolError) -> Any {
            if case .null = value {
                guard property.isOptional || property.type == .any || property.collection == .map && property.type == .object else {
                    throw ToolError(message: "\(at) is null, but \(property.name) holds no nil.")
                }
                return property.type == .any ? AnyRealmValue.none : NSNull()
            }
            if isLink { return try link(value, to: property.objectClassName ?? "", place: at) }
            if property.type == .object {
                let (embedded, links) = try self.embedded(value, property, place: at, resolving: resolving)
                leftOut = leftOut || links
                return embedded
            }
            if property.type == .any { return try any(value, place: at) }
            return try Self.plain(value, property.type, place: at)
        }
        switch property.collection {
        case .single:
            if case .null = value, property.isOptional || property.type == .any || property.type == .object { return (NSNull(), false) }
            return (try element(value, place), leftOut)
        case .list, .set:
            guard case .array(let elements) = value else { throw ToolError(message: "\(place) is \(value.kind), not an array.") }
            var converted: [Any] = []
            for (index, item) in elements.enumerated() { converted.append(try element(item, "\(place)[\(index)]")) }
            return (converted, leftOut)
        case .map:
            guard case .object(let entries) = value else { throw ToolError(message: "\(place) is \(value.kind), not an object.") }
            var converted: [String: Any] = [:]
            for (key, item) in entries { converted[key] = try element(item, "\(place)[\(JSONValue.quoted(key))]") }
            return (converted, leftOut)
        }
    }

    /// The values of an embedded object for `dynamicCreate` (a dictionary), and whether links
    /// were left out of it.
    private func embedded(_ value: JSONValue, _ property: Property, place: String, resolving: Bool) throws(ToolError) -> ([String: Any], Bool) {
        guard let schema = classes[property.objectClassName ?? ""] else {
            throw ToolError(message: "\(place): no class \(property.objectClassName ?? "?") in \"classes\".")
        }
        guard case .object(let members) = value else { throw ToolError(message: "\(place) is \(value.kind), not an object.") }
        var values: [String: Any] = [:]
        var leftOut = false
        for (name, member) in members {
            let property = try self.property(name, of: schema, place: place)
            let (converted, links) = try convert(member, property, place: "\(place).\(name)", resolving: resolving)
            if let converted { values[name] = converted }
            leftOut = leftOut || links
        }
        return (values, leftOut)
    }

    /// The object a link names: by primary key, or by the `$key` it had in the export.
    private func link(_ value: JSONValue, to className: String, place: String) throws(ToolError) -> DynamicObject {
        guard let target = classes[className] else { throw ToolError(message: "\(place) links to \(className), a class not in \"classes\".") }
        if let key = target.primaryKeyProperty {
            let primaryKey = try Self.plain(value, key.type, place: place)
            guard let object = realm.dynamicObject(ofType: className, forPrimaryKey: primaryKey) else {
                throw ToolError(
                    message:
                        "\(place) links to the \(className) with primary key \(JSONWriter.text(of: ObjectEncoderValue.node(value))), which neither the import nor the file has."
                )
            }
            return object
        }
        guard case .integer(let key)? = value["$key"], key >= 0 else {
            throw ToolError(
                message:
                    "\(place) links to \(withArticle(className)), which has no primary key, so the link must be {\"$key\": N}; it is \(value.kind).")
        }
        guard let object = byExportKey[className]?[UInt64(key)] else {
            throw ToolError(message: "\(place) links to the \(className) with $key \(key), which the import does not have.")
        }
        return object
    }

    /// An `any` value from its JSON (tagged where JSON does not tell the type); its lists
    /// (`{"$list": [...]}`) and dictionaries (`{"$dictionary": {...}}`) read with a loop.
    private func any(_ value: JSONValue, place: String) throws(ToolError) -> AnyRealmValue {
        try NestedValues.fold(
            (value, place),
            shape: { (node: (JSONValue, String)) throws(ToolError) -> NestedValues.Shape<(JSONValue, String)> in
                guard case .object(let members) = node.0, members.count == 1, let (tag, inner) = members.first else { return .leaf }
                switch (tag, inner) {
                case ("$list", .array(let elements)):
                    return .list(elements.enumerated().map { ($1, "\(node.1)[\($0)]") })
                case ("$dictionary", .object(let entries)):
                    return .dictionary(entries.map { (key: $0.0, value: ($0.1, "\(node.1).\($0.0)")) })
                case ("$list", _), ("$dictionary", _):
                    throw ToolError(message: "\(node.1): \(tag) takes \(tag == "$list" ? "an array" : "an object"), not \(inner.kind).")
                default:
                    return .leaf
                }
            },
            leaf: { (node: (JSONValue, String)) throws(ToolError) -> AnyRealmValue in try scalarAny(node.0, place: node.1) },
            list: { (elements: [AnyRealmValue]) throws(ToolError) -> AnyRealmValue in .fromArray(elements) },
            dictionary: { (entries: [(key: String, value: AnyRealmValue)]) throws(ToolError) -> AnyRealmValue in
                .fromDictionary(Dictionary(entries.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 }))
            })
    }

    /// An `any` value that is no list or dictionary, from its JSON.
    private func scalarAny(_ value: JSONValue, place: String) throws(ToolError) -> AnyRealmValue {
        switch value {
        case .null: return .none
        case .bool(let flag): return .bool(flag)
        case .integer(let number): return .int(Int(number))
        case .number(let text):
            guard let number = Double(text) else { throw ToolError(message: "\(place): \(text) is not a double.") }
            return .double(number)
        case .string(let text): return .string(text)
        case .array: throw ToolError(message: "\(place) is an array; an any value holds one value.")
        case .object(let members):
            guard let (tag, inner) = members.first else {
                throw ToolError(message: "\(place) is an empty object; an any value is a tagged object such as {\"$oid\": …}.")
            }
            switch tag {
            case "$float": if let v = try Self.plain(inner, .float, place: place) as? Float { return .float(v) }
            case "$double": if let v = try Self.plain(inner, .double, place: place) as? Double { return .double(v) }
            case "$data": if let v = try Self.plain(inner, .data, place: place) as? Data { return .data(v) }
            case "$date": if let v = try Self.plain(inner, .date, place: place) as? Date { return .date(v) }
            case "$oid": if let v = try Self.plain(inner, .objectId, place: place) as? ObjectId { return .objectId(v) }
            case "$uuid": if let v = try Self.plain(inner, .uuid, place: place) as? UUID { return .uuid(v) }
            case "$decimal": if let v = try Self.plain(inner, .decimal128, place: place) as? Decimal128 { return .decimal128(v) }
            case "$link":
                guard case .string(let className) = inner, let target = classes[className] else {
                    throw ToolError(message: "\(place): $link names no class of \"classes\".")
                }
                let key: JSONValue = target.primaryKeyProperty == nil ? .object([("$key", value["$key"] ?? .null)]) : value["primaryKey"] ?? .null
                return .object(try link(key, to: className, place: place))
            default: break
            }
            throw ToolError(
                message:
                    "\(place): \(tag) is not a tag of an any value ($float, $double, $data, $date, $oid, $uuid, $decimal, $link, $list, $dictionary)."
            )
        }
    }

    /// A value of a plain type from its JSON. Throws `ToolError` naming the place and what
    /// was expected.
    static func plain(_ value: JSONValue, _ type: PropertyType, place: String) throws(ToolError) -> Any {
        func wrong(_ expected: String) -> ToolError {
            ToolError(message: "\(place) is \(value.kind); \(withArticle("\(type)")) property takes \(expected).")
        }
        switch (type, value) {
        case (.bool, .bool(let flag)): return flag
        case (.int, .integer(let number)):
            guard let int = Int(exactly: number) else { throw wrong("an integer") }
            return int
        case (.float, .integer(let number)): return Float(number)
        case (.float, .number(let text)):
            guard let number = Float(text) else { throw wrong("a number") }
            return number
        case (.float, .string(let text)):
            guard let number = nonFinite(text) else { throw wrong("a number, or \"NaN\", \"Infinity\", \"-Infinity\"") }
            return Float(number)
        case (.double, .integer(let number)): return Double(number)
        case (.double, .number(let text)):
            guard let number = Double(text) else { throw wrong("a number") }
            return number
        case (.double, .string(let text)):
            guard let number = nonFinite(text) else { throw wrong("a number, or \"NaN\", \"Infinity\", \"-Infinity\"") }
            return number
        case (.string, .string(let text)): return text
        case (.data, .string(let text)):
            guard let data = Data(base64Encoded: text) else { throw wrong("base64 text") }
            return data
        case (.date, .string(let text)):
            guard let date = DateText.date(text) else { throw wrong("an ISO 8601 date such as \"2024-05-01T12:30:00Z\"") }
            return date
        case (.objectId, .string(let text)):
            guard let id = try? ObjectId(string: text) else { throw wrong("24 hex digits") }
            return id
        case (.uuid, .string(let text)):
            guard let uuid = UUID(uuidString: text) else { throw wrong("a UUID") }
            return uuid
        case (.decimal128, .string(let text)), (.decimal128, .number(let text)):
            guard let decimal = try? Decimal128(string: text) else { throw wrong("a decimal number") }
            return decimal
        case (.decimal128, .integer(let number)): return Decimal128(number)
        case (.bool, _): throw wrong("true or false")
        case (.int, _): throw wrong("an integer")
        case (.float, _), (.double, _): throw wrong("a number")
        default: throw wrong("a string")
        }
    }

    private static func nonFinite(_ text: String) -> Double? {
        switch text {
        case "NaN": .nan
        case "Infinity": .infinity
        case "-Infinity": -.infinity
        default: nil
        }
    }
}

/// JSON values written back as text, for error messages.
enum ObjectEncoderValue {
    static func node(_ value: JSONValue) -> ValueNode {
        switch value {
        case .null: .null
        case .bool(let flag): .scalar(flag ? "true" : "false")
        case .integer(let number): .scalar(String(number))
        case .number(let text): .scalar(text)
        case .string(let text): .text(text)
        case .array(let elements): .elements(elements.map(node))
        case .object(let members): .members(members.map { ($0.0, node($0.1)) })
        }
    }
}
