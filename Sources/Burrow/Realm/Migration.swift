import BurrowStorage
import Foundation

/// The block a migration runs (`Realm.Configuration.migrationBlock`): the migration, and the
/// schema version the file had before it, as RealmSwift's `MigrationBlock`.
public typealias MigrationBlock = @Sendable (_ migration: Migration, _ oldSchemaVersion: UInt64) -> Void

/// What `Migration.enumerateObjects(ofType:_:)` calls with each object: as it was, and as it is
/// now (nil where there is none), as RealmSwift's `MigrationObjectEnumerateBlock`.
public typealias MigrationObjectEnumerateBlock = (_ oldObject: MigrationObject?, _ newObject: MigrationObject?) -> Void

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
    let oldSchema: FileSchema
    /// The version the migration started from (its write transaction's base), where the old
    /// values are read.
    let before: SnapshotReader

    init(realm: Realm, oldSchemaVersion: UInt64, oldSchema: FileSchema, before: SnapshotReader) {
        self.realm = realm
        self.oldSchemaVersion = oldSchemaVersion
        self.oldSchema = oldSchema
        self.before = before
    }

    /// Calls `block` with each object the class named `typeName` had before the migration: the
    /// object as it was (`oldObject`, read-only, with the properties of the old schema) and as
    /// it is now (`newObject`, whose properties are set by name; nil if the migration deleted
    /// it, or the class is no longer declared). Objects created by the migration are not
    /// enumerated, except for a class the file did not have, whose objects come with no old
    /// object, as in RealmSwift.
    public func enumerateObjects(ofType typeName: String, _ block: MigrationObjectEnumerateBlock) {
        let table = liveTable(named: typeName)
        guard let stored = oldSchema.classes[typeName] else {
            // A class new in this migration: its objects, with no old objects, as in RealmSwift.
            guard let table else { return }
            for key in realm.allKeys(table) { block(nil, MigrationObject(new: realm.object(table, key))) }
            return
        }
        for key in oldKeys(of: stored) {
            let now = table.flatMap { table in realm.rowExists(table, key) ? realm.object(table, key) : nil }
            block(MigrationObject(old: OldObject(migration: self, stored: stored, key: key)), now.map(MigrationObject.init(new:)))
        }
    }

    /// Gives the property `newName` of every object of the class named `typeName` the value its
    /// property `oldName` had before the migration, as if the property had been renamed. Call
    /// it for a property the old schema has and the new one declares under the new name, with
    /// the same type. A list, set or map gets the elements the old one had.
    public func renameProperty(onType typeName: String, from oldName: String, to newName: String) {
        let call = "renameProperty(onType: \"\(typeName)\", from: \"\(oldName)\", to: \"\(newName)\")"
        guard let stored = oldSchema.classes[typeName], let field = stored.fieldIndex(of: oldName) else {
            return fail(RealmError(.invalidArgument, "\(call): the file had no property '\(oldName)' of a class \(typeName) before the migration."))
        }
        guard let table = liveTable(named: typeName) else {
            return fail(RealmError(.invalidArgument, "\(call): no class of this realm is stored as \(typeName) now."))
        }
        guard let newField = table.stored.fieldIndex(of: newName) else {
            return fail(RealmError(.invalidArgument, "\(call): \(typeName) declares no property '\(newName)' now; declare it in the class first."))
        }
        let old = stored.properties[field]
        let new = table.stored.properties[newField]
        // A required property may become optional; anything else must stay as it was.
        if (old.type, old.collection, old.objectClassName) != (new.type, new.collection, new.objectClassName) || (old.isOptional && !new.isOptional) {
            return fail(RealmError(.invalidArgument, "\(call): '\(oldName)' and '\(newName)' hold different types; a renamed property keeps its type (it may become optional). Convert the values in enumerateObjects instead."))
        }
        for key in oldKeys(of: stored) where realm.rowExists(table, key) {
            let old = OldObject(migration: self, stored: stored, key: key)
            realm.object(table, key).setValue(old.value(named: oldName), forKey: newName)
        }
    }

    /// Deletes every object of the class named `typeName`; a class the new schema no longer
    /// declares is removed from the file too. Returns whether the file had the class.
    @discardableResult
    public func deleteData(forType typeName: String) -> Bool {
        guard realm.currentFileSchema.classes[typeName] != nil else { return false }
        do {
            if let table = liveTable(named: typeName) {
                try realm.delete(realm.allKeys(table).map { realm.object(table, $0) })
            } else {
                try realm.dropStoredClass(named: typeName)
            }
        } catch {
            fail(error)
        }
        return true
    }

    /// Creates an object of the class named `typeName` from `value`, as `Realm.create` does.
    @discardableResult
    public func create(_ typeName: String, value: Any = [String: Any]()) -> MigrationObject? {
        guard let type = Realm.swiftClass(named: typeName, among: realm.knownTypes) as? Object.Type else {
            fail(RealmError(.invalidArgument, "Cannot create a \(typeName) in the migration: no Object class is stored under that name."))
            return nil
        }
        do {
            let object = type.init()
            try object.applyValue(value)
            try realm.add(object)
            return MigrationObject(new: object)
        } catch {
            fail(error)
            return nil
        }
    }

    /// Deletes `object` (a `newObject` of `enumerateObjects`, or one `create` returned).
    public func delete(_ object: MigrationObject) {
        guard case .new(let live) = object.kind else {
            return fail(RealmError(.invalidArgument, "An oldObject cannot be deleted: it is the object as it was before the migration. Delete the newObject."))
        }
        do {
            try realm.delete(live)
        } catch {
            fail(error)
        }
    }

    /// Records `error` in the migration's write: its commit throws it, and opening the realm
    /// with it, leaving the file as it was. (The block cannot throw, as in RealmSwift.)
    private func fail(_ error: any Error) {
        realm.requireWrite().fail(error as? RealmError ?? RealmError(.invalidArgument, "The migration failed: \(error)"))
    }

    /// The table of the class named `name` now, if a Swift class of this realm stores it.
    func liveTable(named name: String) -> Table? {
        guard let type = Realm.swiftClass(named: name, among: realm.knownTypes) else { return nil }
        do {
            return try realm.table(for: type, creating: false)
        } catch where error.code == .schemaMismatch {
            // No class of this realm stores it as declared now.
            return nil
        } catch {
            fail(error)
            return nil
        }
    }

    /// The keys of the objects `stored` had before the migration.
    private func oldKeys(of stored: StoredClass) -> [ObjectKey] {
        var keys: [ObjectKey] = []
        do {
            try before.scan(Table.rowsTreeName(stored.id), from: []) { key, _ in
                keys.append(ObjectKey.read(key))
                return true
            }
        } catch {
            realm.fail(error)
        }
        return keys
    }
}

