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
/// Entries hold their realms weakly: a realm lives as long as its domain's code or its objects
/// keep it, and the next open after that opens a new one. Only opening looks here; reading and
/// writing objects never do.
enum RealmCache {
    /// The live realm of `storage`'s file for `isolation`'s domain, made by `open` if the domain
    /// has none. Throws if the domain's realm was opened with a configuration that cannot share
    /// an instance with `configuration`.
    static func realm(
        of storage: Storage, _ configuration: Realm.Configuration, isolation: (any Actor)?, open: () throws(RealmError) -> Realm
    ) throws(RealmError) -> Realm {
        let file = ObjectIdentifier(storage)
        switch Domain.current(isolation) {
        case .actor(let actor, let thread):
            let key = ActorKey(actor: ObjectIdentifier(actor), storage: file)
            let found: Realm? = actorEntries.withLock { table in
                // A dead actor's address may be another actor's now: the entry must name this one.
                // A live realm keeps its storage alive, so a matching identifier is the same file.
                guard let entry = table.entries[key], entry.actor === actor else { return nil }
                return entry.realm
            }
            let realm: Realm
            // A realm confined to the main thread is not for main-actor code that runs elsewhere
            // (where the main actor's executor is not the main thread): that code gets its own.
            if let found, found.threadMisuse() == nil {
                realm = try compatible(found, configuration)
            } else {
                realm = try open()
                realm.keepsItselfWhileWriting = actor === MainActor.shared
                actorEntries.withLock { $0.insert(ActorEntry(actor: actor, realm: realm), for: key) }
            }
            // The main actor's realm, handed to nonisolated code on the main thread, which could
            // pass it on: from now on it checks that it stays on the main thread.
            if let thread { realm.confinedThread = thread }
            return realm
        case .thread(let thread):
            let cache = ThreadRealms.current
            if let found = cache.realms[file]?.realm { return try compatible(found, configuration) }
            cache.realms = cache.realms.filter { $0.value.realm != nil }
            let realm = try open()
            realm.confinedThread = thread
            cache.realms[file] = WeakRealm(realm: realm)
            return realm
        case .none:
            return try open()
        }
    }

    /// Makes `realm`, opened by `actor` before it could be named, that actor's realm of its file.
    static func adopt(_ realm: Realm, by actor: any Actor) {
        let key = ActorKey(actor: ObjectIdentifier(actor), storage: ObjectIdentifier(realm.storage))
        actorEntries.withLock { $0.insert(ActorEntry(actor: actor, realm: realm), for: key) }
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
    }

    /// Whether main-actor code was seen running off the main thread (a main executor other than
    /// the main thread's, as test harnesses on Linux have): then nonisolated code on the main
    /// thread is not main-actor work, and has a domain of its own, the thread.
    private static let mainActorLeavesMainThread = Locked(false)

    /// One actor's realm of one file.
    private struct ActorEntry {
        weak var actor: AnyObject?
        weak var realm: Realm?

        var isDead: Bool { actor == nil || realm == nil }
    }

    private struct ActorKey: Hashable {
        let actor: ObjectIdentifier
        let storage: ObjectIdentifier
    }

    /// The actors' realms, with dead entries dropped whenever the table doubles.
    private struct ActorTable {
        var entries: [ActorKey: ActorEntry] = [:]
        var pruneAt = 64

        mutating func insert(_ entry: ActorEntry, for key: ActorKey) {
            entries[key] = entry
            guard entries.count >= pruneAt else { return }
            entries = entries.filter { !$0.value.isDead }
            pruneAt = max(64, entries.count * 2)
        }
    }

    // An entry's realm is handed out only to callers isolated to the entry's actor (checked by
    // identity against the live actor; a dead actor matches nobody), so no realm leaves its
    // isolation through the table, which is reached only under its lock.
    private static let actorEntries = Locked(ActorTable())

    private struct WeakRealm {
        weak var realm: Realm?
    }

    /// One thread's realms, by file, kept in the thread's dictionary: only that thread reads it.
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
}
