import BurrowStorage
import BurrowStore
@_spi(Reflection) import Swift

/// What Burrow knows about one Swift class: its schema, discovered from its `@Persisted`
/// declarations, and where each of those properties lives inside an instance.
///
/// Discovery reads the class's stored fields from the Swift runtime's reflection metadata (name,
/// offset, type; superclasses included), keeps those whose type is `Persisted<…>`, and creates
/// one prototype instance to read the options given in the declarations (`primaryKey:`,
/// `indexed:`, `originProperty:`). It runs once per class per process.
final class ClassInfo: Sendable {
    /// One `@Persisted` field: its byte offset in an instance, and its `Persisted<Value>` type.
    struct Field: Sendable {
        let offset: Int
        let accessor: any PersistedField.Type
        /// The offset of the field's `managedProperty` in an instance.
        let bindOffset: Int
    }

    let type: ObjectBase.Type
    /// The class's public schema (`LinkingObjects` apart, in `computedProperties`).
    let schema: ObjectSchema
    /// The class as the store sees it: its name, its properties in declaration order
    /// (`LinkingObjects` included; property `i` of the class, whose accessor is `fields[i]`),
    /// its primary key, whether it is embedded.
    let declared: DeclaredClass
    /// Parallel to `properties`.
    let fields: [Field]
    /// For each property, the class it links to (links, collections of links, LinkingObjects).
    let linkedTypes: [ObjectBase.Type?]
    /// The properties whose unmanaged values can hold objects (links, `AnyRealmValue`,
    /// collections): what a managed object lets go of once its transaction commits.
    let objectHoldingProperties: [Int]
    /// The `List`, `MutableSet` and `Map` properties (see `HeldCollection`).
    let collectionProperties: [Int]
    /// Why the class cannot be stored, if it cannot; opening a realm with it throws this.
    let problem: RealmError?
    /// For a class read through the schema the file stores (`DynamicObject`), that schema:
    /// where the classes it links to are found. Nil for a Swift class.
    let dynamicSchema: FileSchema?

    /// Whether this is a class read through the stored schema alone, as `DynamicObject`s
    /// (`dynamicSchema` is set): asked on the paths every object takes, so kept as a flag.
    let isDynamic: Bool

    var name: String { schema.className }
    /// Every `@Persisted` property, `LinkingObjects` included, in declaration order.
    var properties: [Property] { declared.properties }
    var propertyIndex: [String: Int] { declared.propertyIndex }
    var primaryKey: Int? { declared.primaryKey }

    /// The index of the property named `name`, if the class has one.
    func propertyIndex(named name: String) -> Int? { declared.propertyIndex(named: name) }
    /// The index of the stored property the file stores under `columnName`.
    func propertyIndex(columnNamed columnName: String) -> Int? { declared.propertyIndex(columnNamed: columnName) }
    /// The name the file stores the property named `name` under (`name` if there is none).
    func columnName(of name: String) -> String { propertyIndex(named: name).map { properties[$0].columnName } ?? name }
    var isEmbedded: Bool { schema.isEmbedded }

    /// Every class discovered in this process, by Swift type and by stored name.
    private struct Registry {
        var byType: [ObjectIdentifier: ClassInfo] = [:]
        var byName: [String: ClassInfo] = [:]
    }

    private static let registry = Locked(Registry())

    /// The class's info, discovered on first use. Discovering a class also discovers the
    /// classes it links to, so that links read from a file find their Swift class.
    static func of(_ type: ObjectBase.Type) -> ClassInfo {
        let id = ObjectIdentifier(type)
        let memo = ThreadMemo.current
        if let known = memo.classes.value(for: id) { return known }
        if let known = registry.withLock({ $0.byType[id] }) {
            memo.classes.add(id, known)
            return known
        }
        let info = HeldValueRelease.discovering { ClassInfo(discovering: type) }
        let (registered, isNew) = registry.withLock { registry in
            if let raced = registry.byType[id] { return (raced, false) }
            registry.byType[id] = info
            registry.byName[info.name] = registry.byName[info.name] ?? info
            return (info, true)
        }
        if isNew {
            for case let linked? in info.linkedTypes { _ = of(linked) }
        }
        return registered
    }

    /// The discovered class stored under `name`, if any.
    static func named(_ name: String) -> ClassInfo? {
        registry.withLock { $0.byName[name] }
    }

    /// The name `type` is stored under.
    static func storedName(of type: ObjectBase.Type) -> String {
        type._realmObjectName() ?? String(describing: type)
    }

