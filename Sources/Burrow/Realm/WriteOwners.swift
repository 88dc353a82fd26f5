import BurrowStorage
import BurrowStore
import Foundation
import Synchronization

/// Which task or thread began the open write transaction of each file in this process, so that
/// a write begun where one is already open throws instead of waiting for itself.
///
/// One domain has one realm of a file (`RealmCache`), and a realm refuses a second write of its
/// own. What this adds covers the realms a domain can still hold apart: one opened by code
/// isolated to an actor and one opened by a nonisolated helper that actor calls, which the
/// same task runs. A task (or a thread outside tasks) that waits for the write lock it holds
/// would wait forever; one that waits for a lock another task holds is an ordinary wait.
///
/// The record is the file's `Storage.writerToken`: one atomic store when a write begins, one
/// compare-and-swap when it ends, and a load before a write waits.
enum WriteOwners {
    /// The task running now, or the thread outside tasks, as a number, never 0: a task's is
    /// even, a thread's odd, so the two never meet.
    static var currentToken: Int {
        if let task = withUnsafeCurrentTask(body: { $0?.hashValue }) { return task & ~1 == 0 ? 2 : task & ~1 }
        return Int(bitPattern: pthread_self()) | 1
    }

    /// Throws if the caller itself holds `storage`'s write transaction through another realm.
    static func checkCallerHoldsNone(_ storage: Storage, displayName: @autoclosure () -> String) throws(RealmError) {
        let holder = storage.writerToken.load(ordering: .acquiring)
        guard holder != 0, holder == currentToken else { return }
        throw RealmError(
            .wrongState,
            "A write transaction on \(displayName()) is already open here, through another realm of the file; writes cannot be nested, and this one would wait for itself forever. Make the changes in the open transaction, or commit it first."
        )
    }

    /// Records that the caller began `write`, a write transaction on `storage`.
    static func began(_ write: RealmWrite, on storage: Storage) {
        write.ownerToken = currentToken
        storage.writerToken.store(write.ownerToken, ordering: .releasing)
    }

    /// Records that `write` ended, unless a later transaction is recorded already.
    static func ended(_ write: RealmWrite, on storage: Storage) {
        _ = storage.writerToken.compareExchange(expected: write.ownerToken, desired: 0, ordering: .acquiringAndReleasing)
    }
}
