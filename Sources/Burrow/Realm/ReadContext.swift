import BurrowStorage
import BurrowStore
import Foundation

/// A version of the file that objects can be read from: a live realm (at the version it reads,
/// or in its write transaction), or a frozen version. Reading objects, their fields and their
/// links is written once, here, for both, on the store's reading of rows (`RowReader`).
protocol ReadContext: RowReader {
    /// How objects read through this context refer back to it.
    var objectSource: ObjectSource { get }
    /// The value of a row payload of field `field` of object `key`, links as keys. A live realm
    /// reads it through its store's concrete code (see `ObjectStore+HotReads.swift`).
    func storedFieldValue(_ payload: UnsafeRawBufferPointer, _ table: Table, _ key: ObjectKey, _ field: Int) throws(StorageError)
        -> StoreValue
    /// The value of `property` (a Swift property index) of object `key`, links as keys; traps
    /// if the object does not exist. A live realm reads it through its store's concrete code.
    func storedPropertyValue(_ table: Table, _ key: ObjectKey, _ property: Int) -> StoreValue
    /// What field `field` of object `key` holds, links as keys; traps if the read fails. A live
    /// realm reads it through its store's concrete code.
    func storedContent(_ table: Table, _ key: ObjectKey, _ field: Int) -> FieldContent<ObjectLink>
}

extension Table {
    /// The Swift class of the table's objects (a `DynamicObject` class for a dynamic table): the
    /// program description every table the API makes carries.
    var info: ClassInfo {
        // Every table of a realm or a frozen version is made with a `ClassInfo` as its program
        // description (`Table.init(info:stored:)` and the dynamic tables' `dynamicProgram`).
        unsafeDowncast(program as AnyObject, to: ClassInfo.self)
    }

    /// The table of `info`'s class, stored as `stored`.
    convenience init(info: ClassInfo, stored: StoredClass) {
        self.init(declared: info.declared, stored: stored, program: info)
    }
}

extension ReadContext {
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

    /// The value of `property` (a Swift property index) of object `key`.
    func readField(_ table: Table, _ key: ObjectKey, _ property: Int) -> _StoredValue {
        let value = storedPropertyValue(table, key, property)
        guard let field = table.fieldOf[property] else { return .null }
        let dynamic = table.info.isDynamic
        let anyValue = table.fieldTypes[field] == .any
        // A link, or the links an `AnyRealmValue`'s lists and dictionaries hold.
        return value._mapLink { link -> ObjectBase? in
            guard case .object(let object) = self.linkedObject(link.table, link.key, dynamic: dynamic, anyValue: anyValue) else { return nil }
            return object
        }
    }

    func storedPropertyValue(_ table: Table, _ key: ObjectKey, _ property: Int) -> StoreValue {
        readPropertyValue(table, key, property)
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
        if type != .object, type != .any, !RowCodec.isExternal(payload, as: type) {
            // No link to resolve: the common case decodes without making a resolver.
            if let problem = RowCodec.lengthProblem(payload, as: type) { fail(damagedRow(table, key, field, problem)) }
            return RowCodec.decode(payload, as: type, linkTarget: 0) { _, _ in .null }
        }
        do {
            return try decodedPayload(payload, table, key, field)
        } catch {
            fail(error)
        }
    }

    /// `decodePayload`, throwing where it would trap.
    func decodedPayload(_ payload: UnsafeRawBufferPointer, _ table: Table, _ key: ObjectKey, _ field: Int) throws(StorageError) -> _StoredValue {
        let dynamic = table.info.isDynamic
        let anyValue = table.fieldTypes[field] == .any
        return try storedFieldValue(payload, table, key, field)._mapLink { link -> ObjectBase? in
            guard case .object(let object) = self.linkedObject(link.table, link.key, dynamic: dynamic, anyValue: anyValue) else { return nil }
            return object
        }
    }

    func storedFieldValue(_ payload: UnsafeRawBufferPointer, _ table: Table, _ key: ObjectKey, _ field: Int) throws(StorageError)
        -> StoreValue
    {
        try storeValue(payload, table, key, field)
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

    /// The object with primary key `value`, if there is one.
    func objectKey(_ table: Table, primaryKey value: _StoredValue) throws(StorageError) -> ObjectKey? {
        try objectKey(table, primaryKey: value.storeForm)
    }

    /// Where the object whose primary key is `value` is (see `RowReader.probePrimaryKey`).
    func probePrimaryKey(_ table: Table, _ value: _StoredValue) throws(StorageError) -> PrimaryKeyProbe {
        try probePrimaryKey(table, value.storeForm)
    }

    /// `fail` for an error already in its public form.
    func fail(_ error: RealmError) -> Never {
        preconditionFailure("Reading \(displayName) failed: \(error.description)")
    }

    /// What field `field` of object `key` holds, with links as objects.
    func readContent(_ table: Table, _ key: ObjectKey, _ field: Int) -> FieldContent<ObjectBase> {
        let dynamic = table.info.isDynamic
        let anyValue = table.stored.properties[field].type == .any
        return storedContent(table, key, field).mapLinks { link -> ObjectBase? in
            guard case .object(let object) = self.linkedObject(link.table, link.key, dynamic: dynamic, anyValue: anyValue) else { return nil }
            return object
        }
    }

    func storedContent(_ table: Table, _ key: ObjectKey, _ field: Int) -> FieldContent<ObjectLink> {
        content(table, key, field) { id, key in .object(ObjectLink(table: id, key: key)) }
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

extension StoredValue where Link == ObjectBase {
    /// The value as the store holds it: a managed object as its class id and key. An unmanaged
    /// object, which has no key, becomes null; callers that may hold one make it managed first
    /// (`Realm.storeValue(_:for:in:)`).
    var storeForm: StoreValue {
        _mapLink { $0.objectLink }
    }
}
