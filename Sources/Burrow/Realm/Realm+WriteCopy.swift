import BurrowStorage
import BurrowStore
import Foundation

extension Realm {
    /// Writes a copy of the realm, as of the version it reads, to a new file at `fileURL`: every
    /// class and object, in fully packed pages (so the copy is also the realm compacted). The
    /// copy is durable when this returns.
    ///
    /// Throws `RealmError`: `.fileExists` if the file exists already, another `.fileAccess` code
    /// if it cannot be written, `.wrongState` inside a write transaction (whose changes are not
    /// committed yet).
    public func writeCopy(toFile fileURL: URL) throws {
        if isInWriteTransaction {
            throw RealmError(.wrongState, "writeCopy(toFile:) copies committed data; call it after the write transaction ends.")
        }
        if FileManager.default.fileExists(atPath: fileURL.path) {
            throw RealmError(.fileAccess, "Cannot write a copy to \(fileURL.path): the file exists already.", fileURL: fileURL, errno: EEXIST)
        }
        do {
            try store.snapshotReader.snapshot.copy(toPath: fileURL.path)
        } catch {
            try? FileManager.default.removeItem(at: fileURL)
            throw RealmError(error)
        }
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
}
