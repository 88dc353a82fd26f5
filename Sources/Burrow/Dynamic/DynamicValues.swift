import BurrowStorage
import BurrowStore
import Foundation

/// Reading and setting the properties of dynamic objects by the stored schema alone: what a
/// property's stored type makes of a value read from its row, and what a loosely typed value
/// given for it is stored as.
enum DynamicValues {
    // MARK: Reading

    /// Property `property` of the managed dynamic `object` (of class `info`), as
    /// `DynamicObject` documents it: an `AnyRealmValue` holding a list or dictionary reads as
    /// that live `List<AnyRealmValue>` or `Map<String, AnyRealmValue>`.
    static func value(of object: ObjectBase, _ property: Int, _ info: ClassInfo) -> Any? {
        let stored = info.properties[property]
        let element = elementType(stored)
        switch stored.collection {
        case .single:
            let value = object._readField(property)
            guard value.isNestedCollection else { return plain(value) }
            // A list or dictionary an AnyRealmValue holds: the live collection.
            switch AnyRealmValue._get(object, property) {
            case .list(let list): return list
            case .dictionary(let dictionary): return dictionary
            default: return nil
            }
        case .list: return list(element, object, property)
        case .set: return set(element, object, property)
        case .map: return map(element, object, property)
        }
    }

    /// A stored value as a dynamic object's property reads: nil, the linked object, or the
    /// plain value (integers as `Int`).
    static func plain(_ value: _StoredValue) -> Any? {
        switch value {
        case .null: nil
        case .object(let object): object
        default: value.plainValue
        }
    }

    /// The Swift type that elements of a collection of `property`'s stored type read as.
    static func elementType(_ property: Property) -> any _Persistable.Type {
        let optional = property.isOptional
        switch property.type {
        case .bool: return optional ? Bool?.self : Bool.self
        case .int: return optional ? Int?.self : Int.self
        case .float: return optional ? Float?.self : Float.self
        case .double: return optional ? Double?.self : Double.self
        case .string: return optional ? String?.self : String.self
        case .data: return optional ? Data?.self : Data.self
        case .date: return optional ? Date?.self : Date.self
        case .objectId: return optional ? ObjectId?.self : ObjectId.self
        case .uuid: return optional ? UUID?.self : UUID.self
        case .decimal128: return optional ? Decimal128?.self : Decimal128.self
        case .any: return AnyRealmValue.self
        // A map's links read as optionals (a key may hold nil), as in RealmSwift.
        case .object, .linkingObjects: return property.collection == .map ? DynamicObject?.self : DynamicObject.self
        }
    }

    private static func list<Element: _Persistable>(_: Element.Type, _ object: ObjectBase, _ property: Int) -> Any {
        List<Element>(owner: object, property: property)
    }

    private static func set<Element: _Persistable>(_: Element.Type, _ object: ObjectBase, _ property: Int) -> Any {
        MutableSet<Element>(owner: object, property: property)
    }

    private static func map<Value: _Persistable>(_: Value.Type, _ object: ObjectBase, _ property: Int) -> Any {
        Map<String, Value>(owner: object, property: property)
    }

    // MARK: Setting

    /// Sets property `property` of the dynamic `object` (of class `info`) to `value`: in the
    /// realm's open write transaction for a managed object, among the values to add for an
    /// unmanaged one. Throws when the value cannot be the property's.
    static func set(_ object: ObjectBase, _ property: Int, _ value: Any, _ info: ClassInfo) throws(RealmError) {
        guard let state = object._state else {
            guard let dynamic = object as? DynamicObject, var pending = dynamic.pending else { return }
            pending.fields[property] = try unmanagedField(value, info.properties[property])
            pending.given[property] = true
            dynamic.pending = pending
            return
        }
        guard let realm = state.liveRealm else {
            preconditionFailure("Cannot modify a frozen object: frozen objects are read-only. Thaw it in a realm's write transaction first.")
        }
        state.checkCurrent(in: realm)
        let name = info.properties[property].name
        // A collection set to itself stays as it is (replacing it would first delete the
        // embedded objects it holds).
        if let collection = value as? any HeldCollection, let binding = collection.binding, let owner = binding.owner._state,
            owner.isManaged(by: realm), owner.key == state.key, owner.table.id == state.table.id,
            binding.owner.classInfo.properties[binding.property].name == name
        {
            _ = realm.requireWrite()
            return
        }
        let content = try content(value, for: info.properties[property], in: realm)
        realm.writeField(state.table, state.key, property, content)
    }

