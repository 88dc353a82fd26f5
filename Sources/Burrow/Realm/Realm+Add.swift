import BurrowStorage
import BurrowStore

extension Realm {
    /// Adds an unmanaged object to the realm; it becomes managed, and so do the unmanaged
    /// objects it links to. With `.modified` or `.all`, an existing object with the same primary
    /// key is updated from this one instead, and this object becomes that object.
    ///
    /// Adding an object this realm already manages does nothing. Throws `RealmError`: outside a
    /// write transaction (`.wrongState`); `.primaryKeyExists` under `.error`; an update policy on
    /// a class without a primary key; an object managed by another realm ("use create to copy
    /// it"), a frozen or a deleted object (`.invalidObject`); a value `init(value:)` could not
    /// take. A failure before anything changed leaves the transaction usable; one met deep in
    /// linked objects also fails the transaction's commit, so that nothing half-added is kept.
    public func add(_ object: Object, update: UpdatePolicy = .error) throws {
        let write = try requireOpenWrite()
        _ = try addObject(object, update: update, in: write)
    }

    /// Adds every object of `objects`, as `add(_:update:)` does for one.
    public func add<S: Sequence>(_ objects: S, update: UpdatePolicy = .error) throws where S.Element: Object {
        let write = try requireOpenWrite()
        for object in objects { _ = try addObject(object, update: update, in: write) }
    }

    func requireOpenWrite() throws(RealmError) -> RealmWrite {
        guard let write else {
            throw RealmError(.wrongState, "This change needs a write transaction; make it inside realm.write { } or realm.asyncWrite { }.")
        }
        return write
    }

    /// Adds `object` (or finds the object it becomes) and returns the managed object.
    ///
    /// An object reached by cascading from another one (`cascade`) may be of a class without a
    /// primary key under any policy: it is simply inserted, as RealmSwift does.
    func addObject(_ object: ObjectBase, update: UpdatePolicy, cascade: Bool = false, in write: RealmWrite) throws(RealmError) -> ObjectBase {
        if let state = object._state {
            guard state.isManaged(by: self), state.exists else { throw Self.notInThisRealm(object) }
            return object
        }
        if let error = object._pendingError { throw error }
        if Self.isEmbedded(object) {
            throw RealmError(
                .invalidArgument,
                "\(object.classInfo.name) is an EmbeddedObject, which cannot be added to a realm on its own; assign it to a property of its parent object."
            )
        }
        let table = try tableForAdding(object)
        guard let primaryKey = table.info.primaryKey else {
            if update != .error, !cascade {
                throw RealmError(
                    .invalidArgument,
                    "\(table.name) has no primary key, so objects of it cannot be updated by key; add it with update: .error (the default).")
            }
            try insert(object, into: table, in: write)
            return object
        }
        let keyValue = storedValue(of: object, property: primaryKey, in: table)
        let probe = try mapped { () throws(StoreError) in try store.probePrimaryKey(table, keyValue.storeForm, in: write.store) }
        if case .found(let existing, _) = probe {
            guard update != .error else {
                throw RealmError(
                    .primaryKeyExists,
                    "A \(table.name) with primary key \(PrimaryKey.describe(keyValue)) already exists. Use update: .modified or .all to update it.")
            }
            try withCascadePolicy(update, in: write) { () throws(RealmError) in
                try self.update(object, asStored: existing, of: table, skipping: primaryKey, in: write)
            }
            return object
        }
        try withCascadePolicy(update, in: write) { () throws(RealmError) in
            try insert(object, into: table, probed: probe, in: write)
        }
        return object
    }

    /// Makes the unmanaged `object` the stored object `key` of `table`, and writes its
    /// properties there (but `primaryKey`, which found it) under the write's cascade policy:
    /// what an update by primary key does, and what `.modified` does with an embedded object
    /// given where the field holds one (see `setFieldModifying`).
    func update(_ object: ObjectBase, asStored key: ObjectKey, of table: Table, skipping primaryKey: Int?, in write: RealmWrite)
        throws(RealmError)
    {
        let values = unmanagedFields(of: object, table).map(\.value)
        // A dynamic object made from a dictionary updates only the properties it names.
        let given = (object as? DynamicObject)?.pending?.given
        write.added.append(object, table.info)
        bind(object, to: table, key: key)
        if table.info.isDynamic { (object as? DynamicObject)?.pending = nil }
        try setLinkedProperties(
            object, table,
            values: values.enumerated().filter { $0.offset != primaryKey && given?[$0.offset] != false }.map { ($0.offset, $0.element) },
            in: write)
    }

