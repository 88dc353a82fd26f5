import BurrowStorage
import BurrowStore

/// How `add(_:update: .modified)` and `create(_:value:update: .modified)` write the fields of
/// an object they update, where that differs from assigning them: as RealmSwift does (its
/// store's diffing update), the update changes what is stored instead of replacing it.
///
/// - An embedded object given where the field already holds one updates that one in place: a
///   single link's, a list's at the same position, a map's under the same key. The stored
///   embedded object keeps its identity (instances read before stay valid and show the new
///   values), and the instance given becomes it. A longer list gains new embedded objects; a
///   shorter one loses (deletes) the ones past its end.
/// - A `Map` takes the entries given and keeps the keys not given.
/// - A `MutableSet` gains the elements given and keeps the others.
///
/// `.all` and plain assignment replace the field's whole content instead.
extension Realm {
    /// Sets field `field` of object `key` to `content` as a `.modified` update does, if the
    /// write's cascade policy is `.modified` and the field is one where that differs from a
    /// plain set; returns whether it did.
    func setFieldModifying(_ table: Table, _ key: ObjectKey, _ field: Int, _ content: FieldContent<ObjectBase>, in write: RealmWrite)
        throws(RealmError) -> Bool
    {
        guard write.cascadePolicy == .modified else { return false }
        let property = table.stored.properties[field]
        switch (property.collection, content) {
        case (.single, .single(let value)):
            guard property.type == .object, let object = Self.unmanagedEmbedded(value),
                case .single(.object(let stored)) = store.fieldContent(table, key, field)
            else { return false }
            return try updateInPlace(object, stored, in: write)
        case (.list, .elements(let elements)):
            guard property.type == .object, elements.contains(where: { Self.unmanagedEmbedded($0) != nil }),
                case .elements(let stored) = store.fieldContent(table, key, field)
            else { return false }
            for (index, element) in elements.enumerated() {
                if index < stored.count, let object = Self.unmanagedEmbedded(element), case .object(let link) = stored[index],
                    try updateInPlace(object, link, in: write)
                {
                    continue
                }
                if index < stored.count {
                    try listSet(table, key, field, element, at: index, in: write)
                } else {
                    try listInsert(table, key, field, element, at: index, in: write)
                }
            }
            for index in (elements.count..<max(elements.count, stored.count)).reversed() {
                try listRemove(table, key, field, at: index, in: write)
            }
        case (.set, .elements(let elements)):
            for element in elements { try setInsert(table, key, field, element, in: write) }
        case (.map, .entries(let entries)):
            var storedLinks: [String: ObjectLink] = [:]
            if property.type == .object, entries.contains(where: { Self.unmanagedEmbedded($0.value) != nil }),
                case .entries(let stored) = store.fieldContent(table, key, field)
            {
                for entry in stored {
                    if case .object(let link) = entry.value { storedLinks[entry.key] = link }
                }
            }
            for entry in entries {
                if let object = Self.unmanagedEmbedded(entry.value), let link = storedLinks[entry.key],
                    try updateInPlace(object, link, in: write)
                {
                    continue
                }
                try mapSet(table, key, field, entry.key, entry.value, in: write)
            }
        default:
            return false
        }
        return true
    }

    /// `value`'s object if it is an unmanaged embedded object.
    private static func unmanagedEmbedded(_ value: _StoredValue) -> ObjectBase? {
        guard case .object(let object) = value, object._state == nil, isEmbedded(object) else { return nil }
        return object
    }

    /// Makes the unmanaged embedded `object` the stored embedded object `link` and writes its
    /// properties there, if it is of that object's class; returns whether it did (if not, the
    /// plain set that follows says why it cannot be stored there).
    private func updateInPlace(_ object: ObjectBase, _ link: ObjectLink, in write: RealmWrite) throws(RealmError) -> Bool {
        if let error = object._pendingError { throw error }
        let table = try tableForAdding(object)
        guard table.id == link.table else { return false }
        try update(object, asStored: link.key, of: table, skipping: nil, in: write)
        return true
    }
}