    /// What a field of `property` is set to from `value`: one value, or a collection's elements
    /// or entries (nil empties a collection).
    static func content(_ value: Any, for property: Property, in realm: Realm) throws(RealmError) -> FieldContent<ObjectBase> {
        let value = unwrapped(value)
        switch property.collection {
        case .single:
            return .single(try single(value, property, in: realm))
        case .list, .set:
            if StoredValueConversion.isNil(value) { return .elements([]) }
            guard let elements = elements(of: value) else {
                throw RealmError(
                    .invalidArgument,
                    "Property '\(property.name)' is \(property.collection == .list ? "a List" : "a MutableSet"); give an array or a collection of its elements, not \(StoredValueConversion.describe(value))."
                )
            }
            var converted: [_StoredValue] = []
            converted.reserveCapacity(elements.count)
            for element in elements { converted.append(try single(element, property, in: realm)) }
            return .elements(converted)
        case .map:
            if StoredValueConversion.isNil(value) { return .entries([]) }
            let entries: [(key: String, value: Any)]
            if let dictionary = value as? [String: Any] {
                entries = dictionary.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
            } else if let map = value as? any DynamicMapSource {
                entries = map.dynamicEntries
            } else {
                throw RealmError(
                    .invalidArgument,
                    "Property '\(property.name)' is a Map; give a dictionary with String keys or another map, not \(StoredValueConversion.describe(value))."
                )
            }
            var converted: [(key: String, value: _StoredValue)] = []
            converted.reserveCapacity(entries.count)
            for entry in entries { converted.append((entry.key, try single(entry.value, property, in: realm))) }
            return .entries(converted)
        }
    }

    /// The elements of an array or of a collection given for a list or a set (not a string,
    /// nor a dictionary, which are sequences too).
    private static func elements(of value: Any) -> [Any]? {
        if let array = value as? [Any] { return array }
        if value is String || value is [String: Any] { return nil }
        guard let sequence = value as? any Sequence else { return nil }
        return sequence.map { $0 as Any }
    }

    /// One value of `property` (the value of a single property, or an element of a
    /// collection): a link as the object it links to (a dictionary or an array as a new
    /// object of the linked class), anything else in stored form.
    static func single(_ value: Any, _ property: Property, in realm: Realm?) throws(RealmError) -> _StoredValue {
        let value = unwrapped(value)
        let isLink = property.type == .object || property.type == .any && value is ObjectBase && !StoredValueConversion.isSwiftCollection(value)
        guard isLink, !StoredValueConversion.isNil(value) else {
            let shape = _PropertyShape(property.type, optional: property.isOptional || property.type == .any)
            do {
                return try StoredValueConversion.convert(value, to: shape, property: property.name)
            } catch {
                // A value of a persistable type of its own (a `PersistableEnum`): its stored form.
                guard let persistable = value as? any _Persistable, !(value is ObjectBase), let plain = persistable._stored.plainValue else {
                    throw error
                }
                return try StoredValueConversion.convert(plain, to: shape, property: property.name)
            }
        }
        let className = property.type == .object ? property.objectClassName : nil
        if StoredValueConversion.isSwiftCollection(value) {
            guard let className, let realm, let table = try realm.dynamicTable(creating: className) else {
                throw RealmError(
                    .invalidArgument,
                    "Property '\(property.name)' links to \(className ?? "an object"); a dictionary or an array makes one only where the property's class is known."
                )
            }
            let object = try DynamicObject(unmanaged: table.info, value: value, defaults: realm.swiftDefaults(of: className))
            try prepare(object, in: realm)
            return .object(object)
        }
        guard var object = value as? ObjectBase else {
            throw RealmError(
                .invalidArgument,
                "Property '\(property.name)' links to \(className ?? "an object"); give an object, or a dictionary or an array of its values, not \(StoredValueConversion.describe(value))."
            )
        }
        if let counterpart = try realm?.migrationCounterpart(of: object) { object = counterpart }
        let objectClass = object.classInfo.name
        if let className, objectClass != className {
            throw RealmError(.invalidArgument, "Property '\(property.name)' links to \(className), but the value is \(withArticle(objectClass)).")
        }
        return .object(object)
    }

