import BurrowStore

/// Projections are collection values, as in RealmSwift, so that there are `Results` of them:
/// `realm.objects(PersonProjection.self)` and `@ObservedResults(PersonProjection.self)` read
/// the root class's objects and give each in its projection. A projection is equal to another
/// of the same object. No property can store a projection (declaring one is a schema error):
/// store the object it projects.
extension Projection: _OptionalPersistable {
    public static var _shape: _PropertyShape { _PropertyShape(.object, objectType: Root.self, isProjection: true) }
    public static var _isProjection: Bool { true }
    public static func _defaultValue() -> Self { Self(projecting: Root()) }
    public static func _fromStored(_ value: _StoredValue) -> Self { Self(projecting: Root._fromStored(value)) }
    public var _stored: _StoredValue { .object(rootObject) }
    public static func _convert(_ value: Any, property: String) throws(RealmError) -> Self {
        if let projection = value as? Self { return projection }
        return Self(projecting: try Root._convert(value, property: property))
    }

    /// Whether the two project the same object (the same instance, or the same stored object).
    public static func == (lhs: Projection, rhs: Projection) -> Bool {
        lhs.rootObject == rhs.rootObject
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(rootObject)
    }
}
