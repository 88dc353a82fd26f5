import BurrowStorage
import BurrowStore
import Foundation
import Synchronization

/// The live realms open in each isolation domain: one per file per domain, so that every
/// `Realm(configuration:)`, `Realm.open`, `RealmActor.realm` and `thaw()` of a domain gives the
/// same instance, as RealmSwift gives one per thread (and per actor). Code that opens the realm
/// in several helpers then shares its write transaction and its objects.
///
/// The domains (see "One realm per isolation domain" in Concurrency.md):
/// - code isolated to an actor (`#isolation` is the actor): that actor. The compiler keeps the
///   realm there.
/// - nonisolated code on the main thread (helpers that main-actor code calls, run-loop
///   callbacks, XCTest's synchronous tests): the main actor's domain, since only main-actor
///   work runs there.
/// - nonisolated code on another thread outside tasks (a thread's own code, dispatch
///   callbacks): the thread.
/// - nonisolated code in a task off the main thread: no domain. The task may resume on any
///   thread and hand what it opened to other isolation, so each open there gives a realm of
///   its own.
///
/// Nothing in the compiler keeps a realm that nonisolated code opened on its thread, so such a
/// realm checks: used from another thread it refuses to write and traps where it reads, as
/// RealmSwift's thread-confined realms do (`Realm.threadMisuse()`).
///
/// No entry keeps a realm alive, and none is a weak reference, which would give the realm a
/// side table and make each retain and release of it (as objects bind to it) take the
/// runtime's slow path. A realm removes its entry as it goes (`Realm.deinit`). A realm only its
/// actor uses is held unretained: the compiler keeps it in the actor, so its last release runs
/// there, never beside a lookup. The main actor's realm, once nonisolated code on the main
/// thread holds it, is held `unowned(safe)`: that code could hand it to another thread and let
/// it go there, and a lookup racing that last release then traps, as RealmSwift does for a
/// realm used across threads, instead of reading freed memory. A thread's own realms live in
/// the thread's table, weakly. Only opening looks here; reading and writing objects never do.
enum RealmCache {
    /// An actor's realm of a file: the actor's address and the file's engine handle.
    struct Key: Hashable {
        let domain: Int
        let file: ObjectIdentifier
    }

    private struct WeakRealm {
        weak var realm: Realm?
    }

    private struct UnownedRealm {
        unowned(safe) let realm: Realm
    }

    // Unchecked because a live realm is not Sendable: an entry crosses isolation domains only
    // inside the cache's lock, and a realm is handed out only to code of its own domain (see
    // `entries`).
    private enum Entry: @unchecked Sendable {
        case unretained(Unmanaged<Realm>)
        case confined(UnownedRealm, ObjectIdentifier)

        var realm: Realm {
            switch self {
            case .unretained(let realm): realm.takeUnretainedValue()
            case .confined(let box, _): box.realm
            }
        }

        func holds(_ realm: Realm) -> Bool {
            switch self {
            case .unretained(let held): held.toOpaque() == Unmanaged.passUnretained(realm).toOpaque()
            case .confined(_, let identity): identity == ObjectIdentifier(realm)
            }
        }
    }

    // Reached only under the lock. An unretained entry is removed by its realm's deinit, under
    // the lock, before the realm's memory goes, and is looked up only by its actor's code.
    private static let entries = Locked<[Key: Entry]>([:])

    /// The live realm of `storage`'s file for `isolation`'s domain, made by `open` if the domain
    /// has none. Throws if the domain's realm was opened with a configuration that cannot share
    /// an instance with `configuration`.
    static func realm(
        of storage: Storage, _ configuration: Realm.Configuration, isolation: (any Actor)?, open: () throws(RealmError) -> Realm
    ) throws(RealmError) -> Realm {
        let file = ObjectIdentifier(storage)
        switch Domain.current(isolation) {
        case .none:
            return try open()
        case .thread(let thread):
            let cache = ThreadRealms.current
            if let found = cache.realms[file]?.realm { return try compatible(found, configuration) }
            cache.realms = cache.realms.filter { $0.value.realm != nil }
            let realm = try open()
            realm.confinedThread = thread
            cache.realms[file] = WeakRealm(realm: realm)
            return realm
        case .actor(let actor, let thread):
            let key = Key(domain: Int(bitPattern: ObjectIdentifier(actor)), file: file)
            let found = entries.withLock { $0[key]?.realm }
            // A realm confined to the main thread is not for main-actor code that runs elsewhere
            // (where the main actor's executor is not the main thread): that code gets its own.
            if let found, !found.isOnAnotherThread {
                let realm = try compatible(found, configuration)
                if let thread, realm.confinedThread == nil {
                    // The main actor's realm, handed to nonisolated code on the main thread,
                    // which could pass it on: from now on it checks that it stays on the main
                    // thread, and the table holds it `unowned(safe)`.
                    realm.confinedThread = thread
                    register(realm, key)
                }
                return realm
            }
            let realm = try open()
            realm.confinedThread = thread
            realm.keepsItselfWhileWriting = actor === MainActor.shared
            register(realm, key)
            return realm
        }
    }