    private init(discovering type: ObjectBase.Type) {
        self.type = type
        let name = Self.storedName(of: type)
        let isEmbedded = type is EmbeddedObject.Type
        let prototype = type.init()
        let base = Unmanaged.passUnretained(prototype).toOpaque()

        var properties: [Property] = []
        var fields: [Field] = []
        var linked: [ObjectBase.Type?] = []
        var problems: [String] = []
        var columnNames = type.propertiesMapping()
        // 1: `_EachFieldOptions.classType`, spelled by value because the option is a mutable static.
        _ = _forEachField(of: type, options: _EachFieldOptions(rawValue: 1)) { label, offset, fieldType, _ in
            guard let accessor = fieldType as? any PersistedField.Type else { return true }
            var propertyName = String(cString: label)
            if propertyName.hasPrefix("_") { propertyName.removeFirst() }
            let shape = accessor.shape
            let options = accessor.options(at: base + offset)
            let linkedName = shape.objectType.map { Self.storedName(of: $0) }
            // A `LinkingObjects` follows its origin property as the file stores it.
            let origin = options.origin.map { origin in shape.objectType?.propertiesMapping()[origin] ?? origin }
            let property = Property(
                name: propertyName, type: shape.type, isOptional: shape.isOptionalInSchema, collection: shape.collection,
                objectClassName: linkedName, linkOriginPropertyName: origin,
                isPrimary: options.primaryKey, isIndexed: options.indexed || options.primaryKey,
                columnName: columnNames.removeValue(forKey: propertyName))
            problems += Self.check(property, shape: shape, in: name, embedded: isEmbedded)
            properties.append(property)
            fields.append(Field(offset: offset, accessor: accessor, bindOffset: offset + accessor.managedPropertyOffset))
            linked.append(shape.objectType)
            return true
        }
        withExtendedLifetime(prototype) {}

        problems += Self.checkColumnNames(properties, unused: columnNames.keys, in: name)
        let primaryKeys = properties.indices.filter { properties[$0].isPrimary }
        if primaryKeys.count > 1 {
            problems.append(
                "\(name) declares \(primaryKeys.count) primary keys (\(primaryKeys.map { properties[$0].name }.joined(separator: ", "))); a class has at most one."
            )
        }
        if properties.isEmpty {
            problems.append("\(name) has no @Persisted properties; declare its stored properties with @Persisted.")
        }
        schema = ObjectSchema(className: name, declared: properties, isEmbedded: isEmbedded)
        declared = DeclaredClass(name: name, properties: properties, isEmbedded: isEmbedded)
        self.fields = fields
        self.linkedTypes = linked
        objectHoldingProperties = properties.indices.filter {
            properties[$0].type != .linkingObjects
                && (properties[$0].type == .object || properties[$0].type == .any || properties[$0].collection != .single)
        }
        collectionProperties = properties.indices.filter {
            properties[$0].type != .linkingObjects && properties[$0].collection != .single
        }
        problem = problems.isEmpty ? nil : RealmError(.schemaMismatch, "The class \(name) cannot be stored: " + problems.joined(separator: " "))
        dynamicSchema = nil
        isDynamic = false
    }

    /// The class `stored` as the file stores it, read and written as `DynamicObject`s: its
    /// properties are the stored ones, in field order, and it has no Swift fields (a dynamic
    /// object reads every property through its row). `schema` is the file's schema, in which
    /// the classes it links to are found.
    init(dynamic stored: StoredClass, in schema: FileSchema) {
        let objectSchema = ObjectSchema(stored)
        let properties = objectSchema.properties
        type = DynamicObject.self
        self.schema = objectSchema
        declared = DeclaredClass(dynamic: stored)
        fields = []
        linkedTypes = properties.map { _ in nil }
        // A dynamic object holds no unmanaged values of its own (see `DynamicObject`).
        objectHoldingProperties = []
        collectionProperties = []
        problem = nil
        dynamicSchema = schema
        isDynamic = true
    }

    /// The class that property `property` links to (a link, a collection of links or
    /// `LinkingObjects`), if it is known: a Swift class's linked class, or for a dynamic class
    /// the stored class of that name, dynamic too.
    func linkedInfo(_ property: Int) -> ClassInfo? {
        if let dynamicSchema {
            return properties[property].objectClassName.flatMap { dynamicSchema.classes[$0] }.map { ClassInfo(dynamic: $0, in: dynamicSchema) }
        }
        return linkedTypes[property].map { ClassInfo.of($0) }
    }

    /// What is wrong with the column names `properties` have from `propertiesMapping()`, which
    /// also named the properties `unused` that the class does not have.
    private static func checkColumnNames(_ properties: [Property], unused: some Collection<String>, in className: String) -> [String] {
        var problems: [String] = []
        if !unused.isEmpty {
            problems.append(
                "propertiesMapping() names \(unused.sorted().map { "'\($0)'" }.joined(separator: ", ")), which \(unused.count == 1 ? "is not a property" : "are not properties") of \(className) (its properties: \(properties.map(\.name).joined(separator: ", ")))."
            )
        }
        var owners: [String: String] = [:]
        for property in properties where property.columnName != property.name {
            if property.type == .linkingObjects {
                problems.append("propertiesMapping() gives LinkingObjects property '\(property.name)' a stored name, but it is not stored.")
            } else if property.columnName.isEmpty {
                problems.append("propertiesMapping() gives property '\(property.name)' an empty stored name.")
            }
        }
        for property in properties where property.type != .linkingObjects {
            if let owner = owners.updateValue(property.name, forKey: property.columnName) {
                problems.append(
                    "Properties '\(owner)' and '\(property.name)' would both be stored as '\(property.columnName)'; give each its own name in propertiesMapping()."
                )
            }
        }
        return problems
    }

