import Burrow
import BurrowStore
import Foundation

/// Downloading: the rows the server changed since the checkpoint, read in one repeatable-read
/// transaction (so they are one consistent state of the database: whole transactions, never
/// part of one), applied as one Burrow write that also stores the new checkpoint.
///
/// A checkpoint is the database's sync id and a snapshot (`pg_current_snapshot()`). A file
/// without one, or with one of another database, downloads every row of every synced table;
/// local objects of synced classes the server does not hold, and that wait for no upload, go.
///
/// The server's rows are read under the client's role, so row-level security decides what
/// comes down; a changed row the client may no longer see is removed from the file, as a
/// deleted one is. What waits for upload stays on top: a property with a change waiting keeps
/// its local value, an object inserted or deleted locally stays as it is, and an object the
/// server deleted goes even if a local update waits (a delete wins).
extension SyncSession {
    /// What a download did: whether it changed the file, and the server rows that could not
    /// be read as objects (reported, not applied).
    struct DownloadResult {
        var unreadable: [SyncRejection] = []
        /// The download's write, if it changed any object.
        var committed: SyncDownload?
    }

    func download() throws -> DownloadResult {
        _ = realm.refresh()
        let checkpoint = try realm.syncCheckpoint().map { String(decoding: $0, as: UTF8.self) }
        try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        let snapshot: String
        let database: String
        // Class → primary key text → the row's column texts; nil keys: every row was read.
        var rows: [String: [String: [String?]]] = [:]
        var keys: [String: Set<String>]?
        do {
            let head = try connection.execute(
                "SELECT pg_current_snapshot()::text, burrow_sync.database_id(), burrow_sync.pruned_below()::text"
            ).rows
            snapshot = head.first?[0] ?? ""
            database = head.first?[1] ?? ""
            let prunedBelow = head.first?[2] ?? nil
            // A checkpoint older than what `burrow_sync.prune` deleted reads everything again.
            if let since = Self.snapshot(in: checkpoint, of: database),
                try prunedBelow == nil
                    || connection.execute("SELECT pg_snapshot_xmin($1::pg_snapshot) >= $2::xid8", [since, prunedBelow]).rows.first?.first == "t"
            {
                var changed = refetch
                var wholeTables: Set<String> = []
                for row in try connection.execute("SELECT table_name, primary_key, whole_table FROM burrow_sync.changes_since($1)", [since]).rows {
                    guard let name = row[0], let key = row[1], table(named: name) != nil else { continue }
                    if row[2] == "t" { wholeTables.insert(name) } else { changed[name, default: []].insert(key) }
                }
                // After a TRUNCATE, every row of the table is read, and every local object is
                // compared with them.
                for name in wholeTables {
                    guard let table = table(named: name) else { continue }
                    let all = try select(table, keys: nil)
                    rows[name] = all
                    changed[name] = Set(all.keys).union(try localKeys(of: table))
                }
                for (name, tableKeys) in changed where !wholeTables.contains(name) {
                    guard let table = table(named: name) else { continue }
                    rows[name] = try select(table, keys: tableKeys)
                }
                keys = changed
            } else {
                for table in tables { rows[table.className] = try select(table, keys: nil) }
            }
            try connection.execute("COMMIT")
        } catch {
            _ = try? connection.execute("ROLLBACK")
            throw error
        }
        var result = DownloadResult()
        var changedClasses: Set<String> = []
        var objectCount = 0
        try realm.writeFromSync(withoutNotifying: silenced) {
            let pending = try pendingChanges()
            for table in tables {
                let tableRows = rows[table.className] ?? [:]
                var tableKeys = keys.map { $0[table.className] ?? [] } ?? Set(tableRows.keys)
                if keys == nil { tableKeys.formUnion(try localKeys(of: table)) }
                for key in tableKeys.sorted() {
                    let identity = table.className + "\u{0}" + key
                    let waiting = pending[identity]
                    if let row = tableRows[key] {
                        if let waiting, waiting == nil { continue }  // inserted or deleted here, not uploaded yet
                        do {
                            if try apply(row, of: table, keeping: waiting ?? nil) {
                                changedClasses.insert(table.className)
                                objectCount += 1
                            }
                        } catch let error as RealmError {
                            result.unreadable.append(SyncRejection(className: table.className, primaryKey: key, error: error))
                        }
                    } else {
                        if let waiting, waiting == nil { continue }
                        if try deleteLocal(table, key: key) {
                            changedClasses.insert(table.className)
                            objectCount += 1
                        }
                    }
                }
            }
            try realm.setSyncCheckpoint(Array((database + " " + snapshot).utf8))
        }
        // The server learns how far this client downloaded, so that pruning keeps what it needs.
        try connection.execute("SELECT burrow_sync.end_download($1::uuid, $2)", [clientID.uuidString, snapshot])
        if objectCount > 0 {
            result.committed = SyncDownload(versionNumber: realm.version, classNames: changedClasses, objectCount: objectCount)
        }
        refetch = [:]
        return result
    }

