import BurrowStore

/// The dynamic API: objects read and written through the schema stored in the file, by class
/// name, without the program's Swift classes (RealmSwift's names and meaning).
extension Realm {
    /// Every object of the class stored as `className`, as `DynamicObject`s: results that
    /// filter, sort, observe and freeze like any results. Empty while the file has no such
    /// class but the program has a Swift class stored under that name.
    ///
    /// Traps if neither the file nor the program has a class of that name, as RealmSwift does.
    /// Must be called in the realm's isolation domain.
    public func dynamicObjects(_ className: String) -> Results<DynamicObject> {
        checkThread()
        requireDynamicClass(className)
        return Results(realm: self, className: className)
    }

    /// The object of the class stored as `typeName` whose primary key is `key`, as a
    /// `DynamicObject`, or nil if there is none.
    ///
    /// Traps, as RealmSwift does, if there is no such class, if it has no primary key, or if
    /// `key` cannot be a value of its primary key's type.
    public func dynamicObject(ofType typeName: String, forPrimaryKey key: Any) -> DynamicObject? {
        checkThread()
        requireDynamicClass(typeName)
        guard let table = store.dynamicTable(named: typeName) else { return nil }
        guard let primaryKey = table.info.primaryKey else {
            preconditionFailure("\(typeName) has no primary key, so its objects cannot be looked up by key.")
        }
        let value: _StoredValue
        do {
            value = try DynamicValues.single(key, table.info.properties[primaryKey], in: nil)
        } catch {
            preconditionFailure("\(error) (looking up \(typeName) by primary key)")
        }
        do {
            guard let objectKey = try objectKey(table, primaryKey: value) else { return nil }
            return (object(table, objectKey) as! DynamicObject)
        } catch {
            fail(error)
        }
    }

    /// Creates an object of the class stored as `typeName` from `value` (a dictionary keyed by
    /// property name, an array of values in stored order, or another object) and returns it
    /// as a `DynamicObject`. Nested dictionaries and arrays create the objects that links and
    /// lists of links point to. A property not given takes its default from the program's
    /// Swift class of that name if there is one, else nil or empty.
    ///
    /// With `.modified` or `.all`, an existing object with the same primary key is updated
    /// with the properties `value` gives instead, as `create(_:value:update:)` does.
    ///
    /// Throws `RealmError`: outside a write transaction (`.wrongState`); for a class the file
    /// does not store, an embedded class, a value that does not fit, a missing required value
    /// (`.invalidArgument`); `.primaryKeyExists` under `.error`. Must be called in the realm's
    /// isolation domain.
    @discardableResult
    public func dynamicCreate(_ typeName: String, value: Any = [String: Any](), update: UpdatePolicy = .error) throws -> DynamicObject {
        checkThread()
        let write = try requireOpenWrite()
        guard let table = store.dynamicTable(named: typeName) else {
            throw RealmError(
                .invalidArgument,
                "\(displayName) stores no class named \(typeName), so none can be created dynamically. Its classes are: \(currentFileSchema.classes.keys.sorted().joined(separator: ", "))."
            )
        }
        if table.info.isEmbedded {
            throw RealmError(
                .invalidArgument, "\(typeName) is an embedded class; its objects are created by setting a property of their parent object.")
        }
        let object = try DynamicObject(unmanaged: table.info, value: value, defaults: swiftDefaults(of: typeName))
        try DynamicValues.prepare(object, in: self)
        return try addObject(object, update: update, in: write) as! DynamicObject
    }

    /// Traps unless the file stores a class named `name` or the program has a Swift class
    /// stored under it, as RealmSwift does for a class its schema lacks.
    private func requireDynamicClass(_ name: String) {
        guard currentFileSchema.classes[name] == nil, Self.swiftClass(named: name, among: knownTypes) == nil else { return }
        preconditionFailure(
            "Object type '\(name)' is not managed by the Realm: \(displayName) stores no such class. Its classes are: \(currentFileSchema.classes.keys.sorted().joined(separator: ", "))."
        )
    }

