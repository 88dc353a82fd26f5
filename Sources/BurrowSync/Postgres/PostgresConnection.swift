import Burrow

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One connection to PostgreSQL, through libpq: statements with text parameters, rows as text.
///
/// Like a libpq connection, it is used from one isolation at a time (a sync client's actor owns
/// its connections); it is not `Sendable`.
package final class PostgresConnection {
    private let library: LibPQ
    private let handle: OpaquePointer

    /// Connects with `connectionString`, a libpq connection string
    /// (`"host=/run/app dbname=app user=device_7"`). Throws a `RealmError` with PostgreSQL's
    /// reason if the server cannot be reached or refuses the connection.
    init(_ connectionString: String, library: LibPQ) throws(RealmError) {
        self.library = library
        guard let handle = connectionString.withCString({ library.connect($0) }) else {
            throw RealmError(.fail, "PostgreSQL: libpq could not allocate a connection.")
        }
        guard library.status(handle) == Self.connectionOK else {
            let reason = Self.text(library.errorMessage(handle))
            library.finish(handle)
            throw RealmError(.fail, "PostgreSQL refused the connection (\(connectionString)): \(reason)")
        }
        self.handle = handle
    }

    /// Connects with libpq from `LibPQ.shared`.
    package convenience init(_ connectionString: String) throws(RealmError) {
        try self.init(connectionString, library: LibPQ.shared.get())
    }

    deinit { library.finish(handle) }

    /// Runs `sql`, one statement whose `$1`, `$2`, … are `parameters` (nil: SQL NULL), and
    /// returns its rows. Throws a `PostgresError` carrying PostgreSQL's message and SQLSTATE.
    @discardableResult
    package func execute(_ sql: String, _ parameters: [String?] = []) throws(PostgresError) -> PostgresRows {
        let result = Self.withCStrings(parameters) { values in
            sql.withCString { library.execParams(handle, $0, Int32(values.count), nil, values, nil, nil, 0) }
        }
        guard let result else { throw PostgresError(message: Self.text(library.errorMessage(handle)), sqlState: nil) }
        defer { library.clear(result) }
        return try rows(of: result)
    }

    /// Runs `sql` with `parameters` as `execute` does, and calls `meanwhile` while PostgreSQL
    /// runs it: the statement is sent first, and its result read once `meanwhile` returns.
    /// Whatever `meanwhile` does, the result is read before this returns, so the connection is
    /// ready for the next statement (a `ROLLBACK` after an error included).
    @discardableResult
    func execute(_ sql: String, _ parameters: [String?], meanwhile: () -> Void) throws(PostgresError) -> PostgresRows {
        let sent = Self.withCStrings(parameters) { values in
            sql.withCString { library.sendQueryParams(handle, $0, Int32(values.count), nil, values, nil, nil, 0) }
        }
        guard sent == 1 else { throw PostgresError(message: Self.text(library.errorMessage(handle)), sqlState: nil) }
        meanwhile()
        // One statement sends one result, then libpq's end of results (nil); read both, so
        // that nothing of this statement is left for the next to trip on.
        var first: OpaquePointer?
        while let result = library.getResult(handle) {
            if first == nil { first = result } else { library.clear(result) }
        }
        guard let first else { throw PostgresError(message: Self.text(library.errorMessage(handle)), sqlState: nil) }
        defer { library.clear(first) }
        return try rows(of: first)
    }

    /// The rows of `result`, or the error it carries.
    private func rows(of result: OpaquePointer) throws(PostgresError) -> PostgresRows {
        let status = library.resultStatus(result)
        guard status == Self.commandOK || status == Self.tuplesOK else {
            var message = Self.text(library.resultErrorMessage(result))
            if message.isEmpty { message = Self.text(library.errorMessage(handle)) }
            let state = library.resultErrorField(result, Self.sqlStateField).map { String(cString: $0) }
            throw PostgresError(message: message, sqlState: state)
        }
        let columns = (0..<library.fieldCount(result)).map { Self.text(library.fieldName(result, $0)) }
        let rows = (0..<library.tupleCount(result)).map { row in
            (0..<Int32(columns.count)).map { column -> String? in
                library.isNull(result, row, column) != 0 ? nil : library.value(result, row, column).map { String(cString: $0) }
            }
        }
        return PostgresRows(columns: columns, rows: rows)
    }

    /// Waits up to `timeout` seconds for a notification on a channel this connection listens
    /// on (`LISTEN`), and returns how many arrived (0 after the timeout). Throws if the
    /// connection broke.
    func waitForNotifications(timeout: Double) throws(PostgresError) -> Int {
        var count = drainNotifications()
        guard count == 0 else { return count }
        let descriptor = library.socket(handle)
        guard descriptor >= 0 else { throw PostgresError(message: "the connection is closed", sqlState: nil) }
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let ready = poll(&poller, 1, Int32(timeout * 1000))
        guard ready > 0 else { return 0 }
        guard library.consumeInput(handle) == 1 else {
            throw PostgresError(message: "the connection broke (\(Self.text(library.errorMessage(handle))))", sqlState: nil)
        }
        count = drainNotifications()
        return count
    }

    /// Frees the notifications libpq has read, and counts them.
    private func drainNotifications() -> Int {
        var count = 0
        while let notification = library.notifies(handle) {
            library.freeMemory(notification)
            count += 1
        }
        return count
    }

    /// libpq's `CONNECTION_OK`, `PGRES_COMMAND_OK`, `PGRES_TUPLES_OK` and `PG_DIAG_SQLSTATE`.
    private static let connectionOK: Int32 = 0
    private static let commandOK: Int32 = 1
    private static let tuplesOK: Int32 = 2
    private static let sqlStateField = Int32(UInt8(ascii: "C"))

    private static func text(_ pointer: UnsafeMutablePointer<CChar>?) -> String {
        guard let pointer else { return "" }
        return String(cString: pointer).trimmingTrailingNewlines
    }

    /// Calls `body` with C strings of `strings` (null pointers for nil), valid during the call.
    /// The strings are copied into one buffer, each followed by a NUL.
    private static func withCStrings<R>(_ strings: [String?], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
        var buffer: [CChar] = []
        buffer.reserveCapacity(strings.reduce(0) { $0 + ($1?.utf8.count ?? 0) + 1 })
        var offsets: [Int?] = []
        offsets.reserveCapacity(strings.count)
        for string in strings {
            guard let string else {
                offsets.append(nil)
                continue
            }
            offsets.append(buffer.count)
            for byte in string.utf8 { buffer.append(CChar(bitPattern: byte)) }
            buffer.append(0)
        }
        return buffer.withUnsafeBufferPointer { bytes in
            body(offsets.map { $0.map { bytes.baseAddress! + $0 } })
        }
    }
}

