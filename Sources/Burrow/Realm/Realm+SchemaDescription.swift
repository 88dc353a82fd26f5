import BurrowStore

extension Realm {
    /// The classes this realm stores, in the version it reads, as RealmSwift's `realm.schema`:
    /// `realm.schema["Dog"]?.properties`. A class the realm uses (configured in `objectTypes`,
    /// or used since it opened) is described by its Swift declaration, `LinkingObjects` in
    /// `computedProperties`; another class in the file by what the file stores for it.
    /// Must be read in the realm's isolation domain.
    public var schema: Schema {
        let used = (configuration.objectTypes ?? []) + store.tables.values.map(\.info.type)
        var byName: [String: ObjectSchema] = [:]
        for type in used {
            let info = ClassInfo.of(type)
            byName[info.name] = info.schema
        }
        for stored in currentFileSchema.classes.values where byName[stored.name] == nil {
            byName[stored.name] = ObjectSchema(stored)
        }
        return Schema(Array(byName.values))
    }
}

extension ObjectSchema {
    /// The schema of a class as the file stores it: its stored properties, and the
    /// `LinkingObjects` properties the file records for it in `computedProperties`.
    init(_ stored: StoredClass) {
        self.init(
            className: stored.name,
            declared: (stored.properties + (stored.linkingObjects ?? [])).map {
                Property(
                    name: $0.name, type: $0.type, isOptional: $0.isOptional, collection: $0.collection,
                    objectClassName: $0.objectClassName, linkOriginPropertyName: $0.linkOriginPropertyName,
                    isPrimary: $0.isPrimary, isIndexed: $0.isIndexed)
            },
            isEmbedded: stored.isEmbedded)
    }
}
