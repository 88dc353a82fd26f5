import BurrowStorage
import BurrowStore
import Foundation

extension Realm {
    /// Deletes the file of the realm `configuration` names, as RealmSwift's
    /// `Realm.deleteFiles(for:)` does. The file must not be open: every `Realm` and `RealmActor`
    /// on it must be released, and every frozen value read from it (`Frozen`, `FrozenResults`,
    /// frozen collections and realms), in this process and in any other.
    ///
    /// - Returns: `true` if a file was deleted, `false` if there was none (or the configuration
    ///   names an in-memory realm, which has no file).
    /// - Throws: `RealmError` with code `.alreadyOpen` if the file is still open, here (the
    ///   message says so) or in another process; `.fileAccess` if the file cannot be removed.
    ///   Nothing is deleted then.
    @discardableResult
    public static func deleteFiles(for configuration: Configuration) throws(RealmError) -> Bool {
        guard let url = configuration.fileURL else { return false }
        do {
            return try Storage.deleteFile(path: url.path)
        } catch .openInThisProcess(let path) {
            throw RealmError(
                .alreadyOpen,
                "\(path) is open in this process; release every Realm and RealmActor of it, and every frozen object, result, collection or realm read from it, before deleting it.",
                fileURL: url)
        } catch .fileLocked(let path) {
            throw RealmError(.alreadyOpen, StorageError.fileLocked(path: path).description, fileURL: url)
        } catch {
            throw RealmError(error)
        }
    }
}