/// An object in a migration, its properties by name: an `oldObject` (as it was before the
/// migration, read-only) or a `newObject` (the object now, in the migration's write).
public final class MigrationObject {
    enum Kind {
        case old(OldObject)
        case new(ObjectBase)
    }

    let kind: Kind

    init(old: OldObject) { kind = .old(old) }
    init(new: ObjectBase) { kind = .new(new) }

    /// The value of the property named `key`: a value, an object (the linked object as it is
    /// now), or nil for nil and for a property the object's schema does not have. An old
    /// object's collection property reads as its elements were before the migration: an array
    /// for a list or a set, a dictionary for a map.
    /// Setting a property of an old object traps: it is the past; set the new object's.
    public subscript(key: String) -> Any? {
        get {
            switch kind {
            case .new(let object): return object.value(forKey: key)
            case .old(let old): return old.value(named: key)
            }
        }
        set {
            guard case .new(let object) = kind else {
                preconditionFailure("Cannot set '\(key)' of an oldObject: it is the object as it was before the migration. Set the newObject's properties instead.")
            }
            object.setValue(newValue, forKey: key)
        }
    }

    /// The new object itself (nil for an old object), to use with the realm's other APIs.
    public var object: ObjectBase? {
        if case .new(let object) = kind { return object }
        return nil
    }
}

/// An object as it was before a migration: its row in the migration's starting version, read
/// with the old schema (which may have properties no Swift class declares any more).
struct OldObject {
    let migration: Migration
    let stored: StoredClass
    let key: ObjectKey

