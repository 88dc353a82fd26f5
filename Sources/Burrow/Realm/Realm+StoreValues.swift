import BurrowStorage
import BurrowStore

/// Values on their way into the store: the objects they hold made managed here (added, or
/// created inside their new parent), and then named by class id and key, as the store takes
/// links.
extension Realm {
    /// `value` as the store takes it: an object it holds made managed by this realm (see
    /// `managedForLink`) and named by its key. Objects of other realms, frozen or deleted
    /// objects are errors.
    func storeValue(_ value: _StoredValue, _ property: StoredProperty, in write: RealmWrite) throws(RealmError) -> StoreValue {
        switch value {
        case .object(let object): return try StoredValue.object(managedForLink(object, property, in: write)).storeForm
        case .list, .dictionary:
            try Self.checkNested(value, property)
            return try value._mapLink { (object: ObjectBase) throws(RealmError) -> ObjectLink? in
                try managedForLink(object, property, in: write).objectLink
            }
        default: return value.storeForm
        }
    }

    /// `content` as the store takes it (see `storeValue`).
    func storeContent(_ content: FieldContent<ObjectBase>, _ property: StoredProperty, in write: RealmWrite) throws(RealmError)
        -> FieldContent<ObjectLink>
    {
        guard property.type == .object || property.type == .any else { return content.mapLinks { _ in nil } }
        if property.type == .any {
            switch content {
            case .single(let value): try Self.checkNested(value, property)
            case .elements(let elements): for element in elements { try Self.checkNested(element, property) }
            case .entries(let entries): for entry in entries { try Self.checkNested(entry.value, property) }
            }
        }
        return try content.mapLinks { (object: ObjectBase) throws(RealmError) -> ObjectLink? in
            try managedForLink(object, property, in: write).objectLink
        }
    }

    /// Throws if `value`, a value of `AnyRealmValue` property `property`, is a list or
    /// dictionary the property cannot hold: one in a `MutableSet`, or one nested deeper than
    /// `NestedValues.maximumDepth`.
    private static func checkNested(_ value: _StoredValue, _ property: StoredProperty) throws(RealmError) {
        guard value.isNestedCollection else { return }
        if property.collection == .set {
            throw RealmError(
                .invalidArgument,
                "Property '\(property.name)' is a MutableSet<AnyRealmValue>, which cannot hold a list or a dictionary (as in RealmSwift); use a List<AnyRealmValue> or an AnyRealmValue property."
            )
        }
        guard value.nestingDepth(exceeding: NestedValues.maximumDepth) <= NestedValues.maximumDepth else {
            throw RealmError(
                .invalidArgument,
                "The value for property '\(property.name)' nests lists and dictionaries more than \(NestedValues.maximumDepth) levels deep (or holds itself); an AnyRealmValue nests at most \(NestedValues.maximumDepth) levels, as in RealmSwift."
            )
        }
    }

    /// The open write transaction; traps without one, as RealmSwift does for a managed object
    /// changed outside a write (Swift gives setters no way to throw).
    func requireWrite() -> RealmWrite {
        guard let write else {
            preconditionFailure(
                "Cannot modify managed objects outside of a write transaction. Make the change inside realm.write { } or realm.asyncWrite { }.")
        }
        return write
    }

    /// A property setter of a managed object. Errors are recorded and thrown at commit.
    func writeField(_ table: Table, _ key: ObjectKey, _ property: Int, _ value: _StoredValue) {
        writeField(table, key, property, .single(value))
    }

    /// A property setter of a managed object, for any content. Errors are recorded and thrown
    /// at commit.
    func writeField(_ table: Table, _ key: ObjectKey, _ property: Int, _ content: FieldContent<ObjectBase>) {
        let write = requireWrite()
        guard let field = table.fieldOf[property] else { return }
        do {
            try setField(table, key, field, content, in: write)
        } catch {
            write.fail(error)
        }
    }

