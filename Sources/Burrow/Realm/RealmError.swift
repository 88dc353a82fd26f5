import BurrowStorage

/// An error Burrow reports. Every failure a caller can cause or meet is one of these cases, with
/// a message a person can act on in `description`.
public struct RealmError: Error, Sendable, Equatable, CustomStringConvertible {
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
    }

    public let code: Code
    public let description: String

    public init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }
}

extension RealmError {
    /// The public form of an engine error.
    package init(_ error: StorageError) {
        let code: Code
        switch error {
        case .fileLocked: code = .fileLocked
        case .notADatabase, .unsupportedFormat: code = .invalidFile
        case .damagedMeta, .truncated, .corruptPage: code = .corruptFile
        case .io, .fileTooLarge: code = .fileAccess
        case .handleFailed, .closed, .readOnly, .transactionFinished, .cursorInvalidated, .modeConflict: code = .wrongState
        case .keyTooLarge, .valueTooLarge, .treeExists, .noSuchTree, .invalidOption: code = .invalidArgument
        }
        self.init(code, error.description)
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
