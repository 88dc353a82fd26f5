import BurrowStorage
import Foundation

/// A version of the file whose rows can be read: a live store (at its current version, or in
/// its write transaction), or a frozen version the API keeps. Reading rows, fields, primary keys
/// and long values is written once, here, for both; what reads objects from them is the API's.
package protocol RowReader: AnyObject {
    /// The trees of the version being read.
    var reader: any TreeReader { get }
    /// The schema stored in the version being read.
    var currentFileSchema: FileSchema { get }
    /// Where errors in messages happened.
    var displayName: String { get }
    /// The table of the class stored with `id` as the program declares it, if this reader
    /// knows the program's class.
    func table(id: UInt32) -> Table?
    /// The table of the class stored with `id`, read through the stored schema alone, if the
    /// version read has that class.
    func dynamicTable(id: UInt32) -> Table?
    /// The layer above's description of a class read through the stored schema alone, which a
    /// new dynamic table carries (see `Table.program`).
    func dynamicProgram(for stored: StoredClass) -> any AnyObject & Sendable
    /// Calls `body` with the row of object `key` of `table` (zero-copy, valid inside `body`)
    /// and returns its result, or nil if there is no such row.
    func withRowBytes<R>(_ table: Table, _ key: ObjectKey, _ body: (UnsafeRawBufferPointer) -> R) throws(StorageError) -> R?
    /// The object key of the first entry of the secondary index `tree` for the value whose
    /// index key is `value` (an entry is the value's key and 8 bytes of object key), or nil if
    /// no object has that value: the entries of one value follow each other in object-key
    /// order, so this is the value's first object.
    func firstIndexed(_ tree: TreeName, value: UnsafeRawBufferPointer) throws(StorageError) -> ObjectKey?
}

/// What looking up a primary key found.
@usableFromInline
package enum PrimaryKeyProbe {
    /// The object with that primary key has this key; `row` is its row when the lookup read
    /// it (valid as long as the version read stays pinned and unchanged: use it only outside
    /// write transactions).
    case found(ObjectKey, row: UnsafeRawBufferPointer?)
    /// No object has it; `derivedKeyIsFree` tells whether a new object may take the key
    /// derived from it.
    case absent(derivedKeyIsFree: Bool)
}

extension RowReader {
    package func withRowBytes<R>(_ table: Table, _ key: ObjectKey, _ body: (UnsafeRawBufferPointer) -> R) throws(StorageError) -> R? {
        try withRowBytes(table, key, in: reader, body)
    }

    package func firstIndexed(_ tree: TreeName, value: UnsafeRawBufferPointer) throws(StorageError) -> ObjectKey? {
        try firstIndexed(tree, value: value, in: reader)
    }

    /// `firstIndexed`, reading through `reader`.
    package func firstIndexed(_ tree: TreeName, value: UnsafeRawBufferPointer, in reader: any TreeReader) throws(StorageError) -> ObjectKey? {
        var found: ObjectKey?
        try reader.scan(tree, from: Array(value)) { entry, _ in
            found = Self.indexEntry(entry, objectWithValue: value)
            return false
        }
        return found
    }

    /// The object key of index entry `entry` if it is an entry of the value whose index key is
    /// `value`, else nil.
    @inline(__always)
    package static func indexEntry(_ entry: UnsafeRawBufferPointer, objectWithValue value: UnsafeRawBufferPointer) -> ObjectKey? {
        guard entry.count >= value.count + 8, memcmp(value.baseAddress!, entry.baseAddress!, value.count) == 0 else { return nil }
        return ObjectKey.read(entry, at: entry.count - 8)
    }

    /// `withRowBytes`, reading through `reader` (the tree found by name). A row of a version of
    /// file format 4 or 5 is handed to `body` converted (`LegacyRowCodec.withConverted`).
    package func withRowBytes<R>(
        _ table: Table, _ key: ObjectKey, in reader: any TreeReader, _ body: (UnsafeRawBufferPointer) -> R
    ) throws(StorageError) -> R? {
        try withUnsafeBytes(of: key.rawValue.bigEndian) { k throws(StorageError) in
            guard reader.rowsAreOld else { return try reader.withValue(table.rowsTree, k, body) }
            return try reader.withValue(table.rowsTree, k) {
                LegacyRowCodec.withConverted($0, from: reader.rowFormat, fields: table.legacyFields, body)
            }
        }
    }