    /// The field an unmanaged dynamic object holds for `property` from `value`: a single
    /// value in stored form (converted now, so that a wrong one is thrown before anything is
    /// written), or a link or a collection as given, converted when set on the added object.
    static func unmanagedField(_ value: Any, _ property: Property) throws(RealmError) -> _UnmanagedField {
        let value = unwrapped(value)
        let isNil = StoredValueConversion.isNil(value)
        if property.collection != .single || property.type == .object || property.type == .any {
            let isEmpty = isNil || (value as? [Any])?.isEmpty == true || (value as? [String: Any])?.isEmpty == true
            return _UnmanagedField(value: value, stored: nil, isEmpty: isEmpty)
        }
        return _UnmanagedField(value: value, stored: try single(value, property, in: nil), isEmpty: false)
    }
}

extension DynamicValues {
    /// Checks every value of the unmanaged dynamic object `root` and of the objects its values
    /// make, and turns each dictionary or array given for a link into the unmanaged dynamic
    /// object it makes, so that a value that cannot be stored is thrown before anything is
    /// written. The objects wait in a worklist, so that a chain of any depth takes the same
    /// stack as one object. With `copyingEmbedded`, a managed embedded object among the values
    /// becomes an unmanaged copy of it too (a copy of an object takes copies of what it embeds).
    static func prepare(_ root: DynamicObject, in realm: Realm, copyingEmbedded: Bool = false) throws(RealmError) {
        var pending: [DynamicObject] = [root]
        while let object = pending.popLast() {
            guard var values = object.pending else { continue }
            for (index, property) in values.info.properties.enumerated() where values.fields[index].stored == nil {
                let value = unwrapped(values.fields[index].value)
                if StoredValueConversion.isNil(value) { continue }
                // One value of the property, checked; a link as the object it makes.
                func checked(_ element: Any) throws(RealmError) -> Any {
                    let element = unwrapped(element)
                    if copyingEmbedded, let embedded = element as? ObjectBase, embedded._state != nil, embedded.classInfo.isEmbedded,
                        let source = embedded.dynamicView, let table = realm.store.dynamicTable(named: embedded.classInfo.name)
                    {
                        let made = try DynamicObject(unmanaged: table.info, value: source, defaults: nil)
                        pending.append(made)
                        return made
                    }
                    guard property.type == .object, StoredValueConversion.isSwiftCollection(element) else {
                        _ = try single(element, property, in: nil)
                        return element
                    }
                    guard let className = property.objectClassName, let table = try realm.dynamicTable(creating: className) else {
                        throw RealmError(
                            .invalidArgument,
                            "Property '\(property.name)' links to \(property.objectClassName ?? "an object"); a dictionary or an array makes one only where the property's class is known."
                        )
                    }
                    let made = try DynamicObject(unmanaged: table.info, value: element, defaults: realm.swiftDefaults(of: className))
                    pending.append(made)
                    return made
                }
                switch property.collection {
                case .single:
                    values.fields[index] = _UnmanagedField(value: try checked(value), stored: nil, isEmpty: false)
                case .list, .set:
                    guard let elements = elements(of: value) else { continue }  // thrown when set
                    var made: [Any] = []
                    made.reserveCapacity(elements.count)
                    for element in elements { made.append(try checked(element)) }
                    values.fields[index] = _UnmanagedField(value: made, stored: nil, isEmpty: made.isEmpty)
                case .map:
                    let entries: [(key: String, value: Any)]
                    if let dictionary = value as? [String: Any] {
                        entries = dictionary.map { ($0.key, $0.value) }
                    } else if let map = value as? any DynamicMapSource {
                        entries = map.dynamicEntries
                    } else {
                        continue  // thrown when set
                    }
                    var made: [String: Any] = [:]
                    for (key, element) in entries { made[key] = try checked(element) }
                    values.fields[index] = _UnmanagedField(value: made, stored: nil, isEmpty: made.isEmpty)
                }
            }
            object.pending = values
        }
    }

