import BurrowStorage
import Foundation

/// What sync keeps in the file beside the objects.
///
/// The schema's `info` lists the synced classes (`FileSchema.Info.syncedClasses`). While it
/// lists any, every write records what it changes, and its commit appends one `OutboxEntry`
/// per changed object of a synced class to the `outbox` tree, in the same transaction: a crash
/// after the commit keeps the entries, a cancelled or failed write leaves none, and every
/// realm of any process that writes the file queues its changes, whether or not a sync client
/// runs. A change to an embedded object is queued as an update of the property of its
/// top-level owner that holds it.
///
/// The `sync` tree holds the client's id (`client`, 16 bytes), the next sequence number
/// (`next`, UInt64 little-endian) and the checkpoint of the last download (`checkpoint`, bytes
/// only the sync client reads). A write made by the sync client to apply what it downloaded
/// (`WriteState.queuesSyncChanges` false) queues nothing.
extension ObjectStore {
    private static let clientKey = Array("client".utf8)
    private static let nextSequenceKey = Array("next".utf8)
    private static let checkpointKey = Array("checkpoint".utf8)

    /// The classes whose changes commits queue for upload, sorted; empty when nothing is synced.
    package var syncedClassNames: [String] { currentFileSchema.info.syncedClasses ?? [] }

    /// Makes every later commit queue the changes of `classNames` too, and queues the objects
    /// they hold now as inserts, so that what existed before goes up once. Gives the file a
    /// sync client id if it has none. Throws `invalidArgument` for a class the file does not
    /// have, an embedded class or one without a primary key.
    package func startSyncing(_ classNames: [String], in write: WriteState) throws(StoreError) {
        var schema = currentFileSchema
        let known = Set(schema.info.syncedClasses ?? [])
        let added = Set(classNames).subtracting(known).sorted()
        for name in added {
            guard let stored = schema.classes[name] else {
                throw StoreError(.invalidArgument, "\(name) cannot be synced: \(displayName) has no class of that name.")
            }
            guard !stored.isEmbedded, stored.properties.contains(where: \.isPrimary) else {
                throw StoreError(
                    .invalidArgument,
                    "\(name) cannot be synced: a synced class needs a primary key, which identifies its objects on the server\(stored.isEmbedded ? ", and an embedded class has none (it syncs inside its parent)" : "")."
                )
            }
        }
        do {
            if try write.trees.withValue(.sync, Self.clientKey, { _ in true }) == nil {
                try write.trees.put(.sync, Self.clientKey, withUnsafeBytes(of: UUID().uuid) { Array($0) })
            }
        } catch {
            throw StoreError(error)
        }
        guard !added.isEmpty else { return }
        schema.info.syncedClasses = (known.union(added)).sorted()
        try storeSchema(schema, changing: [], in: write)
        var entries: [(className: String, primaryKey: StoreValue, kind: OutboxEntry.Kind, properties: [String])] = []
        for name in added {
            guard let table = dynamicTable(named: name) else { continue }
            for key in try storeKeys(table) {
                entries.append((name, try primaryKey(table, key, in: write.trees), .insert, []))
            }
        }
        try appendOutboxEntries(entries, in: write)
    }

    /// The file's sync client id, nil before a sync client first ran on it.
    package func syncClientID() throws(StoreError) -> UUID? {
        do {
            return try reader.withValue(.sync, Self.clientKey) { bytes -> UUID? in
                guard bytes.count == 16 else { return nil }
                var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
                withUnsafeMutableBytes(of: &raw) { $0.copyMemory(from: bytes) }
                return UUID(uuid: raw)
            } ?? nil
        } catch {
            throw StoreError(error)
        }
    }

    /// What the sync client stored with its last download, nil before its first.
    package func syncCheckpoint() throws(StoreError) -> [UInt8]? {
        do {
            return try reader.withValue(.sync, Self.checkpointKey) { Array($0) }
        } catch {
            throw StoreError(error)
        }
    }

    /// Stores `checkpoint` as the last download's, in the open write.
    package func setSyncCheckpoint(_ checkpoint: [UInt8], in write: WriteState) throws(StoreError) {
        do {
            try write.trees.put(.sync, Self.checkpointKey, checkpoint)
        } catch {
            throw StoreError(error)
        }
    }

