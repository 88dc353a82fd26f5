import BurrowStorage
import Foundation

/// The live realms that `thaw()` hands out: one per file and isolation, so that thawing twice
/// in one actor (or, outside actors, one thread) gives objects of the same realm, which one
/// write can change together, as RealmSwift's per-thread realms do.
///
/// Entries hold their realms weakly: a realm lives as long as the caller or its thawed objects
/// (which reference it) keep it, and the next `thaw()` after that opens a new one.
enum ThawedRealms {
    /// The live realm of `frozen`'s file for the caller's isolation, opened with the frozen
    /// realm's configuration if there is none, and moved to at least `frozen`'s version.
    static func realm(thawing frozen: FrozenVersion, isolation: (any Actor)?) throws -> Realm {
        let storage = frozen.snapshotReader.snapshot.storage
        let realm: Realm
        if let isolation {
            realm = try actorRealm(storage, frozen.configuration, isolation)
        } else {
            realm = try threadRealm(storage, frozen.configuration)
        }
        // A realm opened earlier may read a version older than the frozen one; the thawed
        // object must be found as of at least that version. (Inside a write, the realm already
        // reads the newest version.)
        if realm.version < frozen.version { realm.refresh() }
        return realm
    }

    // MARK: Actors

    /// One actor's realm of one file.
    private final class ActorEntry: @unchecked Sendable {
        // Sendable although `realm` is not: an entry is created on `actor` and its realm is
        // handed out only to callers isolated to that same actor (checked by identity against
        // the live `actor`; a dead actor matches nobody), so the realm never leaves its
        // isolation. The table below is reached only under its lock.
        weak var actor: AnyObject?
        weak var realm: Realm?
        let storage: ObjectIdentifier

        init(actor: any Actor, realm: Realm, storage: ObjectIdentifier) {
            self.actor = actor
            self.realm = realm
            self.storage = storage
        }
    }

    private static let actorEntries = Locked<[ActorEntry]>([])

    private static func actorRealm(_ storage: Storage, _ configuration: Realm.Configuration, _ actor: any Actor) throws -> Realm {
        let file = ObjectIdentifier(storage)
        let found: Realm? = actorEntries.withLock { entries in
            entries.removeAll { $0.actor == nil || $0.realm == nil }
            // A live realm keeps its storage alive, so a matching identifier is the same file.
            return entries.first { $0.actor === actor && $0.storage == file }?.realm
        }
        if let found { return found }
        let realm = try Realm(configuration: configuration)
        actorEntries.withLock { $0.append(ActorEntry(actor: actor, realm: realm, storage: file)) }
        return realm
    }

    // MARK: Threads

    /// One thread's realms, by file, kept in the thread's dictionary: only that thread reads it.
    private final class ThreadRealms {
        var realms: [ObjectIdentifier: WeakRealm] = [:]
    }

    private struct WeakRealm {
        weak var realm: Realm?
    }

    private static let threadKey = "dev.burrow.thawedRealms"

    private static func threadRealm(_ storage: Storage, _ configuration: Realm.Configuration) throws -> Realm {
        let dictionary = Thread.current.threadDictionary
        let cache: ThreadRealms
        if let existing = dictionary[threadKey] as? ThreadRealms {
            cache = existing
        } else {
            cache = ThreadRealms()
            dictionary[threadKey] = cache
        }
        let file = ObjectIdentifier(storage)
        if let realm = cache.realms[file]?.realm { return realm }
        cache.realms = cache.realms.filter { $0.value.realm != nil }
        let realm = try Realm(configuration: configuration)
        cache.realms[file] = WeakRealm(realm: realm)
        return realm
    }
}

extension Frozen {
    /// The live object this frozen value is a view of, in the live realm of its file that
    /// belongs to the caller's isolation (the same realm for every `thaw()` there, as
    /// `realm.thaw()` gives), or nil if the object was deleted since.
    ///
    /// Outside actors, the realm is the current thread's. To be sure of the realm, keep the one
    /// `realm.thaw()` returns and thaw into it with `realm.thaw(_:)`.
    ///
    /// Throws `RealmError` if the file cannot be opened.
    public func thaw(isolation: isolated (any Actor)? = #isolation) throws -> T? {
        try ThawedRealms.realm(thawing: version, isolation: isolation).thaw(self)
    }
}

extension Realm {
    /// A live realm of this realm's file, for the caller's isolation: for a frozen realm, the
    /// same realm that `thaw()` of its frozen objects gives there (opened if needed, and at
    /// least at the frozen version); a live realm is returned as it is.
    ///
    /// Throws `RealmError` if the file cannot be opened.
    public func thaw(isolation: isolated (any Actor)? = #isolation) throws -> Realm {
        guard let frozenVersion else { return self }
        return try ThawedRealms.realm(thawing: frozenVersion, isolation: isolation)
    }
}