    private static let primaryKeyTypes: Set<PropertyType> = [.int, .string, .objectId, .uuid]
    private static let indexableTypes: Set<PropertyType> = [.bool, .int, .string, .objectId, .uuid, .date, .any]

    /// The rules RealmSwift enforces on property declarations.
    private static func check(_ p: Property, shape: _PropertyShape, in className: String, embedded: Bool) -> [String] {
        var problems: [String] = []
        let what = "Property '\(p.name)'"
        if shape.isProjection {
            problems.append(
                "\(what) is a Projection, which views an object and cannot be stored; store the \(p.objectClassName ?? "object") it projects."
            )
        }
        if p.type == .object, p.collection == .single, !p.isOptional {
            problems.append("\(what) links to \(p.objectClassName ?? "an object") and must be optional (\(p.objectClassName ?? "Object")?).")
        }
        if p.type == .object, p.collection == .set, shape.objectType is EmbeddedObject.Type {
            problems.append("\(what) is a MutableSet of embedded objects; embedded objects can be in a List or a Map, not a set.")
        }
        if p.type == .object, p.collection == .list, p.isOptional {
            problems.append("\(what) is a List of optional objects; lists of links hold objects, not nil.")
        }
        if p.isPrimary {
            if embedded {
                problems.append("\(what) is a primary key, but \(className) is an EmbeddedObject, which cannot have one.")
            } else if p.collection != .single || !primaryKeyTypes.contains(p.type) {
                problems.append("\(what) cannot be a primary key: primary keys are Int, String, ObjectId or UUID (or optionals of them).")
            }
        } else if p.isIndexed, p.collection != .single || !indexableTypes.contains(p.type) {
            problems.append("\(what) cannot be indexed: indexes hold Bool, integers, String, Date, ObjectId, UUID and AnyRealmValue.")
        }
        if p.type == .linkingObjects, p.linkOriginPropertyName == nil {
            problems.append("\(what) is LinkingObjects; declare it with @Persisted(originProperty: \"…\").")
        }
        return problems
    }

    /// Makes every `@Persisted` field of `object` (an instance of this class) read and write
    /// the realm, or (`managed: false`, a cancelled add) hold its unmanaged value again, as do
    /// the collection instances the add made managed (`HeldCollection`).
    func bind(_ object: ObjectBase, managed: Bool) {
        let base = Unmanaged.passUnretained(object).toOpaque()
        for (property, field) in fields.enumerated() {
            (base + field.bindOffset).storeBytes(of: managed ? property : -1, as: Int.self)
        }
        if !managed {
            for property in collectionProperties {
                fields[property].accessor.heldCollection(at: base + fields[property].offset)?.release(from: object)
            }
        }
    }

    /// Makes the `List`, `MutableSet` and `Map` instances that the fields of `object` (an
    /// instance of this class, just added, whose collections' content is in the realm) held
    /// while it was unmanaged its managed collections (`HeldCollection`).
    func adoptHeldCollections(of object: ObjectBase) {
        let base = Unmanaged.passUnretained(object).toOpaque()
        for property in collectionProperties {
            fields[property].accessor.heldCollection(at: base + fields[property].offset)?.adopt(owner: object, property: property)
        }
    }

    /// Makes the managed `object` (an instance of this class) let go of the unmanaged values
    /// its links and collections held before it was added. Its realm reads them from now on,
    /// and a long chain of objects added together is then freed one object at a time, not
    /// recursively through each object's fields. The collection instances it made managed
    /// let go of their unmanaged elements likewise.
    func dropUnmanagedValues(of object: ObjectBase) {
        let base = Unmanaged.passUnretained(object).toOpaque()
        for property in collectionProperties {
            fields[property].accessor.heldCollection(at: base + fields[property].offset)?.commitAdoption(by: object)
        }
        for property in objectHoldingProperties {
            fields[property].accessor.dropUnmanagedValue(at: base + fields[property].offset)
        }
    }

    /// A pointer to field `property` of `object`, which must be an instance of this class.
    @inline(__always)
    func fieldPointer(_ object: ObjectBase, _ property: Int) -> UnsafeMutableRawPointer {
        Unmanaged.passUnretained(object).toOpaque() + fields[property].offset
    }
}
