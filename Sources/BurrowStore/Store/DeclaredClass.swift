/// A class as the program that opened the file declares it: its stored name, its properties in
/// declaration order (`LinkingObjects` among them), which one is the primary key, and whether
/// it is embedded. A table matches it to the class the file stores: property `i` here is what
/// the store's operations call property `i`. The API makes one from each Swift class; the store
/// makes one from a stored class to read it with no program class at all (`dynamic`).
package final class DeclaredClass: Sendable {
    package let name: String
    /// Every property, `LinkingObjects` included, in declaration order.
    package let properties: [Property]
    /// The stored properties (not `LinkingObjects`), in declaration order.
    package let storedProperties: [Property]
    /// The `LinkingObjects` properties, in declaration order.
    package let linkingObjects: [Property]
    package let isEmbedded: Bool
    /// Whether this is a stored class read through the file's schema alone.
    package let isDynamic: Bool
    /// The index of the primary key in `properties`, if the class has one.
    package let primaryKey: Int?
    /// Property index by name.
    package let propertyIndex: [String: Int]
    /// Property index by the name the file stores it under (`Property.columnName`).
    private let columnIndex: [String: Int]
    /// The properties' names, parallel to `properties`.
    private let propertyNames: [String]

    package init(name: String, properties: [Property], isEmbedded: Bool, isDynamic: Bool = false) {
        self.name = name
        self.properties = properties
        storedProperties = properties.filter { $0.type != .linkingObjects }
        linkingObjects = properties.filter { $0.type == .linkingObjects }
        self.isEmbedded = isEmbedded
        self.isDynamic = isDynamic
        primaryKey = properties.firstIndex { $0.isPrimary }
        var index: [String: Int] = [:]
        for (i, property) in properties.enumerated() { index[property.name] = i }
        propertyIndex = index
        propertyNames = properties.map(\.name)
        if properties.allSatisfy({ $0.columnName == $0.name }) {
            columnIndex = index
        } else {
            var columns: [String: Int] = [:]
            for (i, property) in properties.enumerated() where property.type != .linkingObjects { columns[property.columnName] = i }
            columnIndex = columns
        }
    }

    /// The class `stored` as the file stores it: its properties are the stored ones, in field
    /// order. (The `LinkingObjects` the file records for it are read by name, through its
    /// backlinks, not as properties of the class.)
    package convenience init(dynamic stored: StoredClass) {
        self.init(name: stored.name, properties: stored.properties.map { Property($0) }, isEmbedded: stored.isEmbedded, isDynamic: true)
    }

    /// The index of the property named `name`, if the class has one. A class of a few
    /// properties compares the names one by one, which costs less than hashing `name`: equal
    /// short names are equal in their bits.
    package func propertyIndex(named name: String) -> Int? {
        propertyNames.count <= 8 ? propertyNames.firstIndex(of: name) : propertyIndex[name]
    }

    /// The index of the stored property the file stores under `columnName`, if any.
    package func propertyIndex(columnNamed columnName: String) -> Int? {
        columnIndex[columnName]
    }
}
