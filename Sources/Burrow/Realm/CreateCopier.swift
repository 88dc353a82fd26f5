import BurrowStore

/// Makes the values `create(_:value:update:)` stores: copies of the objects a value holds, as
/// RealmSwift's `create` makes them, so that what the caller passed is read and never changed.
///
/// - An object the realm manages (live, not embedded) stays itself: a link to it links it.
/// - Any other object (of another realm, of a frozen version, unmanaged, or embedded, whose
///   one parent it already has) is copied: a new unmanaged object of its class whose properties
///   are copies of the source's. The source keeps its realm, its parent and its values.
/// - Lists, sets and maps become new unmanaged collections of copied elements.
/// - The objects `create` made itself from nested dictionaries and arrays are their own copies:
///   only their links and collections are replaced, in place.
///
/// Each source object is copied once, so the copies have the shape of the graph they copy,
/// cycles included; but an unmanaged embedded object given in several places is copied for each
/// (an embedded object has one parent), as RealmSwift does. A copy is made empty and filled
/// later from a worklist, in the order the copies were reached, so copying a graph of any depth
/// takes the same stack as one object.
struct CreateCopier {
    private let realm: Realm
    /// Every copy made, with its source, in the order reached; for an embedded copy, the index
    /// of the copy whose property holds it (nil for a property of the object `create` makes).
    private(set) var copies: [(source: ObjectBase, copy: ObjectBase, parent: Int?)] = []
    /// The next copy of `copies` to fill.
    private var next = 0
    /// The copy being filled, whose properties ask for the copies made meanwhile.
    private var filling: Int?
    /// The copy of each source object met, by the source's identity.
    private var copyOfSource: [SourceIdentity: ObjectBase] = [:]

    /// Which object a source is: a managed object by its row (reading one row twice gives two
    /// instances), an unmanaged one by its instance (kept alive by `copies`).
    private enum SourceIdentity: Hashable {
        case unmanaged(ObjectIdentifier)
        case managed(table: ObjectIdentifier, key: UInt64)
    }

    /// Unmanaged objects that are the create's own (made from its value's nested dictionaries
    /// and arrays), by identity: each is its own copy, filled in place.
    private let adoptable: [ObjectIdentifier: ObjectBase]

    init(realm: Realm, adopting adoptable: [ObjectIdentifier: ObjectBase] = [:]) {
        self.realm = realm
        self.adoptable = adoptable
    }

    /// A copy of `source` as a new object of `type` (the class `create` makes, which `source`
    /// is an instance of), even if the realm manages `source`. It is filled by `fill()`.
    ///
    /// Throws `.invalidObject` if `source` was deleted, or the error an unmanaged `source` met
    /// in `init(value:)`.
    mutating func copy(_ source: ObjectBase, as type: ObjectBase.Type) throws(RealmError) -> ObjectBase {
        try copy(source, as: type, linking: false)
    }

    /// `value`, a value of property `property` of `info`'s class in the property's Swift type,
    /// as `create` stores it: the objects it holds replaced as described above, collections new.
    /// The copies it asks for are filled by `fill()`.
    ///
    /// Throws `.invalidObject` for a deleted object, or the error an unmanaged object met in
    /// `init(value:)`.
    mutating func value(_ value: Any, property: Int, of info: ClassInfo) throws(RealmError) -> Any {
        try replacement(for: value, property: property, of: info) ?? value
    }

    /// `value(_:property:of:)`, or nil if that is `value` itself.
    private mutating func replacement(for value: Any, property: Int, of info: ClassInfo) throws(RealmError) -> Any? {
        let schema = info.properties[property]
        let accessor = info.fields[property].accessor
        guard schema.type != .linkingObjects else { return nil }
        switch schema.collection {
        case .single:
            guard schema.type == .object || schema.type == .any, let replacement = try replacement(for: value, schema.type) else { return nil }
            return try accessor.convert(replacement, property: schema.name)
        case .list, .set:
            guard let sequence = value as? any Sequence else { return nil }
            var elements: [Any] = []
            for element in AnySequenceOfAny(sequence) { elements.append(try replacement(for: element, schema.type) ?? element) }
            return try accessor.convert(elements, property: schema.name)
        case .map:
            guard let map = value as? any MapEntries else { return nil }
            var entries: [String: Any] = [:]
            for (key, element) in map.entriesAsAny { entries[key] = try replacement(for: element, schema.type) ?? element }
            return try accessor.convert(entries, property: schema.name)
        }
    }

