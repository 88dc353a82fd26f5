import BurrowStorage
import BurrowStore
import Foundation

/// An error Burrow reports, also spelled `Realm.Error` as in RealmSwift. Every failure a caller
/// can cause or meet is one of these codes, with a message a person can act on in `description`
/// (which is also its `localizedDescription`). An error about a file names it in `fileURL`, one
/// from a failed system call keeps its `errno`, and one about a damaged page names it in
/// `page`.
///
/// Catch one kind as in RealmSwift, with the code as a pattern or by comparing `code`:
///
/// ```swift
/// do {
///     let realm = try Realm(configuration: configuration)
/// } catch Realm.Error.fileNotFound {
///     // no file there (read-only open)
/// } catch let error as Realm.Error where error.code == .schemaMismatch {
///     print(error.localizedDescription)
/// }
/// ```
///
/// A code used as a pattern also matches the codes that refine it: `.fileAccess` matches every
/// failed file operation (`.fileNotFound`, `.filePermissionDenied`, `.fileExists`,
/// `.outOfDiskSpace` included), `.invalidFile` every file Burrow cannot read as a database
/// (`.unsupportedFileFormatVersion` included). Comparing `code` with `==` is exact.
public struct RealmError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// What kind of failure this is, for callers that handle some of them. RealmSwift's
    /// `Realm.Error.Code` names are here too: those of the same kind as a Burrow code are another
    /// name for it (`invalidInput` is `invalidArgument`, `invalidDatabase` is `invalidFile`).
    public enum Code: Sendable, Equatable {
        /// The file is open in another process, in a way that keeps this open out (one of the two
        /// needs it alone), or in as many processes as can share it.
        case fileLocked
        /// The file is not a Burrow database. (`invalidDatabase` in RealmSwift.)
        case invalidFile
        /// The file's contents are damaged.
        case corruptFile
        /// A file operation failed (a system call, a file too large, …). The failures RealmSwift
        /// names apart have their own codes, each also matched by the pattern `.fileAccess`.
        case fileAccess
        /// The operation is not allowed in the current state.
        case wrongState
        /// An argument is outside what Burrow accepts. (`invalidInput` in RealmSwift.)
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
        /// A failure of no more specific kind, as RealmSwift's `Realm.Error.fail`.
        case fail
        /// The file or its directory may not be read or written by this process (`EACCES`,
        /// `EPERM`, `EROFS`). A kind of `.fileAccess`.
        case filePermissionDenied
        /// The file should not exist and does (`EEXIST`), as when writing a copy over a file. A
        /// kind of `.fileAccess`.
        case fileExists
        /// The file or its directory does not exist (`ENOENT`), as when opening a missing file
        /// read-only. A kind of `.fileAccess`.
        case fileNotFound
        /// The file must be upgraded to a newer format, which a read-only open may not do.
        /// Burrow has one file format and never reports it; it is here for RealmSwift's name.
        case fileFormatUpgradeRequired
        /// The lock file beside the database is of another format than this Burrow's: a
        /// process of an older Burrow has the file open, or a newer Burrow made the lock file.
        /// (Another process holding the file is `.fileLocked`.)
        case incompatibleLockFile
        /// The process has no address space left to map the file (`ENOMEM` from mapping).
        case addressSpaceExhausted
        /// The disk is full (`ENOSPC`, `EDQUOT`); nothing of the failed write was kept. A kind
        /// of `.fileAccess`.
        case outOfDiskSpace
        /// The file was written by a newer Burrow, whose format this one cannot read. A kind of
        /// `.invalidFile`.
        case unsupportedFileFormatVersion
        /// A path to the file runs through a file that is not a directory (`ENOTDIR`, as for
        /// `/dev/null/foo`), as RealmSwift reports it. A kind of `.fileAccess`.
        case fileOperationFailed
    }

    /// What kind of failure this is, as specific as Burrow knows it (`.fileNotFound` rather than
    /// `.fileAccess` for a missing file).
    public let code: Code
    /// What went wrong and what to do about it, in a sentence a person can act on.
    public let description: String
    /// The file the error is about, or nil if it concerns none (or an in-memory realm), as
    /// RealmSwift's `Realm.Error.fileURL`.
    public let fileURL: URL?
    /// The `errno` of the system call that failed, for file errors that come from one (28,
    /// `ENOSPC`, for a full disk; 13, `EACCES`, for a denied permission), and for a realm that
    /// can no longer write because a sync failed (5, `EIO`, for instance).
    public let errno: Int32?
    /// The number of the damaged page of the file (its byte offset divided by the page size),
    /// for a `.corruptFile` error that found one.
    public let page: UInt32?

    /// An error of kind `code` with message `description`, about the file at `fileURL` if any,
    /// from a system call that failed with `errno` if any, about damaged page `page` if any. A
    /// `.fileAccess` error with an `errno` RealmSwift names apart gets that code (`ENOENT`
    /// gives `.fileNotFound`, `EACCES` and `EPERM` give `.filePermissionDenied`, `EEXIST` gives
    /// `.fileExists`, `ENOSPC` gives `.outOfDiskSpace`).
    public init(_ code: Code, _ description: String, fileURL: URL? = nil, errno: Int32? = nil, page: UInt32? = nil) {
        self.code = code == .fileAccess ? errno.map(Code.init(fileAccessErrno:)) ?? code : code
        self.description = description
        self.fileURL = fileURL
        self.errno = errno
        self.page = page
    }

    /// The message, so that `localizedDescription` shows it.
    public var errorDescription: String? { description }
}

