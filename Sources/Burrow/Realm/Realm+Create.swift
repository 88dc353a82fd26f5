extension Realm {
    /// Creates an object of `type` from `value` (a dictionary of property values, an array of
    /// them in declaration order, or an object of the type, whose values are copied: the way to
    /// bring an object of another realm into this one) and returns the managed object.
    ///
    /// With `.modified` or `.all` and a primary key that exists, updates that object with just
    /// the properties `value` gives (`.modified` writes only those that differ). Nested
    /// dictionaries and arrays create linked objects with the same policy.
    ///
    /// Throws `RealmError` as `add(_:update:)` does, and for an unknown property or a value of
    /// the wrong type, before anything is changed.
    @discardableResult
    public func create<T: Object>(_ type: T.Type, value: Any = [String: Any](), update: UpdatePolicy = .error) throws -> T {
        let write = try requireOpenWrite()
        let table = try writableTable(for: type)
        let info = table.info
        // Every given property, converted first: a bad value fails before anything changes.
        var given: [(Int, Any)] = []
        switch value {
        case let dictionary as [String: Any]:
            for (key, element) in dictionary {
                guard let property = info.propertyIndex[key] else {
                    throw RealmError(.invalidArgument, "\(info.name) has no property '\(key)'. Its properties are: \(info.properties.map(\.name).joined(separator: ", ")).")
                }
                given.append((property, try info.fields[property].accessor.convert(element, property: key)))
            }
        case let array as [Any]:
            let stored = info.properties.indices.filter { info.properties[$0].type != .linkingObjects }
            guard array.count <= stored.count else {
                throw RealmError(.invalidArgument, "\(info.name) has \(stored.count) stored properties, but the array gives \(array.count) values.")
            }
            for (property, element) in zip(stored, array) {
                given.append((property, try info.fields[property].accessor.convert(element, property: info.properties[property].name)))
            }
        case let object as ObjectBase where object.isInstance(of: type):
            for (property, schema) in info.properties.enumerated() where schema.type != .linkingObjects {
                guard let element = object.value(forKey: schema.name) else { continue }
                given.append((property, try info.fields[property].accessor.convert(copyable(element), property: schema.name)))
            }
        default:
            throw RealmError(.invalidArgument, "create(\(info.name).self, value:) takes a dictionary of property values, an array of them in declaration order, or a \(info.name), not \(StoredValueConversion.describe(value)).")
        }
        if let primaryKey = info.primaryKey, let givenKey = given.first(where: { $0.0 == primaryKey }),
            let existing = try existingObjectKey(table, primaryKey: info.fields[primaryKey].accessor.stored(givenKey.1) ?? .null)
        {
            guard update != .error else {
                throw RealmError(.primaryKeyExists, "A \(info.name) with primary key \(Self.describe(info.fields[primaryKey].accessor.stored(givenKey.1) ?? .null)) already exists. Use update: .modified or .all to update it.")
            }
            let object = self.object(table, existing) as! T
            let saved = write.cascadePolicy
            write.cascadePolicy = update
            defer { write.cascadePolicy = saved }
            try setProperties(object, table, values: given.filter { $0.0 != primaryKey }, in: write)
            return object
        }
        if info.primaryKey == nil, update != .error {
            throw RealmError(.invalidArgument, "\(info.name) has no primary key, so objects of it cannot be updated by key; create it with update: .error (the default).")
        }
        let object = T()
        let base = Unmanaged.passUnretained(object).toOpaque()
        for (property, element) in given {
            info.fields[property].accessor.setUnmanagedValue(at: base + info.fields[property].offset, element)
        }
        _ = try addObject(object, update: update, in: write)
        return object
    }

    /// Values copied from another object: managed lists become arrays of their elements.
    private func copyable(_ value: Any) -> Any {
        if let sequence = value as? any Sequence, !(value is String), !(value is [UInt8]) {
            return AnySequenceOfAny(sequence).elements
        }
        return value
    }
}
