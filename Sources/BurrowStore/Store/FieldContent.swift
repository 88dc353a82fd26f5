import BurrowStorage

/// What a field holds: one value, a list's or set's elements, or a map's entries, with links
/// in the form of the layer holding it (`StoredValue`).
@usableFromInline
package enum FieldContent<Link> {
    case single(StoredValue<Link>)
    case elements([StoredValue<Link>])
    case entries([(key: String, value: StoredValue<Link>)])

    /// The elements (or a map's entries) of object `key` in collection tree `tree`, read
    /// through `reader`; `property` is the collection's property, whose links go to the
    /// class stored with `linkTarget`.
    package static func collection(
        _ key: ObjectKey, in tree: TreeName, of reader: any TreeReader, _ property: StoredProperty,
        linkTarget target: UInt32, resolve: ValueCodec.LinkResolver<Link>
    ) throws(StorageError) -> FieldContent {
        var elements: [StoredValue<Link>] = []
        var entries: [(key: String, value: StoredValue<Link>)] = []
        let isMap = property.collection == .map
        try ObjectStore.forEachStoredElement(of: key, in: tree, of: reader, property) { mapKey, element in
            let value = ValueCodec.decode(element, as: property.type, linkTarget: target, resolve: resolve)
            if isMap { entries.append((mapKey ?? "", value)) } else { elements.append(value) }
        }
        return isMap ? .entries(entries) : .elements(elements)
    }

    /// The same content with its links in another form (see `StoredValue._mapLink`).
    /// Inlinable: the API maps every element of a collection it sets, and from another module
    /// a generic function runs unspecialized.
    @inlinable
    package func mapLinks<Other, E: Error>(_ transform: (Link) throws(E) -> Other?) throws(E) -> FieldContent<Other> {
        func map(_ value: StoredValue<Link>) throws(E) -> StoredValue<Other> {
            try value._mapLink(transform)
        }
        switch self {
        case .single(let value): return .single(try map(value))
        case .elements(let elements):
            var mapped: [StoredValue<Other>] = []
            mapped.reserveCapacity(elements.count)
            for element in elements { mapped.append(try map(element)) }
            return .elements(mapped)
        case .entries(let entries):
            var mapped: [(key: String, value: StoredValue<Other>)] = []
            mapped.reserveCapacity(entries.count)
            for entry in entries { mapped.append((entry.key, try map(entry.value))) }
            return .entries(mapped)
        }
    }
}
