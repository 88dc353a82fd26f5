import BurrowStorage
import Foundation

/// Which task or thread began the open write transaction of each file in this process, so that
/// a write begun where one is already open throws instead of waiting for itself.
///
/// One domain has one realm of a file (`RealmCache`), and a realm refuses a second write of its
/// own. What this adds covers the realms a domain can still hold apart: one opened by code
/// isolated to an actor and one opened by a nonisolated helper that actor calls, which the
/// same task runs. A task (or a thread outside tasks) that waits for the write lock it holds
/// would wait forever; one that waits for a lock another task holds is an ordinary wait.
enum WriteOwners {
    enum Owner: Equatable {
        case task(Int)
        case thread(ObjectIdentifier)

        /// The task running now, or the thread outside tasks.
        static var current: Owner {
            if let task = withUnsafeCurrentTask(body: { $0?.hashValue }) { return .task(task) }
            return .thread(ObjectIdentifier(Thread.current))
        }
    }

    /// Per file, the open transaction's caller and its write state, so that only that
    /// transaction's end clears the entry (another may have begun since its lock was released).
    private static let owners = Locked<[ObjectIdentifier: (owner: Owner, write: ObjectIdentifier)]>([:])

    /// Throws if the caller itself holds `storage`'s write transaction through another realm.
    static func checkCallerHoldsNone(_ storage: Storage, displayName: String) throws(RealmError) {
        let file = ObjectIdentifier(storage)
        guard let entry = owners.withLock({ $0[file] }), entry.owner == .current else { return }
        throw RealmError(
            .wrongState,
            "A write transaction on \(displayName) is already open here, through another realm of the file; writes cannot be nested, and this one would wait for itself forever. Make the changes in the open transaction, or commit it first.")
    }

    /// Records that the caller began `write`, a write transaction on `storage`.
    static func began(_ write: WriteState, on storage: Storage) {
        let entry = (owner: Owner.current, write: ObjectIdentifier(write))
        owners.withLock { $0[ObjectIdentifier(storage)] = entry }
    }

    /// Records that `write` ended, unless a later transaction is recorded already.
    static func ended(_ write: WriteState, on storage: Storage) {
        let file = ObjectIdentifier(storage)
        owners.withLock { owners in
            if owners[file]?.write == ObjectIdentifier(write) { owners[file] = nil }
        }
    }
}
