import BurrowStorage
import BurrowStore
import Foundation

/// The block a migration runs (`Realm.Configuration.migrationBlock`): the migration, and the
/// schema version the file had before it, as RealmSwift's `MigrationBlock`. It may throw (so
/// that `try realm.create(…)` and other throwing calls need no `try!` inside it): an error it
/// throws fails the migration, opening throws it (a `RealmError` as it is, any other error as
/// a `RealmError` of code `.fail` that describes it), and the file is left as it was.
public typealias MigrationBlock = @Sendable (_ migration: Migration, _ oldSchemaVersion: UInt64) throws -> Void

/// An object in a migration, read and set by property name: RealmSwift's `MigrationObject`,
/// which is a `DynamicObject`. An `oldObject` reads the file as it was before the migration
/// (read-only); a `newObject`, or one `Migration.create` returns, is the live object.
public typealias MigrationObject = DynamicObject

/// What `Migration.enumerateObjects(ofType:_:)` calls with each object: as it was, and as it is
/// now (nil where there is none), as RealmSwift's `MigrationObjectEnumerateBlock`. It may
/// throw; `enumerateObjects` then stops and throws the error on.
public typealias MigrationObjectEnumerateBlock = (_ oldObject: MigrationObject?, _ newObject: MigrationObject?) throws -> Void

/// Passed to `migrationBlock`: the realm being migrated, inside its migration write, and the
/// objects as they were before it, as RealmSwift's `Migration` offers them.
///
/// By the time the block runs, every changed class has its new properties (with their default
/// values) and has lost the ones it no longer declares. The values before the migration stay
/// readable through `enumerateObjects(ofType:_:)`, which reads them from the version the
/// migration started from, whatever the block changes:
///
///     config.migrationBlock = { migration, oldSchemaVersion in
///         if oldSchemaVersion < 2 {
///             migration.enumerateObjects(ofType: Person.className()) { oldObject, newObject in
///                 let first = oldObject!["firstName"] as! String
///                 let last = oldObject!["lastName"] as! String
///                 newObject!["fullName"] = "\(first) \(last)"
///             }
///         }
///     }
///
/// The block may change primary keys (`newObject["id"] = …`), as in RealmSwift; each new key
/// must be one no other object has at that moment (`.primaryKeyExists` otherwise).
///
/// An error the block causes (a value of the wrong type, an unknown property) fails the
/// migration's commit: opening throws it, and the file is left as it was.
public final class Migration {
    /// The realm, in the write transaction that migrates it.
    public let realm: Realm
    /// The schema version the file had before.
    public let oldSchemaVersion: UInt64
    /// The file's classes before the migration.
    let oldFileSchema: FileSchema
    /// The file as it was before the migration (its write transaction's base), read through
    /// the old schema: where the old objects come from.
    let old: FrozenVersion
    /// The names of the classes the program declares now (its new schema), matched to stored
    /// classes: the classes whose objects have a `newObject`.
    let newClassNames: Set<String>

    init(realm: Realm, oldSchemaVersion: UInt64, oldSchema: FileSchema, before: SnapshotReader, newClassNames: Set<String>) {
        self.realm = realm
        self.oldSchemaVersion = oldSchemaVersion
        oldFileSchema = oldSchema
        old = FrozenVersion(configuration: realm.configuration, reader: before, schema: oldSchema, knownTypes: [])
        self.newClassNames = newClassNames
    }

    /// The classes the file stored before the migration, as RealmSwift's `oldSchema`.
    public var oldSchema: Schema { Schema(oldFileSchema.classes.values.map(ObjectSchema.init)) }

    /// The classes the file stores now, in the migration, as RealmSwift's `newSchema`.
    public var newSchema: Schema { realm.schema }

