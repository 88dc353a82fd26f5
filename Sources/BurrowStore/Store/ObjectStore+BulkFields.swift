import BurrowStorage

/// One plain field set on many objects at once (`setValue(_:forKey:)` on a collection).
extension ObjectStore {
    /// The objects of a table a bulk update sets.
    package enum BulkTargets {
        /// These objects.
        case keys([ObjectKey])
        /// Every object of the table.
        case all
        /// Every object whose row passes the row tests of `filter` (the filter of a `rowFilter`
        /// query plan, see `QueryPlan`), each row tested as the update reaches it, before it
        /// changes it.
        case matching(RowMatcher)
    }

    /// How a bulk update tests the rows it walks: the filter of a `rowFilter` query plan.
    package struct RowMatcher {
        /// A row's verdict from its row tests alone: nil when only the filter's general
        /// evaluation can tell.
        let verdict: (UnsafeRawBufferPointer) -> Bool?
        /// The filter's general evaluation of object `key`, whose row is given.
        let matches: (ObjectKey, UnsafeRawBufferPointer) throws(StorageError) -> Bool

        package init(
            verdict: @escaping (UnsafeRawBufferPointer) -> Bool?, matches: @escaping (ObjectKey, UnsafeRawBufferPointer) throws(StorageError) -> Bool
        ) {
            self.verdict = verdict
            self.matches = matches
        }

        /// The matcher of `filter`, the compiled filter of a `rowFilter` plan of `table`, whose
        /// general evaluation reads through `context`. Made here, so that its closures compile
        /// with the row tests they run rather than calling them from another module.
        package init(_ filter: QueryExecutor.CompiledFilter, _ table: Table, in context: any RowReader) {
            let executor = QueryExecutor(context: context)
            self.init(verdict: { filter.verdict($0) }) { key, row throws(StorageError) in try executor.matches(filter, table, key, row) }
        }
    }

    /// Whether `setPayloads` may set field `field` of `table` to `payload`: a change that
    /// touches the row and the field's index alone. Not a link or `AnyRealmValue` (backlinks,
    /// embedded objects), not a collection, not the primary key, and a payload short enough to
    /// stay in the row (no blob).
    package static func setsInBulk(_ table: Table, _ field: Int, _ payload: [UInt8]?) -> Bool {
        let property = table.stored.properties[field]
        return !property.isPrimary && property.type != .object && property.type != .any && property.collection == .single
            && table.collectionTrees[field] == nil && (payload?.count ?? 0) <= Self.inlinePayloadLimit
    }