    /// The dynamic table of the class stored as `name`; if the file does not store it yet but
    /// the program has a Swift class of that name, the class is added to the file in the open
    /// write transaction, as adding an object of it would.
    func dynamicTable(creating name: String) throws(RealmError) -> Table? {
        if let table = store.dynamicTable(named: name) { return table }
        let known = knownTypes.first { ClassInfo.storedName(of: $0) == name }
        guard write != nil, let type = known ?? ProgramClasses.uniqueClass(named: name) else { return nil }
        _ = try writableTable(for: type)
        return store.dynamicTable(named: name)
    }

    /// A new instance of the program's Swift class stored as `name`, whose properties give a
    /// dynamic object's defaults, if the program has one that matches the stored class: this
    /// realm's class of that name, else the first of the program's classes of that name
    /// (`ProgramClasses`, in its default schema or not) that matches.
    func swiftDefaults(of name: String) -> ObjectBase? {
        guard let stored = currentFileSchema.classes[name] else { return nil }
        let known = Self.swiftClass(named: name, among: knownTypes).map { [$0] } ?? []
        let candidates = known + (ProgramClasses.allByStoredName[name] ?? [])
        return candidates.first { Table.mismatch(ClassInfo.of($0).declared, stored) == nil }?.init()
    }
}

extension AnyRealmValue {
    /// The object this value holds, as a `DynamicObject` (of the same row, for an object of a
    /// Swift class), or nil if it holds no managed object, as RealmSwift's `dynamicObject`:
    /// the way to read an object whose class this program does not declare.
    public var dynamicObject: DynamicObject? {
        guard case .object(let object) = self else { return nil }
        return object.dynamicView
    }
}

extension ObjectBase {
    /// The list property named `propertyName`, as a `List` of `DynamicObject`s, as RealmSwift's
    /// `dynamicList(_:)`. Traps if the object is unmanaged or the property is not a list of
    /// links.
    public func dynamicList(_ propertyName: String) -> List<DynamicObject> {
        let (owner, property) = dynamicCollection(propertyName, .list, "dynamicList")
        return List(owner: owner, property: property)
    }

    /// The set property named `propertyName`, as a `MutableSet` of `DynamicObject`s. Traps if
    /// the object is unmanaged or the property is not a set of links.
    public func dynamicMutableSet(_ propertyName: String) -> MutableSet<DynamicObject> {
        let (owner, property) = dynamicCollection(propertyName, .set, "dynamicMutableSet")
        return MutableSet(owner: owner, property: property)
    }

    /// The map property named `propertyName`, as a `Map` of `DynamicObject`s. Traps if the
    /// object is unmanaged or the property is not a map of links.
    public func dynamicMap(_ propertyName: String) -> Map<String, DynamicObject?> {
        let (owner, property) = dynamicCollection(propertyName, .map, "dynamicMap")
        return Map(owner: owner, property: property)
    }

    /// This managed object as a dynamic object: itself if it is one, else a `DynamicObject` of
    /// the same row in the same realm or version. Nil for an unmanaged object.
    final var dynamicView: DynamicObject? {
        guard let state = _state else { return nil }
        if let dynamic = self as? DynamicObject { return dynamic }
        let context = state.source.context
        guard let table = context.dynamicTable(id: state.table.id) else { return nil }
        return context.object(table, state.key) as? DynamicObject
    }

    /// This managed object as a dynamic object (itself if it is one), and the index there of
    /// its collection of links named `name`, of kind `kind`.
    private func dynamicCollection(_ name: String, _ kind: CollectionKind, _ call: String) -> (ObjectBase, Int) {
        guard let owner = dynamicView else {
            preconditionFailure("\(call)(\"\(name)\") needs a managed object; this \(classInfo.name) is unmanaged.")
        }
        let info = owner.classInfo
        guard let property = info.propertyIndex[name], info.properties[property].collection == kind, info.properties[property].type == .object else {
            preconditionFailure("\(info.name) has no \(kind) of links named '\(name)'.")
        }
        return (owner, property)
    }
}
