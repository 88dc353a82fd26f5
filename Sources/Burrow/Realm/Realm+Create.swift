import BurrowStorage
import BurrowStore

extension Realm {
    /// Creates an object of `type` from `value` (a dictionary of property values, an array of
    /// them in declaration order, or an object of the type) and returns the managed object.
    ///
    /// `create` copies: the objects `value` holds are read and never changed. A linked object
    /// this realm manages is linked; any other (of another realm, frozen, or unmanaged) is
    /// copied into this realm as a new object, or, with `.modified` or `.all` and a primary key
    /// that exists here, updates that object. Embedded objects, lists, sets and maps are copied.
    /// So `create` is the way to bring objects of another realm into this one. An object of
    /// this realm given as `value` is copied too under `.error`; under `.modified` or `.all` it
    /// is returned as it is.
    ///
    /// With `.modified` or `.all` and a primary key that exists, updates that object with just
    /// the properties `value` gives (`.modified` writes only those that differ). Nested
    /// dictionaries and arrays create linked objects with the same policy.
    ///
    /// Throws `RealmError`, before anything is changed: outside a write transaction
    /// (`.wrongState`); `.primaryKeyExists` under `.error` if this or an object it would add
    /// has a primary key that exists; an update policy on a class without a primary key; an
    /// unknown property or a value of the wrong type (`.invalidArgument`); a deleted object in
    /// `value` (`.invalidObject`). Isolation: the realm's.
    @discardableResult
    public func create<T: Object>(_ type: T.Type, value: Any = [String: Any](), update: UpdatePolicy = .error) throws -> T {
        let write = try requireOpenWrite()
        let table = try writableTable(for: type)
        let info = table.info
        if info.primaryKey == nil, update != .error {
            throw RealmError(
                .invalidArgument,
                "\(info.name) has no primary key, so objects of it cannot be updated by key; create it with update: .error (the default).")
        }
        // Every given property, converted and copied first: a bad value fails before anything
        // changes. The objects conversion makes from nested values are the create's own, so
        // they are filled in place rather than copied.
        let (converted, made) = try NestedValueWorklist.recordingMade { () throws(RealmError) -> [(Int, Any)]? in
            var converted: [(Int, Any)] = []
            switch value {
            case let dictionary as [String: Any]:
                for (key, element) in dictionary {
                    guard let property = info.propertyIndex[key] else {
                        throw RealmError(
                            .invalidArgument,
                            "\(info.name) has no property '\(key)'. Its properties are: \(info.properties.map(\.name).joined(separator: ", ")).")
                    }
                    converted.append((property, try info.fields[property].accessor.convert(element, property: key)))
                }
            case let array as [Any]:
                let stored = info.properties.indices.filter { info.properties[$0].type != .linkingObjects }
                guard array.count <= stored.count else {
                    throw StoredValueConversion.tooManyValues(for: info.name, stored: stored.count, given: array.count)
                }
                for (property, element) in zip(stored, array) {
                    converted.append((property, try info.fields[property].accessor.convert(element, property: info.properties[property].name)))
                }
            default:
                return nil
            }
            return converted
        }
        var copier = CreateCopier(realm: self, adopting: made)
        var given: [(Int, Any)] = []
        // The copy of an object given as `value`, which is the new object if one is made: a
        // copy it reaches that links back to the source links to it.
        var copy: T?
        if let converted {
            for (property, element) in converted { given.append((property, try copier.value(element, property: property, of: info))) }
        } else if let object = value as? ObjectBase, object.isInstance(of: type) {
            if update != .error, Swift.type(of: object) == type, let state = object._state, state.isManaged(by: self), state.exists {
                return object as! T
            }
            let made = try copier.copy(object, as: type) as! T
            try copier.fill()
            let base = Unmanaged.passUnretained(made).toOpaque()
            for (property, schema) in info.properties.enumerated() where schema.type != .linkingObjects {
                given.append((property, info.fields[property].accessor.unmanagedValue(at: base + info.fields[property].offset)))
            }
            copy = made
        } else {
            throw RealmError(
                .invalidArgument,
                "create(\(info.name).self, value:) takes a dictionary of property values, an array of them in declaration order, or \(withArticle(info.name)), not \(StoredValueConversion.describe(value))."
            )
        }
        try copier.fill()
        var newKey: _StoredValue?
        if let primaryKey = info.primaryKey, let givenKey = given.first(where: { $0.0 == primaryKey }) {
            let keyValue = info.fields[primaryKey].accessor.stored(givenKey.1) ?? .null
            if let existing = try mapped({ () throws(StoreError) in try store.existingObjectKey(table, primaryKey: keyValue.storeForm) }) {
                guard update != .error else {
                    throw RealmError(
                        .primaryKeyExists,
                        "A \(info.name) with primary key \(PrimaryKey.describe(keyValue)) already exists. Use update: .modified or .all to update it."
                    )
                }
                let object = object(table, existing) as! T
                let saved = write.cascadePolicy
                write.cascadePolicy = update
                defer { write.cascadePolicy = saved }
                try setProperties(object, table, values: given.filter { $0.0 != primaryKey }, in: write)
                return object
            }
            newKey = keyValue
        }
        if update == .error {
            try requireNewPrimaryKeys(copier.copies.lazy.map(\.copy).filter { $0 !== copy }, besides: newKey.map { (table, $0) }, in: write)
        }
        let object: T
        if let copy {
            object = copy
        } else {
            object = T()
            let base = Unmanaged.passUnretained(object).toOpaque()
            for (property, element) in given {
                info.fields[property].accessor.setUnmanagedValue(at: base + info.fields[property].offset, element)
            }
        }
        _ = try addObject(object, update: update, in: write)
        write.added.markCreated(object)
        return object
    }

    /// Checks, under `.error`, the copies `create` is about to add (with the new object, whose
    /// primary key in `table` is `newObject`'s): a primary key that exists in this realm, or
    /// that two of them share, throws `.primaryKeyExists` before anything is added.
    private func requireNewPrimaryKeys(
        _ copies: some Sequence<ObjectBase>, besides newObject: (table: Table, key: _StoredValue)?, in write: RealmWrite
    ) throws(RealmError) {
        var seen: [ObjectIdentifier: Set<[UInt8]>] = [:]
        if let newObject { seen[ObjectIdentifier(newObject.table.info), default: []].insert(IndexKey.encode(newObject.key)) }
        for copy in copies {
            let info = ClassInfo.of(Swift.type(of: copy))
            guard let primaryKey = info.primaryKey else { continue }
            let field = info.fields[primaryKey]
            let key = field.accessor.readUnmanaged(at: Unmanaged.passUnretained(copy).toOpaque() + field.offset).stored ?? .null
            var isNew = seen[ObjectIdentifier(info), default: []].insert(IndexKey.encode(key)).inserted
            if isNew, let table = try table(for: info.type, creating: false),
                case .found = try mapped({ () throws(StoreError) in try store.probePrimaryKey(table, key.storeForm, in: write.store) })
            {
                isNew = false
            }
            guard isNew else {
                throw RealmError(
                    .primaryKeyExists,
                    "A \(info.name) with primary key \(PrimaryKey.describe(key)) already exists, and create would add another (copied from the value). Use update: .modified or .all to update it."
                )
            }
        }
    }
}