    /// The table of the class stored as `name`, read through the stored schema alone, if the
    /// file has it.
    package func dynamicTable(named name: String) -> Table? {
        currentFileSchema.classes[name].flatMap { dynamicTable(id: $0.id) }
    }

    /// The table of the class stored with `id`: the dynamic one (`dynamic`), read through the
    /// stored schema alone, or the one of the program's class this reader knows for it.
    package func table(id: UInt32, dynamic: Bool) -> Table? {
        dynamic ? dynamicTable(id: id) : table(id: id)
    }

    /// A table of the class stored with `id` for code that works by stored field alone
    /// (deletes, backlinks, queries): the program's if this reader knows it, else the dynamic one.
    package func storedTable(id: UInt32) -> Table? {
        table(id: id) ?? dynamicTable(id: id)
    }

    /// A new dynamic table of the class stored with `id`, for a reader's cache.
    package func makeDynamicTable(id: UInt32) -> Table? {
        guard let stored = currentFileSchema.classes.values.first(where: { $0.id == id }) else { return nil }
        return Table(declared: DeclaredClass(dynamic: stored), stored: stored, program: dynamicProgram(for: stored))
    }

    package func rowExists(_ table: Table, _ key: ObjectKey) -> Bool {
        do {
            return try hasRow(table, key)
        } catch {
            fail(error)
        }
    }

    /// `rowExists`, throwing where it would trap.
    package func hasRow(_ table: Table, _ key: ObjectKey) throws(StorageError) -> Bool {
        try withRowBytes(table, key) { _ in () } != nil
    }

    /// Calls `body` with the row of object `key`. Traps if there is none: reading a deleted
    /// object is a programming error that a property getter cannot throw.
    package func withRow<R>(_ table: Table, _ key: ObjectKey, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        let result: R?
        do {
            result = try withRowBytes(table, key, body)
        } catch {
            fail(error)
        }
        guard let result else {
            preconditionFailure(
                "Object has been deleted or invalidated: \(table.name) \(key) no longer exists in \(displayName). Check isInvalidated before reading."
            )
        }
        return result
    }

    /// The value a row payload of field `field` of object `key` holds (fetching it from the
    /// blob tree if the row keeps only a reference), with links as `resolve` makes them.
    package func decodedPayload<Link>(
        _ payload: UnsafeRawBufferPointer, _ table: Table, _ key: ObjectKey, _ field: Int, resolve: ValueCodec.LinkResolver<Link>
    ) throws(StorageError) -> StoredValue<Link> {
        let type = table.fieldTypes[field]
        let target = type == .object ? linkTarget(table, field) : 0
        guard !RowCodec.isExternal(payload, as: type) else {
            let stored = try storedPayload(payload, table, key, field)
            let decoded = stored.withUnsafeBytes { stored -> Result<StoredValue<Link>, StorageError> in
                if let problem = RowCodec.lengthProblem(stored, as: type) { return .failure(damagedRow(table, key, field, problem)) }
                return .success(RowCodec.decode(stored, as: type, linkTarget: target, resolve: resolve))
            }
            return try decoded.get()
        }
        if let problem = RowCodec.lengthProblem(payload, as: type) { throw damagedRow(table, key, field, problem) }
        return RowCodec.decode(payload, as: type, linkTarget: target, resolve: resolve)
    }

    /// The value of a row payload of field `field` of object `key`, links as the store holds
    /// them.
    package func storeValue(_ payload: UnsafeRawBufferPointer, _ table: Table, _ key: ObjectKey, _ field: Int) throws(StorageError) -> StoreValue {
        try decodedPayload(payload, table, key, field) { .object(ObjectLink(table: $0, key: $1)) }
    }