    /// Calls `block` with each object the class named `typeName` had before the migration: the
    /// object as it was (`oldObject`, read-only, with the properties of the old schema; its
    /// links are old objects too, even to classes since renamed or removed) and as it is now
    /// (`newObject`, whose properties are set by name; nil if the migration deleted it, or the
    /// program no longer declares the class). Objects created by the migration are not
    /// enumerated, except for a class the file did not have, whose objects come with no old
    /// object, as in RealmSwift. An error `block` throws stops the enumeration and is thrown on.
    public func enumerateObjects(ofType typeName: String, _ block: MigrationObjectEnumerateBlock) rethrows {
        let table = newTable(named: typeName)
        guard let oldTable = old.dynamicTable(named: typeName) else {
            // A class new in this migration: its objects, with no old objects, as in RealmSwift.
            guard let table else { return }
            for key in realm.store.allKeys(table) { try block(nil, realm.object(table, key) as? DynamicObject) }
            return
        }
        for key in old.allKeys(oldTable) {
            let now = table.flatMap { table in realm.store.rowExists(table, key) ? realm.object(table, key) as? DynamicObject : nil }
            try block(old.object(oldTable, key) as? DynamicObject, now)
        }
    }

    /// Gives the property `newName` of every object of the class named `typeName` the value its
    /// property `oldName` had before the migration, as if the property had been renamed. Call
    /// it for a property the old schema has and the new one declares under the new name, with
    /// the same type. A list, set or map gets the elements the old one had.
    public func renameProperty(onType typeName: String, from oldName: String, to newName: String) {
        let call = "renameProperty(onType: \"\(typeName)\", from: \"\(oldName)\", to: \"\(newName)\")"
        guard let oldTable = old.dynamicTable(named: typeName), let field = oldTable.stored.fieldIndex(of: oldName) else {
            return fail(RealmError(.invalidArgument, "\(call): the file had no property '\(oldName)' of a class \(typeName) before the migration."))
        }
        guard let table = newTable(named: typeName) else {
            return fail(RealmError(.invalidArgument, "\(call): no class of this realm is stored as \(typeName) now."))
        }
        guard let newField = table.stored.fieldIndex(of: newName) else {
            return fail(RealmError(.invalidArgument, "\(call): \(typeName) declares no property '\(newName)' now; declare it in the class first."))
        }
        let old = oldTable.stored.properties[field]
        let new = table.stored.properties[newField]
        // A required property may become optional; anything else must stay as it was.
        if (old.type, old.collection, old.objectClassName) != (new.type, new.collection, new.objectClassName) || (old.isOptional && !new.isOptional) {
            return fail(
                RealmError(
                    .invalidArgument,
                    "\(call): '\(oldName)' and '\(newName)' hold different types; a renamed property keeps its type (it may become optional). Convert the values in enumerateObjects instead."
                ))
        }
        for key in self.old.allKeys(oldTable) where realm.store.rowExists(table, key) {
            let value = self.old.object(oldTable, key).value(forKey: oldName)
            realm.object(table, key).setValue(value, forKey: newName)
        }
    }

    /// Deletes every object of the class named `typeName`; a class the new schema no longer
    /// declares is removed from the file too. Returns whether the file had the class.
    @discardableResult
    public func deleteData(forType typeName: String) -> Bool {
        guard realm.currentFileSchema.classes[typeName] != nil else { return false }
        do {
            if let table = newTable(named: typeName) {
                try realm.delete(realm.store.allKeys(table).map { realm.object(table, $0) })
            } else {
                let write = try realm.requireOpenWrite()
                try realm.mapped { () throws(StoreError) in try realm.store.dropStoredClass(named: typeName, in: write.store) }
            }
        } catch {
            fail(error)
        }
        return true
    }

