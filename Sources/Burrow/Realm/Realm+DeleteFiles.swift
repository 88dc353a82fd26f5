import BurrowStorage

extension Realm {
    /// Deletes the file of the realm `configuration` names, as RealmSwift's
    /// `Realm.deleteFiles(for:)` does. Every `Realm` and `RealmActor` on the file must be closed
    /// (released) first, in this process and in any other.
    ///
    /// - Returns: `true` if a file was deleted, `false` if there was none (or the configuration
    ///   names an in-memory realm, which has no file).
    /// - Throws: `RealmError` with code `.fileLocked` if the file is still open.
    @discardableResult
    public static func deleteFiles(for configuration: Configuration) throws(RealmError) -> Bool {
        guard let url = configuration.fileURL else { return false }
        do {
            return try Storage.deleteFile(path: url.path)
        } catch {
            throw RealmError(error)
        }
    }
}