    /// The number of entries waiting for upload.
    package func outboxCount() throws(StoreError) -> Int {
        do {
            return try reader.count(.outbox)
        } catch {
            throw StoreError(error)
        }
    }

    /// The sequence number of the newest entry waiting for upload, nil if none waits.
    package func lastOutboxSequence() throws(StoreError) -> UInt64? {
        do {
            let count = try reader.count(.outbox)
            guard count > 0 else { return nil }
            return try reader.entry(.outbox, at: count - 1) { key, _ -> UInt64? in
                key.count == 8 ? UInt64(bigEndian: key.loadUnaligned(as: UInt64.self)) : nil
            } ?? nil
        } catch {
            throw StoreError(error)
        }
    }

    /// Up to `limit` entries waiting for upload, in upload order, starting after sequence
    /// number `sequence`.
    package func outboxEntries(after sequence: UInt64, limit: Int) throws(StoreError) -> [OutboxEntry] {
        var entries: [OutboxEntry] = []
        var damaged = false
        do {
            let start = sequence == .max ? nil : OutboxEntry.key(sequence + 1)
            guard let start else { return [] }
            try reader.scan(.outbox, from: start) { key, value in
                guard entries.count < limit else { return false }
                guard let entry = OutboxEntry(key: key, value: value) else {
                    damaged = true
                    return false
                }
                entries.append(entry)
                return true
            }
        } catch {
            throw StoreError(error)
        }
        if damaged {
            throw StoreError(
                .corruptFile,
                "An entry of the sync outbox of \(displayName) cannot be read, after sequence number \(entries.last?.sequence ?? sequence); the file is damaged."
            )
        }
        return entries
    }

    /// Removes the entries up to sequence number `sequence` from the outbox (they are in the
    /// server now), in the open write.
    package func removeOutboxEntries(through sequence: UInt64, in write: WriteState) throws(StoreError) {
        do {
            var keys: [[UInt8]] = []
            try write.trees.scan(.outbox, from: []) { key, _ in
                guard key.count == 8, UInt64(bigEndian: key.loadUnaligned(as: UInt64.self)) <= sequence else { return false }
                keys.append(Array(key))
                return true
            }
            for key in keys { _ = try write.trees.delete(.outbox, key) }
        } catch {
            throw StoreError(error)
        }
    }

    /// Queues the open write's changes of synced classes, unless the write applies what sync
    /// downloaded. Called by `commitWrite` just before the commit.
    func queueSyncChanges(in write: WriteState) throws(StoreError) {
        guard write.queuesSyncChanges, let synced = currentFileSchema.info.syncedClasses, !synced.isEmpty, let changes = write.changes
        else { return }
        let syncedIds = Set(synced.compactMap { currentFileSchema.classes[$0]?.id })
        // Per object of a synced class: what happened to it, and the fields that changed.
        var changed: [ObjectLink: (kind: OutboxEntry.Kind, fields: Set<Int>)] = [:]
        for tableId in changes.changedTableIds.sorted() {
            guard let table = dynamicTable(id: tableId) else { continue }
            let classChanges = changes.changes(of: tableId)
            if table.stored.isEmbedded {
                for key in classChanges.inserted.union(classChanges.modified.keys) {
                    guard let owner = try topLevelOwner(of: table, key, in: write), syncedIds.contains(owner.link.table) else { continue }
                    if changed[owner.link] == nil { changed[owner.link] = (.update, []) }
                    changed[owner.link]?.fields.insert(owner.field)
                }
                continue
            }
            guard syncedIds.contains(tableId) else { continue }
            for key in classChanges.inserted { changed[ObjectLink(table: tableId, key: key)] = (.insert, []) }
            for key in classChanges.deleted { changed[ObjectLink(table: tableId, key: key)] = (.delete, []) }
            for (key, fields) in classChanges.modified {
                let link = ObjectLink(table: tableId, key: key)
                if fields.contains(ChangeSet.ClassChanges.allFields) {
                    changed[link] = (.insert, [])
                } else if let known = changed[link] {
                    if known.kind == .update { changed[link]?.fields.formUnion(fields) }
                } else {
                    changed[link] = (.update, fields)
                }
            }
        }
        guard !changed.isEmpty else { return }
        var entries: [(className: String, primaryKey: StoreValue, kind: OutboxEntry.Kind, properties: [String])] = []
        for link in changed.keys.sorted(by: { ($0.table, $0.key.rawValue) < ($1.table, $1.key.rawValue) }) {
            guard let table = dynamicTable(id: link.table), let change = changed[link] else { continue }
            // A deleted object's key is read from the version the write began on.
            let primaryKey = try primaryKey(table, link.key, in: change.kind == .delete ? snapshotReader : write.trees)
            let properties = change.fields.sorted().map { table.stored.properties[$0].name }
            entries.append((table.name, primaryKey, change.kind, properties))
        }
        try appendOutboxEntries(entries, in: write)
    }