    /// Sets field `field` of object `key` to `content`, the objects it holds made managed first.
    func setField(_ table: Table, _ key: ObjectKey, _ field: Int, _ content: FieldContent<ObjectBase>, in write: RealmWrite)
        throws(RealmError)
    {
        if try setFieldModifying(table, key, field, content, in: write) { return }
        let stored = try storeContent(content, table.stored.properties[field], in: write)
        try mapped { () throws(StoreError) in try store.setField(table, key, field, stored, in: write.store) }
    }
}

/// The collection changes of managed `List`, `MutableSet` and `Map` properties: their values
/// made store values, then the store's change.
extension Realm {
    func listInsert(_ table: Table, _ key: ObjectKey, _ field: Int, _ element: _StoredValue, at index: Int, in write: RealmWrite) throws(RealmError) {
        let value = try storeValue(element, table.stored.properties[field], in: write)
        try mapped { () throws(StoreError) in try store.listInsert(table, key, field, value, at: index, in: write.store) }
    }

    func listSet(_ table: Table, _ key: ObjectKey, _ field: Int, _ element: _StoredValue, at index: Int, in write: RealmWrite) throws(RealmError) {
        let value = try storeValue(element, table.stored.properties[field], in: write)
        try mapped { () throws(StoreError) in try store.listSet(table, key, field, value, at: index, in: write.store) }
    }

    func listRemove(_ table: Table, _ key: ObjectKey, _ field: Int, at index: Int, in write: RealmWrite) throws(RealmError) {
        try mapped { () throws(StoreError) in try store.listRemove(table, key, field, at: index, in: write.store) }
    }

    func listMove(_ table: Table, _ key: ObjectKey, _ field: Int, from: Int, to: Int, in write: RealmWrite) throws(RealmError) {
        try mapped { () throws(StoreError) in try store.listMove(table, key, field, from: from, to: to, in: write.store) }
    }

    func listSwap(_ table: Table, _ key: ObjectKey, _ field: Int, _ i: Int, _ j: Int, in write: RealmWrite) throws(RealmError) {
        try mapped { () throws(StoreError) in try store.listSwap(table, key, field, i, j, in: write.store) }
    }

    func clearCollection(_ table: Table, _ key: ObjectKey, _ field: Int, in write: RealmWrite) throws(RealmError) {
        try mapped { () throws(StoreError) in try store.clearCollection(table, key, field, in: write.store) }
    }

    @discardableResult
    func setInsert(_ table: Table, _ key: ObjectKey, _ field: Int, _ element: _StoredValue, in write: RealmWrite) throws(RealmError) -> Bool {
        let value = try storeValue(element, table.stored.properties[field], in: write)
        return try mapped { () throws(StoreError) in try store.setInsert(table, key, field, value, in: write.store) }
    }

    /// Removes `element` from a set; an unmanaged object is in no set, and is not added here.
    @discardableResult
    func setRemove(_ table: Table, _ key: ObjectKey, _ field: Int, _ element: _StoredValue, in write: RealmWrite) throws(RealmError) -> Bool {
        if case .object(let object) = element, object.objectLink == nil { return false }
        return try mapped { () throws(StoreError) in try store.setRemove(table, key, field, element.storeForm, in: write.store) }
    }

    func mapSet(_ table: Table, _ key: ObjectKey, _ field: Int, _ mapKey: String, _ element: _StoredValue, in write: RealmWrite) throws(RealmError) {
        let value = try storeValue(element, table.stored.properties[field], in: write)
        try mapped { () throws(StoreError) in try store.mapSet(table, key, field, mapKey, value, in: write.store) }
    }

    @discardableResult
    func mapRemove(_ table: Table, _ key: ObjectKey, _ field: Int, _ mapKey: String, in write: RealmWrite) throws(RealmError) -> Bool {
        try mapped { () throws(StoreError) in try store.mapRemove(table, key, field, mapKey, in: write.store) }
    }

    func replaceCollection(_ table: Table, _ key: ObjectKey, _ field: Int, with content: FieldContent<ObjectBase>, in write: RealmWrite)
        throws(RealmError)
    {
        if try setFieldModifying(table, key, field, content, in: write) { return }
        let stored = try storeContent(content, table.stored.properties[field], in: write)
        try mapped { () throws(StoreError) in try store.replaceCollection(table, key, field, with: stored, in: write.store) }
    }
}
