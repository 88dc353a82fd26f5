import BurrowStorage
import BurrowStore
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Compaction: a file rewritten with every tree packed into as few pages as it needs, taking
/// back the space that old versions (a frozen value kept long, a large delete) left free.
///
/// There is one path, `compactFile`, taken by `Realm.compact(configuration:)`, by
/// `Configuration.shouldCompactOnLaunch` and by `burrow compact`:
///
/// 1. The file is opened for this call alone: with an exclusive lock (which fails if any other
///    process, or another handle of this process, has it open) on a handle that is not in the
///    process's table of open files, so no realm opened meanwhile can share it. A realm of this
///    process that has the file open is refused before that (`Storage.openHandle`).
/// 2. A file that did not open whole (`Storage.recovery`) is refused: its copy would hold only
///    the version opened, and make the loss of the dropped commit final.
/// 3. The latest version is copied into `<file>.compacting` and the copy checked
///    (`writeVerifiedCopy`, the same step as `writeCopy(toFile:)`): committed with `.full`
///    durability, both meta slots written, every page verified.
/// 4. The copy is renamed over the file, and the directory synced.
///
/// A crash before step 4 leaves the file as it was (and the copy beside it, which the next
/// compaction refuses to remove: it may be a file of the user's); a crash after it leaves the
/// new file, whole. A name that is a symbolic link stays one: the file it points to is compacted.
///
/// State: `CompactionsInProcess.paths`, the files this process is compacting, behind its lock.
extension Realm {
    /// What `Realm.compact(configuration:)` did: which file it compacted and its sizes before
    /// and after.
    public struct CompactionResult: Sendable, Equatable {
        /// The file compacted: the configuration's `fileURL`, or the file a symbolic link there
        /// points to.
        public let fileURL: URL
        /// The file's size in bytes before compacting: data and free space (the `totalBytes`
        /// `shouldCompactOnLaunch` is given).
        public let fileSizeBefore: Int
        /// The bytes the data used before compacting: the pages its latest version reaches (the
        /// `usedBytes` `shouldCompactOnLaunch` is given).
        public let usedBytesBefore: Int
        /// The file's size in bytes after compacting.
        public let fileSizeAfter: Int
        /// The entries in the compacted file's trees, as `burrow compact` reports them.
        package let entries: UInt64
        /// The trees in the compacted file.
        package let trees: Int
    }

    /// Compacts the file `configuration` names: writes a copy of its latest version in fully
    /// packed pages beside it (`<file>.compacting`), checks the copy, renames it over the file
    /// and syncs the directory, so that a crash at any moment leaves either the old file or the
    /// new one whole. A `fileURL` that is a symbolic link stays one; the file it points to is
    /// compacted. Every object, class and the schema version are kept.
    ///
    /// RealmSwift has no public counterpart (its `Realm Core` compacts only on launch, through
    /// `shouldCompactOnLaunch`, which uses this path too); Realm's Java and Kotlin SDKs call it
    /// `Realm.compactRealm(configuration)`.
    ///
    /// The file must not be open: every `Realm` and `RealmActor` of it must be released, and
    /// every frozen value read from it, in this process and in any other. Nothing else can
    /// open the file while it is compacted: in this process an open waits for the compaction to
    /// end; another process's open throws `.fileLocked`.
    ///
    /// Blocks the calling thread while it copies and checks the file (it takes about as long as
    /// reading the file twice); it needs no isolation, so call it from any thread or task, off
    /// the main actor for a large file.
    ///
    /// - Returns: the file compacted and its sizes before and after.
    /// - Throws: `RealmError`, with nothing changed: `.invalidArgument` if `configuration` names
    ///   an in-memory realm or is `readOnly`; `.fileNotFound` if there is no file;
    ///   `.alreadyOpen` if the file is open in this process or in another (the message says
    ///   which) or another thread of this process is compacting it; `.corruptFile` if the file
    ///   did not open whole (`Realm.recovery` would be set: compacting would make the loss of
    ///   the dropped commit final) or a page of it is damaged; `.fileExists` if
    ///   `<file>.compacting` is in the way (it is never removed: move it away, or remove it if
    ///   a compaction that stopped left it); `.invalidFile` if it is not a Burrow database; and
    ///   another `.fileAccess` code if the copy cannot be written or renamed (a full disk gives
    ///   `.outOfDiskSpace`).
    @discardableResult
    public static func compact(configuration: Configuration) throws(RealmError) -> CompactionResult {
        guard configuration.inMemoryIdentifier == nil, let fileURL = configuration.fileURL else {
            throw RealmError(
                .invalidArgument, "compact(configuration:) compacts a file; give a configuration with a fileURL, not an in-memory identifier.")
        }
        if configuration.readOnly {
            throw RealmError(
                .invalidArgument,
                "Cannot compact \(fileURL.path) with a readOnly configuration: compacting replaces the file. Give a configuration with readOnly false.",
                fileURL: fileURL)
        }
        // Refusals throw, so a result is always given.
        return try compactFile(fileURL, onLaunch: nil)!
    }

