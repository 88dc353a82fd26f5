import BurrowStorage
import BurrowStore

extension Realm {
    /// Key-value coding on many objects at once (`Results.setValue(_:forKey:)`,
    /// `List.setValue(_:forKey:)`): the value is converted once, and a plain value is written
    /// field by field without creating objects (most fields in one pass over the table's rows:
    /// `ObjectStore.setPayloads`). `keys` lists the objects for the paths that take them one by
    /// one (called at most once, before anything changes).
    /// Links and collections go through each object's setter. Errors are recorded and thrown
    /// at commit, as for any setter.
    func setValue(
        _ value: Any?, forKey key: String, ofObjects targets: ObjectStore.BulkTargets, keys: () -> [ObjectKey], in table: Table
    ) {
        let write = requireWrite()
        guard let property = table.info.propertyIndex[key] else {
            write.fail(
                RealmError(
                    .invalidArgument,
                    "\(table.name) has no property '\(key)'. Its properties are: \(table.info.properties.map(\.name).joined(separator: ", "))."))
            return
        }
        let schema = table.info.properties[property]
        guard let field = table.fieldOf[property], schema.collection == .single, schema.type != .object, schema.type != .any else {
            for objectKey in keys() { object(table, objectKey).setValue(value, forKey: key) }
            return
        }
        do {
            // A plain value: converted and encoded once, then written into each row (for
            // dynamic objects, by the stored type alone).
            let stored: _StoredValue
            if table.info.isDynamic {
                stored = try DynamicValues.single(value as Any, schema, in: self)
            } else {
                let accessor = table.info.fields[property].accessor
                stored = accessor.stored(try accessor.convert(value as Any, property: key)) ?? .null
            }
            let payload = ObjectStore.payload(of: stored.storeForm, as: schema.type)
            let several: Bool
            if case .keys(let given) = targets { several = given.count > 1 } else { several = true }
            if several && ObjectStore.setsInBulk(table, field, payload) {
                // Rows rewritten in one pass in key order, with what `setPayload` does for each.
                try store.setPayloads(table, targets, field, payload, in: write.store)
            } else {
                for objectKey in keys() { try store.setPayload(table, objectKey, field, payload, in: write.store) }
            }
        } catch {
            write.fail(RealmError(wrapping: error))
        }
    }
}