    /// The snapshot a checkpoint holds, if it was taken on the database whose sync id is
    /// `database`.
    private static func snapshot(in checkpoint: String?, of database: String) -> String? {
        guard let checkpoint, let space = checkpoint.firstIndex(of: " "), checkpoint[..<space] == database else { return nil }
        return String(checkpoint[checkpoint.index(after: space)...])
    }

    /// The rows of `table` whose primary keys are `keys` (every row for nil), by primary key
    /// text: each row its columns' text forms, in `table.columns` order.
    private func select(_ table: SyncedTable, keys: Set<String>?) throws -> [String: [String?]] {
        let columns = table.columns.map(\.selected).joined(separator: ", ")
        let key = table.primaryKey
        let result: PostgresRows
        if let keys {
            let list = SQL.arrayLiteral(keys.sorted())
            result = try connection.execute(
                "SELECT \(key.quotedName)::text, \(columns) FROM \(table.quotedName) WHERE \(key.quotedName) = ANY($1::\(key.sqlType)[])", [list])
        } else {
            result = try connection.execute("SELECT \(key.quotedName)::text, \(columns) FROM \(table.quotedName)")
        }
        var rows: [String: [String?]] = [:]
        for row in result.rows {
            guard let key = row[0] else { continue }
            rows[key] = Array(row.dropFirst())
        }
        return rows
    }

    /// What waits for upload, by class and primary key text: nil for an object inserted or
    /// deleted here (all of it is local), else the properties an update changed.
    private func pendingChanges() throws -> [String: Set<String>?] {
        var pending: [String: Set<String>?] = [:]
        var after: UInt64 = 0
        while true {
            let entries = try realm.pendingUploads(after: after, limit: 1000)
            guard let last = entries.last else { break }
            for change in Self.coalesced(entries) {
                let identity = change.className + "\u{0}" + change.primaryKeyText
                if change.kind == .update, let known = pending[identity] {
                    if let known { pending[identity] = known.union(change.properties) }
                } else {
                    pending[identity] = change.kind == .update ? .some(change.properties) : .some(nil)
                }
            }
            after = last.sequence
        }
        return pending
    }

