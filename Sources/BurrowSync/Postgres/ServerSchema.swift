import Burrow

/// What sync needs in a PostgreSQL database, and the statements that make it.
///
/// - The schema `burrow_sync` holds sync's bookkeeping: `info` (the database's sync id, which
///   a checkpoint names, so that a file moved to another database downloads everything
///   again), `changes` (per statement that changed a synced table, its table, the primary
///   keys of the rows it changed, in text form, and the id of its transaction) and
///   `clients` (per client, the highest sequence number of its uploads applied).
/// - Each synced table has a trigger per kind of statement (`INSERT`, `UPDATE`, `DELETE`,
///   `TRUNCATE`), run once per statement: it collects the changed rows' keys from the
///   statement's transition tables into a row of `changes` per 10,000 keys (a `TRUNCATE`
///   marks the whole table), and notifies the channel `burrow_sync`, so that every client
///   downloads as soon as the transaction commits. A row per statement, not per changed row:
///   an upload of 2,000 objects writes one bookkeeping row, not 2,000, and no row grows
///   towards PostgreSQL's limit of a value, however many rows a statement changes.
/// - `burrow_sync.prune(interval)` deletes the changes every client seen within the interval
///   (30 days by default) has downloaded, and records how far it deleted: a client whose
///   checkpoint is older downloads every row again.
/// - The functions clients call (`changes_since`, `begin_upload`, `end_upload`, `end_download`)
///   run with the
///   rights of the role that set sync up (`SECURITY DEFINER`): a client's role needs `EXECUTE`
///   on them and `USAGE` on the schema, never rights on the bookkeeping tables.
///
/// Downloads find changes by transaction visibility, not by order of ids: a client's checkpoint
/// is a snapshot (`pg_current_snapshot()`), and a download takes the changes whose transactions
/// are visible in a new snapshot and were not in the checkpoint. A transaction that began
/// first and committed last is not visible in the checkpoint taken between the two commits, so
/// the next download takes it: no change is skipped whatever order transactions commit in.
enum ServerSchema {
    /// The channel the statement triggers notify.
    static let channel = "burrow_sync"

    /// The advisory lock key sync takes while it sets up a database, so that two clients
    /// setting up at once do not race on `CREATE`.
    static let setupLock = "7235891746237"