    /// Sets single field `field` of every object of `keys` (of every object of the table if
    /// nil) to `payload`, with the result of `setPayload` on each in turn: the same rows,
    /// index entries, change records and change stamps, and for an object that no longer
    /// exists the same error (for the first such object in `keys`' order; the transaction then
    /// keeps nothing). `setsInBulk` must allow the change.
    ///
    /// The rows are rewritten in one pass over the rows tree in key order
    /// (`WriteTransaction.rewriteValues`, or `rewriteAllValues` for every object or a filter):
    /// each leaf is copied once and rewritten in place, with no row read into an array of its
    /// own. A row whose field holds a blob reference (its old value was long) goes through
    /// `setPayload`, which removes the blob; so does a row no row test can decide on, once the
    /// filter's general evaluation has matched it (it is not changed before).
    package func setPayloads(_ table: Table, _ targets: BulkTargets, _ field: Int, _ payload: [UInt8]?, in write: WriteState) throws(StoreError) {
        let type = table.fieldTypes[field]
        let fields = table.fieldTypes.count
        let indexTree = table.fieldIndexTrees[field]
        var changed: [ObjectKey] = []
        var external: [ObjectKey] = []
        var oldIndexPayloads: [[UInt8]?] = []
        do {
            guard let rows = try write.trees.id(table.rowsTree) else {
                if case .keys(let keys) = targets, let first = keys.first {
                    throw StoreError(.invalidObject, "\(table.name) \(first) was deleted; a deleted object cannot be changed.")
                }
                return
            }
            var firstMissing: ObjectKey?
            var undecided: [ObjectKey] = []
            try payload.withUnsafeOptionalBytes { newPayload in
                /// The new row for `row` (of object `key`), or false to leave it.
                func rewrite(_ key: ObjectKey, _ row: UnsafeRawBufferPointer, _ new: inout [UInt8]) -> Bool {
                    let old = RowCodec.field(row, field)
                    if let old, RowCodec.isExternal(old, as: type) {
                        external.append(key)
                        return false
                    }
                    if RowCodec.sameField(old, newPayload) { return false }
                    if indexTree != nil { oldIndexPayloads.append(old.map(Array.init)) }
                    RowCodec.appendReplacing(field, with: newPayload, in: row, fields: fields, to: &new)
                    changed.append(key)
                    return true
                }
                let keys: [ObjectKey]
                switch targets {
                case .all:
                    try write.transaction.rewriteAllValues(in: rows) { key, row, new in rewrite(ObjectKey.read(key), row, &new) }
                    return
                case .matching(let filter):
                    try write.transaction.rewriteAllValues(in: rows) { key, row, new in
                        switch filter.verdict(row) {
                        case false?: return false
                        case true?: return rewrite(ObjectKey.read(key), row, &new)
                        case nil:
                            undecided.append(ObjectKey.read(key))
                            return false
                        }
                    }
                    return
                case .keys(let given):
                    keys = given
                }
                // The keys in ascending order, as big-endian bytes back to back (a list's order
                // is its own; a query's results are usually in key order already).
                var sorted = keys
                if !Self.isAscending(sorted) { sorted.sort() }
                let keyBytes = [UInt8](unsafeUninitializedCapacity: sorted.count * 8) { buffer, initialized in
                    let raw = UnsafeMutableRawBufferPointer(buffer)
                    for (i, key) in sorted.enumerated() { raw.storeBytes(of: key.rawValue.bigEndian, toByteOffset: i &* 8, as: UInt64.self) }
                    initialized = sorted.count * 8
                }
                let missing = try keyBytes.withUnsafeBytes { keyBuffer in
                    try write.transaction.rewriteValues(in: rows, keys: keyBuffer, keySize: 8) { index, row, new in
                        rewrite(sorted[index], row, &new)
                    }
                }
                if !missing.isEmpty {
                    let gone = Set(missing.map { sorted[$0] })
                    firstMissing = keys.first { gone.contains($0) }
                }
            }
            if let indexTree {
                let property = table.stored.properties[field]
                let newEntry = indexValue(payload, property)
                for (key, old) in zip(changed, oldIndexPayloads) {
                    try write.trees.delete(indexTree, IndexKey.entry(indexValue(old, property), key))
                    try write.trees.put(indexTree, IndexKey.entry(newEntry, key), [])
                }
            }
            for key in changed {
                write.changes?.modified(key, field: field, in: table.id)
                noteChange()
            }
            for key in external { try setPayload(table, key, field, payload, in: write) }
            if case .matching(let filter) = targets, !undecided.isEmpty {
                // Rows no row test could decide on, unchanged so far: the filter's general
                // evaluation, on each row as it was.
                for key in undecided {
                    let row = try key.withBytes { k throws(StorageError) in try write.trees.withValue(table.rowsTree, k) { Array($0) } }
                    guard let row else { continue }
                    let matched = try row.withUnsafeBytes { bytes throws(StorageError) in try filter.matches(key, bytes) }
                    if matched { try setPayload(table, key, field, payload, in: write) }
                }
            }
            // Every object that exists is changed by now, as `setPayload` on each would leave
            // them if the missing ones came last; the error makes the transaction keep nothing.
            if let firstMissing {
                throw StoreError(.invalidObject, "\(table.name) \(firstMissing) was deleted; a deleted object cannot be changed.")
            }
        } catch {
            throw StoreError(wrapping: error)
        }
    }

    private static func isAscending(_ keys: [ObjectKey]) -> Bool {
        zip(keys, keys.dropFirst()).allSatisfy { $0.rawValue < $1.rawValue }
    }
}

extension Optional where Wrapped == [UInt8] {
    /// Calls `body` with the array's bytes, or nil for nil.
    fileprivate func withUnsafeOptionalBytes<R>(_ body: (UnsafeRawBufferPointer?) throws -> R) rethrows -> R {
        guard let self else { return try body(nil) }
        return try self.withUnsafeBytes { try body($0) }
    }
}
