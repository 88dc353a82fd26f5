import BurrowStorage
import Foundation

extension Realm {
    /// Writes a copy of the realm, as of the version it reads, to a new file at `fileURL`: every
    /// class and object, in fully packed pages (so the copy is also the realm compacted). The
    /// copy is durable when this returns.
    ///
    /// Throws `RealmError`: `.fileAccess` if the file exists already or cannot be written,
    /// `.wrongState` inside a write transaction (whose changes are not committed yet).
    public func writeCopy(toFile fileURL: URL) throws {
        if isInWriteTransaction {
            throw RealmError(.wrongState, "writeCopy(toFile:) copies committed data; call it after the write transaction ends.")
        }
        if FileManager.default.fileExists(atPath: fileURL.path) {
            throw RealmError(.fileAccess, "Cannot write a copy to \(fileURL.path): the file exists already.", fileURL: fileURL, errno: EEXIST)
        }
        do {
            try snapshotReader.snapshot.copy(toPath: fileURL.path)
        } catch {
            try? FileManager.default.removeItem(at: fileURL)
            throw RealmError(error)
        }
    }
}
