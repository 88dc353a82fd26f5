import BurrowStore

/// What the current thread found lately while building queries: the property names key paths
/// read, the classes' infos, the predicate shapes that passed validation, and the query strings
/// it prepared (`PreparedComparison`).
///
/// The process-wide caches behind these (`KeyPathName`, `ClassInfo.of`) are shared between
/// threads, so each lookup there takes a lock and hashes its key, which for a query as small as
/// `where { $0.name == x }` costs more than the query's lookup in an index. This memo belongs
/// to one thread, so it needs no lock, and it is a few short arrays searched by identity. It
/// holds only what the shared caches, or parsing a string again, would give again (a prepared
/// string keeps its class's info alive while it is among the 16 most recent); a lookup never
/// suspends, so a task that moves between threads only finds another thread's memo, never a
/// half-written one.
///
/// The fields are unchecked for exclusivity: only the memo's thread reaches them, and no access
/// overlaps another (each is one lookup or one addition, and none calls back into the memo).
final class ThreadMemo {
    /// What `KeyPathName` found for a key path: the property it reads, and the query path of
    /// that property from the root object. The key path is held so that its address stays its
    /// own while listed.
    struct KeyPathEntry {
        let keyPath: AnyKeyPath
        let name: String
        let path: QueryPath
    }

    /// Key path instances and what each reads (see `KeyPathName`).
    @exclusivity(unchecked) var keyPathNames = RecentEntries<ObjectIdentifier, KeyPathEntry>(capacity: 32)
    /// Model classes and their infos.
    @exclusivity(unchecked) var classes = RecentEntries<ObjectIdentifier, ClassInfo>(capacity: 16)
    /// Predicate shapes (`QueryPredicate.shape`) that passed validation, by class info.
    @exclusivity(unchecked) var validatedShapes = RecentEntries<ObjectIdentifier, QueryPredicate>(capacity: 16)
    /// Query strings prepared for their classes (`PreparedComparison`), by class info.
    @exclusivity(unchecked) var preparedComparisons = RecentEntries<ObjectIdentifier, PreparedComparison>(capacity: 16)

    /// The calling thread's memo, made on first use and released when the thread ends.
    static var current: ThreadMemo { threadLocal.value { ThreadMemo() } }

    private static let threadLocal = ThreadLocal<ThreadMemo>()
}
