/// The name of a tree the object store keeps for a stored class. In the file a tree is named
/// `<family>/<class id>`, or `<family>/<class id>/<field>` for a tree of one field: every name
/// the store writes is made here, and every name it reads back is parsed here, so the families
/// a class owns are this type's cases and nothing else lists them.
@usableFromInline
package struct StoreTreeName: Hashable, Sendable {
    /// What a tree holds. The raw value is the first part of the tree's name in the file.
    package enum Family: String, CaseIterable, Sendable {
        /// The rows of a class: object key → row.
        case rows
        /// The primary key index: primary key → object key.
        case primaryKey = "pk"
        /// The index of one indexed field: value + object key → nothing.
        case index
        /// The elements of one list field.
        case list
        /// The elements of one set field.
        case set
        /// The entries of one map field.
        case map
        /// The links that point at objects of the class (its backlinks).
        case backlinks = "links"
        /// Long string and data payloads kept out of the class's rows.
        case blobs

        /// Whether a tree of this family belongs to one field of the class (and so its name has
        /// a third part).
        package var isPerField: Bool {
            switch self {
            case .index, .list, .set, .map: true
            case .rows, .primaryKey, .backlinks, .blobs: false
            }
        }

        /// The family of the trees of a collection field of `kind`; nil for a field of one value.
        package init?(_ kind: CollectionKind) {
            switch kind {
            case .list: self = .list
            case .set: self = .set
            case .map: self = .map
            case .single: return nil
            }
        }
    }

    package let family: Family
    /// The id of the stored class the tree belongs to.
    package let classID: UInt32
    /// The field the tree belongs to, for a family that is per field (`Family.isPerField`).
    package let field: Int?

    /// The tree of `family` of the class stored with `classID` (and of field `field`, which a
    /// per-field family needs and no other takes).
    package init(_ family: Family, _ classID: UInt32, field: Int? = nil) {
        precondition(family.isPerField == (field != nil), "a tree of family \(family) is named with a field only if it is per field")
        self.family = family
        self.classID = classID
        self.field = field
    }

    /// The name `name` read back from the file, or nil if the store makes no tree of that name
    /// (another kind of tree, or a name of the right shape with a part that is not a number).
    package init?(parsing name: String) {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3, let family = Family(rawValue: String(parts[0])),
            family.isPerField == (parts.count == 3), let classID = UInt32(parts[1])
        else { return nil }
        var field: Int?
        if parts.count == 3 {
            guard let number = Int(parts[2]), number >= 0 else { return nil }
            field = number
        }
        self.init(family, classID, field: field)
    }

    /// The name in the file.
    package var string: String {
        if let field { return "\(family.rawValue)/\(classID)/\(field)" }
        return "\(family.rawValue)/\(classID)"
    }
}
