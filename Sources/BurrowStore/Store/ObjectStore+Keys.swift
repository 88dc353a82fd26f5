import BurrowStorage

/// Object keys: each table hands out keys one more than any it handed out before, and a
/// deleted object's key is never handed out again.
extension ObjectStore {
    /// The key of table `tableId`'s entry in the sequences tree.
    package static func sequenceKey(_ tableId: UInt32) -> [UInt8] {
        withUnsafeBytes(of: tableId.bigEndian) { Array($0) }
    }

    /// A new object key for `table`: one more than any it ever handed out. That is one more than
    /// the largest key in the table, or, if the object with the largest key ever handed out was
    /// deleted, the floor `deleteObject` stored for it then. So an insertion writes no counter.
    package func newObjectKey(_ table: Table, in write: WriteState) throws(StoreError) -> ObjectKey {
        if let next = write.nextKeys[table.id] {
            write.nextKeys[table.id] = next + 1
            return ObjectKey(next)
        }
        do {
            let floor = try write.trees.withValue(.sequences, Self.sequenceKey(table.id)) { ObjectKey.read($0).rawValue } ?? 1
            let next = max(floor, (try lastObjectKey(table, in: write)?.rawValue ?? 0) + 1)
            write.nextKeys[table.id] = next + 1
            return ObjectKey(next)
        } catch {
            throw StoreError(error)
        }
    }

    /// The first key after `derived` (in probing order) that no object of `table` has: the key
    /// of a new object whose derived key another object holds.
    package func freeKey(after derived: ObjectKey, in table: Table, _ write: WriteState) throws(StoreError) -> ObjectKey {
        var candidate = derived.nextProbe
        do {
            while try write.trees.contains(table.rowsTree, candidate.bytes) { candidate = candidate.nextProbe }
        } catch {
            throw StoreError(error)
        }
        return candidate
    }

    /// The largest object key in `table`, if it has objects.
    package func lastObjectKey(_ table: Table, in write: WriteState) throws(StorageError) -> ObjectKey? {
        let count = try write.trees.count(table.rowsTree)
        guard count > 0 else { return nil }
        return try write.trees.entry(table.rowsTree, at: count - 1) { key, _ in ObjectKey.read(key) }
    }

    /// Called after object `key` was deleted: if it had the largest key (or `force`), stores a
    /// floor so that the key is never handed out again.
    package func keepKeyRetired(_ key: ObjectKey, of table: Table, in write: WriteState, force: Bool = false) throws(StorageError) {
        // A class with a primary key derives its keys from it: an object made again with the
        // primary key of a deleted one gets the same key, as a lookup by primary key would find.
        guard !table.hasPrimaryKey else { return }
        if !force, let largest = try lastObjectKey(table, in: write), largest > key { return }
        let floor = try write.trees.withValue(.sequences, Self.sequenceKey(table.id)) { ObjectKey.read($0).rawValue } ?? 1
        if key.rawValue + 1 > floor {
            try write.trees.put(.sequences, Self.sequenceKey(table.id), ObjectKey(key.rawValue + 1).bytes)
        }
    }

    // MARK: Primary keys

    /// `probePrimaryKey` with its error in public form.
    private func probePrimaryKey(_ table: Table, _ value: StoreValue, reading: Void) throws(StoreError) -> PrimaryKeyProbe {
        do {
            return try probePrimaryKey(table, value)
        } catch {
            throw StoreError(error)
        }
    }

    /// `objectKey(_:primaryKey:)` with its error in public form.
    package func existingObjectKey(_ table: Table, primaryKey value: StoreValue) throws(StoreError) -> ObjectKey? {
        do {
            return try objectKey(table, primaryKey: value)
        } catch {
            throw StoreError(error)
        }
    }

