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
final class PostgresConnection {
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
    convenience init(_ connectionString: String) throws(RealmError) {
        try self.init(connectionString, library: LibPQ.shared.get())
    }

    deinit { library.finish(handle) }

    /// Runs `sql`, one statement whose `$1`, `$2`, … are `parameters` (nil: SQL NULL), and
    /// returns its rows. Throws a `RealmError` carrying PostgreSQL's message and SQLSTATE.
    @discardableResult
    func execute(_ sql: String, _ parameters: [String?] = []) throws(RealmError) -> PostgresRows {
        let result = Self.withCStrings(parameters) { values in
            sql.withCString { library.execParams(handle, $0, Int32(values.count), nil, values, nil, nil, 0) }
        }
        guard let result else { throw RealmError(.fail, "PostgreSQL: \(Self.text(library.errorMessage(handle)))") }
        defer { library.clear(result) }
        let status = library.resultStatus(result)
        guard status == Self.commandOK || status == Self.tuplesOK else {
            let message = Self.text(library.resultErrorMessage(result))
            let state = library.resultErrorField(result, Self.sqlStateField).map { String(cString: $0) }
            throw RealmError(.fail, "PostgreSQL: \(message)\(state.map { " (SQLSTATE \($0))" } ?? "")")
        }
        let columns = (0..<library.fieldCount(result)).map { Self.text(library.fieldName(result, $0)) }
        let rows = (0..<library.tupleCount(result)).map { row in
            (0..<Int32(columns.count)).map { column -> String? in
                library.isNull(result, row, column) != 0 ? nil : library.value(result, row, column).map { String(cString: $0) }
            }
        }
        return PostgresRows(columns: columns, rows: rows)
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
    private static func withCStrings<R>(_ strings: [String?], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
        let copies: [UnsafeMutablePointer<CChar>?] = strings.map { $0.map { strdup($0)! } }
        defer { for copy in copies { free(copy) } }
        return body(copies.map { $0.map { UnsafePointer($0) } })
    }
}

/// The rows of a statement, as PostgreSQL's text form of each value (nil: NULL).
struct PostgresRows: Sendable, Equatable {
    let columns: [String]
    let rows: [[String?]]
}

extension String {
    fileprivate var trimmingTrailingNewlines: String {
        var text = self
        while text.last == "\n" { text.removeLast() }
        return text
    }
}
