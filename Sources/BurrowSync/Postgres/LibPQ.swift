import Burrow
import BurrowStorage
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// libpq, PostgreSQL's own C client library, bound at run time: building needs neither its
/// headers nor the library, and a program that never syncs never loads it.
///
/// The library is looked up as `libpq.so.5` (`libpq.5.dylib` on Apple's platforms), or at the
/// path in the environment variable `BURROW_LIBPQ`. Only the calls sync makes are bound.
struct LibPQ: Sendable {
    typealias Connect = @convention(c) (UnsafePointer<CChar>) -> OpaquePointer?
    typealias ConnectionStatus = @convention(c) (OpaquePointer?) -> Int32
    typealias ConnectionMessage = @convention(c) (OpaquePointer?) -> UnsafeMutablePointer<CChar>?
    typealias Finish = @convention(c) (OpaquePointer?) -> Void
    typealias ExecParams =
        @convention(c) (
            OpaquePointer?, UnsafePointer<CChar>, Int32, UnsafePointer<UInt32>?, UnsafePointer<UnsafePointer<CChar>?>?,
            UnsafePointer<Int32>?, UnsafePointer<Int32>?, Int32
        ) -> OpaquePointer?
    typealias SendQueryParams =
        @convention(c) (
            OpaquePointer?, UnsafePointer<CChar>, Int32, UnsafePointer<UInt32>?, UnsafePointer<UnsafePointer<CChar>?>?,
            UnsafePointer<Int32>?, UnsafePointer<Int32>?, Int32
        ) -> Int32
    typealias GetResult = @convention(c) (OpaquePointer?) -> OpaquePointer?
    typealias ResultStatus = @convention(c) (OpaquePointer?) -> Int32
    typealias ResultMessage = @convention(c) (OpaquePointer?) -> UnsafeMutablePointer<CChar>?
    typealias ResultField = @convention(c) (OpaquePointer?, Int32) -> UnsafeMutablePointer<CChar>?
    typealias Count = @convention(c) (OpaquePointer?) -> Int32
    typealias Value = @convention(c) (OpaquePointer?, Int32, Int32) -> UnsafeMutablePointer<CChar>?
    typealias IsNull = @convention(c) (OpaquePointer?, Int32, Int32) -> Int32
    typealias Name = @convention(c) (OpaquePointer?, Int32) -> UnsafeMutablePointer<CChar>?
    typealias Clear = @convention(c) (OpaquePointer?) -> Void
    typealias Socket = @convention(c) (OpaquePointer?) -> Int32
    typealias ConsumeInput = @convention(c) (OpaquePointer?) -> Int32
    typealias Notifies = @convention(c) (OpaquePointer?) -> UnsafeMutableRawPointer?
    typealias FreeMemory = @convention(c) (UnsafeMutableRawPointer?) -> Void

    let connect: Connect
    let status: ConnectionStatus
    let errorMessage: ConnectionMessage
    let finish: Finish
    let execParams: ExecParams
    let sendQueryParams: SendQueryParams
    let getResult: GetResult
    let resultStatus: ResultStatus
    let resultErrorMessage: ResultMessage
    let resultErrorField: ResultField
    let tupleCount: Count
    let fieldCount: Count
    let value: Value
    let isNull: IsNull
    let fieldName: Name
    let clear: Clear
    let socket: Socket
    let consumeInput: ConsumeInput
    let notifies: Notifies
    let freeMemory: FreeMemory

    /// The library every connection uses: loaded on first use, from `BURROW_LIBPQ` or the
    /// system's default place, or the error that says what to install.
    static let shared: Result<LibPQ, RealmError> = load(path: ProcessInfo.processInfo.environment["BURROW_LIBPQ"])

    /// The name the system's loader finds libpq by.
    static var defaultName: String {
        #if canImport(Darwin)
        "libpq.5.dylib"
        #else
        "libpq.so.5"
        #endif
    }

    /// Loads libpq from `path` (nil: `defaultName`) and binds its calls. The error names the
    /// package to install, and the loader's own reason.
    static func load(path: String?) -> Result<LibPQ, RealmError> {
        let name = path ?? defaultName
        let library: SystemLibrary
        switch SystemLibrary.load([name]) {
        case .success(let loaded): library = loaded
        case .failure(let failure):
            return .failure(
                RealmError(
                    .fail,
                    "BurrowSync needs libpq, PostgreSQL's client library, and could not load \(name) (\(failure.reasons.joined(separator: "; "))). Install it (Debian and Ubuntu: apt-get install libpq5; macOS: brew install libpq), or set BURROW_LIBPQ to its path."
                ))
        }
        guard let connect = library.function("PQconnectdb", as: Connect.self), let status = library.function("PQstatus", as: ConnectionStatus.self),
            let errorMessage = library.function("PQerrorMessage", as: ConnectionMessage.self),
            let finish = library.function("PQfinish", as: Finish.self),
            let execParams = library.function("PQexecParams", as: ExecParams.self),
            let sendQueryParams = library.function("PQsendQueryParams", as: SendQueryParams.self),
            let getResult = library.function("PQgetResult", as: GetResult.self),
            let resultStatus = library.function("PQresultStatus", as: ResultStatus.self),
            let resultErrorMessage = library.function("PQresultErrorMessage", as: ResultMessage.self),
            let resultErrorField = library.function("PQresultErrorField", as: ResultField.self),
            let tupleCount = library.function("PQntuples", as: Count.self),
            let fieldCount = library.function("PQnfields", as: Count.self), let value = library.function("PQgetvalue", as: Value.self),
            let isNull = library.function("PQgetisnull", as: IsNull.self),
            let fieldName = library.function("PQfname", as: Name.self), let clear = library.function("PQclear", as: Clear.self),
            let socket = library.function("PQsocket", as: Socket.self), let consumeInput = library.function("PQconsumeInput", as: ConsumeInput.self),
            let notifies = library.function("PQnotifies", as: Notifies.self), let freeMemory = library.function("PQfreemem", as: FreeMemory.self)
        else {
            return .failure(RealmError(.fail, "\(name) is not a usable libpq: it lacks \(library.missing.joined(separator: ", "))."))
        }
        return .success(
            LibPQ(
                connect: connect, status: status, errorMessage: errorMessage, finish: finish, execParams: execParams,
                sendQueryParams: sendQueryParams, getResult: getResult,
                resultStatus: resultStatus, resultErrorMessage: resultErrorMessage, resultErrorField: resultErrorField,
                tupleCount: tupleCount, fieldCount: fieldCount, value: value, isNull: isNull, fieldName: fieldName,
                clear: clear, socket: socket, consumeInput: consumeInput, notifies: notifies, freeMemory: freeMemory))
    }
}
