import BurrowRealmFile
import BurrowStore
import Foundation

/// The work of one `.realm` import, inside its write transaction: the Burrow classes the file's
/// classes become, then every top-level object with its values but not its links, then the
/// links, with each embedded object made where its parent links to it.
struct RealmFileImporter {
    let realm: Realm
    let contents: RealmFileContents
    private(set) var imported: [RealmImportReport.ImportedClass] = []
    private(set) var omissions: [RealmImportReport.Omission] = []

    /// An object of the `.realm` file: its table's key and its key.
    private struct Address: Hashable {
        let table: Int
        let key: Int64
    }

    /// A class to import: the file's class, and for each of its columns carried, the Burrow
    /// property it fills.
    private struct Plan {
        let source: RealmFileContents.Class
        let columns: [(index: Int, property: Property)]
        var isEmbedded: Bool { source.table.kind == .embedded }
    }

    /// The top-level objects created, by their address in the `.realm` file.
    private var created: [Address: DynamicObject] = [:]
    /// The embedded objects' values, ready to be set on their parents, by address.
    private var embedded: [Address: [String: Any]] = [:]

    /// Told every 1,000 objects written.
    private let progress: (RealmImportProgress) -> Void
    private let total: Int
    private var written = 0

    init(realm: Realm, contents: RealmFileContents, progress: @escaping (RealmImportProgress) -> Void) {
        self.realm = realm
        self.contents = contents
        self.progress = progress
        total = contents.objectCount
    }

    /// Counts an object written, and tells `progress` at every 1,000th.
    private mutating func wrote() {
        written += 1
        if written % 1000 == 0 || written == total { progress(RealmImportProgress(written: written, total: total)) }
    }

    mutating func run() throws {
        let plans = try makeSchema()
        for plan in plans where !plan.isEmbedded {
            for object in plan.source.objects {
                var values: [String: Any] = [:]
                for (index, property) in plan.columns where !Self.involvesLinks(property) {
                    values[property.columnName] = try value(object.values[index], for: property, of: plan, object)
                }
                created[Address(table: plan.source.table.key, key: object.key)] = try realm.dynamicCreate(plan.source.name, value: values)
                wrote()
            }
        }
        try makeEmbeddedValues(plans)
        for plan in plans where !plan.isEmbedded {
            let links = plan.columns.filter { Self.involvesLinks($0.property) }
            guard !links.isEmpty else { continue }
            for object in plan.source.objects {
                guard let target = created[Address(table: plan.source.table.key, key: object.key)] else { continue }
                for (index, property) in links {
                    target[property.columnName] = try value(object.values[index], for: property, of: plan, object)
                }
            }
        }
        imported = plans.map { RealmImportReport.ImportedClass(className: $0.source.name, objectCount: $0.source.objects.count) }
            .sorted { $0.className < $1.className }
    }

    /// Whether a property's values may hold links, and so are set once every object exists.
    private static func involvesLinks(_ property: Property) -> Bool { property.type == .object || property.type == .any }

    // MARK: The schema

    /// The plans of the classes to import, after giving the Burrow file the `.realm` file's
    /// classes it lacks (a realm without model classes), or matching them to the model.
    private mutating func makeSchema() throws -> [Plan] {
        let hasModel = realm.configuration.objectTypes != nil
        var described: [ObjectSchema] = []
        var plans: [Plan] = []
        for source in contents.classes {
            if source.table.kind == .asymmetric {
                omit(
                    "class \(source.name)",
                    "it is an asymmetric class, whose objects only Device Sync uploads; its objects are not the app's to keep.")
                continue
            }
            var fileProperties: [(index: Int, property: Property)] = []
            for (index, column) in source.table.columns.enumerated() where column.type != .backlink {
                guard let property = fileProperty(column, isPrimary: index == source.table.primaryKey, of: source) else { continue }
                fileProperties.append((index, property))
            }
            guard hasModel else {
                described.append(
                    ObjectSchema(className: source.name, properties: fileProperties.map(\.property), isEmbedded: source.table.kind == .embedded))
                plans.append(Plan(source: source, columns: fileProperties))
                continue
            }
            guard let model = realm.schema[source.name] else {
                omit(
                    "class \(source.name)",
                    "the model has no class of that name: add it to the configuration's objectTypes to import its \(source.objects.count) objects.")
                continue
            }
            var columns: [(index: Int, property: Property)] = []
            for (index, property) in fileProperties {
                guard let declared = model.properties.first(where: { $0.columnName == property.name }) else {
                    omit("\(source.name).\(property.name)", "the model's class \(source.name) has no property of that name.")
                    continue
                }
                guard declared.type == property.type, declared.collection == property.collection,
                    declared.objectClassName == property.objectClassName
                else {
                    omit(
                        "\(source.name).\(property.name)",
                        "the model declares it as \(StoredProperty(declared).summary), the .realm file holds \(StoredProperty(property).summary).")
                    continue
                }
                columns.append((index, declared))
            }
            plans.append(Plan(source: source, columns: columns))
        }
        if !described.isEmpty { try realm.addStoredClasses(described) }
        return plans
    }

