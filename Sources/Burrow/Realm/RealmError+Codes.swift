import BurrowStore
import Foundation

extension Realm {
    /// RealmSwift's name for `RealmError`: the same type, so `catch Realm.Error.fileNotFound`,
    /// `catch let error as Realm.Error` and `catch let error as RealmError` all catch what Burrow
    /// throws.
    public typealias Error = RealmError
}

extension RealmError.Code {
    /// RealmSwift's name for `.invalidArgument` (`RLMErrorInvalidInput`, 13).
    public static var invalidInput: Self { .invalidArgument }
    /// RealmSwift's name for `.invalidFile` (`RLMErrorInvalidDatabase`, 20).
    public static var invalidDatabase: Self { .invalidFile }

    /// The code of a failed file operation that set `errno`: the one RealmSwift names apart for
    /// it, else `.fileAccess`.
    init(fileAccessErrno errno: Int32) {
        switch errno {
        case ENOENT: self = .fileNotFound
        // A path through a file that is not a directory, as RealmSwift reports it.
        case ENOTDIR: self = .fileOperationFailed
        case EACCES, EPERM, EROFS: self = .filePermissionDenied
        case EEXIST: self = .fileExists
        case ENOSPC, EDQUOT: self = .outOfDiskSpace
        case ENOMEM: self = .addressSpaceExhausted
        default: self = .fileAccess
        }
    }

    /// Whether an error with this code is of kind `kind`: the same code, or one that refines it
    /// (every failed file operation is a kind of `.fileAccess`; a file from a newer Burrow is a
    /// kind of `.invalidFile`).
    public func isKind(of kind: Self) -> Bool {
        if self == kind { return true }
        switch (kind, self) {
        case (.fileAccess, .filePermissionDenied), (.fileAccess, .fileExists), (.fileAccess, .fileNotFound),
            (.fileAccess, .outOfDiskSpace), (.fileAccess, .addressSpaceExhausted), (.fileAccess, .fileOperationFailed),
            (.invalidFile, .unsupportedFileFormatVersion), (.invalidFile, .fileFormatUpgradeRequired):
            return true
        default:
            return false
        }
    }
}

extension RealmError.Code {
    /// Whether `error` is a `RealmError` of kind `code` (its code, or one that refines it; see
    /// `Code.isKind(of:)`). This lets a code be a `catch` pattern, as in RealmSwift:
    /// `catch Realm.Error.fileNotFound { … }`, and `catch Realm.Error.fileAccess` catches every
    /// failed file operation.
    public static func ~= (code: Self, error: any Swift.Error) -> Bool {
        guard let error = error as? RealmError else { return false }
        return error.code.isKind(of: code)
    }
}

extension RealmError {
    /// Each code as a member of the error type, for `catch Realm.Error.fileNotFound` and
    /// `error.code == Realm.Error.fileAccess`, as in RealmSwift.
    public static var fail: Code { .fail }
    /// `Code.fileAccess`.
    public static var fileAccess: Code { .fileAccess }
    /// `Code.filePermissionDenied`.
    public static var filePermissionDenied: Code { .filePermissionDenied }
    /// `Code.fileExists`.
    public static var fileExists: Code { .fileExists }
    /// `Code.fileNotFound`.
    public static var fileNotFound: Code { .fileNotFound }
    /// `Code.fileFormatUpgradeRequired`.
    public static var fileFormatUpgradeRequired: Code { .fileFormatUpgradeRequired }
    /// `Code.incompatibleLockFile`.
    public static var incompatibleLockFile: Code { .incompatibleLockFile }
    /// `Code.addressSpaceExhausted`.
    public static var addressSpaceExhausted: Code { .addressSpaceExhausted }
    /// `Code.schemaMismatch`.
    public static var schemaMismatch: Code { .schemaMismatch }
    /// `Code.alreadyOpen`.
    public static var alreadyOpen: Code { .alreadyOpen }
    /// `Code.invalidInput` (`Code.invalidArgument`).
    public static var invalidInput: Code { .invalidArgument }
    /// `Code.outOfDiskSpace`.
    public static var outOfDiskSpace: Code { .outOfDiskSpace }
    /// `Code.unsupportedFileFormatVersion`.
    public static var unsupportedFileFormatVersion: Code { .unsupportedFileFormatVersion }
    /// `Code.fileOperationFailed`.
    public static var fileOperationFailed: Code { .fileOperationFailed }
    /// `Code.invalidDatabase` (`Code.invalidFile`).
    public static var invalidDatabase: Code { .invalidFile }
    /// `Code.fileLocked`.
    public static var fileLocked: Code { .fileLocked }
    /// `Code.invalidFile`.
    public static var invalidFile: Code { .invalidFile }
    /// `Code.corruptFile`.
    public static var corruptFile: Code { .corruptFile }
    /// `Code.wrongState`.
    public static var wrongState: Code { .wrongState }
    /// `Code.invalidArgument`.
    public static var invalidArgument: Code { .invalidArgument }
    /// `Code.primaryKeyExists`.
    public static var primaryKeyExists: Code { .primaryKeyExists }
    /// `Code.invalidObject`.
    public static var invalidObject: Code { .invalidObject }
}