    /// Makes the unmanaged `object` a new object of `table`: one row written with every
    /// non-collection field, index entries, then collections through their own setters.
    /// `probed` is what the caller's lookup of the object's primary key found, if it made one.
    func insert(_ object: ObjectBase, into table: Table, probed: PrimaryKeyProbe? = nil, in write: RealmWrite) throws(RealmError) {
        if let error = object._pendingError { throw error }
        let info = table.info
        let base = Unmanaged.passUnretained(object).toOpaque()
        // A dynamic object's values, which it holds in place of `@Persisted` fields.
        let pending = info.isDynamic ? (object as? DynamicObject)?.pending?.fields : nil
        // The primary key first: a duplicate fails before anything is written.
        let primaryKey = info.primaryKey.map { storedValue(of: object, property: $0, in: table).storeForm }
        // Scalars go straight into the row; links and collections go through their setters
        // once the row exists (so that a cycle back to this object finds it).
        var linked: [(Int, Any)] = []
        let key = try mapped { () throws(StoreError) in
            try store.insertObject(table, primaryKey: primaryKey, probed: probed, in: write.store) { field -> NewField<ObjectBase> in
                guard let property = table.propertyOfField[field] else { return .later }
                let value: _UnmanagedField
                if let pending {
                    value = pending[property]
                } else {
                    let accessor = info.fields[property]
                    value = accessor.accessor.readUnmanaged(at: base + accessor.offset)
                }
                let type = table.fieldTypes[field]
                guard let stored = value.stored, type != .object, type != .any else {
                    if !value.isEmpty {
                        linked.append((property, value.value))
                        return .later
                    }
                    // No setter runs for a nil AnyRealmValue, but its index lists it as nil.
                    return .empty
                }
                return .stored(stored)
            }
        }
        write.added.append(object, info)
        bind(object, to: table, key: key)
        // A managed dynamic object reads its row; the values it was made from are in `linked`.
        if pending != nil { (object as? DynamicObject)?.pending = nil }
        if linked.isEmpty {
            info.adoptHeldCollections(of: object)  // what `setLinkedProperties` does without values, without the call
        } else {
            try setLinkedProperties(object, table, values: linked, in: write)
        }
    }

    /// An object made managed whose links and collections (`values`, by property) are still
    /// to be set, under the update policy of the add that reached it.
    struct PendingLinks {
        let object: ObjectBase
        let table: Table
        let values: [(Int, Any)]
        let policy: UpdatePolicy
    }

    /// Sets `values` (links and collections, or every property of an object an update found)
    /// on the newly managed `object`, throwing the first error a setter records.
    ///
    /// The unmanaged objects they link to are added at once (rows written, keys known, so that
    /// a cycle finds them), but their own links wait in the transaction's worklist, which the
    /// outermost call works through in the order the objects were reached. So adding a graph
    /// of any depth (a chain of 100,000 links) takes the same stack as adding one object.
    ///
    /// Once an object's links and collections are set, the collection instances it held
    /// become its managed collections (`HeldCollection`).
    func setLinkedProperties(_ object: ObjectBase, _ table: Table, values: [(Int, Any)], in write: RealmWrite) throws(RealmError) {
        guard !values.isEmpty else {
            table.info.adoptHeldCollections(of: object)
            return
        }
        write.pendingLinks.append(PendingLinks(object: object, table: table, values: values, policy: write.cascadePolicy))
        guard !write.isSettingLinks else { return }
        write.isSettingLinks = true
        let saved = write.cascadePolicy
        defer {
            write.isSettingLinks = false
            write.pendingLinks.removeAll(keepingCapacity: true)
            write.nextPendingLinks = 0
            write.cascadePolicy = saved
        }
        while write.nextPendingLinks < write.pendingLinks.count {
            let next = write.pendingLinks[write.nextPendingLinks]
            write.nextPendingLinks += 1
            write.cascadePolicy = next.policy
            try setProperties(next.object, next.table, values: next.values, in: write)
            next.table.info.adoptHeldCollections(of: next.object)
        }
    }

    /// Sets properties of the managed `object` through their setters, throwing the first error
    /// a setter records.
    func setProperties(_ object: ObjectBase, _ table: Table, values: [(Int, Any)], in write: RealmWrite) throws(RealmError) {
        let hadFailure = write.failure != nil
        let info = table.info
        for (property, value) in values {
            if info.isDynamic {
                object.setValue(value, forKey: info.properties[property].name)
            } else {
                info.fields[property].accessor.managedSet(object, property: property, value)
            }
            if !hadFailure, let failure = write.failure { throw failure }
        }
    }

