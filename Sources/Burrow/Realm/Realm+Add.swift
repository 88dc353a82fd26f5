import BurrowStorage

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

    func requireOpenWrite() throws(RealmError) -> WriteState {
        guard let write else {
            throw RealmError(.wrongState, "This change needs a write transaction; make it inside realm.write { } or realm.asyncWrite { }.")
        }
        return write
    }

    /// Adds `object` (or finds the object it becomes) and returns the managed object.
    ///
    /// An object reached by cascading from another one (`cascade`) may be of a class without a
    /// primary key under any policy: it is simply inserted, as RealmSwift does.
    func addObject(_ object: ObjectBase, update: UpdatePolicy, cascade: Bool = false, in write: WriteState) throws(RealmError) -> ObjectBase {
        if let state = object._state {
            guard state.isManaged(by: self), state.exists else { throw Self.notInThisRealm(object) }
            return object
        }
        if let error = object._pendingError { throw error }
        if object.isInstance(of: EmbeddedObject.self) {
            throw RealmError(.invalidArgument, "\(type(of: object)) is an EmbeddedObject, which cannot be added to a realm on its own; assign it to a property of its parent object.")
        }
        let table = try writableTable(for: type(of: object))
        guard let primaryKey = table.info.primaryKey else {
            if update != .error, !cascade {
                throw RealmError(.invalidArgument, "\(table.name) has no primary key, so objects of it cannot be updated by key; add it with update: .error (the default).")
            }
            try insert(object, into: table, in: write)
            return object
        }
        let field = table.info.fields[primaryKey]
        let keyValue = storedValue(of: object, property: primaryKey, field: field)
        let probe = probePrimaryKey(table, keyValue)
        if case .found(let existing, _) = probe {
            guard update != .error else {
                throw RealmError(.primaryKeyExists, "A \(table.name) with primary key \(Self.describe(keyValue)) already exists. Use update: .modified or .all to update it.")
            }
            let values = unmanagedFields(of: object, table).map(\.value)
            write.added.append(object)
            bind(object, to: table, key: existing)
            try withCascadePolicy(update, in: write) { () throws(RealmError) in
                try setProperties(object, table, values: values.enumerated().filter { $0.offset != primaryKey }.map { ($0.offset, $0.element) }, in: write)
            }
            return object
        }
        try withCascadePolicy(update, in: write) { () throws(RealmError) in
            try insert(object, into: table, probed: probe, in: write)
        }
        return object
    }

    /// Makes the unmanaged `object` a new object of `table`: one row written with every
    /// non-collection field, index entries, then collections through their own setters.
    /// `probed` is what the caller's lookup of the object's primary key found, if it made one.
    func insert(_ object: ObjectBase, into table: Table, probed: PrimaryKeyProbe? = nil, in write: WriteState) throws(RealmError) {
        if let error = object._pendingError { throw error }
        let values = unmanagedFields(of: object, table)
        // Index entries and the primary key first: a duplicate key fails before anything is written.
        var payloads = [[UInt8]?](repeating: nil, count: table.fieldTypes.count)
        var stored = [_StoredValue](repeating: .null, count: table.fieldTypes.count)
        for (property, field) in table.fieldOf.enumerated() {
            guard let field, let value = values[property].stored else { continue }
            stored[field] = value
        }
        let key: ObjectKey
        var keyIsDerived = false
        if let primaryKeyField = table.primaryKeyField {
            switch probed ?? probePrimaryKey(table, stored[primaryKeyField]) {
            case .found:
                throw RealmError(.primaryKeyExists, "A \(table.name) with primary key \(Self.describe(stored[primaryKeyField])) already exists. Use update: .modified or .all to update it.")
            case .absent(let derivedKeyIsFree):
                let derived = ObjectKey(derivedFrom: stored[primaryKeyField])
                keyIsDerived = derivedKeyIsFree
                key = derivedKeyIsFree ? derived : try freeKey(after: derived, in: table, write)
            }
        } else {
            key = try newObjectKey(table, in: write)
        }
        // Scalars go into the row directly; links and collections through their setters once
        // the row exists (so that a cycle back to this object finds it).
        var linked: [(Int, Any)] = []
        for (property, field) in table.fieldOf.enumerated() {
            guard let field else { continue }
            let p = table.stored.properties[field]
            if p.collection != .single || p.type == .object || p.type == .any {
                if !values[property].isEmpty { linked.append((property, values[property].value)) }
                continue
            }
            var payload: [UInt8] = []
            ValueCodec.append(stored[field], as: p.type, to: &payload)
            payloads[field] = payload.isEmpty ? nil : payload
        }
        write.added.append(object)
        bind(object, to: table, key: key)
        do {
            for field in payloads.indices where payloads[field] != nil {
                payloads[field] = try rowPayload(payloads[field], table, key, field, replacing: nil, in: write)
            }
            try write.reader.put(table.rowsTree, key.bytes, RowCodec.assemble(payloads))
            if let primaryKeyField = table.primaryKeyField, !keyIsDerived {
                try write.reader.put(table.primaryKeyTree, IndexKey.encode(stored[primaryKeyField]), key.bytes)
            }
            for (field, tree) in table.fieldIndexTrees.enumerated() {
                guard let tree else { continue }
                try write.reader.put(tree, IndexKey.entry(stored[field], key), [])
            }
        } catch {
            throw RealmError(error)
        }
        try setProperties(object, table, values: linked, in: write)
        noteChange()
    }

    /// Sets properties of the managed `object` through their setters, throwing the first error
    /// a setter records.
    func setProperties(_ object: ObjectBase, _ table: Table, values: [(Int, Any)], in write: WriteState) throws(RealmError) {
        let hadFailure = write.failure != nil
        for (property, value) in values {
            table.info.fields[property].accessor.managedSet(object, property: property, value)
            if !hadFailure, let failure = write.failure { throw failure }
        }
    }

    private func withCascadePolicy(_ policy: UpdatePolicy, in write: WriteState, _ body: () throws(RealmError) -> Void) throws(RealmError) {
        let saved = write.cascadePolicy
        write.cascadePolicy = policy
        defer { write.cascadePolicy = saved }
        try body()
    }

    /// The unmanaged values of every property of `object`, in property order.
    func unmanagedFields(of object: ObjectBase, _ table: Table) -> [_UnmanagedField] {
        let base = Unmanaged.passUnretained(object).toOpaque()
        return table.info.fields.map { $0.accessor.readUnmanaged(at: base + $0.offset) }
    }

    private func storedValue(of object: ObjectBase, property: Int, field: ClassInfo.Field) -> _StoredValue {
        let base = Unmanaged.passUnretained(object).toOpaque()
        return field.accessor.readUnmanaged(at: base + field.offset).stored ?? .null
    }

    static func describe(_ value: _StoredValue) -> String {
        switch value {
        case .null: "nil"
        case .string(let s): "\"\(s)\""
        case .int(let i): "\(i)"
        case .objectId(let o): "\(o)"
        case .uuid(let u): "\(u)"
        default: "\(value)"
        }
    }
}
