import BurrowStorage
import BurrowStore
import Foundation

/// A version of the file that objects can be read from: a live realm's `ObjectStore` (at the
/// realm's current version), or a frozen version. Reading rows, fields and links is written
/// once, here, for both.
protocol ReadContext: AnyObject {
    /// The trees of the version being read.
    var reader: any TreeReader { get }
    /// How objects read through this context refer back to it.
    var objectSource: ObjectSource { get }
    /// The table of the class stored with `id`, if this context knows its Swift class.
    func table(id: UInt32) -> Table?
    /// The table of the class stored with `id`, read through the stored schema alone as
    /// `DynamicObject`s, if the version read has that class.
    func dynamicTable(id: UInt32) -> Table?
    /// The schema stored in the version being read.
    var currentFileSchema: FileSchema { get }
    /// Where errors in messages happened.
    var displayName: String { get }
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
enum PrimaryKeyProbe {
    /// The object with that primary key has this key; `row` is its row when the lookup read
    /// it (valid as long as the version read stays pinned and unchanged: use it only outside
    /// write transactions).
    case found(ObjectKey, row: UnsafeRawBufferPointer?)
    /// No object has it; `derivedKeyIsFree` tells whether a new object may take the key
    /// derived from it.
    case absent(derivedKeyIsFree: Bool)
}

extension ReadContext {
    func withRowBytes<R>(_ table: Table, _ key: ObjectKey, _ body: (UnsafeRawBufferPointer) -> R) throws(StorageError) -> R? {
        try withRowBytes(table, key, in: reader, body)
    }

    func firstIndexed(_ tree: TreeName, value: UnsafeRawBufferPointer) throws(StorageError) -> ObjectKey? {
        try firstIndexed(tree, value: value, in: reader)
    }