    /// Appends `entries` to the outbox with the next sequence numbers, in order.
    private func appendOutboxEntries(
        _ entries: [(className: String, primaryKey: StoreValue, kind: OutboxEntry.Kind, properties: [String])], in write: WriteState
    ) throws(StoreError) {
        guard !entries.isEmpty else { return }
        do {
            var next =
                try write.trees.withValue(.sync, Self.nextSequenceKey) { bytes -> UInt64? in
                    bytes.count == 8 ? ValueCodec.u64(bytes, 0) : nil
                }.flatMap { $0 } ?? 1
            for entry in entries {
                let outboxEntry = OutboxEntry(
                    sequence: next, className: entry.className, primaryKey: entry.primaryKey, kind: entry.kind, properties: entry.properties)
                try write.trees.put(.outbox, OutboxEntry.key(next), outboxEntry.encoded)
                next += 1
            }
            var bytes: [UInt8] = []
            ValueCodec.appendLE(next, to: &bytes)
            try write.trees.put(.sync, Self.nextSequenceKey, bytes)
        } catch {
            throw StoreError(error)
        }
    }

    /// The object keys of `table`, in key order, read in the open write.
    private func storeKeys(_ table: Table) throws(StoreError) -> [ObjectKey] {
        do {
            return try objectKeys(table)
        } catch {
            throw StoreError(error)
        }
    }

    /// The primary key of object `key` of `table`, read through `trees` (the open write's, or
    /// the version it began on for an object it deleted).
    private func primaryKey(_ table: Table, _ key: ObjectKey, in trees: any TreeReader) throws(StoreError) -> StoreValue {
        guard let field = table.primaryKeyField else { return .null }
        let type = table.fieldTypes[field]
        do {
            let payload = try withRowBytes(table, key, in: trees) { row in RowCodec.field(row, field).map(Array.init) }
            guard let payload, let payload else { return .null }
            let full =
                payload.withUnsafeBytes { RowCodec.isExternal($0, as: type) }
                ? try trees.withValue(table.blobsTree, Self.blobKey(key, field)) { RowCodec.payload(fromBlob: $0, as: type) } ?? nil : payload
            guard let full, full.withUnsafeBytes({ RowCodec.lengthProblem($0, as: type) }) == nil else {
                throw StoreError(.corruptFile, "The primary key of \(table.name) \(key) in \(displayName) cannot be read; the file is damaged.")
            }
            return full.withUnsafeBytes { RowCodec.decode($0, as: type, linkTarget: 0) { _, _ in .null } }
        } catch let error as StorageError {
            throw StoreError(error)
        } catch {
            throw StoreError(wrapping: error)
        }
    }

    /// The top-level object that owns embedded object `key` of `table`, through any depth of
    /// embedded objects, and the field of it that holds the chain; nil if none does (an object
    /// being deleted).
    private func topLevelOwner(of table: Table, _ key: ObjectKey, in write: WriteState) throws(StoreError) -> (link: ObjectLink, field: Int)? {
        var current = (table: table, key: key)
        // Each step goes up one parent. In a sound file the chain ends at a top-level object;
        // the count stops a damaged one whose links go round.
        for _ in 0..<Self.embeddedDepthLimit {
            guard let parent = try incomingLinks(to: current.table, current.key, in: write).first,
                let parentTable = dynamicTable(id: parent.table)
            else { return nil }
            if !parentTable.stored.isEmbedded { return (ObjectLink(table: parent.table, key: parent.key), parent.field) }
            current = (parentTable, parent.key)
        }
        throw StoreError(
            .corruptFile,
            "The embedded object \(table.name) \(key) in \(displayName) has no top-level owner within \(Self.embeddedDepthLimit) parents; the file is damaged."
        )
    }

    /// More embedded objects than any chain of parents in a file holds.
    private static let embeddedDepthLimit = 1 << 32
}
