import BurrowStore
import Foundation

/// What `BurrowSync` needs of a realm, and nothing else uses: starting to queue the changes of
/// synced classes, reading and clearing the queue, the checkpoint, and writes that apply what
/// sync downloaded (which queue nothing). The queue itself is the store's
/// (`ObjectStore+Sync`): every commit of every realm fills it.
extension Realm {
    /// The classes whose changes every commit on this file queues for upload, sorted.
    package var syncedClassNames: [String] { store.syncedClassNames }

    /// Makes every later commit on the file, by any realm of any process, queue the changes of
    /// `classNames` too; the objects they hold now are queued once, as inserts. One write of
    /// its own. Throws for a class the file does not have, one without a primary key, or an
    /// embedded one.
    package func startSyncing(_ classNames: [String]) throws(RealmError) {
        try writeBlocking { () throws(RealmError) in
            guard let write else { return }
            try mapped { () throws(StoreError) in try store.startSyncing(classNames, in: write.store) }
        }
    }

    /// The file's sync client id: made by `startSyncing`, nil before.
    package func syncClientID() throws(RealmError) -> UUID? {
        try mapped { () throws(StoreError) in try store.syncClientID() }
    }

    /// The checkpoint the last download stored, nil before the first.
    package func syncCheckpoint() throws(RealmError) -> [UInt8]? {
        try mapped { () throws(StoreError) in try store.syncCheckpoint() }
    }

    /// The number of changed objects waiting for upload, in the version this realm reads.
    package func pendingUploadCount() throws(RealmError) -> Int {
        try mapped { () throws(StoreError) in try store.outboxCount() }
    }

    /// Up to `limit` changes waiting for upload, oldest first, after sequence number `sequence`.
    package func pendingUploads(after sequence: UInt64 = 0, limit: Int) throws(RealmError) -> [OutboxEntry] {
        try mapped { () throws(StoreError) in try store.outboxEntries(after: sequence, limit: limit) }
    }

    /// The sequence number of the newest change waiting for upload, nil if none waits.
    package func lastPendingUpload() throws(RealmError) -> UInt64? {
        try mapped { () throws(StoreError) in try store.lastOutboxSequence() }
    }

    /// Runs `block` in a write transaction that applies what sync downloaded, and commits it:
    /// its changes are not queued for upload, and the change streams whose tokens are in
    /// `tokens` stay silent about it. Blocking, like `write(_:)`.
    package func writeFromSync<Result>(withoutNotifying tokens: [ChangeToken] = [], _ block: () throws -> Result) throws -> Result {
        try beginWrite()
        write?.store.queuesSyncChanges = false
        do {
            let result = try block()
            if write != nil { try commitWrite(withoutNotifying: tokens) }
            return result
        } catch {
            if write != nil { rollBack() }
            throw error
        }
    }

    /// In a `writeFromSync` block: stores `checkpoint` as the last download's.
    package func setSyncCheckpoint(_ checkpoint: [UInt8]) throws(RealmError) {
        let write = try openSyncWrite()
        try mapped { () throws(StoreError) in try store.setSyncCheckpoint(checkpoint, in: write) }
    }

    /// In a `writeFromSync` block: removes the queued changes up to sequence number `sequence`,
    /// which the server now holds.
    package func removeUploaded(through sequence: UInt64) throws(RealmError) {
        let write = try openSyncWrite()
        try mapped { () throws(StoreError) in try store.removeOutboxEntries(through: sequence, in: write) }
    }

    /// In a `writeFromSync` block: the store's write transaction, for sync's writes of stored
    /// values.
    package func openSyncWrite() throws(RealmError) -> WriteState {
        guard let write, !write.store.queuesSyncChanges else {
            throw RealmError(.wrongState, "Sync's bookkeeping changes only inside writeFromSync.")
        }
        return write.store
    }
}

extension Realm {
    /// The store this realm reads and writes, for sync's reads of stored values.
    package var objectStore: ObjectStore { store }
}
