import BurrowStorage
import BurrowStore

extension ObjectBase {
    /// Whether `object` is the same stored object as this one: both managed, in the same file
    /// and of the same kind of realm (two live objects; or two frozen ones of one version), not
    /// deleted, and the same row, as RealmSwift compares them. An unmanaged object is the same
    /// only as itself. Use it where `===` would compare two instances reading one row.
    ///
    /// Confined to the objects' isolation (a live object's realm).
    public func isSameObject(as object: ObjectBase?) -> Bool {
        guard let object else { return false }
        if self === object { return true }
        guard let mine = _state, let theirs = object._state, mine.table.id == theirs.table.id, mine.key == theirs.key else {
            return false
        }
        switch (mine.source, theirs.source) {
        case (.live(let a), .live(let b)):
            guard a.storage === b.storage else { return false }
        case (.frozen(let a), .frozen(let b)):
            guard a.isSameVersion(as: b) else { return false }
        default:
            return false
        }
        return mine.exists && theirs.exists
    }
}

extension ObjectSource {
    /// The engine's handle of the file the source reads (one per file in a process).
    var storage: Storage {
        switch self {
        case .live(let realm): realm.storage
        case .frozen(let version): version.snapshotReader.snapshot.storage
        }
    }
}
