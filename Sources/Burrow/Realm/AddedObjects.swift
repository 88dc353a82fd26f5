import BurrowStore

/// The objects a write transaction made managed, in the order it made them, for the end of the
/// transaction: cancelling makes them the unmanaged objects they were (their fields kept their
/// unmanaged values meanwhile), except those `create` made, and committing lets the ones whose
/// class has links or collections drop the unmanaged values those held.
///
/// Both only matter for objects someone still holds. So the list does not keep the others alive
/// for the whole transaction: when it grows past `compactionThreshold` entries, it lets go of
/// every object only the list holds, and its next pass runs at twice what is left (never below
/// the threshold). A transaction adding a million objects that the caller drops one by one then
/// holds at most about that many of them, not a million; the passes cost a constant time per
/// object added, and a transaction adding fewer objects never runs one.
///
/// An object whose class has links or collections stays listed until the transaction ends: it
/// keeps the unmanaged values of those for cancelling (and a collection among them holds its
/// owner), and the commit drops them before the object is freed, so that no chain of such
/// objects is freed from inside another's destruction.
struct AddedObjects {
    /// One object the transaction added, and its class's info if that class has links or
    /// collections (whose unmanaged values the commit drops).
    private struct Entry {
        var object: ObjectBase
        let holder: ClassInfo?
    }

    /// The size past which the first pass runs; later passes run at twice what the last left
    /// (never below it).
    let compactionThreshold: Int

    private var entries: [Entry] = []
    /// The objects `create` made (not the caller's instances): cancelling leaves them bound to
    /// rows that no longer exist, so they are invalidated, as RealmSwift's are.
    private var created: Set<ObjectIdentifier> = []
    private var nextCompaction: Int

    init(compactionThreshold: Int = 65_536) {
        self.compactionThreshold = compactionThreshold
        nextCompaction = compactionThreshold
    }

    /// Records that the transaction made `object` (of a class described by `info`) managed.
    mutating func append(_ object: ObjectBase, _ info: ClassInfo) {
        if entries.count >= nextCompaction { compact() }
        entries.append(Entry(object: object, holder: info.objectHoldingProperties.isEmpty ? nil : info))
    }

    /// Records that `create` made `object`, which was appended before.
    mutating func markCreated(_ object: ObjectBase) {
        created.insert(ObjectIdentifier(object))
    }

    /// Lets go of every object of a class without links or collections that no one else holds
    /// (freeing it), keeping the order of the rest.
    private mutating func compact() {
        var kept = 0
        for index in entries.indices {
            if entries[index].holder == nil, isKnownUniquelyReferenced(&entries[index].object) {
                // Only this list holds it: nothing done to it at the transaction's end could
                // be seen. Its identifier goes too, since a new object may take its address.
                if !created.isEmpty { created.remove(ObjectIdentifier(entries[index].object)) }
                continue
            }
            if kept != index { entries.swapAt(kept, index) }
            kept += 1
        }
        // The objects let go of are freed here, one by one; they link to nothing.
        entries.removeSubrange(kept...)
        nextCompaction = max(compactionThreshold, 2 * entries.count)
    }

    /// How many objects the list holds (for tests).
    var count: Int { entries.count }

    /// Calls `body` with each object the transaction added (newest first), but those `create`
    /// made: what cancelling makes unmanaged again.
    func forEachToUnbind(_ body: (ObjectBase) -> Void) {
        for entry in entries.reversed() where !created.contains(ObjectIdentifier(entry.object)) { body(entry.object) }
    }

    /// Calls `body` with each added object whose class has links or collections, and its info:
    /// what committing lets drop its unmanaged values.
    func forEachHolder(_ body: (ObjectBase, ClassInfo) -> Void) {
        for entry in entries {
            if let holder = entry.holder { body(entry.object, holder) }
        }
    }
}
