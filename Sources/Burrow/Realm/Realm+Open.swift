import BurrowStorage
import BurrowStore
import Foundation

/// What lets `Realm(configuration:)` give the realm already open in the caller's isolation
/// domain rather than a new instance: an initializer declared in a protocol extension may
/// assign `self`, one declared in a class may not. `Realm` is its only conforming type; it has
/// no requirements and no other use.
public protocol _RealmOpening {}

extension Realm: _RealmOpening {}

extension _RealmOpening where Self == Realm {
    /// The realm `configuration` describes, for the caller's isolation domain: the same instance
    /// every time while any of it (the realm, its objects, results and collections) is alive,
    /// as RealmSwift gives one realm per thread. So helpers that each call `Realm()` share one
    /// write transaction and one set of objects.
    ///
    /// The domain is the caller's actor (`#isolation`); for nonisolated code, the main actor's
    /// on the main thread, the thread's for a thread's own code outside tasks, and none in a
    /// task off the main thread, where each call opens a realm of its own (see "One realm per
    /// isolation domain" in <doc:Concurrency>). The realm and its objects may be used only there.
    ///
    /// Throws `RealmError`: `.fileLocked` if another process has the file open, `.invalidFile` or
    /// `.corruptFile` for a file that is not a sound Burrow database, `.fileAccess` if it cannot
    /// be read or created, `.schemaMismatch` if the classes differ from the file's schema and no
    /// migration applies or the domain already has the file open at another schema version,
    /// `.wrongState` if the file is open read-only against read-write in this process, or this
    /// domain has it open with `objectTypes` that lack some of `configuration`'s;
    /// `.invalidArgument` for `readOnly` with `shouldCompactOnLaunch`, and the errors of
    /// `Realm.compact(configuration:)` writing the copy when `shouldCompactOnLaunch` asks for
    /// compaction.
    public init(configuration: Realm.Configuration = .defaultConfiguration, isolation: isolated (any Actor)? = #isolation) throws {
        self = try Realm.open(configuration, isolation: isolation)
    }

    /// The realm of the file at `fileURL`, opened with the default configuration otherwise, as
    /// RealmSwift's `Realm(fileURL:)`. Same instance, domain and errors as
    /// `Realm(configuration:)`.
    public init(fileURL: URL, isolation: isolated (any Actor)? = #isolation) throws {
        var configuration = Realm.Configuration.defaultConfiguration
        configuration.fileURL = fileURL
        self = try Realm.open(configuration, isolation: isolation)
    }
}

extension Realm {
    /// Opens the realm `configuration` describes, isolated to the caller's actor (`#isolation`):
    /// the same instance as `Realm(configuration:)` gives there.
    public static func open(
        configuration: Configuration = .defaultConfiguration, isolation: isolated (any Actor)? = #isolation
    ) async throws -> Realm {
        try open(configuration, isolation: isolation)
    }

    /// The realm of `configuration` in `isolation`'s domain, opened if the domain has none.
    static func open(_ configuration: Configuration, isolation: (any Actor)?) throws(RealmError) -> Realm {
        let storage = try openStorage(configuration)
        return try RealmCache.realm(of: storage, configuration, isolation: isolation) { () throws(RealmError) -> Realm in
            try Realm(storage: storage, configuration: configuration)
        }
    }

    /// The engine's handle of `configuration`'s file, shared by every realm of the file in the
    /// process.
    static func openStorage(_ configuration: Configuration) throws(RealmError) -> Storage {
        let options = StorageOptions(
            readOnly: configuration.readOnly, create: !configuration.readOnly,
            sharing: configuration.exclusiveAccess || configuration.inMemoryIdentifier != nil ? .exclusive : .shared)
        do {
            if let identifier = configuration.inMemoryIdentifier {
                return try Storage.inMemory(identifier: identifier, options: options)
            }
            guard let url = configuration.fileURL else {
                throw RealmError(.invalidArgument, "The configuration names neither a file nor an in-memory identifier.")
            }
            try compactOnLaunchIfAsked(configuration)
            try copySeedFileIfNeeded(configuration)
            if configuration.readOnly, !FileManager.default.fileExists(atPath: url.path) {
                throw RealmError(.fileAccess, "Cannot open \(url.path) read-only: there is no such file.", fileURL: url, errno: ENOENT)
            }
            return try Storage.open(path: url.path, options: options)
        } catch {
            throw RealmError(wrapping: error)
        }
    }
}
