import BurrowStorage
import BurrowStore

/// What a field holds: one value, a list's or set's elements, or a map's entries.
enum FieldContent {
    case single(_StoredValue)
    case elements([_StoredValue])
    case entries([(key: String, value: _StoredValue)])

    /// The elements (or a map's entries) of object `key` in collection tree `tree`, read
    /// through `reader`; `property` is the collection's property, whose links go to the
    /// class stored with `linkTarget`.
    static func collection(
        _ key: ObjectKey, in tree: TreeName, of reader: any TreeReader, _ property: StoredProperty,
        linkTarget target: UInt32, resolve: ValueCodec.LinkResolver<ObjectBase>
    ) throws(StorageError) -> FieldContent {
        var elements: [_StoredValue] = []
        var entries: [(key: String, value: _StoredValue)] = []
        let isMap = property.collection == .map
        try ObjectStore.forEachStoredElement(of: key, in: tree, of: reader, property) { mapKey, element in
            let value = ValueCodec.decode(element, as: property.type, linkTarget: target, resolve: resolve)
            if isMap { entries.append((mapKey ?? "", value)) } else { elements.append(value) }
        }
        return isMap ? .entries(entries) : .elements(elements)
    }
}