    /// The value of declared property `property` of object `key`, links as keys. Traps if the
    /// object does not exist or the read fails, as a property getter must.
    package func readPropertyValue(_ table: Table, _ key: ObjectKey, _ property: Int) -> StoreValue {
        withRow(table, key) { row in
            guard let (field, payload) = table.storedField(property, in: row) else { return .null }
            do throws(StorageError) {
                return try storeValue(payload, table, key, field)
            } catch {
                fail(error)
            }
        }
    }

    /// The error for field `field` of object `key`, whose payload `problem` makes unreadable.
    package func damagedRow(_ table: Table, _ key: ObjectKey, _ field: Int, _ problem: String) -> StorageError {
        .corruptEntry(
            path: reader.fileName, tree: table.rowsTree.string,
            entry: "the row of object #\(key.rawValue) holds a property '\(table.stored.properties[field].name)' that \(problem)")
    }

    /// The row of object `key` in the version this reader reads, as a pointer into the pinned
    /// snapshot's mapping: valid while that snapshot lives. Nil if there is no such row, or if
    /// the version is of file format 4, whose rows exist in the form read only while they are
    /// read (`withRowBytes`): callers then read each field by key. Only outside write
    /// transactions: a write transaction's pages move as it changes them.
    package func snapshotRow(_ table: Table, _ key: ObjectKey) -> UnsafeRawBufferPointer? {
        if reader.rowsAreOld { return nil }
        do {
            return try withRowBytes(table, key) { $0 }
        } catch {
            fail(error)
        }
    }

    /// Calls `body` with the row of object `key` of `table` in this reader's version and the
    /// row of the same object of `otherTable` in `other`'s (each valid inside `body`), and
    /// returns its result; nil if either version has no such row. Only outside write
    /// transactions, as `snapshotRow`.
    package func withRows<R>(
        _ table: Table, _ key: ObjectKey, and other: some RowReader, _ otherTable: Table,
        _ body: (_ mine: UnsafeRawBufferPointer, _ others: UnsafeRawBufferPointer) -> R
    ) -> R? {
        do {
            return try withRowBytes(table, key) { mine -> Result<R?, StorageError> in
                Result { () throws(StorageError) in try other.withRowBytes(otherTable, key) { body(mine, $0) } }
            }?.get()
        } catch {
            fail(error)
        }
    }

    /// The table id a typed link field points into (0 for other fields).
    package func linkTarget(_ table: Table, _ field: Int) -> UInt32 {
        guard let className = table.stored.properties[field].objectClassName else { return 0 }
        return storedClassId(named: className) ?? 0
    }

    package func storedClassId(named name: String) -> UInt32? {
        currentFileSchema.classes[name]?.id
    }

    /// The object keys of every object of `table`, in key order. Traps if the read fails.
    package func allKeys(_ table: Table) -> [ObjectKey] {
        do {
            return try objectKeys(table)
        } catch {
            fail(error)
        }
    }

    /// `allKeys`, throwing where it would trap.
    package func objectKeys(_ table: Table) throws(StorageError) -> [ObjectKey] {
        var keys: [ObjectKey] = []
        keys.reserveCapacity(try reader.count(table.rowsTree))
        try reader.scan(table.rowsTree, from: []) { key, _ in
            keys.append(ObjectKey.read(key))
            return true
        }
        return keys
    }

    /// The object with primary key `value`, if there is one.
    package func objectKey(_ table: Table, primaryKey value: StoreValue) throws(StorageError) -> ObjectKey? {
        switch try probePrimaryKey(table, value) {
        case .found(let key, _): key
        case .absent: nil
        }
    }

    /// Where the object whose primary key is `value` is, or whether its derived key is free
    /// (see `ObjectKey(derivedFrom:)`): one descent of the rows tree when the object is at its
    /// derived key, and a look into the (usually empty) `pk/<id>` tree otherwise.
    package func probePrimaryKey(_ table: Table, _ value: StoreValue) throws(StorageError) -> PrimaryKeyProbe {
        let derived = ObjectKey(derivedFrom: value)
        let holder = try row(table, derived, holding: value)
        if let holder, holder.holds {
            // A converted row of a format-4 version lives only while it is read.
            return .found(derived, row: reader.rowsAreOld ? nil : holder.row)
        }
        // The collision tree is empty unless two primary keys derived the same key: then
        // there is no index key to encode.
        if try reader.count(table.primaryKeyTree) > 0,
            let key = try reader.withValue(table.primaryKeyTree, IndexKey.encode(value), { ObjectKey.read($0) })
        {
            return .found(key, row: nil)
        }
        return .absent(derivedKeyIsFree: holder == nil)
    }