extension RealmError {
    /// The public form of an engine error. The `errno` and the damaged page come from the error
    /// at the bottom (`rootCause`): a handle that failed keeps the error that failed it.
    package init(_ error: StorageError) {
        let code: Code
        switch error {
        case .fileLocked, .tooManyProcesses: code = .fileLocked
        case .incompatibleLockFile: code = .incompatibleLockFile
        case .openInThisProcess: code = .alreadyOpen
        case .notADatabase: code = .invalidFile
        case .unsupportedFormat: code = .unsupportedFileFormatVersion
        case .damagedMeta, .truncated, .corruptPage, .corruptEntry: code = .corruptFile
        case .io, .fileTooLarge: code = .fileAccess
        case .handleFailed, .closed, .readOnly, .transactionFinished, .cursorInvalidated, .modeConflict: code = .wrongState
        case .keyTooLarge, .valueTooLarge, .treeExists, .noSuchTree, .invalidOption: code = .invalidArgument
        }
        var errno: Int32?
        var page: UInt32?
        switch error.rootCause {
        case .io(_, _, let code): errno = code
        case .corruptPage(_, let number, _): page = number
        default: break
        }
        self.init(code, error.description, fileURL: error.filePath.map { URL(fileURLWithPath: $0) }, errno: errno, page: page)
    }
}

extension RealmError {
    /// The public form of a store error: an engine error underneath as above (its file,
    /// `errno` and damaged page kept), a rule of the store as the code of its kind.
    package init(_ error: StoreError) {
        if let storage = error.storage {
            self.init(storage)
            return
        }
        let code: Code
        switch error.kind {
        case .storage, .corruptFile: code = .corruptFile
        case .invalidArgument: code = .invalidArgument
        case .primaryKeyExists: code = .primaryKeyExists
        case .invalidObject: code = .invalidObject
        }
        self.init(code, error.message)
    }
}

extension RealmError {
    /// Any error met inside Burrow as a `RealmError`: engine errors mapped as above, a
    /// `RealmError` as it is.
    init(wrapping error: any Error) {
        switch error {
        case let error as RealmError: self = error
        case let error as StorageError: self.init(error)
        case let error as StoreError: self.init(error)
        default: self.init(.fileAccess, "\(error)")
        }
    }
}

/// How a `RealmError` bridges to `NSError`: RealmSwift's domain, `io.realm`, and per `Code`
/// one stable `errorCode`, RealmSwift's `RLMError` value where it has the same kind of error
/// (`fail` 1, `fileAccess` 2, `filePermissionDenied` 3, `fileExists` 4, `fileNotFound` 5,
/// `fileFormatUpgradeRequired` 6, `incompatibleLockFile` 8, `addressSpaceExhausted` 9,
/// `schemaMismatch` 10, `alreadyOpen` 12, `invalidArgument` 13, `outOfDiskSpace` 14,
/// `unsupportedFileFormatVersion` 16, `fileOperationFailed` 19, `invalidFile` 20), and one from
/// 1000 up where it has none.
extension RealmError: CustomNSError {
    /// `io.realm`, RealmSwift's `RLMErrorDomain`.
    public static var errorDomain: String { "io.realm" }

    /// The code of this error's `Code` (see the extension's description).
    public var errorCode: Int {
        switch code {
        case .fail: 1
        case .fileAccess: 2
        case .filePermissionDenied: 3
        case .fileExists: 4
        case .fileNotFound: 5
        case .fileFormatUpgradeRequired: 6
        case .incompatibleLockFile: 8
        case .addressSpaceExhausted: 9
        case .schemaMismatch: 10
        case .alreadyOpen: 12
        case .invalidArgument: 13
        case .outOfDiskSpace: 14
        case .unsupportedFileFormatVersion: 16
        case .fileOperationFailed: 19
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
