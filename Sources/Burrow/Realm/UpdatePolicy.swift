import BurrowStore

/// What `add(_:update:)` and `create(_:value:update:)` do when an object with the same primary
/// key already exists.
public enum UpdatePolicy: Sendable, Hashable {
    /// Throw `RealmError` (`.primaryKeyExists`). The only policy for classes without a primary key.
    case error
    /// Update the existing object, writing only the properties whose values differ.
    ///
    /// As in RealmSwift, it changes what is stored rather than replacing it: an embedded object
    /// given where the existing object holds one updates that one in place (a list's by
    /// position, a map's by key), so instances read before stay valid and show the new values;
    /// a `Map` takes the entries given and keeps the keys not given; a `MutableSet` gains the
    /// elements given and keeps the others.
    case modified
    /// Update the existing object, writing every property given, changed or not. Embedded
    /// objects, lists, sets and maps given replace the stored ones (the old embedded objects
    /// are deleted).
    case all
}
