import BurrowStore

/// What `add(_:update:)` and `create(_:value:update:)` do when an object with the same primary
/// key already exists.
public enum UpdatePolicy: Sendable, Hashable {
    /// Throw `RealmError` (`.primaryKeyExists`). The only policy for classes without a primary key.
    case error
    /// Update the existing object, writing only the properties whose values differ.
    case modified
    /// Update the existing object, writing every property given, changed or not.
    case all
}