    /// Fills every copy made so far, and those their values ask for, from their sources.
    mutating func fill() throws(RealmError) {
        while next < copies.count {
            let (source, copy, _) = copies[next]
            filling = next
            next += 1
            defer { filling = nil }
            let info = ClassInfo.of(Swift.type(of: copy))
            let sourceInfo = Swift.type(of: source) == Swift.type(of: copy) ? info : source.classInfo
            let sourceBase = Unmanaged.passUnretained(source).toOpaque()
            let copyBase = Unmanaged.passUnretained(copy).toOpaque()
            // An adopted object keeps its plain values; only what can hold objects is replaced.
            let properties = copy === source ? info.objectHoldingProperties : Array(info.properties.indices)
            for property in properties {
                let schema = info.properties[property]
                guard schema.type != .linkingObjects else { continue }
                // A source of a subclass gives the properties it shares by name; a dynamic
                // source names them as the file stores them.
                let from: Int?
                if sourceInfo === info {
                    from = property
                } else if sourceInfo.isDynamic {
                    from = sourceInfo.propertyIndex(columnNamed: schema.columnName)
                } else {
                    from = sourceInfo.propertyIndex(named: schema.name)
                }
                guard let from else { continue }
                let read: Any
                if sourceInfo.isDynamic {
                    // A dynamic object has no Swift fields: its values by name, converted.
                    read = try info.fields[property].accessor.convert(
                        source.value(forKey: sourceInfo.properties[from].name) as Any, property: schema.name)
                } else {
                    let field = sourceInfo.fields[from]
                    read =
                        source._state == nil
                        ? field.accessor.unmanagedValue(at: sourceBase + field.offset) : field.accessor.managedGet(source, property: from)
                }
                let replaced = try replacement(for: read, property: property, of: info)
                guard replaced != nil || copy !== source else { continue }
                info.fields[property].accessor.setUnmanagedValue(at: copyBase + info.fields[property].offset, replaced ?? read)
            }
        }
    }

    /// What replaces one element (or the one value) of a property whose values are of `type`:
    /// nil if it stays as it is (not an object, an object linked, an object that is its own copy).
    private mutating func replacement(for value: Any, _ type: PropertyType) throws(RealmError) -> Any? {
        switch type {
        case .object:
            guard !StoredValueConversion.isNil(value), let object = value as? ObjectBase else { return nil }
            let copy = try copy(object, as: Swift.type(of: object), linking: true)
            return copy === object ? nil : copy
        case .any:
            guard let any = value as? AnyRealmValue, case .object(let object) = any else { return nil }
            let copy = try copy(object, as: Swift.type(of: object), linking: true)
            // A copy is of its source's class, which is an `Object`'s.
            return copy === object ? nil : AnyRealmValue.object(copy as! Object)
        default:
            return nil
        }
    }

    /// The object `create` stores for `source`: `source` itself if `linking` to an object the
    /// realm manages, else its copy (made on first meeting, empty until `fill()`).
    private mutating func copy(_ source: ObjectBase, as type: ObjectBase.Type, linking: Bool) throws(RealmError) -> ObjectBase {
        let identity: SourceIdentity
        if let state = source._state {
            guard state.exists else {
                throw RealmError(
                    .invalidObject, "A \(state.table.name) in the value given to create was deleted, or its realm was closed, so it cannot be copied."
                )
            }
            if linking, state.isManaged(by: realm), !state.table.info.isEmbedded { return source }
            identity = .managed(table: ObjectIdentifier(state.table), key: state.key.rawValue)
        } else {
            if let error = source._pendingError { throw error }
            identity = .unmanaged(ObjectIdentifier(source))
        }
        let isEmbedded = source is EmbeddedObject
        if let made = copyOfSource[identity] {
            guard isEmbedded else { return made }
            try requireNotAncestor(source)
        }
        let copy: ObjectBase
        if copyOfSource[identity] == nil {
            copy = adoptable[ObjectIdentifier(source)] === source ? source : type.init()
            copyOfSource[identity] = copy
        } else {
            copy = type.init()
        }
        copies.append((source, copy, isEmbedded ? filling : nil))
        return copy
    }

    /// Throws if the embedded `source`, met again, is the copy being filled or one of the
    /// embedded objects that hold it: an unmanaged embedded object that holds itself, which no
    /// number of copies could copy. Only a shared unmanaged embedded object gets here.
    private func requireNotAncestor(_ source: ObjectBase) throws(RealmError) {
        var ancestor = filling
        while let index = ancestor {
            if copies[index].source === source {
                throw RealmError(
                    .invalidArgument,
                    "The \(Swift.type(of: source)) in the value given to create holds itself through embedded objects; an embedded object has exactly one parent."
                )
            }
            ancestor = copies[index].parent
        }
    }
}

/// A `Map`'s entries with their keys as strings and values as `Any`, whatever its types.
protocol MapEntries {
    var entriesAsAny: [(key: String, value: Any)] { get }
}

extension Map: MapEntries {
    var entriesAsAny: [(key: String, value: Any)] {
        entries.map { ($0.key._mapKey, $0.value as Any) }
    }
}
