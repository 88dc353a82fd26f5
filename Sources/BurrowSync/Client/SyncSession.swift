import Burrow
import BurrowStore
import Foundation

/// One connection's work for a sync client: setting the database up, uploading the outbox and
/// downloading the server's changes. Owned by the client's actor, and used on its thread only
/// (its calls block while PostgreSQL answers).
final class SyncSession {
    let realm: Realm
    let connection: PostgresConnection
    let tables: [SyncedTable]
    let clientID: UUID
    /// Change streams that a write of this session's leaves silent: the client's own stream of
    /// local commits, so that a download never wakes the upload loop for itself.
    let silenced: [ChangeToken]
    /// Objects to download whether or not the server changed them (class → primary keys in
    /// text form): those whose local change PostgreSQL refused, so the file shows the
    /// server's state again.
    var refetch: [String: Set<String>] = [:]
    /// Statement texts made for upload batches, by their shape (see `statement(_:_:)`).
    var statementTexts: [String: String] = [:]
    /// The upload batch read while PostgreSQL ran the previous one, for the next upload to
    /// send (see `uploadBatch(acknowledging:)`).
    var nextBatch: PreparedBatch?

    /// How many outbox entries one upload transaction carries at most.
    static let uploadBatchSize = 2000

    init(realm: Realm, connection: PostgresConnection, tables: [SyncedTable], clientID: UUID, silenced: [ChangeToken]) {
        self.realm = realm
        self.connection = connection
        self.tables = tables
        self.clientID = clientID
        self.silenced = silenced
    }

    // MARK: Setting up the database

    /// Makes what sync needs in the database, if anything is missing: `burrow_sync`, the
    /// tables with every column, and their triggers. A role that may not create them gets an
    /// error that says what is missing. Checks that existing columns have the types the
    /// properties need.
    func prepareServer() throws {
        let hasBookkeeping = try connection.execute("SELECT to_regprocedure('burrow_sync.prune(interval)') IS NOT NULL").rows
        var missing: [String] = hasBookkeeping.first?.first == "t" ? [] : ["sync's bookkeeping schema burrow_sync"]
        var statements: [String] = missing.isEmpty ? [] : ServerSchema.bookkeeping
        for table in tables {
            let columns = try existingColumns(of: table)
            for column in table.columns {
                guard let existing = columns?[column.property.name] else { continue }
                let expected = ServerSchema.informationSchemaName(of: column.sqlType)
                guard existing == expected else {
                    throw RealmError(
                        .schemaMismatch,
                        "Column \(table.className).\(column.property.name) in PostgreSQL is \(existing), but property \(column.property.name) (\(column.property.summary)) syncs as \(expected). Change the column's type, or the property's."
                    )
                }
            }
            let triggers = try connection.execute(
                "SELECT count(*) FROM pg_trigger WHERE tgrelid = to_regclass($1) AND tgname IN ('burrow_sync_insert', 'burrow_sync_update', 'burrow_sync_delete', 'burrow_sync_truncate')",
                [table.quotedName]
            ).rows
            let complete = columns != nil && table.columns.allSatisfy { columns?[$0.property.name] != nil } && triggers.first?.first == "4"
            if !complete {
                missing.append("table \(table.className) with every column and sync's triggers")
                statements += ServerSchema.statements(for: table, existingColumns: columns.map { Set($0.keys) })
            }
        }
        guard !statements.isEmpty else { return }
        do {
            try connection.execute("BEGIN")
            try connection.execute("SELECT pg_advisory_xact_lock(\(ServerSchema.setupLock))")
            for statement in statements { try connection.execute(statement) }
            try connection.execute("COMMIT")
        } catch {
            _ = try? connection.execute("ROLLBACK")
            throw RealmError(
                .fail,
                "Setting up sync in PostgreSQL failed: \(missing.joined(separator: ", ")) \(missing.count == 1 ? "is" : "are") missing, and making \(missing.count == 1 ? "it" : "them") failed. Connect once with a role that may create schemas, tables, functions and triggers, or have your database administrator run the set-up. \(error.description)"
            )
        }
    }

    /// The columns of `table` in the connection's default schema (name → type), nil if it has
    /// no such table.
    private func existingColumns(of table: SyncedTable) throws(PostgresError) -> [String: String]? {
        let exists = try connection.execute("SELECT to_regclass($1) IS NOT NULL", [table.quotedName]).rows
        guard exists.first?.first == "t" else { return nil }
        let rows = try connection.execute(
            "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1",
            [table.className]
        ).rows
        var columns: [String: String] = [:]
        for row in rows {
            if let name = row[0], let type = row[1] { columns[name] = type }
        }
        return columns
    }

    func table(named name: String) -> SyncedTable? { tables.first { $0.className == name } }

    /// Field `field` of object `key` of `table`, as the realm reads it now (links as keys).
    func storedValue(_ table: Table, _ key: ObjectKey, _ field: Int) throws -> StoreValue {
        let store = realm.objectStore
        let payload = try store.withRowBytes(table, key) { row in RowCodec.field(row, field).map(Array.init) }
        guard let payload, let payload else { return .null }
        return try payload.withUnsafeBytes { bytes in try store.storeValue(bytes, table, key, field) }
    }
}
