import BurrowStorage
import BurrowStore

extension Realm {
    /// Every object of `type` in the realm: lazy (nothing is read until used) and live (it
    /// follows the realm's version and the changes of the open write transaction).
    public func objects<Element: ObjectBase>(_ type: Element.Type) -> Results<Element> {
        checkThread()
        return Results(realm: self)
    }

    /// The object of `type` whose primary key is `key`, or nil if there is none.
    ///
    /// Traps if `type` has no primary key or `key` is not of the primary key's type, as
    /// RealmSwift does; traps too if the file is damaged where the lookup reads (see "Read
    /// errors" in `Documentation/Architecture.md`).
    public func object<Element: ObjectBase, KeyType: _Persistable>(ofType type: Element.Type, forPrimaryKey key: KeyType) -> Element? {
        checkThread()
        do {
            return try lookUp(type, primaryKey: key)
        } catch {
            fail(error)
        }
    }

    /// `object(ofType:forPrimaryKey:)`, throwing a read error where it would trap.
    func lookUp<Element: ObjectBase, KeyType: _Persistable>(_ type: Element.Type, primaryKey key: KeyType) throws(StorageError) -> Element? {
        guard let table = store.knownTable(ObjectIdentifier(type)) ?? primaryKeyTable(type) else { return nil }
        guard let primaryKey = table.info.primaryKey, table.info.properties[primaryKey].type == KeyType._shape.type else {
            return try lookUp(type, anyPrimaryKey: key as Any)
        }
        guard case .found(let objectKey, let row) = try store.primaryKeyProbe(table, key._stored.storeForm) else { return nil }
        return (object(table, objectKey, row: row) as! Element)
    }

    private func primaryKeyTable(_ type: ObjectBase.Type) -> Table? {
        do {
            return try table(for: type, creating: false)
        } catch {
            preconditionFailure(error.description)
        }
    }

    /// The object of `type` whose primary key is `key`, or nil if there is none.
    ///
    /// Traps if `type` has no primary key or `key` is not of the primary key's type, as
    /// RealmSwift does: both are programming errors, not conditions to handle. Traps too if the
    /// file is damaged where the lookup reads (see "Read errors" in
    /// `Documentation/Architecture.md`).
    public func object<Element: ObjectBase, KeyType>(ofType type: Element.Type, forPrimaryKey key: KeyType) -> Element? {
        checkThread()
        do {
            return try lookUp(type, anyPrimaryKey: key)
        } catch {
            fail(error)
        }
    }

    /// `object(ofType:forPrimaryKey:)` for a key of any type, throwing a read error where it
    /// would trap.
    func lookUp<Element: ObjectBase, KeyType>(_ type: Element.Type, anyPrimaryKey key: KeyType) throws(StorageError) -> Element? {
        guard let table = primaryKeyTable(type) else { return nil }
        guard let primaryKey = table.info.primaryKey else {
            preconditionFailure("\(table.name) has no primary key; declare one with @Persisted(primaryKey: true) to look objects up by key.")
        }
        let field = table.info.fields[primaryKey]
        let value: _StoredValue
        do {
            value = field.accessor.stored(try field.accessor.convert(key, property: table.info.properties[primaryKey].name)) ?? .null
        } catch {
            preconditionFailure("\(error.description) (looking up \(table.name) by primary key)")
        }
        guard case .found(let objectKey, _) = try store.primaryKeyProbe(table, value.storeForm) else { return nil }
        return (object(table, objectKey) as! Element)
    }
}