    /// The property a column of the `.realm` file is, or nil (with an omission) for one Burrow
    /// cannot store.
    private mutating func fileProperty(_ column: RealmColumn, isPrimary: Bool, of source: RealmFileContents.Class) -> Property? {
        let type: PropertyType
        var targetName: String?
        switch column.type {
        case .int: type = .int
        case .bool: type = .bool
        case .string: type = .string
        case .binary: type = .data
        case .timestamp: type = .date
        case .float: type = .float
        case .double: type = .double
        case .decimal: type = .decimal128
        case .objectId: type = .objectId
        case .uuid: type = .uuid
        case .mixed: type = .any
        case .link, .linkList:
            type = .object
            guard let target = column.targetTable.flatMap({ contents.class(tableKey: $0) }) else {
                omit("\(source.name).\(column.name)", "it links to a table that is not one of the app's classes.")
                return nil
            }
            targetName = target.name
        case .typedLink, .backlink:
            omit("\(source.name).\(column.name)", "it is a typed link, which RealmSwift's models never declare.")
            return nil
        }
        let collection: CollectionKind =
            switch column.collection {
            case .single: .single
            case .list: .list
            case .set: .set
            case .dictionary: .map
            }
        let indexable: Set<PropertyType> = [.int, .bool, .string, .date, .objectId, .uuid, .any]
        return Property(
            name: column.name, type: type,
            isOptional: type == .object ? collection == .single || collection == .map : type != .any && column.isNullable,
            collection: collection, objectClassName: targetName, isPrimary: isPrimary,
            isIndexed: column.isIndexed && !isPrimary && collection == .single && indexable.contains(type))
    }

    // MARK: Values

    /// Builds the values of every embedded object, each before its parent's, so that a parent's
    /// value holds its embedded objects' whole.
    private mutating func makeEmbeddedValues(_ plans: [Plan]) throws {
        let embeddedPlans = Dictionary(plans.filter(\.isEmbedded).map { ($0.source.table.key, $0) }, uniquingKeysWith: { first, _ in first })
        guard !embeddedPlans.isEmpty else { return }
        var objects: [Address: RealmObject] = [:]
        for plan in embeddedPlans.values {
            for object in plan.source.objects { objects[Address(table: plan.source.table.key, key: object.key)] = object }
        }
        // Depth first, children first, with a stack: an object is made once its embedded
        // children are.
        for start in objects.keys where embedded[start] == nil {
            var stack: [(Address, expanded: Bool)] = [(start, false)]
            while let (address, expanded) = stack.popLast() {
                guard embedded[address] == nil, let plan = embeddedPlans[address.table], let object = objects[address] else { continue }
                if !expanded {
                    stack.append((address, true))
                    for (index, property) in plan.columns where property.type == .object {
                        for child in Self.links(in: object.values[index]) where embeddedPlans[child.table] != nil && embedded[child] == nil {
                            stack.append((child, false))
                        }
                    }
                    continue
                }
                var values: [String: Any] = [:]
                for (index, property) in plan.columns {
                    values[property.columnName] = try value(object.values[index], for: property, of: plan, object)
                }
                embedded[address] = values
                wrote()
            }
        }
    }

    /// The addresses a value links to.
    private static func links(in value: RealmValue) -> [Address] {
        switch value {
        case .link(let table, let key): [Address(table: table, key: key)]
        case .list(let values), .set(let values): values.flatMap(links)
        case .dictionary(let entries): entries.flatMap { links(in: $0.value) }
        default: []
        }
    }