    func value(named name: String) -> Any? {
        guard let field = stored.fieldIndex(of: name) else { return nil }
        guard let tree = Table.collectionTreeName(stored.id, field, stored.properties[field].collection) else { return value(field) }
        return collection(field, in: tree)
    }

    /// The elements of collection field `field`, as they were: an array for a list or a set, a
    /// dictionary for a map (links as the linked objects now).
    private func collection(_ field: Int, in tree: String) -> Any? {
        let property = stored.properties[field]
        let realm = migration.realm
        do {
            let content = try Realm.FieldContent.collection(
                key, in: tree, of: migration.before, property, linkTarget: linkTarget(of: property)
            ) { id, key in realm.linkedObject(id, key) }
            switch content {
            case .elements(let elements): return elements.map { plain($0, property) }
            case .entries(let entries):
                return Dictionary(entries.map { ($0.key, plain($0.value, property)) }, uniquingKeysWith: { _, last in last })
            case .single: return nil
            }
        } catch {
            realm.fail(error)
        }
    }

    /// The old schema's id of the class that `property` links to (0 if it holds no links).
    private func linkTarget(of property: StoredProperty) -> UInt32 {
        property.objectClassName.flatMap { migration.oldSchema.classes[$0]?.id } ?? 0
    }

    /// `value` as what a migration hands out: a plain Swift value, an object (an embedded one
    /// as an unmanaged copy), an `AnyRealmValue`.
    private func plain(_ value: _StoredValue, _ property: StoredProperty) -> Any? {
        if property.type == .any { return AnyRealmValue._fromStored(value) }
        if case .object(let object) = value { return object is EmbeddedObject ? Self.unmanagedCopy(ofEmbedded: object) : object }
        return value.plainValue
    }

    /// An unmanaged copy of the embedded object `object`, with copies of the embedded objects
    /// it holds alone or in a list or set (those in a map stay as they are): what a new parent
    /// can take, where the original belongs to its old parent for good. The originals of a
    /// field the migration drops are deleted after the block.
    ///
    /// The objects to copy wait in a worklist, so that a chain of embedded objects of any
    /// depth is copied with the same stack as one object.
    static func unmanagedCopy(ofEmbedded object: ObjectBase) -> ObjectBase {
        let root = type(of: object).init()
        var pending: [(original: ObjectBase, copy: ObjectBase)] = [(object, root)]
        // An empty copy of `embedded`, filled when the worklist reaches it.
        func copy(_ embedded: ObjectBase) -> ObjectBase {
            let copy = type(of: embedded).init()
            pending.append((embedded, copy))
            return copy
        }
        while let (original, target) = pending.popLast() {
            for property in original.objectSchema.properties {
                guard var value = original.value(forKey: property.name) else { continue }
                if property.type == .object, !property.isMap {
                    if let linked = value as? ObjectBase {
                        value = linked is EmbeddedObject ? copy(linked) : linked
                    } else if let elements = value as? any Sequence {
                        value = elements.map { element -> Any in
                            if let embedded = element as? EmbeddedObject { return copy(embedded) }
                            return element
                        }
                    } else {
                        continue  // a nil link, as the new copy's is already
                    }
                }
                target.setValue(value, forKey: property.name)
            }
        }
        return root
    }

    /// The value of field `field`, as a Swift value (links as the linked objects now).
    func value(_ field: Int) -> Any? {
        let property = stored.properties[field]
        let realm = migration.realm
        let reader = migration.before
        let blobs = "blobs/\(stored.id)"
        let target = linkTarget(of: property)
        do {
            let payload: [UInt8]? = try reader.withValue(Table.rowsTreeName(stored.id), key.bytes) { row in
                RowCodec.field(row, field).map(Array.init)
            } ?? nil
            guard var payload else { return nil }
            if payload.withUnsafeBytes({ ValueCodec.isExternal($0, as: property.type) }) {
                // Kept whole in the class's blob tree.
                guard let full = try reader.withValue(blobs, Realm.blobKey(key, field), { Array($0) }) else { return nil }
                payload = full
            }
            let value = payload.withUnsafeBytes { bytes in
                ValueCodec.decode(bytes, as: property.type, linkTarget: target) { id, key in
                    realm.linkedObject(id, key)
                }
            }
            return plain(value, property)
        } catch {
            realm.fail(error)
        }
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