    /// The row `key` of `table` and whether it holds primary key `value`, or nil if there is
    /// no such row.
    private func row(_ table: Table, _ key: ObjectKey, holding value: StoreValue) throws(StorageError) -> (
        row: UnsafeRawBufferPointer, holds: Bool
    )? {
        guard let field = table.primaryKeyField else { return nil }
        let found = try withRowBytes(table, key) { row -> Result<(UnsafeRawBufferPointer, Bool), StorageError> in
            guard let payload = RowCodec.field(row, field) else { return .success((row, value._isNull)) }
            if let holds = PrimaryKey.payload(payload, of: table.fieldTypes[field], holds: value) { return .success((row, holds)) }
            return Result { () throws(StorageError) in
                (row, PrimaryKey.same(try storeValue(payload, table, key, field), value))
            }
        }
        return try found?.get()
    }

    /// A storage error where no error can be thrown (a property getter): the file is damaged or
    /// unreadable, and continuing would return wrong data. The message names the file, and for
    /// a damaged page the page and what is wrong with it (see "Read errors" in Architecture.md).
    package func fail(_ error: StorageError) -> Never {
        preconditionFailure("Reading \(displayName) failed: \(error.description)")
    }

    /// The full payload of field `field` of object `key`, given what its row holds.
    package func fullPayload(_ rowPayload: UnsafeRawBufferPointer, _ table: Table, _ key: ObjectKey, _ field: Int) -> [UInt8] {
        do {
            return try storedPayload(rowPayload, table, key, field)
        } catch {
            fail(error)
        }
    }

    /// `fullPayload`, throwing where it would trap.
    package func storedPayload(_ rowPayload: UnsafeRawBufferPointer, _ table: Table, _ key: ObjectKey, _ field: Int) throws(StorageError)
        -> [UInt8]
    {
        let type = table.fieldTypes[field]
        guard RowCodec.isExternal(rowPayload, as: type) else { return Array(rowPayload) }
        guard let payload = try reader.withValue(table.blobsTree, ObjectStore.blobKey(key, field), { RowCodec.payload(fromBlob: $0, as: type) })
        else {
            throw .corruptPage(path: displayName, page: 0, detail: "has no blob for field \(field) of \(table.name) \(key), which its row refers to")
        }
        guard let payload else {
            throw .corruptPage(
                path: displayName, page: 0, detail: "has a blob for field \(field) of \(table.name) \(key) whose length does not match its bytes")
        }
        return payload
    }

    /// `fullPayload` for an optional row payload (nil: the field is null).
    package func fullPayload(_ rowPayload: [UInt8]?, _ table: Table, _ key: ObjectKey, _ field: Int) -> [UInt8]? {
        rowPayload.map { payload in payload.withUnsafeBytes { fullPayload($0, table, key, field) } }
    }

    /// What field `field` of object `key` holds, links as `resolve` makes them.
    package func content<Link>(_ table: Table, _ key: ObjectKey, _ field: Int, resolve: ValueCodec.LinkResolver<Link>) -> FieldContent<Link> {
        let property = table.stored.properties[field]
        let target = linkTarget(table, field)
        if let tree = table.collectionTrees[field] {
            do {
                return try .collection(key, in: tree, of: reader, property, linkTarget: target, resolve: resolve)
            } catch {
                fail(error)
            }
        }
        return withRow(table, key) { row in
            guard let payload = RowCodec.field(row, field) else { return .single(.null) }
            do throws(StorageError) {
                return .single(try decodedPayload(payload, table, key, field, resolve: resolve))
            } catch {
                fail(error)
            }
        }
    }

    /// The number of elements of a collection field: the count its row field holds.
    package func collectionCount(_ table: Table, _ key: ObjectKey, _ field: Int) -> Int {
        withRow(table, key) { row in RowCodec.count(RowCodec.field(row, field)) }
    }
}
