import BurrowStore

/// The schema of one class: its name, its stored properties in declaration order, and its
/// computed ones (`LinkingObjects`), as RealmSwift's `ObjectSchema`.
public struct ObjectSchema: Sendable, Hashable, CustomStringConvertible {
    /// The name the class is stored under (`_realmObjectName()`, or the Swift class name).
    public let className: String
    /// The stored properties, in the order the class declares them. `LinkingObjects` are not
    /// stored and are in `computedProperties`, as in RealmSwift.
    public let properties: [Property]
    /// The `LinkingObjects` properties, computed from the links that point at an object, in
    /// the order the class declares them.
    public let computedProperties: [Property]
    /// Whether the class is an `EmbeddedObject`.
    public let isEmbedded: Bool

    /// The schema of class `className` with `properties`, in declaration order: the
    /// `LinkingObjects` among them go to `computedProperties`, the others to `properties`.
    init(className: String, declared properties: [Property], isEmbedded: Bool) {
        self.className = className
        self.properties = properties.filter { $0.type != .linkingObjects }
        self.computedProperties = properties.filter { $0.type == .linkingObjects }
        self.isEmbedded = isEmbedded
    }

    /// The primary-key property, if the class has one.
    public var primaryKeyProperty: Property? { properties.first { $0.isPrimary } }

    /// The property named `name`, stored or computed, or nil.
    public subscript(name: String) -> Property? {
        properties.first { $0.name == name } ?? computedProperties.first { $0.name == name }
    }

    public var description: String {
        "\(className)\(isEmbedded ? " (embedded)" : "") {\n" + (properties + computedProperties).map { "    \($0)\n" }.joined() + "}"
    }
}
