/// The name of a tree the object layer keeps in the file: the schema, the object-key counters,
/// or one of a stored class's trees (``StoreTreeName``). Code above the engine names trees only
/// with this type; the engine's `String` name is made from it when a reader first looks the tree
/// up, and parsed back only where the file's own list of trees is read.
@usableFromInline
package enum TreeName: Hashable, Sendable, CustomStringConvertible {
    /// The stored schema: the `info` entry and one entry per class (see `FileSchema`).
    case schema
    /// Per class, the object key its next object gets (see `ObjectStore+Keys`).
    case sequences
    /// What sync keeps in the file beside the objects: the client's id, the next outbox
    /// sequence number and the checkpoint of the last download (see `ObjectStore+Sync`).
    case sync
    /// The changes of synced classes still to upload: sequence number → `OutboxEntry`.
    case outbox
    /// A tree of one stored class: its rows, an index, a collection field's elements, …
    case store(StoreTreeName)

    /// The tree of `family` of the class stored with `classID` (and of field `field`, which a
    /// per-field family needs and no other takes).
    package init(_ family: StoreTreeName.Family, _ classID: UInt32, field: Int? = nil) {
        self = .store(StoreTreeName(family, classID, field: field))
    }

    /// The name `name` read back from the file's list of trees, or nil for a tree Burrow does not
    /// make.
    package init?(parsing name: String) {
        switch name {
        case "schema": self = .schema
        case "sequences": self = .sequences
        case "sync": self = .sync
        case "outbox": self = .outbox
        default:
            guard let tree = StoreTreeName(parsing: name) else { return nil }
            self = .store(tree)
        }
    }

    /// The name in the file.
    package var string: String {
        switch self {
        case .schema: "schema"
        case .sequences: "sequences"
        case .sync: "sync"
        case .outbox: "outbox"
        case .store(let tree): tree.string
        }
    }

    @usableFromInline package var description: String { string }

    /// Whether the tree belongs to the file rather than to one class: the schema, the key
    /// counters and sync's trees.
    package var isFileWide: Bool { storeTree == nil }

    /// The class tree this names, or nil for the schema, the key counters and sync's trees.
    package var storeTree: StoreTreeName? {
        if case .store(let tree) = self { return tree }
        return nil
    }
}