    /// Creates an object of the class named `typeName` from `value` (a dictionary keyed by
    /// property name, or an array of values in the class's property order), as
    /// `Realm.dynamicCreate` does, and returns it. A property not given takes the default of
    /// the program's Swift class stored under that name.
    ///
    /// An error (no such class, a value that does not fit, a duplicate primary key) fails the
    /// migration: opening the realm throws it and the file is left as it was. The object
    /// returned then stands for nothing: it is unmanaged, and what is done with it is ignored.
    @discardableResult
    public func create(_ typeName: String, value: Any = [String: Any]()) -> MigrationObject {
        do {
            guard newTable(named: typeName) != nil else {
                throw RealmError(
                    .schemaMismatch,
                    "Cannot create \(withArticle(typeName)) in the migration: it is not one of the classes the realm is opened with (its objectTypes)."
                )
            }
            return try realm.dynamicCreate(typeName, value: value)
        } catch {
            fail(error)
            return DynamicObject()
        }
    }

    /// Deletes `object` (a `newObject` of `enumerateObjects`, or one `create` returned).
    public func delete(_ object: MigrationObject) {
        if case .frozen(let version)? = object._state?.source, version === old {
            return fail(
                RealmError(.invalidArgument, "An oldObject cannot be deleted: it is the object as it was before the migration. Delete the newObject.")
            )
        }
        do {
            try realm.delete(object)
        } catch {
            fail(error)
        }
    }

    /// Records `error` in the migration's write: its commit throws it, and opening the realm
    /// with it, leaving the file as it was.
    private func fail(_ error: any Error) {
        realm.requireWrite().fail(error as? RealmError ?? RealmError(.invalidArgument, "The migration failed: \(error)"))
    }

    /// The dynamic table of the class named `name` now, if the program declares that class
    /// (it is in the new schema) and the file stores it. Without `objectTypes`, the program's
    /// classes are the new schema: one the file does not store yet is added to it when the
    /// block first names it.
    func newTable(named name: String) -> Table? {
        if newClassNames.contains(name), let table = realm.store.dynamicTable(named: name) { return table }
        guard realm.configuration.objectTypes == nil, ProgramClasses.uniqueClass(named: name) != nil else { return nil }
        do {
            return try realm.dynamicTable(creating: name)
        } catch {
            fail(error)
            return nil
        }
    }
}

extension Realm {
    /// What a value read from an old object of the running migration becomes when it is set
    /// on a new one: an object that still exists becomes the live object (of the class of the
    /// same name); an embedded object becomes a new, unmanaged copy of its values, since its
    /// original belongs to its old parent. Nil if `object` is not an old object. Throws for an
    /// object the migration deleted.
    func migrationCounterpart(of object: ObjectBase) throws(RealmError) -> ObjectBase? {
        guard let old = write?.migration?.old, let state = object._state, case .frozen(let version) = state.source, version === old else {
            return nil
        }
        guard let table = store.dynamicTable(named: state.table.name) else { return nil }
        if table.info.isEmbedded {
            return try DynamicObject(unmanaged: table.info, value: object, defaults: swiftDefaults(of: table.name))
        }
        guard store.rowExists(table, state.key) else {
            throw RealmError(
                .invalidArgument,
                "The old \(state.table.name) \(state.key) was deleted by this migration, so it cannot be linked to. Link a newObject that exists instead."
            )
        }
        return self.object(table, state.key)
    }
}

extension Realm {
    /// Opens the realm of `configuration` and lets it go again, so that the file is migrated
    /// (its classes brought to the configured ones, and `migrationBlock` run) now rather than
    /// at the next open, as RealmSwift's `Realm.performMigration(for:)`. Opening migrates as it
    /// is, so calling this is never needed. If a realm of the file is already open in the
    /// calling domain, that realm is used and nothing more happens.
    ///
    /// Throws what opening throws: `.schemaMismatch` when the classes differ and the schema
    /// version was not raised, an error the migration block caused, a file that cannot be
    /// opened. The file is left as it was then.
    public static func performMigration(
        for configuration: Realm.Configuration = .defaultConfiguration, isolation: isolated (any Actor)? = #isolation
    ) throws {
        _ = try Realm(configuration: configuration)
    }
}
