import BurrowStore

// Objects are persistable as links: `DogToy?` is a to-one link, `List<Dog>` a to-many one.
extension ObjectBase: _OptionalPersistable {
    public static var _shape: _PropertyShape { _PropertyShape(.object, objectType: self) }
    public static func _defaultValue() -> Self { Self() }
    public static func _fromStored(_ value: _StoredValue) -> Self {
        guard case .object(let object) = value, let typed = object as? Self else {
            preconditionFailure("internal error: a link of \(Self.self) read as \(value)")
        }
        return typed
    }
    public var _stored: _StoredValue { .object(self) }
    public static func _convert(_ value: Any, property: String) throws(RealmError) -> Self {
        try StoredValueConversion.object(value, of: self, property: property) as! Self
    }
}

extension ObjectBase: StoredLink {
    /// The object's class id and key, for the codecs; nil while it is unmanaged.
    @usableFromInline package var objectLink: ObjectLink? {
        guard let state = _state else { return nil }
        return ObjectLink(table: state.table.id, key: state.key)
    }
}
