import BurrowStorage
import Foundation

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
/// The table holds no reference that keeps a realm alive, nor a weak one: a weak reference
/// would give every realm (and actor) a side table, which makes each retain and release of it,
/// as objects bind to their realm, take the runtime's slow path. A realm removes its own entry
/// as it goes (`Realm.deinit`). Only opening looks here; reading and writing objects never do.
enum RealmCache {
    /// A domain's realm of a file: the domain (an actor's address, or a thread's) and the file's
    /// engine handle.
    struct Key: Hashable {
        let domain: Int
        let file: ObjectIdentifier
    }

    // Invariant that makes the unretained entries sound: an entry is removed by its realm's
    // deinit, under the lock, before the realm's memory goes; and an entry is looked up only by
    // code of its domain (its actor, or its thread), where the realm lives and is released. A
    // realm whose last release runs while its own domain looks it up would have had to leave
    // that domain, which the compiler forbids for an actor's realm and the thread check
    // (`Realm.threadMisuse`) reports for a thread's.
    private static let entries = Locked<[Key: Unmanaged<Realm>]>([:])

    /// The live realm of `storage`'s file for `isolation`'s domain, made by `open` if the domain
    /// has none. Throws if the domain's realm was opened with a configuration that cannot share
    /// an instance with `configuration`.
    static func realm(
        of storage: Storage, _ configuration: Realm.Configuration, isolation: (any Actor)?, open: () throws(RealmError) -> Realm
    ) throws(RealmError) -> Realm {
        let domain = Domain.current(isolation)
        guard let token = domain.token else { return try open() }
        let key = Key(domain: token, file: ObjectIdentifier(storage))
        let found = entries.withLock { $0[key]?.takeUnretainedValue() }
        // A realm confined to the main thread is not for main-actor code that runs elsewhere
        // (where the main actor's executor is not the main thread): that code gets its own.
        if let found, !found.isOnAnotherThread {
            let realm = try compatible(found, configuration)
            // The main actor's realm, handed to nonisolated code on the main thread, which could
            // pass it on: from now on it checks that it stays on the main thread.
            if let thread = domain.confinedThread { realm.confinedThread = thread }
            return realm
        }
        let realm = try open()
        realm.confinedThread = domain.confinedThread
        realm.keepsItselfWhileWriting = domain.isMainActor
        register(realm, key)
        return realm
    }

    /// Makes `realm`, opened by `actor` before it could be named, that actor's realm of its file.
    static func adopt(_ realm: Realm, by actor: any Actor) {
        register(realm, Key(domain: Domain.token(of: actor), file: ObjectIdentifier(realm.storage)))
    }

    private static func register(_ realm: Realm, _ key: Key) {
        realm.cacheKey = key
        entries.withLock { $0[key] = Unmanaged.passUnretained(realm) }
    }

    /// Removes `realm`'s entry; called by its deinit.
    static func remove(_ realm: Realm, _ key: Key) {
        entries.withLock { entries in
            if let entry = entries[key], entry.toOpaque() == Unmanaged.passUnretained(realm).toOpaque() { entries[key] = nil }
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
                if isolation === MainActor.shared, !Thread.isMainThread { mainActorLeavesMainThread.withLock { $0 = true } }
                return .actor(isolation, confinedTo: nil)
            }
            if Thread.isMainThread {
                if mainActorLeavesMainThread.withLock({ $0 }) { return .thread(pthread_self()) }
                return .actor(MainActor.shared, confinedTo: pthread_self())
            }
            if withUnsafeCurrentTask(body: { $0 != nil }) { return .none }
            return .thread(pthread_self())
        }

        /// The domain's number in `Key`: an actor's address, or a thread's id with its low bit
        /// set (addresses are even), so the two never meet; nil for no domain.
        var token: Int? {
            switch self {
            case .actor(let actor, _): Self.token(of: actor)
            case .thread(let thread): Int(bitPattern: thread) | 1
            case .none: nil
            }
        }

        static func token(of actor: any Actor) -> Int { Int(bitPattern: ObjectIdentifier(actor)) }

        var confinedThread: pthread_t? {
            switch self {
            case .actor(_, let thread): thread
            case .thread(let thread): thread
            case .none: nil
            }
        }

        var isMainActor: Bool {
            if case .actor(let actor, _) = self { return actor === MainActor.shared }
            return false
        }
    }

    /// Whether main-actor code was seen running off the main thread (a main executor other than
    /// the main thread's, as test harnesses on Linux have): then nonisolated code on the main
    /// thread is not main-actor work, and has a domain of its own, the thread.
    private static let mainActorLeavesMainThread = Locked(false)
}
