import BurrowStore

/// The classes a realm stores, as RealmSwift's `Schema`: one `ObjectSchema` per class, by class
/// name. Read it from `Realm.schema`.
public struct Schema: Sendable, Hashable, CustomStringConvertible {
    /// The schema of every class, ordered by class name.
    public let objectSchema: [ObjectSchema]

    /// A schema of the classes in `objectSchema`, ordered by class name.
    init(_ objectSchema: [ObjectSchema]) {
        self.objectSchema = objectSchema.sorted { $0.className < $1.className }
    }

    /// The schema of the class stored under `className`, or nil if there is none.
    public subscript(className: String) -> ObjectSchema? {
        objectSchema.first { $0.className == className }
    }

    /// Each class's schema, one after another.
    public var description: String {
        "Schema {\n"
            + objectSchema.map { $0.description.split(separator: "\n", omittingEmptySubsequences: false).map { "    \($0)\n" }.joined() }.joined()
            + "}"
    }
}