    /// `value` without the optionals around it (a value handed on through `Any?` parameters
    /// arrives as an optional boxed in `Any`), or `NSNull()` for an optional holding nothing.
    static func unwrapped(_ value: Any) -> Any {
        var value = value
        while let optional = value as? any OptionalValue {
            guard let wrapped = optional.wrappedAny else { return NSNull() }
            value = wrapped
        }
        return value
    }
}

/// A map whose entries a dynamic map property can be set from.
protocol DynamicMapSource {
    var dynamicEntries: [(key: String, value: Any)] { get }
}

extension Map: DynamicMapSource where Key == String {
    var dynamicEntries: [(key: String, value: Any)] { map { ($0.key, $0.value as Any) } }
}

extension DynamicObject {
    /// An unmanaged dynamic object of class `info` (a stored class) with the values `value`
    /// gives: a dictionary keyed by property name, an array in the stored property order, or
    /// another object with properties of the same names. A property not given takes its
    /// value in `defaults` (an instance of the Swift class stored under that name, if the
    /// program has one), else nil or empty; a required value with neither is an error, as in
    /// RealmSwift.
    convenience init(unmanaged info: ClassInfo, value: Any, defaults: ObjectBase?) throws(RealmError) {
        self.init()
        let properties = info.properties
        var given = [Any?](repeating: nil, count: properties.count)
        var isGiven = [Bool](repeating: false, count: properties.count)
        switch value {
        case let dictionary as [String: Any]:
            for (key, element) in dictionary {
                guard let property = info.propertyIndex[key] else {
                    throw RealmError(
                        .invalidArgument,
                        "\(info.name) has no property '\(key)'. Its properties are: \(properties.map(\.name).joined(separator: ", ")).")
                }
                given[property] = element
                isGiven[property] = true
            }
        case let array as [Any]:
            guard array.count <= properties.count else {
                throw StoredValueConversion.tooManyValues(for: info.name, stored: properties.count, given: array.count)
            }
            for (property, element) in array.enumerated() {
                given[property] = element
                isGiven[property] = true
            }
        case let object as ObjectBase:
            let source = object.classInfo
            // A typed object gives its properties by the names the file stores them under.
            for (property, stored) in properties.enumerated() where source.propertyIndex(columnNamed: stored.name) != nil {
                given[property] = Self.value(of: object, columnNamed: stored.name)
                isGiven[property] = true
            }
        default:
            throw RealmError(
                .invalidArgument,
                "A \(info.name) is made from a dictionary of property values, an array of them in stored order, or another object, not \(StoredValueConversion.describe(value))."
            )
        }
        var fields: [_UnmanagedField] = []
        fields.reserveCapacity(properties.count)
        for (index, property) in properties.enumerated() {
            var value = isGiven[index] ? given[index] : defaults.flatMap { Self.value(of: $0, columnNamed: property.name) }
            if value == nil, !isGiven[index], property.collection == .single, !property.isOptional, property.type != .any, property.type != .object {
                throw RealmError(
                    .invalidArgument,
                    "Missing value for property '\(property.name)' of \(info.name): give it in the value. \(info.name) is read through the file's stored schema, which keeps no default values."
                )
            }
            if value == nil { value = Optional<Any>.none as Any }
            fields.append(try DynamicValues.unmanagedField(value!, property))
        }
        pending = PendingDynamicObject(info: info, fields: fields, given: isGiven)
    }

    /// The value of the property of the typed `object` the file stores as `columnName`.
    private static func value(of object: ObjectBase, columnNamed columnName: String) -> Any? {
        let info = object.classInfo
        return info.propertyIndex(columnNamed: columnName).flatMap { object.value(forKey: info.properties[$0].name) }
    }
}
