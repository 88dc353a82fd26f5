import Foundation

/// The schema as the file stores it, in the `schema` tree:
///
/// - `info` → `FileSchema.Info` (JSON): the schema version, the next class id, the classes
///   still to be migrated on first use, and the classes sync queues changes of;
/// - `class/<name>` → `StoredClass` (JSON) for every class.
///
/// A class's row fields are its stored properties in the order listed; properties added by a
/// migration are appended, so existing rows stay readable without rewriting them.
package struct FileSchema: Sendable, Equatable {
    package struct Info: Codable, Sendable, Equatable {
        package var schemaVersion: UInt64
        package var nextClassId: UInt32
        /// The stored classes a migration without `objectTypes` left as they were because the
        /// program's class for them was not known then: each is brought to its Swift class
        /// when it is first used, at this schema version. Absent when there are none.
        package var pendingClasses: [String]?
        /// The classes whose changes every commit queues for sync, in the same transaction
        /// (see `ObjectStore+Sync`): recorded by the first sync client of the file, sorted.
        /// Absent when nothing is synced; a reader that does not know this member ignores it.
        package var syncedClasses: [String]?

        package init(schemaVersion: UInt64, nextClassId: UInt32, pendingClasses: [String]? = nil, syncedClasses: [String]? = nil) {
            self.schemaVersion = schemaVersion
            self.nextClassId = nextClassId
            self.pendingClasses = pendingClasses
            self.syncedClasses = syncedClasses
        }
    }

    package var info: Info
    package var classes: [String: StoredClass]

    package init(info: Info, classes: [String: StoredClass]) {
        self.info = info
        self.classes = classes
    }

    package static let infoKey = Array("info".utf8)
    package static let classKeyPrefix = "class/"

    package static let empty = FileSchema(info: Info(schemaVersion: 0, nextClassId: 1), classes: [:])

    package func classNamed(_ name: String) -> StoredClass? { classes[name] }
}

/// One class in the file: its permanent id (used in links of `AnyRealmValue` and in backlink
/// keys) and its stored properties. Field `i` of a row holds `properties[i]`.
package struct StoredClass: Codable, Sendable, Equatable {
    package var id: UInt32
    package var name: String
    package var isEmbedded: Bool
    package var properties: [StoredProperty]
    /// The class's `LinkingObjects` properties, as the program that last wrote the class
    /// declared them: computed from the backlinks, never a row field, recorded so that a
    /// reader without the Swift class (the dynamic API, the `burrow` tool) can read and query
    /// them by name. Nil when there are none, and in files written before they were recorded;
    /// a reader that does not know this member ignores it.
    package var linkingObjects: [StoredProperty]?

    package init(id: UInt32, name: String, isEmbedded: Bool, properties: [StoredProperty], linkingObjects: [StoredProperty]? = nil) {
        self.id = id
        self.name = name
        self.isEmbedded = isEmbedded
        self.properties = properties
        self.linkingObjects = linkingObjects
    }

    package func fieldIndex(of name: String) -> Int? { properties.firstIndex { $0.name == name } }

    /// Per row field, what converting its payload from a row of file format 4 or 5 takes
    /// (`LegacyRowCodec`).
    package var legacyFields: [LegacyRowCodec.FieldKind] { LegacyRowCodec.fieldKinds(properties) }

    /// The recorded form of `declared`, a class's `LinkingObjects` properties: nil for none.
    package static func linkingObjects(_ declared: [Property]) -> [StoredProperty]? {
        declared.isEmpty ? nil : declared.map(StoredProperty.init)
    }
}

package struct StoredProperty: Codable, Sendable, Equatable {
    package var name: String
    package var type: PropertyType
    package var isOptional: Bool
    package var collection: CollectionKind
    package var objectClassName: String?
    package var linkOriginPropertyName: String?
    package var isPrimary: Bool
    package var isIndexed: Bool

    /// The stored form of `property`, under its column name.
    package init(_ property: Property) {
        name = property.columnName
        type = property.type
        isOptional = property.isOptional
        collection = property.collection
        objectClassName = property.objectClassName
        linkOriginPropertyName = property.linkOriginPropertyName
        isPrimary = property.isPrimary
        isIndexed = property.isIndexed
    }

    /// Whether `property` can read and write this stored property as it is.
    package func matches(_ property: Property) -> Bool {
        self == StoredProperty(property)
    }

    package var summary: String {
        var text = "\(type)\(isOptional ? "?" : "")"
        if let objectClassName { text = "\(objectClassName)\(isOptional ? "?" : "")" }
        switch collection {
        case .single: break
        case .list: text = "List<\(text)>"
        case .set: text = "MutableSet<\(text)>"
        case .map: text = "Map<String, \(text)>"
        }
        if isPrimary { text += " (primary key)" } else if isIndexed { text += " (indexed)" }
        return text
    }
}

extension PropertyType: Codable {}
extension CollectionKind: Codable {}

extension FileSchema {
    package static func encode<T: Encodable>(_ value: T) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return Array(try! encoder.encode(value))  // Encoding these plain structs cannot fail.
    }

    package static func decode<T: Decodable>(_ type: T.Type, from bytes: UnsafeRawBufferPointer, path: String) throws(StoreError) -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(bytes))
        } catch {
            throw StoreError(
                .corruptFile, "The schema stored in \(path) cannot be read (\(error)); the file is damaged or was not written by Burrow.")
        }
    }
}