    /// Sets the object of `table` that `row` describes to the row's values, making it if it
    /// does not exist, except the properties in `kept` (changes waiting for upload); returns
    /// whether the object changed. Single values are compared with what the row holds and
    /// written through the store, only where they differ; a `jsonb` column is compared as
    /// JSON and set through the dynamic API. Throws, before writing, for a value that does not
    /// read as its property's type. A `NULL` in the column of a required property reads as
    /// the type's zero value.
    private func apply(_ row: [String?], of table: SyncedTable, keeping kept: Set<String>?) throws -> Bool {
        let store = realm.objectStore
        let write = try realm.openSyncWrite()
        guard let stored = store.dynamicTable(named: table.className) else { return false }
        // The values of the single-value columns, read before anything is written.
        var values: [Int: StoreValue] = [:]
        var json: [(column: Int, field: Int, text: String?)] = []
        for (index, column) in table.columns.enumerated() {
            let property = column.property
            if let kept, kept.contains(property.name), !property.isPrimary { continue }
            guard let field = stored.stored.fieldIndex(of: property.name) else { continue }
            if column.isJSON {
                json.append((index, field, row[index]))
                continue
            }
            guard let text = row[index] else {
                values[field] = property.isOptional ? .null : Self.zeroValue(of: column.linkTarget?.primaryKey.type ?? property.type)
                continue
            }
            let type = column.linkTarget?.primaryKey.type ?? property.type
            guard let value = SyncValues.value(text, as: type) else { throw unreadable(text, column, of: table) }
            values[field] = value
        }
        guard let keyField = stored.primaryKeyField, let primaryKey = values[keyField] else { return false }
        // JSON is read once before anything is written, with stand-ins for the links, so that
        // a row whose JSON does not read changes nothing.
        for (index, _, text) in json {
            guard let text else { continue }
            _ = try decode(text, table.columns[index], of: table) { _, _ in DynamicObject() }
        }
        // Links name their targets by primary key: found, or made with only their key.
        for column in table.columns {
            guard let target = column.linkTarget, let field = stored.stored.fieldIndex(of: column.property.name),
                let targetKey = values[field], !column.isJSON
            else { continue }
            if case .null = targetKey { continue }
            values[field] = .object(try linkedObjectLink(target.className, key: targetKey))
        }
        var changed = false
        let key: ObjectKey
        if let existing = try store.objectKey(stored, primaryKey: primaryKey) {
            key = existing
            for (field, value) in values where field != keyField {
                let type = stored.fieldTypes[field]
                let new = ObjectStore.payload(of: value, as: type)
                let current = try store.withRowBytes(stored, key) { row in RowCodec.field(row, field).map(Array.init) } ?? nil
                let full = try current.map { payload in try payload.withUnsafeBytes { try store.storedPayload($0, stored, key, field) } }
                if full != new {
                    try store.setField(stored, key, field, .single(value), in: write)
                    changed = true
                }
            }
        } else {
            key = try store.insertObject(stored, primaryKey: primaryKey, probed: nil, in: write) { field -> NewField<ObjectLink> in
                if let value = values[field] { return .stored(value) }
                let property = stored.stored.properties[field]
                if property.collection != .single || property.type == .object || property.type == .any { return .later }
                return .stored(property.isOptional ? .null : Self.zeroValue(of: property.type))
            }
            changed = true
        }
        guard !json.isEmpty else { return changed }
        let object = try dynamicObject(table, primaryKey: primaryKey)
        for (index, field, text) in json {
            let column = table.columns[index]
            let local = try JSONColumn.text(of: stored, key, field: field, in: self)
            if let text, Self.sameJSON(text, local) { continue }
            if text == nil, !Self.hasContent(local) { continue }
            let value = try text.map { text in try decode(text, column, of: table) { try linkedObject($0, key: $1) } } ?? NSNull()
            object[column.property.name] = value
            changed = true
        }
        return changed
    }

    /// The dynamic API's value of `column` that `text` describes; throws the error that says
    /// the row was not applied.
    private func decode(_ text: String, _ column: SyncedTable.Column, of table: SyncedTable, resolve: JSONColumn.LinkResolver) throws -> Any {
        do {
            return try JSONColumn.value(ofJSON: text, for: column.property, in: realm.currentFileSchema, resolve: resolve)
        } catch let error as RealmError {
            throw RealmError(
                .invalidArgument,
                "Column \(table.className).\(column.property.name) holds JSON that is not a \(column.property.summary) (\(error.description)); the row was not applied."
            )
        }
    }

