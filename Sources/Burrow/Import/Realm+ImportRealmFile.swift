import BurrowRealmFile
import BurrowStore
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Realm {
    /// Converts the `.realm` file a RealmSwift app left at `url` into a new Burrow file, the
    /// one `configuration` opens, in one write transaction, and returns what it carried and
    /// what it left out. The `.realm` file is only read, never written.
    ///
    /// The `.realm` file may be of realm-core's file formats 20 to 24 (every RealmSwift 10 or
    /// later writes one of them), encrypted with the app's 64-byte `encryptionKey` or not. Each
    /// of its classes (realm-core's `class_` tables) becomes the Burrow class of the same name:
    ///
    /// - With `configuration.objectTypes` set (the app's ported model classes), the file's
    ///   classes and properties are matched by name; a class or a property the model lacks is
    ///   left out, and reported; a property the file lacks takes its default.
    /// - Without it, the Burrow file gets the `.realm` file's classes as they are, and the
    ///   objects are read through the dynamic API.
    ///
    /// Objects keep their values, links (also in lists, sets, maps and `AnyRealmValue`s),
    /// embedded objects and primary keys; `LinkingObjects` follow from the links. A link to an
    /// object deleted while linked reads as nil, as in RealmSwift.
    ///
    /// Throws `RealmError`: `.fileExists` if the Burrow file exists already (an import makes a
    /// new file, so a conversion that was interrupted can simply run again after deleting it);
    /// `.invalidFile` for a file that is not a `.realm` file, an encrypted one without its key,
    /// or a wrong key; `.unsupportedFileFormatVersion` for a format older than 20 or newer than
    /// 24, naming it; `.corruptFile` for a damaged or cut-short file; `.schemaMismatch` or
    /// `.invalidArgument` when a value cannot be stored as the model declares it. When it
    /// throws, no Burrow file is left behind.
    @discardableResult
    public static func importRealmFile(
        at url: URL, encryptionKey: Data? = nil, configuration: Realm.Configuration = .defaultConfiguration
    ) throws -> RealmImportReport {
        try importRealmFile(at: url, encryptionKey: encryptionKey, configuration: configuration, progress: { _ in })
    }

    /// `importRealmFile(at:encryptionKey:configuration:)`, telling `progress` how far it got:
    /// once the `.realm` file is read, then every 1,000 objects written. For `burrow
    /// import-realm`'s progress line.
    package static func importRealmFile(
        at url: URL, encryptionKey: Data?, configuration: Realm.Configuration, progress: @escaping (RealmImportProgress) -> Void
    ) throws -> RealmImportReport {
        let path = url.path
        let file: RealmFile
        let contents: RealmFileContents
        do {
            file = try RealmFile(path: path, encryptionKey: encryptionKey.map { [UInt8]($0) })
            contents = try RealmFileContents(file)
            progress(RealmImportProgress(written: 0, total: contents.objectCount))
        } catch {
            throw RealmError(importing: error, at: path)
        }
        if let target = configuration.fileURL {
            // The new file is made here, empty, and only if there is none: two imports into one
            // file cannot both go on, and the one that fails never removes the other's file.
            let code = createEmptyFile(target.path)
            guard code == 0 else {
                if code == EEXIST {
                    throw RealmError(
                        .fileExists,
                        "\(target.path) exists already: importing \(url.lastPathComponent) makes a new Burrow file. Delete it (or choose another fileURL) and import again."
                    )
                }
                throw RealmError(.fileAccess, "\(target.path) cannot be created for the import: \(String(cString: strerror(code))).")
            }
        }
        do {
            let realm = try Realm(configuration: configuration)
            var importer = RealmFileImporter(realm: realm, contents: contents, progress: progress)
            try realm.write { try importer.run() }
            return RealmImportReport(
                importedClasses: importer.imported, omissions: importer.omissions, fileFormatVersion: file.formatVersion,
                realmSchemaVersion: contents.schemaVersion)
        } catch {
            if configuration.fileURL != nil { _ = try? Realm.deleteFiles(for: configuration) }
            throw error
        }
    }
}

extension RealmError {
    /// The error of a failed import of the `.realm` file at `path`.
    init(importing error: RealmFileError, at path: String) {
        let code: Code =
            switch error.kind {
            case .notARealmFile, .wrongKey: .invalidFile
            case .unsupportedFormat: .unsupportedFileFormatVersion
            case .damaged: .corruptFile
            case .unavailable: .fileAccess
            }
        self.init(code, "\(path): \(error.message)")
    }
}

/// How far an import got: objects written to the Burrow file of all the `.realm` file holds.
package struct RealmImportProgress: Sendable, Equatable {
    package let written: Int
    package let total: Int
}

/// Creates an empty file at `path` if there is none; 0, or the `errno` of the failure (`EEXIST`
/// if a file is there).
private func createEmptyFile(_ path: String) -> Int32 {
    let descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY, 0o644)
    guard descriptor >= 0 else { return errno }
    close(descriptor)
    return 0
}
