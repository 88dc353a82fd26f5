import BurrowStore
import CSQLite

/// A thin wrapper over the SQLite C API: just what the benchmarks need, with no per-call
/// allocation on the hot paths (bind, step, column and reset are direct C calls).
struct SQLiteError: Error, CustomStringConvertible {
    let code: Int32
    let message: String
    var description: String { "SQLite error \(code): \(message)" }
}

final class SQLiteDatabase {
    /// Finds the system SQLite library and binds its functions; call it once, before any other
    /// use of SQLite. Throws, saying what to install, when there is none.
    static func loadLibrary() throws {
        var message = [CChar](repeating: 0, count: 512)
        guard csqlite_load(&message, message.count) == 1 else {
            throw SQLiteError(code: SQLITE_ERROR, message: String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
    }

    /// The loaded library's version, e.g. "3.40.1".
    static var libraryVersion: String { String(cString: sqlite3_libversion()) }

    private(set) var handle: OpaquePointer?

    /// Opens (creating if needed) the database at `path`, through the VFS called `vfs` if given.
    init(path: String, vfs: String? = nil, create: Bool = true) throws {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, vfs)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close(db)
            throw SQLiteError(code: rc, message: "\(message) (\(path))")
        }
        handle = db
    }

    deinit { close() }

    func close() {
        if let handle {
            sqlite3_close_v2(handle)
            self.handle = nil
        }
    }

    /// Runs one or more statements that return no rows of interest.
    func execute(_ sql: String) throws {
        var error: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &error)
        if rc != SQLITE_OK {
            let message = error.map { String(cString: $0) } ?? "?"
            sqlite3_free(error)
            throw SQLiteError(code: rc, message: "\(message) (in \(sql))")
        }
    }

    /// Runs a PRAGMA or query and returns the first column of its first row as text.
    func scalar(_ sql: String) throws -> String? {
        let statement = try prepare(sql)
        guard try statement.step() else { return nil }
        return statement.text(0)
    }

    func prepare(_ sql: String) throws -> SQLiteStatement {
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard rc == SQLITE_OK, let statement else { throw error(rc, sql) }
        return SQLiteStatement(statement, database: self)
    }

    func error(_ code: Int32, _ context: String) -> SQLiteError {
        SQLiteError(code: code, message: "\(String(cString: sqlite3_errmsg(handle))) (in \(context))")
    }
}

final class SQLiteStatement {
    let handle: OpaquePointer
    // Keeps the connection open while the statement lives.
    private let database: SQLiteDatabase

    init(_ handle: OpaquePointer, database: SQLiteDatabase) {
        self.handle = handle
        self.database = database
    }

    private var isFinalized = false

    deinit { finalize() }

    func finalize() {
        if !isFinalized {
            sqlite3_finalize(handle)
            isFinalized = true
        }
    }

    @inline(__always) func bind(_ index: Int32, _ value: Int64) {
        sqlite3_bind_int64(handle, index, value)
    }

    /// Binds the bytes without copying (SQLITE_STATIC): they must stay valid until the next
    /// reset or rebind.
    @inline(__always) func bind(_ index: Int32, blob: UnsafeRawBufferPointer) {
        sqlite3_bind_blob(handle, index, blob.baseAddress, Int32(blob.count), nil)
    }

    /// Steps once: true for a row, false when done.
    @inline(__always) func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        throw database.error(rc, String(cString: sqlite3_sql(handle)))
    }

    /// Steps a statement that returns no rows, then resets it.
    @inline(__always) func run() throws {
        _ = try step()
        sqlite3_reset(handle)
    }

    @inline(__always) func reset() { sqlite3_reset(handle) }

    @inline(__always) func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    /// The column's bytes, valid until the next step, reset or finalize.
    @inline(__always) func blob(_ column: Int32) -> UnsafeRawBufferPointer {
        let base = sqlite3_column_blob(handle, column)
        let count = Int(sqlite3_column_bytes(handle, column))
        return UnsafeRawBufferPointer(start: base, count: count)
    }

    func text(_ column: Int32) -> String? {
        sqlite3_column_text(handle, column).map { String(cString: $0) }
    }
}
