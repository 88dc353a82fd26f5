import BurrowStore

/// What `@ObservedRealmObject` and `@StateRealmObject` show: one object, projection, `List`,
/// `MutableSet` or `Map`, unmanaged or live on the main actor, and the change stream that
/// tells of its commits once it is managed.
@MainActor
final class ObjectStorage<Value: AnyObject>: ObservedStorage {
    /// How the storage reads and follows its kind of value.
    struct Kind {
        /// The value's realm, nil while unmanaged.
        let realm: (Value) -> Realm?
        let isInvalidated: (Value) -> Bool
        /// Starts `storage` following the changes of a managed value.
        let follow: @MainActor (Value, ObjectStorage<Value>) -> Void
        /// What to show once the value is invalidated (deleted): a new unmanaged value.
        let placeholder: () -> Value
        /// The live value of a frozen one (as RealmSwift's wrappers thaw what they are given);
        /// the value itself otherwise, or if it cannot be thawed.
        var thaw: @MainActor (Value) -> Value = { $0 }
    }

    private var current: Value
    private let kind: Kind
    let keyPaths: [String]?
    private var isFollowing = false
    private lazy var placeholder = kind.placeholder()

    init(_ value: Value, kind: Kind, keyPaths: [String]? = nil) {
        current = kind.thaw(value)
        self.kind = kind
        self.keyPaths = keyPaths
    }

    /// The value as the wrapper shows it: itself, or a new unmanaged value once it was
    /// deleted. Starts following it once it is managed. A frozen value assigned is thawed, as
    /// one given to the initializer is.
    var value: Value {
        get {
            accessed()
            followIfManaged()
            return kind.isInvalidated(current) ? placeholder : current
        }
        set {
            current = kind.thaw(newValue)
            stopFollowing()
            followIfManaged()
            changed()
        }
    }

    /// The value itself, invalidated or not (what bindings and quick writes change).
    var raw: Value { current }

    /// The realm of the value, nil while it is unmanaged.
    var realm: Realm? { kind.realm(current) }

    /// Whether the value was deleted (or its realm closed).
    var isInvalidated: Bool { kind.isInvalidated(current) }

    /// The realm of `value`, a value this storage showed (nil while unmanaged).
    func realm(of value: Value) -> Realm? { kind.realm(value) }

    /// Whether `value`, a value this storage showed, was deleted (or its realm closed).
    func isInvalidated(_ value: Value) -> Bool { kind.isInvalidated(value) }

    /// Brings the value's realm to its newest version and follows the value if it became
    /// managed.
    func update() {
        if let realm = kind.realm(current) {
            do {
                if try realm.refreshIfUsable() { changed() }
            } catch {
                self.error = error
            }
        }
        followIfManaged()
    }

    /// Follows the value if it is managed; inside an open write (where a stream cannot start),
    /// once it ends.
    private func followIfManaged() {
        guard !isFollowing, let realm = kind.realm(current), !realm.isFrozen, !kind.isInvalidated(current) else { return }
        isFollowing = true
        guard !realm.isInWriteTransaction else {
            followOnceWriteEnds(realm) { [weak self] in
                self?.isFollowing = false
                self?.followIfManaged()
            }
            return
        }
        kind.follow(current, self)
    }

    override func stopFollowingHook() { isFollowing = false }
}

extension ObjectStorage.Kind where Value: ObjectBase {
    /// An object: followed through its `changes(keyPaths:)`; a new `Value()` once deleted.
    static var object: Self {
        Self(
            realm: { $0.realm }, isInvalidated: { $0.isInvalidated },
            follow: { object, storage in storage.followObject(object, keyPaths: storage.keyPaths) },
            placeholder: { Value() }, thaw: { object in ((try? object.thaw(isolation: MainActor.shared)) ?? nil) ?? object })
    }
}

extension ObjectStorage {
    /// Follows the changes of `object`: each reported change, and its deletion.
    func followObject<T: ObjectBase>(_ object: T, keyPaths: [String]?) {
        follow(object.changes(keyPaths: keyPaths), refreshing: object.realm, skipsFirst: false) { change throws(RealmError) in
            if case .error(let error) = change { throw error }
            return true
        }
    }

    /// Follows the changes of a collection, given its stream: each reported update.
    func followCollection<Change: Sendable>(_ stream: ChangeStream<Change>, realm: Realm?, isError: @escaping (Change) -> RealmError?) {
        follow(stream, refreshing: realm, skipsFirst: true) { change throws(RealmError) in
            if let error = isError(change) { throw error }
            return true
        }
    }
}

@MainActor
extension ObjectStorage.Kind {
    /// A `List`: followed through its `changes(keyPaths:)`; an empty unmanaged list once its
    /// object is deleted.
    static func list<E>() -> Self where Value == List<E> {
        collection(placeholder: { List() }, stream: { $0.changes(keyPaths: $1) }, realm: { $0.realm }, isInvalidated: { $0.isInvalidated }) {
            if case .error(let error) = $0 { return error }
            return nil
        }
    }

    /// A `MutableSet`, followed as a list is.
    static func set<E>() -> Self where Value == MutableSet<E> {
        collection(placeholder: { MutableSet() }, stream: { $0.changes(keyPaths: $1) }, realm: { $0.realm }, isInvalidated: { $0.isInvalidated }) {
            if case .error(let error) = $0 { return error }
            return nil
        }
    }

    /// A `Map`, followed as a list is.
    static func map<K, V>() -> Self where Value == Map<K, V> {
        collection(placeholder: { Map() }, stream: { $0.changes(keyPaths: $1) }, realm: { $0.realm }, isInvalidated: { $0.isInvalidated }) {
            if case .error(let error) = $0 { return error }
            return nil
        }
    }

    /// A collection followed through the change stream `stream` gives, whose elements
    /// `error` reads errors from.
    private static func collection<Change: Sendable>(
        placeholder: @escaping () -> Value, stream: @escaping (Value, [String]?) -> ChangeStream<Change>, realm: @escaping (Value) -> Realm?,
        isInvalidated: @escaping (Value) -> Bool, error: @escaping (Change) -> RealmError?
    ) -> Self {
        Self(
            realm: realm, isInvalidated: isInvalidated,
            follow: { collection, storage in
                storage.followCollection(stream(collection, storage.keyPaths), realm: realm(collection), isError: error)
            }, placeholder: placeholder)
    }

    /// A projection: followed through its root object's changes; a projection of a new
    /// unmanaged root once the root is deleted.
    static func projection<Root: ObjectBase>() -> Self where Value: Projection<Root> {
        Self(
            realm: { $0.realm }, isInvalidated: { $0.isInvalidated },
            follow: { projection, storage in storage.followObject(projection.rootObject, keyPaths: nil) },
            placeholder: { Value(projecting: Root()) })
    }
}
