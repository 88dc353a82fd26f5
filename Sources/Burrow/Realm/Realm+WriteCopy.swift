import BurrowStorage
import BurrowStore
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Realm {
    /// Writes a copy of the realm, as of the version it reads, to a new file at `fileURL`: every
    /// class and object, in fully packed pages (so the copy is also the realm compacted). The
    /// copy is checked page by page, and it and its name are durable when this returns. The
    /// realm itself is only read.
    ///
    /// Call it where the realm is isolated (its actor, or the thread that opened it), outside a
    /// write transaction. It blocks that thread while it copies.
    ///
    /// Throws `RealmError`: `.fileExists` if the file exists already, another `.fileAccess` code
    /// if it cannot be written (`.outOfDiskSpace` for a full disk), `.wrongState` inside a write
    /// transaction (whose changes are not committed yet). A copy that fails is removed.
    public func writeCopy(toFile fileURL: URL) throws {
        if isInWriteTransaction {
            throw RealmError(.wrongState, "writeCopy(toFile:) copies committed data; call it after the write transaction ends.")
        }
        if FileManager.default.fileExists(atPath: fileURL.path) {
            throw RealmError(.fileAccess, "Cannot write a copy to \(fileURL.path): the file exists already.", fileURL: fileURL, errno: EEXIST)
        }
        _ = try Self.writeVerifiedCopy(of: store.snapshotReader.snapshot, toPath: fileURL.path)
    }

    /// Writes a copy of the realm to the file `configuration` names, as RealmSwift's
    /// `writeCopy(configuration:)`: the same as `writeCopy(toFile: configuration.fileURL)`. Open
    /// the copy with `configuration`.
    ///
    /// Throws `RealmError`: `.invalidArgument` if `configuration` names an in-memory realm,
    /// `.fileExists` if the file exists already, and otherwise as `writeCopy(toFile:)`.
    public func writeCopy(configuration: Configuration) throws {
        guard configuration.inMemoryIdentifier == nil, let fileURL = configuration.fileURL else {
            throw RealmError(
                .invalidArgument, "writeCopy(configuration:) writes a file; give a configuration with a fileURL, not an in-memory identifier.")
        }
        try writeCopy(toFile: fileURL)
    }

    /// A copy `writeVerifiedCopy` wrote: its size in bytes, and the entries and trees the check
    /// of it counted.
    struct VerifiedCopy {
        let fileSize: Int
        let entries: UInt64
        let trees: Int
    }

    /// The copy step of `writeCopy(toFile:)` and of compaction (Realm+Compact.swift): writes
    /// `snapshot`'s version into a new file at `path`, in fully packed pages, committed with
    /// `.full` durability and its meta in both slots (`Snapshot.copy`); opens the copy again and
    /// checks every page of it (`Snapshot.verify`); and syncs the directory, so that the copy's
    /// name is durable too. The caller has checked that nothing is at `path`.
    ///
    /// Throws `RealmError`; the partial copy is removed first.
    static func writeVerifiedCopy(of snapshot: Snapshot, toPath path: String) throws(RealmError) -> VerifiedCopy {
        do throws(StorageError) {
            try snapshot.copy(toPath: path)
            let copy = try Storage.open(path: path, options: StorageOptions(readOnly: true, create: false))
            defer { copy.close() }
            let report = try copy.snapshot().verify()
            let fileSize = try copy.statistics().fileSize
            FileDevice.syncDirectory(of: path)
            return VerifiedCopy(fileSize: fileSize, entries: report.entries, trees: report.trees)
        } catch {
            unlink(path)
            throw RealmError(error)
        }
    }
}
