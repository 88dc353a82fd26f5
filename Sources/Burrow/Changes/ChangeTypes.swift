import BurrowStore

/// Names one change stream, so that a write can leave it silent:
///
///     let stream = puppies.changes()
///     try realm.write(withoutNotifying: [stream.token]) { … }
public struct ChangeToken: Sendable, Hashable, CustomStringConvertible {
    let id: UInt64

    public var description: String { "ChangeToken(\(id))" }
}

/// What a collection change stream yields: the collection as it first was, then each change,
/// with the collection after it.
///
/// In `.update`, `deletions` are indices in the previous collection, `insertions` and
/// `modifications` indices in the new one. An object that moved within a sorted collection is
/// reported as deleted at its old index and inserted at its new one.
public enum RealmCollectionChange<Collection: Sendable>: Sendable {
    case initial(Collection)
    case update(Collection, deletions: [Int], insertions: [Int], modifications: [Int])
    case error(RealmError)
}

/// A collection of values under string keys (`Map`, `FrozenMap`): what names a map change's keys.
public protocol RealmKeyedCollection {
    associatedtype Key: _MapKey
    associatedtype Value
}

/// What a map's change stream yields: the map as it first was, then each change, with the map
/// after it and the keys removed, added, and whose value (or object) changed.
public enum RealmMapChange<Collection: RealmKeyedCollection & Sendable>: Sendable {
    case initial(Collection)
    case update(Collection, deletions: [Collection.Key], insertions: [Collection.Key], modifications: [Collection.Key])
    case error(RealmError)
}

/// One property of an object that changed: its name, and its value before and after (frozen
/// objects for links; nil for nil, for collections, and where the old value is not known).
public struct PropertyChange: Sendable, CustomStringConvertible {
    public let name: String
    public let oldValue: (any Sendable)?
    public let newValue: (any Sendable)?

    public var description: String {
        "\(name): \(oldValue.map { "\($0)" } ?? "nil") → \(newValue.map { "\($0)" } ?? "nil")"
    }
}

/// What an object's change stream yields: the object after each change with the properties
/// that changed, or that it was deleted (the stream's last element).
public enum ObjectChange<T: Sendable>: Sendable {
    case change(T, [PropertyChange])
    case deleted
    case error(RealmError)
}
