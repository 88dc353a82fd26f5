import BurrowStore

/// Backlinks in query paths: the `LinkingObjects` properties a class declares (or, for a class
/// read through the stored schema alone, that its file records), and the query language's
/// `@links.Class.property`, which names the same objects without a declared property. Both
/// resolve to one `LinkingObjects` property, which the validator and the executor follow as
/// they follow a declared one.
extension ClassInfo {
    /// The `LinkingObjects` property `name` that is not among `properties`: for a class read
    /// through the stored schema alone, one the file records for it. Nil otherwise.
    func recordedLinkingObjects(named name: String) -> Property? {
        guard isDynamic else { return nil }
        return schema.computedProperties.first { $0.name == name }
    }

    /// The class stored as `name`, as this class's queries see it: for a class read through
    /// the stored schema alone, the file's stored class (dynamic too); else a Swift class this
    /// class links to (a `LinkingObjects` declares its origin class so) stored under that
    /// name, or the program's one class stored so. Nil if there is none.
    func queriedClass(named name: String) -> ClassInfo? {
        if let dynamicSchema {
            return dynamicSchema.classes[name].map { ClassInfo(dynamic: $0, in: dynamicSchema) }
        }
        if let linked = linkedTypes.first(where: { $0.map { ClassInfo.storedName(of: $0) == name } ?? false }), let linked {
            return ClassInfo.of(linked)
        }
        return ProgramClasses.uniqueClass(named: name).map { ClassInfo.of($0) } ?? ClassInfo.named(name)
    }

    /// The `LinkingObjects` property `@links.<className>.<property>` stands for on an object
    /// of this class, and the class of the objects it reaches. Throws, naming `path`, when
    /// there is no such class, it has no such property, or the property does not link to
    /// this class.
    func backlinks(from className: String, property name: String, in path: QueryPath) throws(RealmError) -> (Property, ClassInfo) {
        guard let origin = queriedClass(named: className) else {
            throw RealmError(
                .invalidArgument,
                "Invalid key path '\(path)': there is no class named \(className), so @links cannot follow its links to \(self.name).")
        }
        guard let linking = origin.propertyIndex[name].map({ origin.properties[$0] }) ?? origin.recordedLinkingObjects(named: name) else {
            let links = origin.properties.filter { $0.type == .object && $0.objectClassName == self.name }.map(\.name)
            throw RealmError(
                .invalidArgument,
                "Invalid key path '\(path)': \(className) has no property '\(name)'"
                    + (links.isEmpty
                        ? " (and none of its properties links to \(self.name))." : " (its links to \(self.name): \(links.joined(separator: ", "))).")
            )
        }
        guard linking.type == .object, linking.objectClassName == self.name else {
            throw RealmError(
                .invalidArgument,
                "Invalid key path '\(path)': property '\(name)' of \(className) is \(QueryValidator.describe(linking)), not a link to \(self.name), so @links cannot follow it back."
            )
        }
        let property = Property(
            name: "@links.\(className).\(name)", type: .linkingObjects, isOptional: false, collection: .single, objectClassName: className,
            linkOriginPropertyName: linking.columnName, isPrimary: false, isIndexed: false)
        return (property, origin)
    }
}