    private func withCascadePolicy(_ policy: UpdatePolicy, in write: RealmWrite, _ body: () throws(RealmError) -> Void) throws(RealmError) {
        let saved = write.cascadePolicy
        write.cascadePolicy = policy
        defer { write.cascadePolicy = saved }
        try body()
    }

    /// The unmanaged values of every property of `object`, in property order.
    func unmanagedFields(of object: ObjectBase, _ table: Table) -> [_UnmanagedField] {
        if table.info.isDynamic { return (object as? DynamicObject)?.pending?.fields ?? [] }
        let base = Unmanaged.passUnretained(object).toOpaque()
        return table.info.fields.map { $0.accessor.readUnmanaged(at: base + $0.offset) }
    }

    /// The stored value of single property `property` of the unmanaged `object`, of `table`.
    private func storedValue(of object: ObjectBase, property: Int, in table: Table) -> _StoredValue {
        if table.info.isDynamic { return (object as? DynamicObject)?.pending?.fields[property].stored ?? .null }
        let field = table.info.fields[property]
        let base = Unmanaged.passUnretained(object).toOpaque()
        return field.accessor.readUnmanaged(at: base + field.offset).stored ?? .null
    }

    /// Whether `object` is of an embedded class (a dynamic object, by its stored class).
    static func isEmbedded(_ object: ObjectBase) -> Bool {
        type(of: object) == DynamicObject.self ? object.classInfo.isEmbedded : object.isInstance(of: EmbeddedObject.self)
    }

    /// The table the unmanaged `object` is added to: its Swift class's (created in the open
    /// write if the file lacks it), or for a dynamic object its stored class's.
    func tableForAdding(_ object: ObjectBase) throws(RealmError) -> Table {
        guard type(of: object) == DynamicObject.self else { return try writableTable(for: type(of: object)) }
        let info = object.classInfo
        guard info.isDynamic else {
            throw RealmError(
                .invalidArgument,
                "A DynamicObject made with DynamicObject() has no class; create dynamic objects with realm.dynamicCreate(_:value:update:).")
        }
        guard let table = store.dynamicTable(named: info.name) else {
            throw RealmError(.invalidArgument, "\(displayName) stores no class named \(info.name) any more.")
        }
        return table
    }

    // MARK: Links

    /// The object a link set in the open write transaction points at: `object` itself if this
    /// realm manages it, else `object` made managed here (added with the write's cascade
    /// policy, or, if embedded, created inside its new parent). Objects of other realms,
    /// frozen or deleted objects, and embedded objects that already have a parent are errors.
    func managedForLink(_ object: ObjectBase, _ property: StoredProperty, in write: RealmWrite) throws(RealmError) -> ObjectBase {
        // A dynamic object may be of any stored class; a link takes only its own class's.
        if type(of: object) == DynamicObject.self, property.type == .object, let className = property.objectClassName,
            object.classInfo.name != className
        {
            throw RealmError(
                .invalidArgument, "Property '\(property.name)' links to \(className), but the object given is \(withArticle(object.classInfo.name)).")
        }
        if Realm.isEmbedded(object) {
            if let state = object._state {
                guard state.isManaged(by: self), state.exists else { throw Self.notInThisRealm(object) }
                throw RealmError(
                    .invalidArgument,
                    "The \(state.table.name) assigned to '\(property.name)' already belongs to another object; an embedded object has exactly one parent. Assign a new, unmanaged \(state.table.name) instead."
                )
            }
            let table = try tableForAdding(object)
            try insert(object, into: table, in: write)
            return object
        }
        return try addObject(object, update: write.cascadePolicy, cascade: true, in: write)
    }

    static func notInThisRealm(_ object: ObjectBase) -> RealmError {
        guard let state = object._state else { return RealmError(.invalidObject, "The object is not managed by a realm.") }
        switch state.source {
        case .frozen:
            return RealmError(
                .invalidObject, "A frozen \(state.table.name) cannot be added or linked; thaw it into this realm first (realm.thaw(_:)).")
        case .live(let realm):
            if realm.isOpen, !realm.store.rowExists(state.table, state.key) {
                return RealmError(.invalidObject, "The \(state.table.name) was deleted; a deleted object cannot be added or linked.")
            }
            return RealmError(
                .invalidObject,
                "Object is already managed by another Realm. Use create instead to copy it into this Realm. (The \(state.table.name) belongs to another Realm of \(realm.displayName).)"
            )
        }
    }
}
