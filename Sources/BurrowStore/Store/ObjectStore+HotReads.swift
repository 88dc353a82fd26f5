import BurrowStorage

/// The reads the API makes for every object and every property, as concrete members of the
/// store. `RowReader`'s own are protocol-extension methods, generic over the reader: called
/// from another module, they run unspecialized (run-time generic metadata, witness tables),
/// while these are compiled here for the store itself.
extension ObjectStore {
    /// The row of object `key` in the version read (see `RowReader.snapshotRow`).
    package func rowPointer(_ table: Table, _ key: ObjectKey) -> UnsafeRawBufferPointer? {
        snapshotRow(table, key)
    }

    /// Whether object `key` exists in the version read (see `RowReader.rowExists`).
    package func objectExists(_ table: Table, _ key: ObjectKey) -> Bool {
        rowExists(table, key)
    }

    /// The value of declared property `property` of object `key`, links as keys. Traps if the
    /// object does not exist or the read fails, as a property getter must.
    package func propertyValue(_ table: Table, _ key: ObjectKey, _ property: Int) -> StoreValue {
        readPropertyValue(table, key, property)
    }

    /// Where the object whose primary key is `value` is (see `RowReader.probePrimaryKey`).
    package func primaryKeyProbe(_ table: Table, _ value: StoreValue) throws(StorageError) -> PrimaryKeyProbe {
        try probePrimaryKey(table, value)
    }

    /// The first object of `steps` on the objects of `table` (`base` nil: every object) if
    /// their plan is `probe`, found with one descent (see `QueryPlan.probe` and
    /// `QueryExecutor.first`): `.some(nil)` if no object has the value, nil if the plan is
    /// another. The probe never leaves the store, so the API neither copies nor destroys it.
    package func firstKey(probing steps: some QuerySteps, _ table: Table, base: QueryBase?) throws(StorageError) -> ObjectKey?? {
        guard let probe = QueryPlan.probe(steps, table: table, base: base) else { return nil }
        return .some(try QueryExecutor.first(probe, table, in: self))
    }

    /// What field `field` of object `key` holds, links as keys (see `RowReader.content`).
    package func fieldContent(_ table: Table, _ key: ObjectKey, _ field: Int) -> FieldContent<ObjectLink> {
        content(table, key, field) { id, key in .object(ObjectLink(table: id, key: key)) }
    }

    /// The value of a row payload of field `field` of object `key`, links as keys (see
    /// `RowReader.storeValue`).
    package func fieldValue(_ payload: UnsafeRawBufferPointer, _ table: Table, _ key: ObjectKey, _ field: Int) throws(StorageError)
        -> StoreValue
    {
        try storeValue(payload, table, key, field)
    }
}