    /// Compacts the file of `configuration` as it is opened, if `shouldCompactOnLaunch` asks
    /// for it, with RealmSwift's rules: not for an in-memory realm or a file not there yet (or
    /// empty), and only when no realm of this process has the file open (then the block is not
    /// called). Compaction is skipped, with a warning logged, when another process has the file
    /// open, when it did not open whole, or when `<file>.compacting` is in the way; errors
    /// writing the copy are thrown, with the file as it was. First waits for a compaction of
    /// the file that another thread of this process has under way, so that opening never meets
    /// the lock it holds. Throws `RealmError` (`.invalidArgument` when `readOnly` is set too,
    /// as RealmSwift refuses the pair).
    static func compactOnLaunchIfAsked(_ configuration: Configuration) throws(RealmError) {
        guard configuration.inMemoryIdentifier == nil, let fileURL = configuration.fileURL else { return }
        if configuration.readOnly, configuration.shouldCompactOnLaunch != nil {
            throw RealmError(
                .invalidArgument,
                "Cannot open \(fileURL.path) read-only with shouldCompactOnLaunch set: compacting replaces the file. Set one of readOnly and shouldCompactOnLaunch, not both.",
                fileURL: fileURL)
        }
        CompactionsInProcess.waitUntilDone(fileURL.path)
        // Open in this process already: not a launch, so neither a call nor a warning.
        guard let shouldCompact = configuration.shouldCompactOnLaunch, Storage.openHandle(path: fileURL.path) == nil else { return }
        var status = stat()
        guard stat(fileURL.path, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_size > 0 else { return }
        if let result = try compactFile(fileURL, onLaunch: shouldCompact) {
            Logger.log(.info, "Compacted \(result.fileURL.path) on launch from \(result.fileSizeBefore) to \(counted(result.fileSizeAfter, "byte")).")
        }
    }

    /// The one compaction path (see the extension's description). `onLaunch` nil: a refusal
    /// throws, and a result is always returned. `onLaunch` given: it is called with the file's
    /// size and the bytes its data uses once the file is held, and a refusal is logged and
    /// returns nil, as does the block's false. Throws `RealmError`; whatever throws, the file is
    /// as it was and nothing this call made is left.
    private static func compactFile(_ fileURL: URL, onLaunch: (@Sendable (Int, Int) -> Bool)?) throws(RealmError) -> CompactionResult? {
        // Renaming over a symbolic link would replace the link with a file of its own, and leave
        // the file it points to (which an app may open by its own name) as it was.
        let isLink = (try? FileManager.default.destinationOfSymbolicLink(atPath: fileURL.path)) != nil
        let target = isLink ? fileURL.resolvingSymlinksInPath() : fileURL
        let path = target.path
        func refuse(_ error: RealmError) throws(RealmError) -> CompactionResult? {
            guard onLaunch != nil else { throw error }
            Logger.log(.warn, "\(path) was not compacted on launch: \(error.description)")
            return nil
        }

        var status = stat()
        guard stat(path, &status) == 0 else {
            let code = errno
            throw RealmError(
                .fileAccess, "Cannot compact \(path): \(code == ENOENT ? "there is no such file" : String(cString: strerror(code))).",
                fileURL: target,
                errno: code)
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw RealmError(.invalidFile, "Cannot compact \(path): it is not a regular file, so not a Burrow database.", fileURL: target)
        }
        guard CompactionsInProcess.begin(path) else {
            return try refuse(
                RealmError(
                    .alreadyOpen, "\(path) is being compacted by another thread of this process; wait for that compaction to end.", fileURL: target))
        }
        defer { CompactionsInProcess.end(path) }
        let openInThisProcess = RealmError(
            .alreadyOpen,
            "Cannot compact \(path): it is open in this process, and compacting replaces the file. Release every Realm and RealmActor of it, and every frozen object, result, collection or realm read from it, first.",
            fileURL: target)
        if Storage.openHandle(path: path) != nil { return try refuse(openInThisProcess) }

        // Held until the copy has replaced the file: no process can open the file meanwhile.
        let storage: Storage
        do {
            let device = try FileDevice(path: path, readOnly: true, create: false, sharing: .exclusive)
            storage = try Storage(device: device, options: StorageOptions(readOnly: true, create: false))
        } catch .fileLocked {
            // A realm of this process may have opened it since the check above.
            return try refuse(
                Storage.openHandle(path: path) != nil
                    ? openInThisProcess
                    : RealmError(
                        .alreadyOpen,
                        "Cannot compact \(path): another process has it open, and compacting replaces the file. Close it there (every app process and `burrow` command using it) first.",
                        fileURL: target))
        } catch {
            throw RealmError(error)
        }
        defer { storage.close() }
        if let recovery = storage.recovery {
            return try refuse(
                RealmError(
                    .corruptFile,
                    "\(path) did not open whole: \(recovery.description) Compacting it would make that loss final, so the file is left as it is; `burrow recover` copies what can be read into a new file.",
                    fileURL: target))
        }
        let before: StorageStatistics
        let snapshot: Snapshot
        do {
            before = try storage.statistics()
            snapshot = try storage.snapshot()
        } catch {
            throw RealmError(error)
        }
        let usedBytes = before.usedPages * before.pageSize
        if let onLaunch, !onLaunch(before.fileSize, usedBytes) { return nil }

        let temporary = path + ".compacting"
        var existing = stat()
        guard lstat(temporary, &existing) != 0 else {
            // Never removed here: it may be a file of the user's, not a copy left by a
            // compaction that stopped part-way (which leaves the file itself whole).
            return try refuse(
                RealmError(
                    .fileAccess,
                    "\(temporary) is in the way: compact writes its copy there. The file itself is whole; move that one away (or remove it, if a compact that stopped left it) and run compact again.",
                    fileURL: URL(fileURLWithPath: temporary), errno: EEXIST))
        }
        let copy = try writeVerifiedCopy(of: snapshot, toPath: temporary)
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw RealmError(
                .fileAccess, "Cannot compact \(path): renaming its compacted copy over it failed (\(String(cString: strerror(code)))).",
                fileURL: target, errno: code)
        }
        FileDevice.syncDirectory(of: path)
        return CompactionResult(
            fileURL: target, fileSizeBefore: before.fileSize, usedBytesBefore: usedBytes, fileSizeAfter: copy.fileSize, entries: copy.entries,
            trees: copy.trees)
    }
}

/// The files this process is compacting now, by path (symbolic links resolved), so that a
/// second compaction of one refuses and an open of one waits for the compaction to end instead
/// of meeting its lock and taking it for another process's.
///
/// State: `paths`, behind its lock.
enum CompactionsInProcess {
    private static let paths = Locked<Set<String>>([])

    /// Notes that `path` is being compacted; false if it is already.
    static func begin(_ path: String) -> Bool {
        paths.withLock { $0.insert(canonical(path)).inserted }
    }

    /// Notes that the compaction of `path` ended.
    static func end(_ path: String) {
        _ = paths.withLock { $0.remove(canonical(path)) }
    }

    /// Returns once no compaction of the file at `path` is under way in this process, at once
    /// when none of any file is (one lock, no system call).
    static func waitUntilDone(_ path: String) {
        guard !paths.withLock({ $0.isEmpty }) else { return }
        let key = canonical(path)
        while paths.withLock({ $0.contains(key) }) { usleep(1_000) }
    }

    /// `path` with every symbolic link and relative step resolved, or as given if that fails
    /// (a file not there yet).
    private static func canonical(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
