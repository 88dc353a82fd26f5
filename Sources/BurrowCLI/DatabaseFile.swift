import Burrow
import BurrowStorage
import BurrowStore
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Opening the file a command names, with one line a person can act on when it cannot be
/// opened: missing, not a Burrow file, damaged, in use by another process.
@MainActor
enum DatabaseFile {
    /// Whether a file opened by this process fell back past a commit that did not survive
    /// (the tool reports it when opening and exits with status 1 at the end).
    static var openedDamaged = false

    /// The realm of the file at `path`, read-only, with no Swift classes: every stored class
    /// is read through the stored schema. Every page is checked first (`checkPages`): the
    /// library stops the program on a damaged page that a property read meets, as RealmSwift
    /// does, where the tool should say which page is damaged and exit with status 1. Throws
    /// `ToolError`.
    static func openForReading(_ path: String) throws(ToolError) -> Realm {
        try checkPages(path)
        var configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: path), readOnly: true)
        configuration.schemaVersion = try storedSchemaVersion(path) ?? 0
        return try open(configuration, path)
    }

    /// The realm of the file at `path` for writing, created when there is no file, with no
    /// Swift classes. A new file takes `newSchemaVersion`. A file that did not open whole is
    /// refused: a write would make the loss of the commits it fell back past final. Throws
    /// `ToolError`.
    static func openForWriting(_ path: String, newSchemaVersion: UInt64) throws(ToolError) -> Realm {
        var configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: path))
        if FileManager.default.fileExists(atPath: path) {
            try checkPagesBeforeWriting(path)
            configuration.schemaVersion = try storedSchemaVersion(path) ?? newSchemaVersion
        } else {
            configuration.schemaVersion = newSchemaVersion
        }
        let realm = try realm(configuration, path)
        if let recovery = realm.recovery { throw notWhole(path, recovery.description, "Writing to it") }
        return realm
    }

    /// `checkPages` for a file a command is about to write: a damaged file is left as it is.
    /// An empty file holds nothing to check (a realm opened on it makes it a new database).
    nonisolated static func checkPagesBeforeWriting(_ path: String) throws(ToolError) {
        guard try requireFile(path) > 0 else { return }
        try checkPages(path)
    }

    /// Reads every page of the file's newest version and checks its checksum and its
    /// tree's structure, with a progress line. Throws `ToolError` for the first damaged page.
    nonisolated static func checkPages(_ path: String) throws(ToolError) {
        var progress = ProgressLine()
        progress.show("checking the pages of \(path)…")
        defer { progress.finish() }
        let snapshot = try openSnapshot(path)
        do {
            _ = try snapshot.verify()
        } catch {
            throw explain(RealmError(error), path)
        }
    }

    /// The newest version of the file at `path`, read-only, through the engine alone (shared
    /// with the processes that have it open). Throws `ToolError` with the line for a file that
    /// cannot be opened.
    nonisolated static func openSnapshot(_ path: String, salvaging: Bool = false) throws(ToolError) -> Snapshot {
        try requireFile(path)
        do {
            return try Storage.open(path: path, options: StorageOptions(readOnly: true, create: false, sharing: .shared, salvaging: salvaging))
                .snapshot()
        } catch {
            throw explain(RealmError(error), path)
        }
    }

    /// Checks that `path` names a regular file (through any symbolic links): a directory, a
    /// FIFO, a socket or a device is refused with a line saying which, before anything opens
    /// it (opening a FIFO would wait for a writer forever). Returns the file's size in bytes.
    /// Throws `ToolError`.
    @discardableResult
    nonisolated static func requireFile(_ path: String) throws(ToolError) -> Int {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw errno == ENOENT ? missing(path) : ToolError(message: "\(path): cannot be read (\(String(cString: strerror(errno))))")
        }
        let kind: String
        switch status.st_mode & S_IFMT {
        case S_IFREG: return Int(status.st_size)
        case S_IFDIR: kind = "a directory"
        case S_IFIFO: kind = "a FIFO (named pipe)"
        case S_IFSOCK: kind = "a socket"
        case S_IFCHR, S_IFBLK: kind = "a device"
        default: kind = "not a regular file"
        }
        throw ToolError(message: "\(path): is \(kind), not a Burrow file")
    }

    /// The error for a file that is not there: "no such file", or, when it would be created
    /// but cannot be, the directory that is missing.
    nonisolated static func missing(_ path: String) -> ToolError {
        let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)).map { link in
            link.hasPrefix("/") ? link : ((path as NSString).deletingLastPathComponent as NSString).appendingPathComponent(link)
        }
        let directory = ((target ?? path) as NSString).deletingLastPathComponent
        var isDirectory: ObjCBool = false
        if !directory.isEmpty, !FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) || !isDirectory.boolValue {
            let through = target.map { " (the symbolic link \(path) points to \($0))" } ?? ""
            return ToolError(message: "\(path): no such file, and it cannot be created: there is no directory \(directory)\(through)")
        }
        return ToolError(message: "\(path): no such file")
    }

    /// The schema version the file stores, or nil if it stores no class yet.
    private static func storedSchemaVersion(_ path: String) throws(ToolError) -> UInt64? {
        do {
            return try Burrow.storedSchemaVersion(at: URL(fileURLWithPath: path))
        } catch {
            throw explain(error, path)
        }
    }

    /// Opens a realm for reading; a file that did not open whole is reported (status 1 at the
    /// end) and read as the version it opened.
    private static func open(_ configuration: Realm.Configuration, _ path: String) throws(ToolError) -> Realm {
        let realm = try realm(configuration, path)
        if let recovery = realm.recovery {
            printError(
                "burrow: \(path) did not open whole: \(recovery.description) What follows is version \(recovery.openedVersion); `burrow verify \(path)` checks the rest."
            )
            openedDamaged = true
        }
        return realm
    }

    /// The realm `configuration` opens, or the line for a file that cannot be opened.
    private static func realm(_ configuration: Realm.Configuration, _ path: String) throws(ToolError) -> Realm {
        do {
            return try Realm(configuration: configuration)
        } catch {
            throw explain(error, path)
        }
    }

    /// The error for a file that did not open whole (`recovery` says what it fell back past),
    /// which a command that writes leaves as it is: `writing` (such as "Compacting it") would
    /// make the loss of what it fell back past final.
    nonisolated static func notWhole(_ path: String, _ recovery: String, _ writing: String) -> ToolError {
        ToolError(
            message:
                "\(path) did not open whole: \(recovery) \(writing) would make that loss final, so the file is left as it is; `burrow recover` copies what can be read into a new file."
        )
    }

    /// The line for a file that cannot be opened. The library's messages name the file and
    /// say what to do; the tool adds the file's name where one does not.
    nonisolated static func explain(_ error: any Error, _ path: String) -> ToolError {
        guard let error = error as? RealmError else { return ToolError(message: "\(path): \(error)") }
        switch error.code {
        // A missing file, or a path through a file that is not a directory.
        case .fileNotFound, .fileOperationFailed:
            return missing(path)
        default:
            let fileName = (path as NSString).lastPathComponent
            return ToolError(message: error.description.contains(fileName) ? error.description : "\(path): \(error.description)")
        }
    }
}
