import BurrowStorage
import BurrowStore

extension Realm {
    /// After a migration's block: gives every object of a class the migration made embedded
    /// (`became`) its one parent, as an embedded object must have, as RealmSwift does. An
    /// object nothing links to is deleted; one several places link to stays with the first
    /// and each other place gets a copy of it (with copies of the embedded objects it holds).
    func settleObjectsThatBecameEmbedded(_ became: [String], in write: RealmWrite) throws(RealmError) {
        for name in became {
            guard let table = store.dynamicTable(named: name) else { continue }
            var orphans: [ObjectKey] = []
            var shared: [ObjectKey] = []
            do {
                for key in try store.objectKeys(table) {
                    let parents = try store.linkCount(to: table, key, upTo: 2, in: write.store)
                    if parents == 0 { orphans.append(key) }
                    if parents > 1 { shared.append(key) }
                }
            } catch {
                throw RealmError(wrapping: error)
            }
            for key in orphans { try mapped { () throws(StoreError) in try store.deleteObject(table, key, in: write.store) } }
            for key in shared { try copyIntoEachParent(table, key, in: write) }
            if !orphans.isEmpty || !shared.isEmpty {
                Logger.log(
                    .info,
                    "\(name) became an EmbeddedObject: deleted \(counted(orphans.count, "object")) that no object links to, and copied \(counted(shared.count, "object")) linked from several places into each."
                )
            }
        }
    }

    /// Leaves object `key` of `table` (dynamic) with the first place that links to it, and
    /// links each other place to a copy of its own.
    private func copyIntoEachParent(_ table: Table, _ key: ObjectKey, in write: RealmWrite) throws(RealmError) {
        let sources = try mapped { () throws(StoreError) in try store.incomingLinks(to: table, key, in: write.store) }
        guard let original = object(table, key) as? DynamicObject else { return }
        let isOriginal: (_StoredValue) -> Bool = { value in
            if case .object(let object) = value, let state = object._state { return state.key == key && state.table.id == table.id }
            return false
        }
        var keptOne = false
        write.keepsReplacedEmbedded = true
        defer { write.keepsReplacedEmbedded = false }
        for source in sources {
            guard let sourceTable = store.dynamicTable(id: source.table) else { continue }
            switch readContent(sourceTable, source.key, source.field) {
            case .single:
                if keptOne {
                    try setField(sourceTable, source.key, source.field, .single(.object(try embeddedCopy(of: original, in: table))), in: write)
                }
                keptOne = true
            case .elements(let elements):
                for (index, element) in elements.enumerated() where isOriginal(element) {
                    if keptOne {
                        try listSet(
                            sourceTable, source.key, source.field, .object(try embeddedCopy(of: original, in: table)), at: index, in: write)
                    }
                    keptOne = true
                }
            case .entries(let entries):
                for entry in entries where isOriginal(entry.value) {
                    if keptOne {
                        try mapSet(
                            sourceTable, source.key, source.field, entry.key, .object(try embeddedCopy(of: original, in: table)), in: write)
                    }
                    keptOne = true
                }
            }
        }
    }

    /// A new, unmanaged copy of the embedded object `original` (of dynamic `table`), holding
    /// copies of the embedded objects it holds in turn.
    private func embeddedCopy(of original: DynamicObject, in table: Table) throws(RealmError) -> DynamicObject {
        let copy = try DynamicObject(unmanaged: table.info, value: original, defaults: nil)
        try DynamicValues.prepare(copy, in: self, copyingEmbedded: true)
        return copy
    }
}