    /// Whether two JSON texts hold the same value (PostgreSQL writes `jsonb` with its own
    /// spacing and key order).
    private static func sameJSON(_ left: String, _ right: String) -> Bool {
        if left == right { return true }
        guard let a = try? JSONSerialization.jsonObject(with: Data(left.utf8), options: .fragmentsAllowed) as? NSObject,
            let b = try? JSONSerialization.jsonObject(with: Data(right.utf8), options: .fragmentsAllowed) as? NSObject
        else { return false }
        return a.isEqual(b)
    }

    /// Whether the JSON of a local value holds anything (an empty collection or a null does not).
    private static func hasContent(_ json: String) -> Bool { !["null", "[]", "{}"].contains(json) }

    /// The value a required property of `type` takes when its column is `NULL`: the type's
    /// zero.
    static func zeroValue(of type: PropertyType) -> StoreValue { StoreValue.zero(of: type) ?? .null }

    /// The object of `table` whose primary key is `primaryKey`, through the dynamic API.
    private func dynamicObject(_ table: SyncedTable, primaryKey: StoreValue) throws -> DynamicObject {
        guard let key = SyncValues.swiftValue(primaryKey), let object = realm.dynamicObject(ofType: table.className, forPrimaryKey: key) else {
            throw RealmError(.fail, "internal error: \(table.className) \(primaryKey) was just written and cannot be found")
        }
        return object
    }

    /// The link to the object of `className` whose primary key is `key`; the object is made,
    /// with only its key, if the file does not have it yet (its row comes down with it, or
    /// later).
    private func linkedObjectLink(_ className: String, key: StoreValue) throws -> ObjectLink {
        let store = realm.objectStore
        guard let target = store.dynamicTable(named: className) else {
            throw RealmError(.invalidArgument, "the link's target class \(className) is not in the file")
        }
        if let existing = try store.objectKey(target, primaryKey: key) { return ObjectLink(table: target.id, key: existing) }
        let write = try realm.openSyncWrite()
        let made = try store.insertObject(target, primaryKey: key, probed: nil, in: write) { field -> NewField<ObjectLink> in
            let property = target.stored.properties[field]
            if property.isPrimary { return .stored(key) }
            if property.collection != .single || property.type == .object || property.type == .any { return .later }
            return .stored(property.isOptional ? .null : Self.zeroValue(of: property.type))
        }
        return ObjectLink(table: target.id, key: made)
    }

    private func unreadable(_ text: String, _ column: SyncedTable.Column, of table: SyncedTable) -> RealmError {
        RealmError(
            .invalidArgument,
            "Column \(table.className).\(column.property.name) holds '\(text.prefix(100))', which is not a \(column.property.summary); the row was not applied."
        )
    }

    /// The object of `className` whose primary key is `key`, through the dynamic API; one with
    /// only its key if the file does not have it yet (see `linkedObjectLink`).
    private func linkedObject(_ className: String, key: StoreValue) throws -> DynamicObject {
        _ = try linkedObjectLink(className, key: key)
        guard let swiftKey = SyncValues.swiftValue(key), let object = realm.dynamicObject(ofType: className, forPrimaryKey: swiftKey) else {
            throw RealmError(.fail, "internal error: \(className) \(key) was just written and cannot be found")
        }
        return object
    }

    /// Deletes the object of `table` whose primary key text is `key`, if the file has it;
    /// returns whether it did.
    private func deleteLocal(_ table: SyncedTable, key: String) throws -> Bool {
        guard let value = SyncValues.value(key, as: table.primaryKey.property.type), let swiftKey = SyncValues.swiftValue(value),
            let object = realm.dynamicObject(ofType: table.className, forPrimaryKey: swiftKey)
        else { return false }
        try realm.delete(object)
        return true
    }

    /// The primary key texts of every object of `table` in the file.
    private func localKeys(of table: SyncedTable) throws -> Set<String> {
        let store = realm.objectStore
        guard let stored = store.dynamicTable(named: table.className), let field = stored.primaryKeyField else { return [] }
        var keys: Set<String> = []
        for key in try store.objectKeys(stored) {
            if let text = SyncValues.parameter(try storedValue(stored, key, field)) { keys.insert(text) }
        }
        return keys
    }
}
