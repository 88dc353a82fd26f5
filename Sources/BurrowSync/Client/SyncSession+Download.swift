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
            let head = try connection.execute("SELECT pg_current_snapshot()::text, burrow_sync.database_id()").rows
            snapshot = head.first?[0] ?? ""
            database = head.first?[1] ?? ""
            if let since = Self.snapshot(in: checkpoint, of: database) {
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
    /// whether the object changed. Throws, changing nothing, for a value that does not read as
    /// its property's type.
    private func apply(_ row: [String?], of table: SyncedTable, keeping kept: Set<String>?) throws -> Bool {
        var values: [String: Any] = [:]
        for (index, column) in table.columns.enumerated() {
            let property = column.property
            if let kept, kept.contains(property.name), !property.isPrimary { continue }
            guard let text = row[index] else {
                if property.isOptional { values[property.name] = NSNull() }
                continue
            }
            if column.isJSON {
                do {
                    values[property.name] = try JSONColumn.value(ofJSON: text, for: property, in: realm.currentFileSchema) {
                        className, key in
                        let keyName = realm.currentFileSchema.classNamed(className)?.properties.first(where: \.isPrimary)?.name ?? ""
                        return try linkedObject(className, key: key, keyName: keyName)
                    }
                } catch let error as RealmError {
                    throw RealmError(
                        .invalidArgument,
                        "Column \(table.className).\(property.name) holds JSON that is not a \(property.summary) (\(error.description)); the row was not applied."
                    )
                }
                continue
            }
            if let target = column.linkTarget {
                guard let key = SyncValues.value(text, as: target.primaryKey.type) else {
                    throw unreadable(text, column, of: table)
                }
                values[property.name] = try linkedObject(target.className, key: key, keyName: target.primaryKey.name)
                continue
            }
            guard let value = SyncValues.value(text, as: property.type) else { throw unreadable(text, column, of: table) }
            values[property.name] = SyncValues.swiftValue(value)
        }
        let before = realm.objectStore.currentChangeStamp
        _ = try realm.dynamicCreate(table.className, value: values, update: .modified)
        return realm.objectStore.currentChangeStamp != before
    }

    private func unreadable(_ text: String, _ column: SyncedTable.Column, of table: SyncedTable) -> RealmError {
        RealmError(
            .invalidArgument,
            "Column \(table.className).\(column.property.name) holds '\(text.prefix(100))', which is not a \(column.property.summary); the row was not applied."
        )
    }

    /// The object of `className` whose primary key is `key`; one with only its key, if the
    /// file does not have it yet (its row comes down with it, or later).
    private func linkedObject(_ className: String, key: StoreValue, keyName: String) throws -> DynamicObject {
        let swiftKey = SyncValues.swiftValue(key) ?? NSNull()
        if let object = realm.dynamicObject(ofType: className, forPrimaryKey: swiftKey) { return object }
        return try realm.dynamicCreate(className, value: [keyName: swiftKey], update: .modified)
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