/// A statement PostgreSQL refused or could not run: its message, and its SQLSTATE when the
/// server sent one (none when the connection failed).
package struct PostgresError: Error, Sendable, CustomStringConvertible {
    package let message: String
    package let sqlState: String?

    package init(message: String, sqlState: String?) {
        self.message = message
        self.sqlState = sqlState
    }

    package var description: String { "PostgreSQL: \(message)\(sqlState.map { " (SQLSTATE \($0))" } ?? "")" }

    /// Whether PostgreSQL refused the statement for what it does (a privilege, a row-level
    /// security policy, a constraint, a value the column cannot hold), not because the
    /// connection or the server failed: the same statement would fail again.
    var isRefusal: Bool {
        guard let sqlState else { return false }
        return ["22", "23", "42", "44"].contains(String(sqlState.prefix(2)))
    }

    /// The error as Burrow's.
    var realmError: RealmError { RealmError(.fail, description) }
}

/// The rows of a statement, as PostgreSQL's text form of each value (nil: NULL).
package struct PostgresRows: Sendable, Equatable {
    package let columns: [String]
    package let rows: [[String?]]
}

extension String {
    fileprivate var trimmingTrailingNewlines: String {
        var text = self
        while text.last == "\n" { text.removeLast() }
        return text
    }
}