    /// `firstIndexed`, reading through `reader`.
    func firstIndexed(_ tree: TreeName, value: UnsafeRawBufferPointer, in reader: any TreeReader) throws(StorageError) -> ObjectKey? {
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
    static func indexEntry(_ entry: UnsafeRawBufferPointer, objectWithValue value: UnsafeRawBufferPointer) -> ObjectKey? {
        guard entry.count >= value.count + 8, memcmp(value.baseAddress!, entry.baseAddress!, value.count) == 0 else { return nil }
        return ObjectKey.read(entry, at: entry.count - 8)
    }

    /// `withRowBytes`, reading through `reader` (the tree found by name).
    func withRowBytes<R>(
        _ table: Table, _ key: ObjectKey, in reader: any TreeReader, _ body: (UnsafeRawBufferPointer) -> R
    ) throws(StorageError) -> R? {
        try withUnsafeBytes(of: key.rawValue.bigEndian) { k throws(StorageError) in
            try reader.withValue(table.rowsTree, k, body)
        }
    }

    /// A managed object for the row `key` of `table`: a new instance of the class whose
    /// `@Persisted` fields all read and write that row.
    /// `row`, if given, is the object's row in the pinned version this context reads.
    func object(_ table: Table, _ key: ObjectKey, row: UnsafeRawBufferPointer? = nil) -> ObjectBase {
        let object = table.info.type.init()
        bind(object, to: table, key: key, row: row)
        return object
    }

    /// Makes `object` (an instance of `table`'s class) the managed object for row `key`.
    func bind(_ object: ObjectBase, to table: Table, key: ObjectKey, row: UnsafeRawBufferPointer? = nil) {
        table.info.bind(object, managed: true)
        object._state = ObjectState(source: objectSource, table: table, key: key, row: row)
    }

    func rowExists(_ table: Table, _ key: ObjectKey) -> Bool {
        do {
            return try hasRow(table, key)
        } catch {
            fail(error)
        }
    }

    /// `rowExists`, throwing where it would trap.
    func hasRow(_ table: Table, _ key: ObjectKey) throws(StorageError) -> Bool {
        try withRowBytes(table, key) { _ in () } != nil
    }

    /// Calls `body` with the row of object `key`. Traps if there is none: reading a deleted
    /// object is a programming error that a property getter cannot throw.
    func withRow<R>(_ table: Table, _ key: ObjectKey, _ body: (UnsafeRawBufferPointer) -> R) -> R {
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

    /// The value of `property` (a Swift property index) of object `key`.
    func readField(_ table: Table, _ key: ObjectKey, _ property: Int) -> _StoredValue {
        withRow(table, key) { row in decodeField(table, key, property, row: row) }
    }

    /// The value of `property` in `row`, the row of object `key` of `table`.
    @inline(__always)
    func decodeField(_ table: Table, _ key: ObjectKey, _ property: Int, row: UnsafeRawBufferPointer) -> _StoredValue {
        guard let (field, payload) = table.storedField(property, in: row) else { return .null }
        return decodePayload(payload, table, key, field)
    }

    /// The value a row payload of field `field` of object `key` holds (fetching it from the
    /// blob tree if the row keeps only a reference). Traps if that read fails.
    func decodePayload(_ payload: UnsafeRawBufferPointer, _ table: Table, _ key: ObjectKey, _ field: Int) -> _StoredValue {
        let type = table.fieldTypes[field]
        if type != .object, type != .any, !ValueCodec.isExternal(payload, as: type) {
            // No link to resolve: the common case decodes without making a resolver.
            if let problem = ValueCodec.lengthProblem(payload, as: type) { fail(damagedRow(table, key, field, problem)) }
            return ValueCodec.decode(payload, as: type, linkTarget: 0) { _, _ in .null }
        }
        do {
            return try decodedPayload(payload, table, key, field)
        } catch {
            fail(error)
        }
    }

    /// `decodePayload`, throwing where it would trap.
    func decodedPayload(_ payload: UnsafeRawBufferPointer, _ table: Table, _ key: ObjectKey, _ field: Int) throws(StorageError) -> _StoredValue {
        let type = table.fieldTypes[field]
        let target = type == .object ? linkTarget(table, field) : 0
        let dynamic = table.info.isDynamic
        let anyValue = type == .any
        let resolve: ValueCodec.LinkResolver<ObjectBase> = { id, key in self.linkedObject(id, key, dynamic: dynamic, anyValue: anyValue) }
        guard !ValueCodec.isExternal(payload, as: type) else {
            let stored = try storedPayload(payload, table, key, field)
            let decoded = stored.withUnsafeBytes { stored -> Result<_StoredValue, StorageError> in
                if let problem = ValueCodec.lengthProblem(stored, as: type) { return .failure(damagedRow(table, key, field, problem)) }
                return .success(ValueCodec.decode(stored, as: type, linkTarget: target, resolve: resolve))
            }
            return try decoded.get()
        }
        if let problem = ValueCodec.lengthProblem(payload, as: type) { throw damagedRow(table, key, field, problem) }
        return ValueCodec.decode(payload, as: type, linkTarget: target, resolve: resolve)
    }

    /// The error for field `field` of object `key`, whose payload `problem` makes unreadable.
    func damagedRow(_ table: Table, _ key: ObjectKey, _ field: Int, _ problem: String) -> StorageError {
        .corruptEntry(
            path: reader.fileName, tree: table.rowsTree.string,
            entry: "the row of object #\(key.rawValue) holds a property '\(table.stored.properties[field].name)' that \(problem)")
    }

    /// The row of object `key` in the version this context reads, as a pointer into the pinned
    /// snapshot's mapping: valid while that snapshot lives. Nil if there is no such row. Only
    /// outside write transactions: a write transaction's pages move as it changes them.
    func snapshotRow(_ table: Table, _ key: ObjectKey) -> UnsafeRawBufferPointer? {
        do {
            return try withRowBytes(table, key) { $0 }
        } catch {
            fail(error)
        }
    }

    /// The table id a typed link field points into (0 for other fields).
    func linkTarget(_ table: Table, _ field: Int) -> UInt32 {
        guard let className = table.stored.properties[field].objectClassName else { return 0 }
        return storedClassId(named: className) ?? 0
    }

    func storedClassId(named name: String) -> UInt32? {
        currentFileSchema.classes[name]?.id
    }

    /// The object a link points at, or `.null` if it no longer exists: a `DynamicObject` if the
    /// link is read from one (`dynamic`), else an object of its Swift class. An `AnyRealmValue`
    /// (`anyValue`) holding an object of a class this context has no Swift class for (one
    /// left out of `objectTypes`) holds it as a `DynamicObject`, as in RealmSwift; a typed link
    /// to such a class reads nil.
    func linkedObject(_ tableId: UInt32, _ key: ObjectKey, dynamic: Bool, anyValue: Bool) -> _StoredValue {
        let table = dynamic ? dynamicTable(id: tableId) : anyValue ? storedTable(id: tableId) : self.table(id: tableId)
        guard let table, rowExists(table, key) else { return .null }
        return .object(object(table, key))
    }

    /// The object keys of every object of `table`, in key order. Traps if the read fails.
    func allKeys(_ table: Table) -> [ObjectKey] {
        do {
            return try objectKeys(table)
        } catch {
            fail(error)
        }
    }

    /// `allKeys`, throwing where it would trap.
    func objectKeys(_ table: Table) throws(StorageError) -> [ObjectKey] {
        var keys: [ObjectKey] = []
        keys.reserveCapacity(try reader.count(table.rowsTree))
        try reader.scan(table.rowsTree, from: []) { key, _ in
            keys.append(ObjectKey.read(key))
            return true
        }
        return keys
    }

    /// The object with primary key `value`, if there is one.
    func objectKey(_ table: Table, primaryKey value: _StoredValue) throws(StorageError) -> ObjectKey? {
        switch try probePrimaryKey(table, value) {
        case .found(let key, _): key
        case .absent: nil
        }
    }

    /// Where the object whose primary key is `value` is, or whether its derived key is free
    /// (see `ObjectKey(derivedFrom:)`): one descent of the rows tree when the object is at its
    /// derived key, and a look into the (usually empty) `pk/<id>` tree otherwise.
    func probePrimaryKey(_ table: Table, _ value: _StoredValue) throws(StorageError) -> PrimaryKeyProbe {
        let derived = ObjectKey(derivedFrom: value)
        let holder = try row(table, derived, holding: value)
        if let holder, holder.holds { return .found(derived, row: holder.row) }
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
    private func row(_ table: Table, _ key: ObjectKey, holding value: _StoredValue) throws(StorageError) -> (
        row: UnsafeRawBufferPointer, holds: Bool
    )? {
        guard let field = table.primaryKeyField else { return nil }
        let found = try withRowBytes(table, key) { row -> Result<(UnsafeRawBufferPointer, Bool), StorageError> in
            guard let payload = RowCodec.field(row, field) else { return .success((row, value._isNull)) }
            if let holds = PrimaryKey.payload(payload, of: table.fieldTypes[field], holds: value) { return .success((row, holds)) }
            return Result { () throws(StorageError) in
                (row, PrimaryKey.same(try decodedPayload(payload, table, key, field), value))
            }
        }
        return try found?.get()
    }

    /// A storage error where no error can be thrown (a property getter): the file is damaged or
    /// unreadable, and continuing would return wrong data. The message names the file, and for
    /// a damaged page the page and what is wrong with it (see "Read errors" in Architecture.md).
    func fail(_ error: StorageError) -> Never {
        fail(RealmError(error))
    }

    /// `fail` for an error already in its public form.
    func fail(_ error: RealmError) -> Never {
        preconditionFailure("Reading \(displayName) failed: \(error.description)")
    }

}

extension ReadContext {
    /// What field `field` of object `key` holds, with links as objects.
    func readContent(_ table: Table, _ key: ObjectKey, _ field: Int) -> FieldContent {
        let property = table.stored.properties[field]
        let target = linkTarget(table, field)
        let dynamic = table.info.isDynamic
        let anyValue = property.type == .any
        let resolve: ValueCodec.LinkResolver = { id, key in self.linkedObject(id, key, dynamic: dynamic, anyValue: anyValue) }
        if let tree = table.collectionTrees[field] {
            do {
                return try .collection(key, in: tree, of: reader, property, linkTarget: target, resolve: resolve)
            } catch {
                fail(error)
            }
        }
        return withRow(table, key) { row in
            .single(RowCodec.field(row, field).map { decodePayload($0, table, key, field) } ?? .null)
        }
    }
}

extension ReadContext {
    /// The number of elements of a collection field: the count its row field holds.
    func collectionCount(_ table: Table, _ key: ObjectKey, _ field: Int) -> Int {
        withRow(table, key) { row in RowCodec.field(row, field).map { Int(ValueCodec.u64($0, 0)) } ?? 0 }
    }

    /// The element at `index` of list or set field `field` of object `key` (a set's in its
    /// stored order), or nil past the end. One descent to find where the object's elements
    /// start, one to the element.
    func listElement(_ table: Table, _ key: ObjectKey, _ field: Int, at index: Int) -> _StoredValue? {
        guard let tree = table.collectionTrees[field], index >= 0 else { return nil }
        let property = table.stored.properties[field]
        let target = linkTarget(table, field)
        let dynamic = table.info.isDynamic
        do {
            let start = try reader.position(tree, of: key.bytes)
            let entry = try reader.entry(tree, at: start + index) { entryKey, value -> Result<_StoredValue, CollectionEntry.Problem>? in
                guard entryKey.count >= 8, ObjectKey.read(entryKey) == key else { return nil }
                return CollectionEntry.parts(key: entryKey, value: value, of: property).map {
                    ValueCodec.decode($0.element, as: property.type, linkTarget: target) { id, key in
                        self.linkedObject(id, key, dynamic: dynamic, anyValue: property.type == .any)
                    }
                }
            }
            switch entry ?? nil {
            case nil: return nil
            case .success(let value): return value
            case .failure(let problem): fail(reader.damagedEntry(tree, of: key, property, problem))
            }
        } catch {
            fail(error)
        }
    }

    /// Whether a set field contains `element`.
    func setContains(_ table: Table, _ key: ObjectKey, _ field: Int, _ element: _StoredValue) -> Bool {
        guard let tree = table.collectionTrees[field] else { return false }
        do {
            return try reader.contains(tree, ObjectStore.collectionEntryKey(key, setElement: element))
        } catch {
            fail(error)
        }
    }

    /// The value under `mapKey` of a map field: nil if the key is absent, `.null` if it holds nil.
    func mapValue(_ table: Table, _ key: ObjectKey, _ field: Int, _ mapKey: String) -> _StoredValue? {
        guard let tree = table.collectionTrees[field] else { return nil }
        let property = table.stored.properties[field]
        let target = linkTarget(table, field)
        let dynamic = table.info.isDynamic
        do {
            let entry = try reader.withValue(tree, ObjectStore.collectionEntryKey(key, mapKey: mapKey)) { value in
                CollectionEntry.mapElement(value, of: property).map {
                    ValueCodec.decode($0, as: property.type, linkTarget: target) { id, key in
                        self.linkedObject(id, key, dynamic: dynamic, anyValue: property.type == .any)
                    }
                }
            }
            switch entry {
            case nil: return nil
            case .success(let value): return value
            case .failure(let problem): fail(reader.damagedEntry(tree, of: key, property, problem))
            }
        } catch {
            fail(error)
        }
    }
}