    /// The statements that make `burrow_sync`, in one transaction. Each may run again.
    static let bookkeeping: [String] = [
        "CREATE SCHEMA IF NOT EXISTS burrow_sync",
        """
        CREATE TABLE IF NOT EXISTS burrow_sync.info (key text PRIMARY KEY, value text NOT NULL)
        """,
        """
        INSERT INTO burrow_sync.info (key, value) VALUES ('database', gen_random_uuid()::text), ('version', '1')
        ON CONFLICT (key) DO NOTHING
        """,
        """
        CREATE TABLE IF NOT EXISTS burrow_sync.changes (
            id bigserial PRIMARY KEY,
            xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
            table_name text NOT NULL,
            primary_keys text[] NOT NULL,
            whole_table boolean NOT NULL DEFAULT false)
        """,
        "CREATE INDEX IF NOT EXISTS changes_by_xid ON burrow_sync.changes (xid)",
        """
        CREATE TABLE IF NOT EXISTS burrow_sync.clients (
            client_id uuid PRIMARY KEY,
            uploaded_through bigint NOT NULL DEFAULT 0,
            downloaded_through xid8,
            seen timestamptz NOT NULL DEFAULT now())
        """,
        "REVOKE ALL ON burrow_sync.info, burrow_sync.changes, burrow_sync.clients FROM PUBLIC",
        """
        CREATE OR REPLACE FUNCTION burrow_sync.record_rows() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
        DECLARE keyed text;
        BEGIN
            IF TG_OP = 'INSERT' THEN
                keyed := format('SELECT %I::text AS k FROM new_rows', TG_ARGV[0]);
            ELSIF TG_OP = 'UPDATE' THEN
                keyed := format('SELECT %1$I::text AS k FROM new_rows UNION SELECT %1$I::text FROM old_rows', TG_ARGV[0]);
            ELSIF TG_OP = 'DELETE' THEN
                keyed := format('SELECT %I::text AS k FROM old_rows', TG_ARGV[0]);
            ELSE
                INSERT INTO burrow_sync.changes (table_name, primary_keys, whole_table) VALUES (TG_TABLE_NAME, '{}', true);
            END IF;
            IF keyed IS NOT NULL THEN
                EXECUTE 'INSERT INTO burrow_sync.changes (table_name, primary_keys) SELECT $1, array_agg(k) FROM '
                    || '(SELECT k, (row_number() OVER ()) / 10000 AS chunk FROM (' || keyed || ') keys) numbered GROUP BY chunk'
                USING TG_TABLE_NAME;
            END IF;
            PERFORM pg_notify('burrow_sync', TG_TABLE_NAME);
            RETURN NULL;
        END $$
        """,
        """
        CREATE OR REPLACE FUNCTION burrow_sync.database_id() RETURNS text
        LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog AS $$
            SELECT value FROM burrow_sync.info WHERE key = 'database'
        $$
        """,
        """
        CREATE OR REPLACE FUNCTION burrow_sync.changes_since(since text)
        RETURNS TABLE (table_name text, primary_key text, whole_table boolean)
        LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog AS $$
            SELECT DISTINCT c.table_name, coalesce(k.primary_key, ''), c.whole_table
            FROM burrow_sync.changes c LEFT JOIN LATERAL unnest(c.primary_keys) AS k(primary_key) ON true
            WHERE c.xid >= pg_snapshot_xmin(since::pg_snapshot)
              AND pg_visible_in_snapshot(c.xid, pg_current_snapshot())
              AND NOT pg_visible_in_snapshot(c.xid, since::pg_snapshot)
        $$
        """,
        """
        CREATE OR REPLACE FUNCTION burrow_sync.begin_upload(client uuid) RETURNS bigint
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
        DECLARE done bigint;
        BEGIN
            INSERT INTO burrow_sync.clients (client_id) VALUES (client) ON CONFLICT (client_id) DO NOTHING;
            SELECT uploaded_through INTO done FROM burrow_sync.clients WHERE client_id = client FOR UPDATE;
            RETURN done;
        END $$
        """,
        """
        CREATE OR REPLACE FUNCTION burrow_sync.end_download(client uuid, checkpoint text) RETURNS void
        LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog AS $$
            INSERT INTO burrow_sync.clients (client_id, downloaded_through) VALUES (client, pg_snapshot_xmin(checkpoint::pg_snapshot))
            ON CONFLICT (client_id) DO UPDATE
            SET downloaded_through = greatest(burrow_sync.clients.downloaded_through, EXCLUDED.downloaded_through), seen = now()
        $$
        """,
        """
        CREATE OR REPLACE FUNCTION burrow_sync.pruned_below() RETURNS xid8
        LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog AS $$
            SELECT value::xid8 FROM burrow_sync.info WHERE key = 'pruned_below'
        $$
        """,
        """
        CREATE OR REPLACE FUNCTION burrow_sync.prune(keep_clients_seen_within interval DEFAULT '30 days') RETURNS bigint
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
        DECLARE
            below xid8;
            removed bigint;
        BEGIN
            SELECT min(downloaded_through) INTO below FROM burrow_sync.clients
            WHERE seen > now() - keep_clients_seen_within AND downloaded_through IS NOT NULL;
            IF below IS NULL THEN RETURN 0; END IF;
            DELETE FROM burrow_sync.changes WHERE xid < below;
            GET DIAGNOSTICS removed = ROW_COUNT;
            INSERT INTO burrow_sync.info (key, value) VALUES ('pruned_below', below::text)
            ON CONFLICT (key) DO UPDATE SET value = greatest(burrow_sync.info.value::xid8, EXCLUDED.value::xid8)::text;
            RETURN removed;
        END $$
        """,
        """
        CREATE OR REPLACE FUNCTION burrow_sync.end_upload(client uuid, through bigint) RETURNS void
        LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog AS $$
            UPDATE burrow_sync.clients SET uploaded_through = greatest(uploaded_through, through) WHERE client_id = client
        $$
        """,
    ]

    /// The statements that make `table` in the connection's default schema, or widen it, and
    /// give it sync's triggers. Each may run again.
    static func statements(for table: SyncedTable, existingColumns: Set<String>?) -> [String] {
        var statements: [String] = []
        if existingColumns == nil {
            let columns = table.columns.map { column in
                "\(column.quotedName) \(column.sqlType)\(column.property.isPrimary ? " PRIMARY KEY" : "")"
            }
            statements.append("CREATE TABLE IF NOT EXISTS \(table.quotedName) (\(columns.joined(separator: ", ")))")
        } else {
            for column in table.columns where existingColumns?.contains(column.property.name) == false {
                statements.append("ALTER TABLE \(table.quotedName) ADD COLUMN IF NOT EXISTS \(column.quotedName) \(column.sqlType)")
            }
        }
        let keyName = "'" + table.primaryKey.property.name.replacingOccurrences(of: "'", with: "''") + "'"
        for (event, transitions) in [
            ("INSERT", "REFERENCING NEW TABLE AS new_rows"), ("UPDATE", "REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows"),
            ("DELETE", "REFERENCING OLD TABLE AS old_rows"), ("TRUNCATE", ""),
        ] {
            statements.append(
                """
                CREATE OR REPLACE TRIGGER burrow_sync_\(event.lowercased()) AFTER \(event) ON \(table.quotedName) \(transitions)
                FOR EACH STATEMENT EXECUTE FUNCTION burrow_sync.record_rows(\(keyName))
                """)
        }
        return statements
    }

    /// PostgreSQL's name of a column type in `information_schema.columns.data_type`.
    static func informationSchemaName(of sqlType: String) -> String {
        sqlType == "timestamptz" ? "timestamp with time zone" : sqlType
    }
}