    /// `value` as the dynamic API takes it for `property`: plain values, `NSNull` for nil,
    /// arrays and dictionaries for collections, the created object (or an embedded object's
    /// values) for a link.
    private mutating func value(_ value: RealmValue, for property: Property, of plan: Plan, _ object: RealmObject) throws -> Any {
        let place = "\(plan.source.name) \(Self.name(of: object, in: plan.source)).\(property.name)"
        guard property.collection != .single else { return single(value, for: property, at: place) }
        switch value {
        case .list(let values), .set(let values):
            return values.compactMap { element -> Any? in
                // A list or set hides its links to deleted objects, as realm-core does.
                if case .link(_, let key) = element, key < 0 { return nil }
                return single(element, for: property, at: place)
            }
        case .dictionary(let entries):
            var map: [String: Any] = [:]
            for entry in entries { map[entry.key] = single(entry.value, for: property, at: place) }
            return map
        default:
            return single(value, for: property, at: place)
        }
    }

    /// One value (not a collection) for `property`.
    private mutating func single(_ value: RealmValue, for property: Property, at place: String) -> Any {
        if property.type == .any { return anyValue(value, at: place) }
        switch value {
        case .null: return NSNull()
        case .int(let value): return Int(value)
        case .bool(let value): return value
        case .float(let value): return value
        case .double(let value): return value
        case .string(let value): return value
        case .binary(let value): return Data(value)
        case .timestamp(let seconds, let nanoseconds): return Self.date(seconds, nanoseconds)
        case .decimal(let value): return value
        case .objectId(let value): return value
        case .uuid(let value): return value
        case .link(let table, let key):
            let address = Address(table: table, key: key)
            if let object = created[address] { return object }
            if let values = embedded[address] { return values }
            return NSNull()
        case .list, .set, .dictionary:
            omit(place, "a collection inside a collection, which \(StoredProperty(property).summary) cannot hold.")
            return NSNull()
        }
    }

    /// A value for an `AnyRealmValue` property, with the lists and dictionaries it may hold
    /// nested in each other. As in a list property, a nested list leaves out its links to
    /// objects deleted while linked; a nested dictionary holds nil for them.
    private mutating func anyValue(_ value: RealmValue, at place: String) -> AnyRealmValue {
        NestedValues.fold(
            value,
            shape: { value -> NestedValues.Shape<RealmValue> in
                switch value {
                case .list(let elements):
                    return .list(elements.filter { if case .link(_, let key) = $0, key < 0 { false } else { true } })
                case .dictionary(let entries): return .dictionary(entries.map { (key: $0.key, value: $0.value) })
                default: return .leaf
                }
            },
            leaf: { scalarAnyValue($0, at: place) },
            list: { AnyRealmValue.fromArray($0) },
            dictionary: { AnyRealmValue.fromDictionary(Dictionary($0, uniquingKeysWith: { first, _ in first })) })
    }

    /// A value for an `AnyRealmValue` property that holds no list or dictionary.
    private mutating func scalarAnyValue(_ value: RealmValue, at place: String) -> AnyRealmValue {
        switch value {
        case .null: return .none
        case .int(let value): return .int(Int(value))
        case .bool(let value): return .bool(value)
        case .float(let value): return .float(value)
        case .double(let value): return .double(value)
        case .string(let value): return .string(value)
        case .binary(let value): return .data(Data(value))
        case .timestamp(let seconds, let nanoseconds): return .date(Self.date(seconds, nanoseconds))
        case .decimal(let value): return .decimal128(value)
        case .objectId(let value): return .objectId(value)
        case .uuid(let value): return .uuid(value)
        case .link(let table, let key):
            return created[Address(table: table, key: key)].map { AnyRealmValue.object($0) } ?? .none
        case .set:
            omit(place, "a set inside an AnyRealmValue, which neither realm-core nor Burrow nests; it is imported as nil.")
            return .none
        case .list, .dictionary:
            preconditionFailure("anyValue(_:at:) folds lists and dictionaries")
        }
    }

    /// How a report names `object`: by its primary key, or by its key in the `.realm` file.
    private static func name(of object: RealmObject, in source: RealmFileContents.Class) -> String {
        guard let column = source.table.primaryKey else { return "#\(object.key)" }
        switch object.values[column] {
        case .string(let key): return "'\(key)'"
        case .int(let key): return "\(key)"
        case .objectId(let key): return "\(key)"
        case .uuid(let key): return key.uuidString
        default: return "#\(object.key)"
        }
    }

    /// realm-core's timestamp as a `Date`.
    private static func date(_ seconds: Int64, _ nanoseconds: Int32) -> Date {
        Date(timeIntervalSince1970: Double(seconds) + Double(nanoseconds) / 1_000_000_000)
    }

    /// Reports what was left out, once however many of its values were.
    private mutating func omit(_ what: String, _ reason: String) {
        let omission = RealmImportReport.Omission(what: what, reason: reason)
        if omissions.last != omission { omissions.append(omission) }
    }
}
