#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Everything the storage engine can report. Each case carries what a person needs to act on it;
/// `description` is the sentence to show them.
@usableFromInline
package enum StorageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file exists but does not start with a Burrow meta page.
    case notADatabase(path: String)
    /// The file was written by a newer version of Burrow.
    case unsupportedFormat(path: String, version: UInt32, supported: UInt32)
    /// Both meta pages fail their checksums or describe impossible values.
    case damagedMeta(path: String, detail: String)
    /// The file is shorter than its meta page says it must be.
    case truncated(path: String, expectedBytes: Int, actualBytes: Int)
    /// A page failed its checksum or its structure is impossible.
    case corruptPage(path: String, page: UInt32, detail: String)
    /// An entry of tree `tree` holds what its tree's kind of entry cannot hold. `entry` says
    /// which entry (the page holding it is not known where this is found) and what is wrong.
    case corruptEntry(path: String, tree: String, entry: String)
    /// Another process holds the file's lock.
    case fileLocked(path: String)
    /// As many processes as a lock file has room for, `limit`, share the file already.
    case tooManyProcesses(path: String, limit: Int)
    /// The lock file beside the database (`path`) is of another format, `version`, than this
    /// Burrow's, `supported`; `inUse`: a process that has the database open uses it.
    case incompatibleLockFile(path: String, database: String, version: UInt64, supported: UInt64, inUse: Bool)
    /// The operation needs the file closed, and a handle of this process has it open.
    case openInThisProcess(path: String)
    /// The same file is already open in this process with another mode.
    case modeConflict(path: String, detail: String)
    /// A system call failed.
    case io(path: String, operation: String, errno: Int32)
    /// A sync (or the write of a meta page) failed earlier; the handle refuses all further work
    /// and the file must be reopened. `what` says what failed, and `cause` is the engine's error
    /// for it, when there is one (the `io` error of the failed sync).
    indirect case handleFailed(path: String, what: String, cause: StorageError?)
    /// The handle was closed.
    case closed(path: String)
    /// A write was attempted on a read-only handle.
    case readOnly(path: String)
    /// A key longer than the page size allows.
    case keyTooLarge(size: Int, limit: Int)
    /// A value longer than the format allows.
    case valueTooLarge(size: Int, limit: Int)
    /// The file would exceed the largest page number the format can address.
    case fileTooLarge(path: String)
    /// A tree of that name exists already.
    case treeExists(name: String)
    /// No tree of that name exists.
    case noSuchTree(name: String)
    /// A write transaction was used after commit or abort.
    case transactionFinished
    /// A cursor of a write transaction was used after the transaction changed a tree.
    case cursorInvalidated
    /// An option is outside its allowed range.
    case invalidOption(String)

    @usableFromInline package var description: String {
        switch self {
        case .notADatabase(let path):
            return "\(path) is not a Burrow database (its first page has no Burrow meta header)."
        case .unsupportedFormat(let path, let version, let supported):
            if version > supported {
                return "\(path) uses file format \(version), but this Burrow reads format \(supported); open it with a newer Burrow."
            }
            return
                "\(path) uses file format \(version), older than the formats this Burrow reads (\(Meta.oldestReadableFormat) to \(supported)); it cannot be converted. Recreate the file, or open it with the Burrow that wrote it and export the data (`burrow export`)."
        case .damagedMeta(let path, let detail):
            return "\(path) is damaged: neither meta page is valid (\(detail)). Restore it from a backup."
        case .truncated(let path, let expected, let actual):
            return "\(path) is truncated: its meta page needs \(counted(expected, "byte")) but the file has \(actual). Restore it from a backup."
        case .corruptPage(let path, let page, let detail):
            return
                "\(path) is damaged: page \(page) \(detail). `burrow verify` lists the damage; restore the file from a backup, or copy out what is sound with `burrow recover`."
        case .corruptEntry(let path, let tree, let entry):
            return
                "\(path) is damaged: in tree \"\(tree)\" (named with the entry, as the page is not known here), \(entry). `burrow verify` lists the damage; restore the file from a backup, or copy out what is sound with `burrow recover`."
        case .fileLocked(let path):
            return
                "\(path) is open in another process, and one of the two needs it for itself alone (Realm.Configuration.exclusiveAccess, or `burrow compact`). Close it there first."
        case .tooManyProcesses(let path, let limit):
            return
                "\(path) is open in \(Self.grouped(limit)) processes, the most that can share one file (its lock file has a slot for each); close it in one of them first."
        case .incompatibleLockFile(let path, let database, let version, let supported, let inUse):
            if inUse {
                return
                    "\(path) is a lock file of format \(version), in use by a process of an older Burrow that has \(database) open; this Burrow uses lock file format \(supported). Close \(database) in that process first."
            }
            return
                "\(path) is a lock file of format \(version), which this Burrow (lock file format \(supported)) cannot take part in; open \(database) with the Burrow that made it, or delete the lock file once no process has \(database) open."
        case .openInThisProcess(let path):
            return "\(path) is open in this process; release every handle of it, and every snapshot read from it, first."
        case .modeConflict(let path, let detail):
            return "\(path) is already open in this process \(detail)."
        case .io(let path, let operation, let code):
            return "\(operation) failed on \(path): \(String(cString: strerror(code))) (errno \(code))."
        case .handleFailed(let path, let what, let cause):
            let because = cause.map { "\(what) (\($0.description))" } ?? what
            return "\(path) can no longer be written by this handle because \(because); close every use of it and open the file again."
        case .closed(let path):
            return "\(path) was closed; open it again to use it."
        case .readOnly(let path):
            return "\(path) is open read-only; open it writable to change it."
        case .keyTooLarge(let size, let limit):
            return "A key of \(counted(size, "byte")) is longer than the limit of \(counted(limit, "byte")) for this page size."
        case .valueTooLarge(let size, let limit):
            return "A value of \(counted(size, "byte")) is longer than the limit of \(counted(limit, "byte"))."
        case .fileTooLarge(let path):
            return "\(path) cannot grow further: it has reached the largest number of pages the format addresses."
        case .treeExists(let name):
            return "A tree named \"\(name)\" exists already."
        case .noSuchTree(let name):
            return "There is no tree named \"\(name)\"."
        case .transactionFinished:
            return "The write transaction was already committed or aborted."
        case .cursorInvalidated:
            return "The cursor's write transaction changed a tree after the cursor was positioned; seek again."
        case .invalidOption(let detail):
            return detail
        }
    }
}