    /// `probePrimaryKey`, in a write: a derived key above every key of the table is known to
    /// be free without reading the rows tree (see `WriteState.keyCeilings`).
    package func probePrimaryKey(_ table: Table, _ value: StoreValue, in write: WriteState) throws(StoreError) -> PrimaryKeyProbe {
        let derived = ObjectKey(derivedFrom: value)
        let ceiling: UInt64?
        if let known = write.keyCeilings[table.id] {
            ceiling = known
        } else if write.probedTables[table.id] == nil {
            // The first probe of the transaction: finding the ceiling would cost as much.
            write.probedTables[table.id] = true
            return try probePrimaryKey(table, value, reading: ())
        } else {
            do {
                ceiling = try lastObjectKey(table, in: write)?.rawValue
            } catch {
                throw StoreError(error)
            }
            write.keyCeilings[table.id] = .some(ceiling)
        }
        guard ceiling.map({ derived.rawValue > $0 }) ?? true else { return try probePrimaryKey(table, value, reading: ()) }
        do {
            // Above the ceiling, only the collision tree can know the primary key.
            if try write.trees.id(table.primaryKeyTree) != nil,
                let key = try write.trees.withValue(table.primaryKeyTree, IndexKey.encode(value), { ObjectKey.read($0) })
            {
                return .found(key, row: nil)
            }
        } catch {
            throw StoreError(error)
        }
        return .absent(derivedKeyIsFree: true)
    }

    // MARK: New objects

    /// The key of a new object of `table`, and the entry its primary key needs in the
    /// `pk/<id>` tree if it cannot take the key derived from it. `primaryKey` is the new
    /// object's primary key (nil for a class without one), `probed` what the caller's lookup
    /// of it found, if it made one. Throws `.primaryKeyExists` if an object has that primary
    /// key already: before anything is written.
    @usableFromInline
    package func keyForNewObject(
        _ table: Table, primaryKey value: StoreValue?, probed: PrimaryKeyProbe?, in write: WriteState
    ) throws(StoreError) -> (key: ObjectKey, primaryKeyEntry: [UInt8]?) {
        guard let value else { return (try newObjectKey(table, in: write), nil) }
        let probe: PrimaryKeyProbe
        if let probed { probe = probed } else { probe = try probePrimaryKey(table, value, in: write) }
        let key: ObjectKey
        var primaryKeyEntry: [UInt8]?
        switch probe {
        case .found:
            throw StoreError(
                .primaryKeyExists,
                "A \(table.name) with primary key \(PrimaryKey.describe(value)) already exists. Use update: .modified or .all to update it.")
        case .absent(let derivedKeyIsFree):
            let derived = ObjectKey(derivedFrom: value)
            key = derivedKeyIsFree ? derived : try freeKey(after: derived, in: table, write)
            if !derivedKeyIsFree { primaryKeyEntry = IndexKey.encode(value) }
        }
        if let ceiling = write.keyCeilings[table.id] { write.keyCeilings[table.id] = max(ceiling ?? 0, key.rawValue) }
        return (key, primaryKeyEntry)
    }

    /// Adds new object `key`'s entry for `value` to index tree `tree`, built in the
    /// transaction's reused buffer: no array per index entry.
    @inlinable
    package func addIndexEntry<Link: StoredLink>(_ tree: TreeName, _ value: StoredValue<Link>, _ key: ObjectKey, in write: WriteState)
        throws(StorageError)
    {
        write.keyBuffer.removeAll(keepingCapacity: true)
        IndexKey.appendEntry(value, key, to: &write.keyBuffer)
        try putIndexKey(tree, in: write)
    }

    /// Puts the index entry built in the transaction's key buffer into index tree `tree`.
    @usableFromInline
    package func putIndexKey(_ tree: TreeName, in write: WriteState) throws(StorageError) {
        try write.trees.put(tree, write.keyBuffer, [])
    }

    /// Writes the row of new object `key` of `table` (its index entries are added as its row
    /// is built, with `addIndexEntry`), and its `pk/<id>` entry if it has one.
    @usableFromInline
    package func putNewRow(_ table: Table, _ key: ObjectKey, _ row: [UInt8], primaryKeyEntry: [UInt8]?, in write: WriteState) throws(StorageError) {
        write.changes?.inserted(key, in: table.id)
        try write.trees.put(table.rowsTree, key, row)
        if let primaryKeyEntry { try write.trees.put(table.primaryKeyTree, primaryKeyEntry, key.bytes) }
        noteChange()
    }
}
