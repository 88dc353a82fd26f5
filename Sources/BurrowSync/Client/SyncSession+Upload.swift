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

    /// Uploads one batch from the outbox; nil `through` when the outbox is empty. A batch
    /// PostgreSQL refuses is sent again one object at a time, so that only the refused changes
    /// are taken out (and reported); every other error is thrown and the batch stays queued.
    /// `acknowledging`: whether to take the batch out of the outbox once PostgreSQL committed
    /// it (false stands for a process that dies in between).
    ///
    /// While PostgreSQL runs a batch's last statement, the next batch is read and its
    /// statements made, so that the client's work and the server's overlap; the next call
    /// sends it. A call without one reads the outbox of the newest version.
    func uploadBatch(acknowledging: Bool = true) throws -> UploadResult {
        let batch: PreparedBatch
        if let prepared = nextBatch {
            batch = prepared
        } else {
            _ = realm.refresh()
            guard let read = try readBatch(after: 0) else { return UploadResult(through: nil) }
            batch = read
        }
        nextBatch = nil
        var result = UploadResult(through: batch.through)
        var next: PreparedBatch?
        do {
            next = try apply(batch, preparingNext: acknowledging)
        } catch let error as PostgresError where error.isRefusal {
            // Find the refused changes: each object in a transaction of its own.
            for change in batch.changes {
                do {
                    _ = try apply(PreparedBatch(through: change.sequence, changes: [change]), preparingNext: false)
                } catch let error as PostgresError where error.isRefusal {
                    result.rejections.append(
                        SyncRejection(className: change.className, primaryKey: change.primaryKeyText, error: error.realmError))
                    try recordRefusal(through: change.sequence)
                    refetch[change.className, default: []].insert(change.primaryKeyText)
                }
            }
        }
        if acknowledging {
            try realm.writeFromSync(withoutNotifying: silenced) { try realm.removeUploaded(through: batch.through) }
            nextBatch = next
        }
        return result
    }

    /// A batch read from the outbox: its changes merged per object, the sequence number of its
    /// last entry, and its statements, made from the objects' values when it was read (nil
    /// if making them failed: they are made again in the batch's transaction, where a refusal
    /// is handled).
    struct PreparedBatch {
        let through: UInt64
        let changes: [ObjectChange]
        var statements: [Statement]?
    }

    /// One statement and its parameters.
    struct Statement {
        let sql: String
        let parameters: [String?]
    }

    /// The first batch of the outbox after sequence number `sequence`, in the version the
    /// realm reads; nil if none is queued.
    private func readBatch(after sequence: UInt64) throws -> PreparedBatch? {
        let entries = try realm.pendingUploads(after: sequence, limit: Self.uploadBatchSize)
        guard let last = entries.last?.sequence else { return nil }
        let changes = Self.coalesced(entries)
        return PreparedBatch(through: last, changes: changes, statements: try? statements(for: changes))
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

    /// Applies `batch` in one transaction that records its `through` as applied, skipping the
    /// changes a transaction before recorded as applied (an earlier attempt whose reply was
    /// lost). With `preparingNext`, reads the next batch while PostgreSQL runs the last
    /// statement, and returns it.
    private func apply(_ batch: PreparedBatch, preparingNext: Bool) throws -> PreparedBatch? {
        var next: PreparedBatch?
        try connection.execute("BEGIN")
        do {
            let done = try connection.execute("SELECT burrow_sync.begin_upload($1::uuid)", [clientID.uuidString]).rows
            let applied = done.first?.first.flatMap { $0.flatMap { UInt64($0) } } ?? 0
            var statements = batch.statements
            if statements == nil || batch.changes.contains(where: { $0.sequence <= applied }) {
                statements = try self.statements(for: batch.changes.filter { $0.sequence > applied })
            }
            for (index, statement) in (statements ?? []).enumerated() {
                if preparingNext && index == (statements?.count ?? 0) - 1 {
                    // A batch that cannot be read now is read again, and its error thrown, by
                    // the next call.
                    try connection.execute(statement.sql, statement.parameters) { next = try? readBatch(after: batch.through) }
                } else {
                    try connection.execute(statement.sql, statement.parameters)
                }
            }
            try connection.execute("SELECT burrow_sync.end_upload($1::uuid, $2::bigint)", [clientID.uuidString, String(batch.through)])
            try connection.execute("COMMIT")
        } catch {
            _ = try? connection.execute("ROLLBACK")
            throw error
        }
        return next
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
    private func statements(for changes: [ObjectChange]) throws -> [Statement] {
        var statements: [Statement] = []
        var byClass: [String: [ObjectChange]] = [:]
        for change in changes { byClass[change.className, default: []].append(change) }
        for (className, changes) in byClass.sorted(by: { $0.key < $1.key }) {
            guard let table = table(named: className) else { continue }
            let deleted = changes.filter { $0.kind == .delete }.map(\.primaryKeyText)
            if !deleted.isEmpty {
                let key = table.primaryKey
                statements.append(
                    Statement(
                        sql: "DELETE FROM \(table.quotedName) WHERE \(key.quotedName) = ANY($1::\(key.sqlType)[])",
                        parameters: [SQL.arrayLiteral(deleted)]))
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
            statements += insert(inserted, into: table)
            for (columns, rows) in updated.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
                statements += update(rows, columns: columns, of: table)
            }
        }
        return statements
    }

    /// PostgreSQL takes at most this many parameters in one statement.
    private static let parameterLimit = 65_535

    /// Inserts `rows` (each every column's value), or updates every column of those whose key
    /// the table holds.
    private func insert(_ rows: [[String?]], into table: SyncedTable) -> [Statement] {
        let columns = table.columns
        return rows.chunked(Self.parameterLimit / columns.count).map { chunk in
            let sql = statement("insert \(table.className) \(chunk.count)") {
                let names = columns.map(\.quotedName).joined(separator: ", ")
                let updates = columns.indices.filter { $0 != table.primaryKeyColumn }.map {
                    "\(columns[$0].quotedName) = EXCLUDED.\(columns[$0].quotedName)"
                }
                let conflict = updates.isEmpty ? "DO NOTHING" : "DO UPDATE SET \(updates.joined(separator: ", "))"
                return
                    "INSERT INTO \(table.quotedName) (\(names)) VALUES \(Self.tuples(columns, rows: chunk.count)) ON CONFLICT (\(table.primaryKey.quotedName)) \(conflict)"
            }
            return Statement(sql: sql, parameters: chunk.flatMap { $0 })
        }
    }

    /// The text of the statement named `name`, made by `make` the first time: a batch of the
    /// same size and shape as an earlier one reuses its text.
    private func statement(_ name: String, _ make: () -> String) -> String {
        if let known = statementTexts[name] { return known }
        let made = make()
        if statementTexts.count > 1_000 { statementTexts = [:] }
        statementTexts[name] = made
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
    private func update(_ rows: [[String?]], columns: [Int], of table: SyncedTable) -> [Statement] {
        let key = table.primaryKey
        let all = [key] + columns.map { table.columns[$0] }
        return rows.chunked(Self.parameterLimit / all.count).map { chunk in
            let sql = statement("update \(table.className) \(columns) \(chunk.count)") {
                let aliases = (0..<all.count).map { "c\($0)" }
                let assignments = columns.indices.map { "\(table.columns[columns[$0]].quotedName) = v.c\($0 + 1)" }
                return
                    "UPDATE \(table.quotedName) SET \(assignments.joined(separator: ", ")) FROM (VALUES \(Self.tuples(all, rows: chunk.count))) AS v(\(aliases.joined(separator: ", "))) WHERE \(table.quotedName).\(key.quotedName) = v.c0"
            }
            return Statement(sql: sql, parameters: chunk.flatMap { $0 })
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
                    guard !RowCodec.isExternal(bytes, as: type), RowCodec.lengthProblem(bytes, as: type) == nil else {
                        return try store.storeValue(bytes, stored, key, field)
                    }
                    return RowCodec.decode(bytes, as: type, linkTarget: links[index]) { .object(ObjectLink(table: $0, key: $1)) }
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
