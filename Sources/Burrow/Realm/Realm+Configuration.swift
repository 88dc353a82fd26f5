import BurrowStorage
import BurrowStore
import Foundation

extension Realm {
    /// How durable a commit is when it returns.
    public enum Durability: Sendable, Hashable {
        /// The commit survives power loss: its data is synced to the disk before it returns.
        case full
        /// The commit survives a crash of the process, not of the machine; no sync is waited for.
        case normal
    }

    /// What to open: where the file is (or which in-memory realm), the schema version, the classes
    /// it stores, durability and access mode. `Sendable`, so it can be handed to any actor.
    public struct Configuration: Sendable {
        /// The file's location. Setting it clears `inMemoryIdentifier`.
        public var fileURL: URL? {
            didSet { if fileURL != nil { inMemoryIdentifier = nil } }
        }
        /// The name of an in-memory realm: realms opened with the same identifier share data
        /// until the last one closes. Setting it clears `fileURL`.
        public var inMemoryIdentifier: String? {
            didSet { if inMemoryIdentifier != nil { fileURL = nil } }
        }
        /// The version of the schema the classes describe. Raise it when the classes change; the
        /// realm then migrates the file (new properties get their defaults, removed ones are
        /// dropped from the schema) and runs `migrationBlock`.
        public var schemaVersion: UInt64 = 0
        /// The classes the realm stores. Nil (the default) means the classes already in the
        /// file, plus any class the first time a write adds an object of it.
        public var objectTypes: [ObjectBase.Type]?
        /// How durable each commit is when it returns; `.full` by default.
        public var durability: Durability = .full
        /// The most memory, in bytes, a write transaction keeps its changed pages in: 64 MiB by
        /// default (RealmSwift has no such setting). Past it, the transaction writes the pages
        /// it changed least recently to free space in the file, and reads them back when it
        /// changes them again, so that a transaction of any size, such as an import of millions
        /// of objects, needs about this much memory for its pages rather than memory in
        /// proportion to its size. Nothing else changes: until the commit, what it wrote is free
        /// space, so a crash or a cancelled write leaves the file as the last commit left it.
        ///
        /// Lower it where memory is tight. Raise it for transactions that keep changing more of
        /// the file than this (an index larger than it, filled in random order, has its pages
        /// read back and written again as the transaction goes on). Values below one page mean
        /// one page.
        public var writeMemoryLimit = WriteTransaction.defaultMemoryLimit
        /// Opens the file for reading only: writes throw, and the file must exist.
        public var readOnly = false
        /// Keeps every other process out of the file while this one has it open: another process
        /// that opens it gets `.fileLocked`. By default (false) any number of processes share the
        /// file, as RealmSwift's do: each reads consistent versions, one write transaction runs at
        /// a time across all of them, and each sees the others' commits (see "Sharing a file
        /// between processes" in <doc:Concurrency>). An in-memory realm is always the process's own.
        public var exclusiveAccess = false
        /// Runs after an automatic migration, with the old schema version, inside the
        /// migration's write transaction. It runs only when `objectTypes` is set and
        /// `schemaVersion` is higher than the file's, and never for a new file (which gets the
        /// current schema at `schemaVersion`), as in RealmSwift.
        public var migrationBlock: MigrationBlock?
        /// Deletes the file and starts empty when its schema differs and no migration applies,
        /// instead of throwing. For caches and development, not for data that matters.
        public var deleteRealmIfMigrationNeeded = false
        /// Called when the realm is opened and no realm of this process has the file open (the
        /// first open in the process, or the first after every realm of it was released), to
        /// decide whether to compact the file first, as RealmSwift's `shouldCompactOnLaunch`. It
        /// is given the file's size in bytes (data and free space) and the bytes the data uses;
        /// return true to compact (see `Realm.compact(configuration:)`). It runs on the opening
        /// thread, before the open returns, while the file is held for compacting; it is not
        /// called for an in-memory realm or a file not there yet.
        ///
        /// Compaction is skipped, with a warning logged, when another process has the file open
        /// (then the block is not called: the file cannot be held to learn its sizes; RealmSwift
        /// calls it and skips), when the file did not open whole, or when `<file>.compacting`
        /// is in the way. An error writing the copy is thrown by the open, with the file as it
        /// was. Opening with this set and `readOnly` throws `.invalidArgument`, as RealmSwift
        /// refuses the pair.
        public var shouldCompactOnLaunch: (@Sendable (_ totalBytes: Int, _ usedBytes: Int) -> Bool)?
        /// A Burrow file copied to `fileURL` when the realm is opened and there is no file at
        /// `fileURL` yet, as RealmSwift's `seedFilePath`; an existing file is opened as it is.
        /// Setting it clears `inMemoryIdentifier` (and sets `fileURL` to the default if it was
        /// nil). Opening throws `.fileNotFound` if the seed file is missing.
        public var seedFilePath: URL? {
            didSet {
                if seedFilePath != nil, inMemoryIdentifier != nil {
                    inMemoryIdentifier = nil
                    fileURL = Self.defaultFileURL
                }
            }
        }

        /// A configuration for the file at `fileURL` (by default, `default.burrow` in the current
        /// directory) or the in-memory realm named `inMemoryIdentifier`.
        ///
        /// The parameters come in the order of RealmSwift's initializer, so a ported call such as
        /// `Realm.Configuration(readOnly: true, schemaVersion: 1)` compiles unchanged (RealmSwift's
        /// `syncConfiguration` and `encryptionKey` do not exist here). A `seedFilePath` clears
        /// `inMemoryIdentifier`, as in RealmSwift. `durability`, which RealmSwift does not have,
        /// comes last.
        public init(
            fileURL: URL? = nil, inMemoryIdentifier: String? = nil, readOnly: Bool = false, schemaVersion: UInt64 = 0,
            migrationBlock: MigrationBlock? = nil, deleteRealmIfMigrationNeeded: Bool = false,
            shouldCompactOnLaunch: (@Sendable (_ totalBytes: Int, _ usedBytes: Int) -> Bool)? = nil,
            objectTypes: [ObjectBase.Type]? = nil, seedFilePath: URL? = nil, durability: Durability = .full
        ) {
            let inMemoryIdentifier = seedFilePath == nil ? inMemoryIdentifier : nil
            self.fileURL = inMemoryIdentifier == nil ? (fileURL ?? Self.defaultFileURL) : nil
            self.inMemoryIdentifier = inMemoryIdentifier
            self.seedFilePath = seedFilePath
            self.readOnly = readOnly
            self.schemaVersion = schemaVersion
            self.migrationBlock = migrationBlock
            self.deleteRealmIfMigrationNeeded = deleteRealmIfMigrationNeeded
            self.shouldCompactOnLaunch = shouldCompactOnLaunch
            self.objectTypes = objectTypes
            self.durability = durability
        }

        /// `default.burrow` in the current directory.
        public static var defaultFileURL: URL {
            URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("default.burrow")
        }

        /// The configuration `Realm.open()` and `RealmActor()` use when given none. Settable.
        public static var defaultConfiguration: Configuration {
            get { DefaultConfiguration.value.withLock { $0 } }
            set { DefaultConfiguration.value.withLock { $0 = newValue } }
        }

        var storageDurability: BurrowStorage.Durability { durability == .full ? .full : .normal }

        /// A name for messages.
        var displayName: String { inMemoryIdentifier.map { "in-memory realm '\($0)'" } ?? fileURL?.path ?? "?" }
    }
}

private enum DefaultConfiguration {
    static let value = Locked(Realm.Configuration())
}
