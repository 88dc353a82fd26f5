import BurrowStore

/// Classes added to a file's stored schema from their description, for a program that has no
/// Swift classes for them: `burrow import` gives a new file the classes of an export this way.
/// Package API: RealmSwift has no counterpart (its dynamic API cannot add classes either).
extension Realm {
    /// Adds to the file's stored schema, in the open write transaction, each class of `classes`
    /// that the file does not store yet; a class it stores already must be stored exactly as
    /// described. Objects of the new classes are then created with `dynamicCreate`. A file
    /// that stores no class yet takes the configuration's schema version with its first
    /// classes, as it does when a Swift class is first added.
    ///
    /// Throws `RealmError`: `.wrongState` outside a write transaction; `.schemaMismatch` for a
    /// class the file stores differently; `.invalidArgument` for a class that cannot be stored
    /// (no properties, two with one name, more than one primary key, a primary key or an
    /// index of a type that cannot have one, a link to a class that is neither stored nor
    /// among `classes`, a required single link, a list of optional links, a set of embedded
    /// objects, a `LinkingObjects` property whose origin is not a link to the class). A class's
    /// `computedProperties` are recorded with it, as a Swift class's `LinkingObjects` are (see
    /// `StoredClass.linkingObjects`). Nothing is added when it throws. Must be called in the
    /// realm's isolation domain.
    package func addStoredClasses(_ classes: [ObjectSchema]) throws(RealmError) {
        checkThread()
        let write = try requireOpenWrite()
        var schema = currentFileSchema
        let wasEmpty = schema.classes.isEmpty
        var added: [StoredClass] = []
        var described: [String: ObjectSchema] = [:]
        for objectSchema in classes { described[objectSchema.className] = objectSchema }
        for objectSchema in classes {
            let name = objectSchema.className
            let properties = objectSchema.properties.map(StoredProperty.init)
            if let stored = schema.classes[name] {
                guard stored.properties == properties, stored.isEmbedded == objectSchema.isEmbedded else {
                    throw RealmError(
                        .schemaMismatch,
                        "\(displayName) stores the class \(name) with other properties (\(stored.properties.map { "\($0.name): \($0.summary)" }.joined(separator: ", "))) than the ones given."
                    )
                }
                continue
            }
            if let problem = Self.storageProblem(objectSchema, stored: { schema.classes[$0].map(ObjectSchema.init) }, described: described) {
                throw RealmError(.invalidArgument, "The class \(name.isEmpty ? "with no name" : name) cannot be stored: \(problem)")
            }
            let stored = StoredClass(
                id: schema.info.nextClassId, name: name, isEmbedded: objectSchema.isEmbedded, properties: properties,
                linkingObjects: StoredClass.linkingObjects(objectSchema.computedProperties))
            schema.info.nextClassId += 1
            schema.classes[name] = stored
            added.append(stored)
        }
        guard !added.isEmpty else { return }
        if wasEmpty { schema.info.schemaVersion = max(schema.info.schemaVersion, configuration.schemaVersion) }
        try mapped { () throws(StoreError) in try store.storeSchema(schema, changing: added, in: write.store) }
    }

    /// Why `objectSchema` cannot be stored, or nil. `stored` gives the class the file stores
    /// under a name, if any; `described` holds the classes being added.
    private static func storageProblem(
        _ objectSchema: ObjectSchema, stored: (String) -> ObjectSchema?, described: [String: ObjectSchema]
    ) -> String? {
        let properties = objectSchema.properties
        if objectSchema.className.isEmpty { return "a class needs a name." }
        if properties.isEmpty { return "it has no properties." }
        let names = (properties + objectSchema.computedProperties).map(\.name)
        if Set(names).count != names.count { return "two properties have one name." }
        for linking in objectSchema.computedProperties {
            let what = "LinkingObjects property '\(linking.name)'"
            guard let originName = linking.objectClassName, let origin = described[originName] ?? stored(originName) else {
                return "\(what) follows links of \(linking.objectClassName ?? "no class"), which is neither stored nor given."
            }
            guard let originProperty = origin.properties.first(where: { $0.name == linking.linkOriginPropertyName }),
                originProperty.type == .object, originProperty.objectClassName == objectSchema.className
            else {
                return "\(what) follows \(originName).\(linking.linkOriginPropertyName ?? "?"), which is not a link to \(objectSchema.className)."
            }
        }
        let primaryKeys = properties.filter(\.isPrimary)
        if primaryKeys.count > 1 { return "it has \(primaryKeys.count) primary keys; a class has at most one." }
        let keyTypes: Set<PropertyType> = [.int, .string, .objectId, .uuid]
        let indexTypes: Set<PropertyType> = [.bool, .int, .string, .objectId, .uuid, .date, .any]
        for property in properties {
            let what = "property '\(property.name)'"
            if property.name.isEmpty { return "a property needs a name." }
            if property.isPrimary, objectSchema.isEmbedded { return "\(what) is a primary key, but an embedded class has none." }
            if property.isPrimary, property.collection != .single || !keyTypes.contains(property.type) {
                return "\(what) cannot be a primary key: primary keys are int, string, objectId or uuid."
            }
            if property.isIndexed, property.collection != .single || !indexTypes.contains(property.type) {
                return "\(what) cannot be indexed: indexes hold bool, int, string, date, objectId, uuid and any."
            }
            guard property.type == .object else {
                if property.objectClassName != nil { return "\(what) is not a link but names a class to link to." }
                continue
            }
            guard let target = property.objectClassName, stored(target) != nil || described[target] != nil else {
                return "\(what) links to \(property.objectClassName ?? "no class"), which is neither stored nor given."
            }
            if property.collection == .single, !property.isOptional { return "\(what) is a link and must be optional." }
            if property.collection == .list, property.isOptional { return "\(what) is a list of links, which cannot hold nil." }
            if property.collection == .set, described[target]?.isEmbedded == true {
                return "\(what) is a set of embedded objects; embedded objects can be in a list or a map, not a set."
            }
        }
        return nil
    }
}

extension ObjectSchema {
    /// The schema of a class described by a program that has no Swift class for it, for
    /// `Realm.addStoredClasses(_:)`: its stored `properties`, in field order.
    package init(className: String, properties: [Property], isEmbedded: Bool) {
        self.init(className: className, declared: properties, isEmbedded: isEmbedded)
    }
}

extension Property {
    /// A `LinkingObjects` property described by a program that has no Swift class for it, for
    /// `Realm.addStoredClasses(_:)`: the objects of `originClassName` whose link
    /// `originPropertyName` points at the object.
    package init(linkingObjectsNamed name: String, originClassName: String, originPropertyName: String) {
        self.init(
            name: name, type: .linkingObjects, isOptional: false, collection: .single, objectClassName: originClassName,
            linkOriginPropertyName: originPropertyName, isPrimary: false, isIndexed: false)
    }

    /// A stored property described by a program that has no Swift class for it, for
    /// `Realm.addStoredClasses(_:)`. `objectClassName` is the class a link links to.
    package init(
        name: String, type: PropertyType, isOptional: Bool, collection: CollectionKind, objectClassName: String?,
        isPrimary: Bool, isIndexed: Bool
    ) {
        self.init(
            name: name, type: type, isOptional: isOptional, collection: collection, objectClassName: objectClassName,
            linkOriginPropertyName: nil, isPrimary: isPrimary, isIndexed: isIndexed)
    }
}
