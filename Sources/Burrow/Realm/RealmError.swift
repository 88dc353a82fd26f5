import BurrowStorage
import Foundation

/// An error Burrow reports. Every failure a caller can cause or meet is one of these cases, with
/// a message a person can act on in `description` (which is also its `localizedDescription`).
/// An error about a file names it in `fileURL`, and one from a failed system call keeps its
/// `errno`.
public struct RealmError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// What kind of failure this is, for callers that handle some of them.
    public enum Code: Sendable, Equatable {
        /// The file is open in another process.
        case fileLocked
        /// The file is not a Burrow database, or was written by a newer Burrow.
        case invalidFile
        /// The file's contents are damaged.
        case corruptFile
        /// A system call failed (disk full, permissions, …).
        case fileAccess
        /// The operation is not allowed in the current state.
        case wrongState
        /// An argument is outside what Burrow accepts.
        case invalidArgument
        /// The classes given do not match the schema in the file (and no migration applies), or
        /// a class cannot be stored as declared.
        case schemaMismatch
        /// An object with the same primary key already exists.
        case primaryKeyExists
        /// The object was deleted, is frozen, or is managed by another realm.
        case invalidObject
        /// The operation needs the file closed, and it is open (in this process or another), as
        /// RealmSwift's `Realm.Error.alreadyOpen`.
        case alreadyOpen
    }

    /// What kind of failure this is.
    public let code: Code
    /// What went wrong and what to do about it, in a sentence a person can act on.
    public let description: String
    /// The file the error is about, or nil if it concerns none (or an in-memory realm), as
    /// RealmSwift's `Realm.Error.fileURL`.
    public let fileURL: URL?
    /// The `errno` of the system call that failed, for errors with code `.fileAccess` that
    /// come from one (28, `ENOSPC`, for a full disk; 13, `EACCES`, for a denied permission).
    public let errno: Int32?

    /// An error of kind `code` with message `description`, about the file at `fileURL` if any,
    /// from a system call that failed with `errno` if any.
    public init(_ code: Code, _ description: String, fileURL: URL? = nil, errno: Int32? = nil) {
        self.code = code
        self.description = description
        self.fileURL = fileURL
        self.errno = errno
    }

    /// The message, so that `localizedDescription` shows it.
    public var errorDescription: String? { description }
}

extension RealmError {
    /// The public form of an engine error.
    package init(_ error: StorageError) {
        let code: Code
        switch error {
        case .fileLocked: code = .fileLocked
        case .openInThisProcess: code = .alreadyOpen
        case .notADatabase, .unsupportedFormat: code = .invalidFile
        case .damagedMeta, .truncated, .corruptPage, .corruptEntry: code = .corruptFile
        case .io, .fileTooLarge: code = .fileAccess
        case .handleFailed, .closed, .readOnly, .transactionFinished, .cursorInvalidated, .modeConflict: code = .wrongState
        case .keyTooLarge, .valueTooLarge, .treeExists, .noSuchTree, .invalidOption: code = .invalidArgument
        }
        var errno: Int32?
        if case .io(_, _, let code) = error { errno = code }
        self.init(code, error.description, fileURL: error.filePath.map { URL(fileURLWithPath: $0) }, errno: errno)
    }
}

extension RealmError {
    /// Any error met inside Burrow as a `RealmError`: engine errors mapped as above, a
    /// `RealmError` as it is.
    init(wrapping error: any Error) {
        switch error {
        case let error as RealmError: self = error
        case let error as StorageError: self.init(error)
        default: self.init(.fileAccess, "\(error)")
        }
    }
}

/// How a `RealmError` bridges to `NSError`: RealmSwift's domain, `io.realm`, and per `Code`
/// one stable `errorCode`, RealmSwift's `RLMError` value where it has the same kind of error
/// (`fileAccess` 2, `schemaMismatch` 10, `alreadyOpen` 12, `invalidArgument` 13, `invalidFile`
/// 20), and one from 1000 up where it has none.
extension RealmError: CustomNSError {
    /// `io.realm`, RealmSwift's `RLMErrorDomain`.
    public static var errorDomain: String { "io.realm" }

    /// The code of this error's `Code` (see the extension's description).
    public var errorCode: Int {
        switch code {
        case .fileAccess: 2
        case .schemaMismatch: 10
        case .alreadyOpen: 12
        case .invalidArgument: 13
        case .invalidFile: 20
        case .corruptFile: 1000
        case .fileLocked: 1001
        case .wrongState: 1002
        case .primaryKeyExists: 1003
        case .invalidObject: 1004
        }
    }

    /// The message under `NSLocalizedDescriptionKey`, the file's path under
    /// `NSFilePathErrorKey` when the error names a file, and the failed system call's `errno`
    /// as an `NSPOSIXErrorDomain` error under `NSUnderlyingErrorKey` when it has one.
    public var errorUserInfo: [String: Any] {
        var info: [String: Any] = [NSLocalizedDescriptionKey: description]
        if let fileURL { info[NSFilePathErrorKey] = fileURL.path }
        if let errno { info[NSUnderlyingErrorKey] = NSError(domain: NSPOSIXErrorDomain, code: Int(errno)) }
        return info
    }
}
