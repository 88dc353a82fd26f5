import Burrow
import BurrowStore
import Foundation

/// Uploading: the outbox, oldest first, in batches; each batch one PostgreSQL transaction that
/// also records the client's highest applied sequence number, so that a batch sent again after
/// a lost reply skips what the first attempt applied.
extension SyncSession {
    /// What an upload did: the sequence number it went through, and the changes PostgreSQL
    /// refused.
    struct UploadResult {
        var through: UInt64?
        var rejections: [SyncRejection] = []
    }

    /// Uploads one batch from the outbox of the newest version; nil `through` when the outbox
    /// is empty. A batch PostgreSQL refuses is sent again one object at a time, so that only
    /// the refused changes are taken out (and reported); every other error is thrown and the
    /// batch stays queued. `acknowledging`: whether to take the batch out of the outbox once
    /// PostgreSQL committed it (false stands for a process that dies in between).
    func uploadBatch(acknowledging: Bool = true) throws -> UploadResult {
        _ = realm.refresh()
        let entries = try realm.pendingUploads(limit: Self.uploadBatchSize)
        guard let last = entries.last?.sequence else { return UploadResult(through: nil) }
        let changes = Self.coalesced(entries)
        var result = UploadResult(through: last)
        do {
            try apply(changes, through: last)
        } catch let error as PostgresError where error.isRefusal {
            // Find the refused changes: each object in a transaction of its own.
            for change in changes {
                do {
                    try apply([change], through: change.sequence)
                } catch let error as PostgresError where error.isRefusal {
                    result.rejections.append(
                        SyncRejection(className: change.className, primaryKey: change.primaryKeyText, error: error.realmError))
                    try recordRefusal(through: change.sequence)
                    refetch[change.className, default: []].insert(change.primaryKeyText)
                }
            }
        }
        if acknowledging {
            try realm.writeFromSync(withoutNotifying: silenced) { try realm.removeUploaded(through: last) }
        }
        return result
    }

    /// One object's changes in a batch, merged: the last kind, and every property an update
    /// named.
    struct ObjectChange {
        let className: String
        let primaryKey: StoreValue
        let primaryKeyText: String
        var kind: OutboxEntry.Kind
        var properties: Set<String>
        /// The sequence number of the object's last entry in the batch.
        var sequence: UInt64
    }

    /// `entries` merged per object, in the order of each object's first entry: an update after
    /// an insert stays an insert, a delete replaces what came before, an insert after a delete
    /// makes the object anew.
    static func coalesced(_ entries: [OutboxEntry]) -> [ObjectChange] {
        var changes: [ObjectChange] = []
        var positions: [String: Int] = [:]
        for entry in entries {
            let keyText = SyncValues.parameter(entry.primaryKey) ?? ""
            let identity = entry.className + "\u{0}" + keyText
            guard let position = positions[identity] else {
                positions[identity] = changes.count
                changes.append(
                    ObjectChange(
                        className: entry.className, primaryKey: entry.primaryKey, primaryKeyText: keyText, kind: entry.kind,
                        properties: Set(entry.properties), sequence: entry.sequence))
                continue
            }
            changes[position].sequence = entry.sequence
            switch (changes[position].kind, entry.kind) {
            case (.insert, .update): break
            case (.update, .update): changes[position].properties.formUnion(entry.properties)
            case (_, .delete), (_, .insert):
                changes[position].kind = entry.kind
                changes[position].properties = []
            case (.delete, .update):
                changes[position].kind = .update
                changes[position].properties = Set(entry.properties)
            }
        }
        return changes
    }

    /// Applies `changes` in one transaction that records `through` as applied, skipping them
    /// all if a transaction before recorded as much (an earlier attempt whose reply was lost).
    private func apply(_ changes: [ObjectChange], through: UInt64) throws {
        try connection.execute("BEGIN")
        do {
            let done = try connection.execute("SELECT burrow_sync.begin_upload($1::uuid)", [clientID.uuidString]).rows
            let applied = done.first?.first.flatMap { $0.flatMap { UInt64($0) } } ?? 0
            try apply(changes.filter { $0.sequence > applied })
            try connection.execute("SELECT burrow_sync.end_upload($1::uuid, $2::bigint)", [clientID.uuidString, String(through)])
            try connection.execute("COMMIT")
        } catch {
            _ = try? connection.execute("ROLLBACK")
            throw error
        }
    }

