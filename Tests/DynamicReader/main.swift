// A program that declares no model class: it opens the file named by its first argument with
// no `objectTypes` and prints every class the file stores, its properties, and every object
// with every value, read through the dynamic API alone. With `--add`, it then creates a pet
// and gives it to the second person, through the dynamic API too. `DynamicReaderTests` writes
// the file with Swift classes and compares what this prints.
import Burrow
import Foundation

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: DynamicReader <file> [--add]\n".utf8))
    exit(2)
}
let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: arguments[1])))

/// A property's type as `name:type`, e.g. `pets:list<object<DRPet>>`, `age:int?`, `id:objectId!`
/// for the primary key.
func describe(_ property: Property) -> String {
    var type = property.type.rawValue
    if let linked = property.objectClassName { type += "<\(linked)>" }
    if property.isOptional { type += "?" }
    switch property.collection {
    case .single: break
    case .list: type = "list<\(type)>"
    case .set: type = "set<\(type)>"
    case .map: type = "map<\(type)>"
    }
    return "\(property.name):\(type)\(property.isPrimary ? "!" : "")"
}

/// `value` without the optional around it, or nil for an optional holding nothing.
func unwrap(_ value: Any?) -> Any? {
    guard let value else { return nil }
    let mirror = Mirror(reflecting: value)
    guard mirror.displayStyle == .optional else { return value }
    return mirror.children.first.flatMap { unwrap($0.value) }
}

func elements<S: Sequence>(_ sequence: S) -> [Any] { sequence.map { $0 as Any } }

/// The objects of class `schema`: sorted by primary key if it has one (objects with a primary
/// key have no order of their own), else in the order the file keeps them.
@MainActor func objects(of schema: ObjectSchema) -> Results<DynamicObject> {
    let all = realm.dynamicObjects(schema.className)
    return schema.primaryKeyProperty.map { all.sorted(byKeyPath: $0.name) } ?? all
}

/// A value as text: links as `Class#index` (the object's place in `objects(of:)`), embedded
/// objects inline.
@MainActor func render(_ value: Any?) -> String {
    guard let value = unwrap(value) else { return "nil" }
    switch value {
    case let v as Bool: return v ? "true" : "false"
    case let v as Int: return "\(v)"
    case let v as Float: return "f\(v)"
    case let v as Double: return "d\(v)"
    case let v as String: return String(reflecting: v)
    case let v as Data: return "data(\(v.map { String(format: "%02x", $0) }.joined()))"
    case let v as Date: return "date(\(v.timeIntervalSince1970))"
    case let v as ObjectId: return "oid(\(v.stringValue))"
    case let v as UUID: return "uuid(\(v.uuidString))"
    case let v as Decimal128: return "dec(\(v))"
    case let v as DynamicObject:
        let schema = v.objectSchema
        if schema.isEmbedded { return "{\(renderProperties(of: v, schema))}" }
        let index = objects(of: schema).firstIndex { $0.isSameObject(as: v) }
        return "\(schema.className)#\(index.map(String.init) ?? "?")"
    default: return "unexpected \(type(of: value))"
    }
}

@MainActor func renderProperties(of object: DynamicObject, _ schema: ObjectSchema) -> String {
    schema.properties.map { property -> String in
        let value = object[property.name]
        let text: String
        switch property.collection {
        case .single:
            text = render(value)
        case .list, .set:
            guard let sequence = value as? any Sequence else { return "\(property.name)=not a collection: \(String(describing: value))" }
            let items = elements(sequence).map(render)
            text = property.collection == .list ? "[\(items.joined(separator: ", "))]" : "{\(items.sorted().joined(separator: ", "))}"
        case .map:
            guard let sequence = value as? any Sequence else { return "\(property.name)=not a map: \(String(describing: value))" }
            let entries = elements(sequence).map { entry -> String in
                let parts = Mirror(reflecting: entry).children.map(\.value)
                guard parts.count == 2 else { return "not an entry: \(entry)" }
                return "\(render(parts[0])): \(render(parts[1]))"
            }
            text = "[\(entries.sorted().joined(separator: ", "))]"
        }
        return "\(property.name)=\(text)"
    }.joined(separator: " ")
}

for schema in realm.schema.objectSchema.sorted(by: { $0.className < $1.className }) {
    print("class \(schema.className)\(schema.isEmbedded ? " embedded" : "") \(schema.properties.map(describe).joined(separator: " "))")
    if schema.isEmbedded { continue }
    for (index, object) in objects(of: schema).enumerated() {
        print("\(schema.className)#\(index) \(renderProperties(of: object, schema))")
    }
}

if arguments.contains("--add") {
    try realm.write {
        let person = realm.dynamicObjects("DRPerson")[1]
        let pet = try realm.dynamicCreate("DRPet", value: ["tag": "kit", "kind": "cat", "weight": 0.5, "owner": person])
        (person["pets"] as! List<DynamicObject>).append(pet)
    }
    print("added")
}