    /// Makes `realm`, opened by `actor` before it could be named, that actor's realm of its file.
    static func adopt(_ realm: Realm, by actor: any Actor) {
        register(realm, Key(domain: Int(bitPattern: ObjectIdentifier(actor)), file: ObjectIdentifier(realm.storage)))
    }

    private static func register(_ realm: Realm, _ key: Key) {
        realm.cacheKey = key
        let entry: Entry =
            realm.confinedThread == nil
            ? .unretained(Unmanaged.passUnretained(realm)) : .confined(UnownedRealm(realm: realm), ObjectIdentifier(realm))
        entries.withLock { $0[key] = entry }
    }

    /// Removes `realm`'s entry; called by its deinit.
    static func remove(_ realm: Realm, _ key: Key) {
        entries.withLock { entries in
            if let entry = entries[key], entry.holds(realm) { entries[key] = nil }
        }
    }

    /// One thread's realms, by file, kept in the thread's dictionary: only that thread reads it,
    /// and it goes with the thread.
    private final class ThreadRealms {
        var realms: [ObjectIdentifier: WeakRealm] = [:]

        private static let key = "dev.burrow.realms"

        static var current: ThreadRealms {
            let dictionary = Thread.current.threadDictionary
            if let existing = dictionary[key] as? ThreadRealms { return existing }
            let cache = ThreadRealms()
            dictionary[key] = cache
            return cache
        }
    }

    /// `realm`, if a caller opening `configuration` may share it; otherwise an error that says
    /// which setting differs.
    private static func compatible(_ realm: Realm, _ configuration: Realm.Configuration) throws(RealmError) -> Realm {
        let open = realm.configuration
        if open.schemaVersion != configuration.schemaVersion {
            throw RealmError(
                .schemaMismatch,
                "\(realm.displayName) is already open here with schema version \(open.schemaVersion), not \(configuration.schemaVersion). A file is open at one schema version at a time in one isolation domain: open it with the same schemaVersion, or let go of the other realm (and its objects) first.",
                fileURL: open.fileURL)
        }
        if let wanted = configuration.objectTypes, let known = open.objectTypes {
            let knownNames = Set(known.map { ObjectIdentifier($0) })
            if let missing = wanted.first(where: { !knownNames.contains(ObjectIdentifier($0)) }) {
                throw RealmError(
                    .wrongState,
                    "\(realm.displayName) is already open here with objectTypes that do not include \(missing). Open it with the same objectTypes (or a subset of them), or let go of the other realm (and its objects) first.",
                    fileURL: open.fileURL)
            }
        }
        return realm
    }

    // MARK: Domains

    /// The isolation domain of code running now.
    enum Domain {
        /// An actor's; for nonisolated code on the main thread, the main actor's, with the
        /// thread its realm is confined to.
        case actor(any Actor, confinedTo: pthread_t?)
        /// The thread's own code, outside tasks.
        case thread(pthread_t)
        /// Nonisolated code in a task, off the main thread.
        case none

        static func current(_ isolation: (any Actor)?) -> Domain {
            if let isolation {
                if isolation === MainActor.shared, !Thread.isMainThread { mainActorLeavesMainThread.store(true, ordering: .relaxed) }
                return .actor(isolation, confinedTo: nil)
            }
            if Thread.isMainThread {
                if mainActorLeavesMainThread.load(ordering: .relaxed) { return .thread(pthread_self()) }
                return .actor(MainActor.shared, confinedTo: pthread_self())
            }
            if withUnsafeCurrentTask(body: { $0 != nil }) { return .none }
            return .thread(pthread_self())
        }
    }

    /// Whether main-actor code was seen running off the main thread (a main executor other than
    /// the main thread's, as test harnesses on Linux have): then nonisolated code on the main
    /// thread is not main-actor work, and has a domain of its own, the thread.
    private static let mainActorLeavesMainThread = Atomic(false)
}