    /// Records a refused change as done, so that it is not sent again.
    private func recordRefusal(through sequence: UInt64) throws {
        try connection.execute("BEGIN")
        do {
            _ = try connection.execute("SELECT burrow_sync.begin_upload($1::uuid)", [clientID.uuidString])
            try connection.execute("SELECT burrow_sync.end_upload($1::uuid, $2::bigint)", [clientID.uuidString, String(sequence)])
            try connection.execute("COMMIT")
        } catch {
            _ = try? connection.execute("ROLLBACK")
            throw error
        }
    }

    /// The statements for `changes`, with the values the objects hold now: per class, one
    /// `DELETE` for the deleted objects, multi-row `INSERT … ON CONFLICT DO UPDATE`s for the new
    /// ones, and one `UPDATE … FROM (VALUES …)` per set of changed properties. Each object has
    /// one change in a batch (`coalesced`), so their order does not matter.
    private func apply(_ changes: [ObjectChange]) throws {
        var byClass: [String: [ObjectChange]] = [:]
        for change in changes { byClass[change.className, default: []].append(change) }
        for (className, changes) in byClass.sorted(by: { $0.key < $1.key }) {
            guard let table = table(named: className) else { continue }
            let deleted = changes.filter { $0.kind == .delete }.map(\.primaryKeyText)
            if !deleted.isEmpty {
                let key = table.primaryKey
                try connection.execute(
                    "DELETE FROM \(table.quotedName) WHERE \(key.quotedName) = ANY($1::\(key.sqlType)[])", [SQL.arrayLiteral(deleted)])
            }
            var inserted: [[String?]] = []
            var updated: [[Int]: [[String?]]] = [:]
            guard let stored = realm.objectStore.dynamicTable(named: className) else { continue }
            let fields = table.columns.map { stored.stored.fieldIndex(of: $0.property.name) }
            for change in changes where change.kind != .delete {
                // An object deleted since is deleted by a later entry: nothing to send for it now.
                guard let values = try currentValues(of: table, stored, fields: fields, primaryKey: change.primaryKey) else { continue }
                if change.kind == .insert {
                    inserted.append(values)
                    continue
                }
                let columns = table.columns.indices.filter {
                    $0 != table.primaryKeyColumn && change.properties.contains(table.columns[$0].property.name)
                }
                if !columns.isEmpty { updated[columns, default: []].append([values[table.primaryKeyColumn]] + columns.map { values[$0] }) }
            }
            try insert(inserted, into: table)
            for (columns, rows) in updated.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
                try update(rows, columns: columns, of: table)
            }
        }
    }

    /// PostgreSQL takes at most this many parameters in one statement.
    private static let parameterLimit = 65_535

    /// Inserts `rows` (each every column's value), or updates every column of those whose key
    /// the table holds.
    private func insert(_ rows: [[String?]], into table: SyncedTable) throws {
        let columns = table.columns
        for chunk in rows.chunked(Self.parameterLimit / columns.count) {
            let sql = statement("insert \(table.className) \(chunk.count)") {
                let names = columns.map(\.quotedName).joined(separator: ", ")
                let updates = columns.indices.filter { $0 != table.primaryKeyColumn }.map {
                    "\(columns[$0].quotedName) = EXCLUDED.\(columns[$0].quotedName)"
                }
                let conflict = updates.isEmpty ? "DO NOTHING" : "DO UPDATE SET \(updates.joined(separator: ", "))"
                return
                    "INSERT INTO \(table.quotedName) (\(names)) VALUES \(Self.tuples(columns, rows: chunk.count)) ON CONFLICT (\(table.primaryKey.quotedName)) \(conflict)"
            }
            try connection.execute(sql, chunk.flatMap { $0 })
        }
    }

    /// The text of the statement named `name`, made by `make` the first time: a batch of the
    /// same size and shape as an earlier one reuses its text.
    private func statement(_ name: String, _ make: () -> String) -> String {
        if let known = statements[name] { return known }
        let made = make()
        if statements.count > 1_000 { statements = [:] }
        statements[name] = made
        return made
    }

    /// `rows` tuples of parameters as `columns`' types: `($1::bigint, $2::text), ($3::bigint, …`.
    private static func tuples(_ columns: [SyncedTable.Column], rows: Int) -> String {
        (0..<rows).map { row in
            "(" + columns.indices.map { columns[$0].parameter(row * columns.count + $0 + 1) }.joined(separator: ", ") + ")"
        }.joined(separator: ", ")
    }

    /// Sets `columns` of the rows whose keys `rows` give (each the key, then the columns'
    /// values), and only of rows that still exist: a delete that reached the server first wins.
    private func update(_ rows: [[String?]], columns: [Int], of table: SyncedTable) throws {
        let key = table.primaryKey
        let all = [key] + columns.map { table.columns[$0] }
        for chunk in rows.chunked(Self.parameterLimit / all.count) {
            let sql = statement("update \(table.className) \(columns) \(chunk.count)") {
                let aliases = (0..<all.count).map { "c\($0)" }
                let assignments = columns.indices.map { "\(table.columns[columns[$0]].quotedName) = v.c\($0 + 1)" }
                return
                    "UPDATE \(table.quotedName) SET \(assignments.joined(separator: ", ")) FROM (VALUES \(Self.tuples(all, rows: chunk.count))) AS v(\(aliases.joined(separator: ", "))) WHERE \(table.quotedName).\(key.quotedName) = v.c0"
            }
            try connection.execute(sql, chunk.flatMap { $0 })
        }
    }

    /// The text form of each column's value of the object whose primary key is `primaryKey`,
    /// as it is in the version the realm reads; nil if there is no such object. `stored` and
    /// `fields` are the class's table and each column's row field (nil: not in the file).
    private func currentValues(of table: SyncedTable, _ stored: Table, fields: [Int?], primaryKey: StoreValue) throws -> [String?]? {
        let store = realm.objectStore
        guard let key = try store.objectKey(stored, primaryKey: primaryKey) else { return nil }
        // The row is read once; a long value or a collection is fetched where it is kept.
        let payloads = try store.withRowBytes(stored, key) { row in fields.map { $0.flatMap { RowCodec.field(row, $0).map(Array.init) } } }
        guard let payloads else { return nil }
        var values: [String?] = []
        values.reserveCapacity(fields.count)
        let links = fields.map { $0.map { store.linkTarget(stored, $0) } ?? 0 }
        for (index, column) in table.columns.enumerated() {
            guard let field = fields[index] else {
                values.append(nil)
                continue
            }
            if column.isJSON {
                values.append(try JSONColumn.text(of: stored, key, field: field, in: self))
                continue
            }
            guard let payload = payloads[index] else {
                values.append(nil)
                continue
            }
            let type = stored.fieldTypes[field]
            // An inline payload decodes here, specialized; a long one is fetched by the store.
            let value =
                try payload.withUnsafeBytes { bytes -> StoreValue in
                    guard !ValueCodec.isExternal(bytes, as: type), ValueCodec.lengthProblem(bytes, as: type) == nil else {
                        return try store.storeValue(bytes, stored, key, field)
                    }
                    return ValueCodec.decode(bytes, as: type, linkTarget: links[index]) { .object(ObjectLink(table: $0, key: $1)) }
                }
            guard case .object(let link) = value else {
                let text = SyncValues.parameter(value)
                // PostgreSQL's text holds no NUL character: refused, as the server would.
                if let text, text.utf8.contains(0) {
                    throw PostgresError(
                        message: "\(table.className).\(column.property.name) holds a NUL character, which PostgreSQL's text cannot hold",
                        sqlState: "22021")
                }
                values.append(text)
                continue
            }
            guard let target = store.table(id: link.table, dynamic: true), let targetField = target.primaryKeyField else {
                values.append(nil)
                continue
            }
            values.append(SyncValues.parameter(try storedValue(target, link.key, targetField)))
        }
        return values
    }
}
