import BurrowStorage
import BurrowStore
import Foundation

/// The schema version stored in the Burrow file at `fileURL`, read without opening a realm (no
/// class is checked and nothing is migrated), as RealmSwift's `schemaVersionAtURL(_:)`. A file
/// this process has open is read through its open handle. Any isolation.
///
/// A file that stores no class yet (opened with none) reports version 0, the version a file
/// starts at: its schema version is recorded with its first class.
///
/// Throws `RealmError`: `.fileNotFound` if there is no file; `.fileLocked` if another process
/// keeps it for its own use; `.invalidFile` or `.corruptFile` if it is not a readable Burrow
/// file.
public func schemaVersionAtURL(_ fileURL: URL) throws -> UInt64 {
    try storedSchemaVersion(at: fileURL) ?? 0
}

/// The schema version the Burrow file at `fileURL` stores, or nil if it stores no class yet,
/// as `schemaVersionAtURL(_:)` reads it (the `burrow` tool tells the two apart).
package func storedSchemaVersion(at fileURL: URL) throws(RealmError) -> UInt64? {
    let path = fileURL.path
    guard FileManager.default.fileExists(atPath: path) else {
        throw RealmError(.fileNotFound, "There is no file at \(path) to read a schema version from.", fileURL: fileURL, errno: ENOENT)
    }
    do {
        // A file this process has open is read through its handle; another process may have
        // it open too, sharing it.
        let storage =
            try Storage.openHandle(path: path)
            ?? Storage.open(path: path, options: StorageOptions(readOnly: true, create: false, sharing: .shared))
        let reader = SnapshotReader(try storage.snapshot())
        guard let stamp = try FileSchema.stamp(in: reader) else { return nil }
        return try FileSchema.load(from: reader, stamp: stamp, path: path).info.schemaVersion
    } catch {
        throw RealmError(wrapping: error)
    }
}
