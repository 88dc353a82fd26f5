import BurrowStorage
import BurrowStore
import Foundation

extension Realm {
    /// Whether the file of the realm `configuration` names exists, as RealmSwift's
    /// `Realm.fileExists(for:)`. False for an in-memory realm, which has no file. Any isolation.
    public static func fileExists(for configuration: Configuration) -> Bool {
        guard configuration.inMemoryIdentifier == nil, let url = configuration.fileURL else { return false }
        return FileManager.default.fileExists(atPath: url.path)
    }

    /// Copies `configuration.seedFilePath` to `configuration.fileURL` if there is no file there
    /// yet; does nothing without a seed, or when the file exists (it is opened as it is). Opening
    /// a realm calls this first.
    ///
    /// The copy is written beside the destination under a temporary name and then linked into
    /// place, which fails if a file appeared there meanwhile: so another opener never sees a
    /// half-copied file, and a file that exists is never replaced.
    ///
    /// The copy is opened read-only before it is put in place, so a seed that is not a sound
    /// Burrow file leaves no file at `fileURL`.
    ///
    /// Throws `RealmError`: `.fileNotFound` if the seed file does not exist, another
    /// `.fileAccess` code if it cannot be read or the copy cannot be written, `.invalidFile` or
    /// `.corruptFile` if the seed is not a sound Burrow file. The destination is left as it was
    /// then.
    static func copySeedFileIfNeeded(_ configuration: Configuration) throws(RealmError) {
        guard let seed = configuration.seedFilePath, configuration.inMemoryIdentifier == nil,
            let url = configuration.fileURL, !FileManager.default.fileExists(atPath: url.path)
        else { return }
        guard FileManager.default.fileExists(atPath: seed.path) else {
            throw RealmError(
                .fileAccess, "Cannot open \(url.path) from its seed file \(seed.path): there is no such file.", fileURL: seed,
                errno: ENOENT)
        }
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).seed-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: temporary) }
        do {
            try FileManager.default.copyItem(at: seed, to: temporary)
        } catch {
            let code = ((error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError)?.code
            throw RealmError(
                .fileAccess, "Cannot copy the seed file \(seed.path) to \(url.path): \(error.localizedDescription)", fileURL: url,
                errno: code.map(Int32.init))
        }
        do {
            _ = try Storage.open(path: temporary.path, options: StorageOptions(readOnly: true, create: false))
        } catch {
            throw RealmError(
                RealmError(error).code, "The seed file \(seed.path) cannot be opened as a Burrow file: \(error.description)", fileURL: seed)
        }
        if link(temporary.path, url.path) != 0 {
            let failure = errno
            if failure == EEXIST { return }  // another opener put the file in place first
            throw RealmError(
                .fileAccess, "Cannot copy the seed file \(seed.path) to \(url.path): \(String(cString: strerror(failure))).",
                fileURL: url, errno: failure)
        }
    }
}