extension StorageError {
    /// `number` with a comma between each group of three digits, as the documentation writes
    /// counts ("32,768").
    static func grouped(_ number: Int) -> String {
        var digits = String(number.magnitude)
        var groups: [Substring] = []
        while digits.count > 3 {
            groups.insert(digits.suffix(3), at: 0)
            digits.removeLast(3)
        }
        return (number < 0 ? "-" : "") + ([Substring(digits)] + groups).joined(separator: ",")
    }
}

extension StorageError {
    /// The file the error is about: nil for errors about no file, and for in-memory databases
    /// (whose name is not a path).
    package var filePath: String? {
        let path: String
        switch self {
        case .notADatabase(let p), .unsupportedFormat(let p, _, _), .damagedMeta(let p, _), .truncated(let p, _, _),
            .corruptPage(let p, _, _), .corruptEntry(let p, _, _), .fileLocked(let p), .tooManyProcesses(let p, _),
            .incompatibleLockFile(_, let p, _, _, _),
            .openInThisProcess(let p), .modeConflict(let p, _),
            .io(let p, _, _), .handleFailed(let p, _, _), .closed(let p), .readOnly(let p), .fileTooLarge(let p):
            path = p
        case .keyTooLarge, .valueTooLarge, .treeExists, .noSuchTree, .transactionFinished, .cursorInvalidated, .invalidOption:
            return nil
        }
        return path.hasPrefix(MemoryDevice.namePrefix) ? nil : path
    }
}

extension StorageError {
    /// The error at the bottom of this one: for a failed handle, the error that failed it (and
    /// so on); for any other error, the error itself.
    package var rootCause: StorageError {
        var error = self
        while case .handleFailed(_, _, let cause?) = error { error = cause }
        return error
    }
}
