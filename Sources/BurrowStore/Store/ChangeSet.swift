/// What one write transaction changed, per class: the object keys it inserted, deleted and
/// modified, with the fields of each modification. Recorded while the transaction runs (only
/// when some stream observes the file) and handed to the file's `ChangeHub` at commit.
package struct ChangeSet: Sendable {
    package init() {}

    package struct ClassChanges: Sendable {
        package var inserted: Set<ObjectKey> = []
        package var deleted: Set<ObjectKey> = []
        /// Objects changed but neither inserted nor deleted, with the row fields that changed.
        /// An object deleted and made again (with the same primary key, hence the same key)
        /// counts as modified in every field (`allFields`).
        package var modified: [ObjectKey: Set<Int>] = [:]

        /// Stands for every field in a set of modified fields.
        package static let allFields = -1

        /// Whether no object was inserted, deleted or modified.
        package var isEmpty: Bool { inserted.isEmpty && deleted.isEmpty && modified.isEmpty }

        /// Applies the changes of a later transaction on top of these.
        package mutating func merge(_ later: ClassChanges) {
            for key in later.deleted { delete(key) }
            for key in later.inserted { insert(key) }
            for (key, fields) in later.modified where !inserted.contains(key) { modified[key, default: []].formUnion(fields) }
        }

        package mutating func insert(_ key: ObjectKey) {
            if deleted.remove(key) != nil {
                modified[key] = [Self.allFields]
            } else {
                inserted.insert(key)
            }
        }

        package mutating func delete(_ key: ObjectKey) {
            modified[key] = nil
            if inserted.remove(key) == nil { deleted.insert(key) }
        }

        package mutating func modify(_ key: ObjectKey, field: Int) {
            if !inserted.contains(key) { modified[key, default: []].insert(field) }
        }
    }

    /// Table id → what changed in that class.
    package private(set) var classes: [UInt32: ClassChanges] = [:]
    /// False when the changes are not all known (a transaction that changed the schema, or one
    /// that began before anyone observed the file), so observers compare versions instead.
    package private(set) var isComplete = true
    /// Whether the stored schema changed.
    package private(set) var schemaChanged = false

    /// The changes of a transaction that did not record them.
    package static let unknown: ChangeSet = {
        var set = ChangeSet()
        set.isComplete = false
        return set
    }()

    package mutating func inserted(_ key: ObjectKey, in table: UInt32) { classes[table, default: ClassChanges()].insert(key) }
    package mutating func deleted(_ key: ObjectKey, in table: UInt32) { classes[table, default: ClassChanges()].delete(key) }
    package mutating func modified(_ key: ObjectKey, field: Int, in table: UInt32) {
        classes[table, default: ClassChanges()].modify(key, field: field)
    }

    package mutating func noteSchemaChange() {
        schemaChanged = true
        isComplete = false
    }

    /// Applies a later commit's changes on top of these.
    package mutating func merge(_ later: ChangeSet) {
        isComplete = isComplete && later.isComplete
        schemaChanged = schemaChanged || later.schemaChanged
        for (table, changes) in later.classes { classes[table, default: ClassChanges()].merge(changes) }
    }

    package func changes(of table: UInt32) -> ClassChanges { classes[table] ?? ClassChanges() }

    /// The tables with an object inserted, deleted or modified.
    package var changedTableIds: [UInt32] { classes.filter { !$0.value.isEmpty }.map(\.key) }
}
