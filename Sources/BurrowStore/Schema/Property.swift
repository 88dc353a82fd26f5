/// The type of a stored property, as the schema records it.
public enum PropertyType: String, Sendable, Hashable, CustomStringConvertible {
    case bool, int, float, double, string, data, date, objectId, uuid, decimal128
    /// A link to an object (or, in a collection, links to objects).
    case object
    /// `AnyRealmValue`: any of the above, or null, tagged with its type.
    case any
    /// `LinkingObjects`: computed from the links that point at the object; not stored.
    case linkingObjects

    public var description: String { rawValue }
}

/// How a property holds its values.
public enum CollectionKind: String, Sendable, Hashable {
    /// One value.
    case single
    /// `List`: ordered, duplicates allowed.
    case list
    /// `MutableSet`: unordered, unique.
    case set
    /// `Map`: string keys to values.
    case map
}

/// One property of a class, as discovered from its `@Persisted` declarations.
public struct Property: Sendable, Hashable, CustomStringConvertible {
    /// The property's name in Swift: the name queries, key-value coding, change streams and
    /// typed objects use.
    public let name: String
    /// The name the file stores the property under: `name`, unless the class's
    /// `propertiesMapping()` gives another, as RealmSwift's `columnName`. Dynamic objects,
    /// migrations, the `burrow` tool, imports and sync see the property by this name.
    public let columnName: String
    /// The type of its value, or of its elements for a collection.
    public let type: PropertyType
    /// Whether the value (or each element) may be nil.
    public let isOptional: Bool
    /// Whether it is a single value, a `List`, a `MutableSet` or a `Map`.
    public let collection: CollectionKind
    /// For links and `LinkingObjects`: the stored name of the class linked to.
    public let objectClassName: String?
    /// For `LinkingObjects`: the property of `objectClassName` whose links it follows.
    public let linkOriginPropertyName: String?
    /// Whether this is the class's primary key.
    public let isPrimary: Bool
    /// Whether the property has an index (`@Persisted(indexed: true)`; primary keys are indexed too).
    public let isIndexed: Bool

    package init(
        name: String, type: PropertyType, isOptional: Bool, collection: CollectionKind, objectClassName: String?,
        linkOriginPropertyName: String?, isPrimary: Bool, isIndexed: Bool, columnName: String? = nil
    ) {
        self.name = name
        self.columnName = columnName ?? name
        self.type = type
        self.isOptional = isOptional
        self.collection = collection
        self.objectClassName = objectClassName
        self.linkOriginPropertyName = linkOriginPropertyName
        self.isPrimary = isPrimary
        self.isIndexed = isIndexed
    }

    /// Whether the property is a `List`.
    public var isArray: Bool { collection == .list }
    /// Whether the property is a `MutableSet`.
    public var isSet: Bool { collection == .set }
    /// Whether the property is a `Map`.
    public var isMap: Bool { collection == .map }

    public var description: String {
        var text = "\(name): "
        let element = (type == .object || type == .linkingObjects ? objectClassName ?? "?" : type.description) + (isOptional ? "?" : "")
        switch collection {
        case .single: text += type == .linkingObjects ? "LinkingObjects<\(element)>(\(linkOriginPropertyName ?? "?"))" : element
        case .list: text += "List<\(element)>"
        case .set: text += "MutableSet<\(element)>"
        case .map: text += "Map<String, \(element)>"
        }
        if isPrimary { text += " (primary key)" } else if isIndexed { text += " (indexed)" }
        if columnName != name { text += " (stored as '\(columnName)')" }
        return text
    }
}

extension Property {
    /// The property as the file stores it.
    package init(_ stored: StoredProperty) {
        self.init(
            name: stored.name, type: stored.type, isOptional: stored.isOptional, collection: stored.collection,
            objectClassName: stored.objectClassName, linkOriginPropertyName: stored.linkOriginPropertyName, isPrimary: stored.isPrimary,
            isIndexed: stored.isIndexed)
    }
}
