/// What `Realm.importRealmFile(at:encryptionKey:configuration:)` did: the classes it carried
/// into the Burrow file with their object counts, and everything it could not carry, each with
/// its reason.
public struct RealmImportReport: Sendable, CustomStringConvertible {
    /// A class of the `.realm` file and the objects of it now in the Burrow file.
    public struct ImportedClass: Sendable, Equatable {
        public let className: String
        public let objectCount: Int
    }

    /// Something of the `.realm` file the import left out: a class, a property, or a value.
    public struct Omission: Sendable, Equatable, CustomStringConvertible {
        /// What was left out: `"class Dog"`, `"Dog.nickname"`, `"Dog 'rex'.toys"`.
        public let what: String
        /// Why, in words a person can act on.
        public let reason: String

        public var description: String { "\(what): \(reason)" }
    }

    /// The classes imported, in name order.
    public let importedClasses: [ImportedClass]
    /// What was left out; empty when the import carried everything.
    public let omissions: [Omission]
    /// realm-core's file format version of the `.realm` file (20 to 24).
    public let fileFormatVersion: Int
    /// The schema version the RealmSwift app gave the file (its `metadata` table), nil if it
    /// gave none.
    public let realmSchemaVersion: UInt64?

    /// The number of objects imported, embedded objects included.
    public var objectCount: Int { importedClasses.reduce(0) { $0 + $1.objectCount } }

    public var description: String {
        (["Imported \(objectCount) objects of \(importedClasses.count) classes from a .realm file of format \(fileFormatVersion):"] + details)
            .joined(separator: "\n")
    }

    /// The lines under the summary: each class with its count, then what was left out.
    package var details: [String] {
        var lines = importedClasses.map { "  \($0.className): \($0.objectCount)" }
        if !omissions.isEmpty {
            lines.append("Left out:")
            lines += omissions.map { "  \($0)" }
        }
        return lines
    }
}
