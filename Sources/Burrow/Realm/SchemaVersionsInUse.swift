import BurrowStorage
import BurrowStore

/// The schema versions the live realms of each open file are configured with, in this process.
///
/// A live realm reads the file with its configuration's classes; once another realm migrates
/// the file to another schema version, the first one's objects would read rows of a layout
/// they do not know. So, as in RealmSwift ("already opened with different schema version"), a
/// file is open at one schema version at a time in a process: opening it at another while a
/// live realm (or an object it manages) of the first is still around throws.
enum SchemaVersionsInUse {
    /// For each open file (its storage handle, which its realms keep alive): how many live
    /// realms use each schema version.
    private static let counts = Locked<[ObjectIdentifier: [UInt64: Int]]>([:])

    /// Records a live realm of `storage` at `version`; throws `.schemaMismatch` if a live realm
    /// of the file uses another version.
    static func enter(_ storage: Storage, _ version: UInt64, displayName: String) throws(RealmError) {
        let other = counts.withLock { counts -> UInt64? in
            let file = ObjectIdentifier(storage)
            if let other = counts[file]?.first(where: { $0.key != version })?.key { return other }
            counts[file, default: [:]][version, default: 0] += 1
            return nil
        }
        if let other {
            throw RealmError(
                .schemaMismatch,
                "\(displayName) is already open in this process with schema version \(other), not \(version). A file is open at one schema version at a time: let go of the realms of the other version (and their objects) first, or open it with schemaVersion \(other)."
            )
        }
    }

    /// Forgets a live realm recorded by `enter`.
    static func leave(_ storage: Storage, _ version: UInt64) {
        counts.withLock { counts in
            let file = ObjectIdentifier(storage)
            let remaining = (counts[file]?[version] ?? 1) - 1
            counts[file]?[version] = remaining > 0 ? remaining : nil
            if counts[file]?.isEmpty == true { counts[file] = nil }
        }
    }
}
