import BurrowStore

#if canImport(SwiftUI)
import SwiftUI
#endif

/// A property wrapper that shows one object (or projection, or `List`) of the main actor's
/// realm and follows its changes, as RealmSwift's `@ObservedRealmObject`:
///
///     @ObservedRealmObject var dog: Dog
///     TextField("Favorite toy", text: $dog.favoriteToy)    // setting it writes
///     $person.dogs.append(dog)                             // one write transaction
///     $dog.delete()
///
/// Reading the value registers with Observation (`withObservationTracking`, SwiftUI); each
/// commit that changes the object, from any actor, is reported once the main actor takes it
/// in, and the object's realm then reads the newest version. Once the object is deleted, the
/// wrapper shows a new unmanaged object instead (RealmSwift's default value). An unmanaged
/// object is shown as it is, and followed from the first read after it is added to a realm.
///
/// `$dog` gives bindings to the object's properties (`$dog.name`), whose assignments are
/// quick writes: a failed one changes nothing and sets `$dog.error`.
///
/// Isolation: the main actor.
@MainActor
@propertyWrapper
public struct ObservedRealmObject<ObjectType: AnyObject> {
    let storage: ObjectStorage<ObjectType>

    /// Observes `wrappedValue`, an object of the main actor's realm or an unmanaged one.
    public init(wrappedValue: ObjectType) where ObjectType: ObjectBase & Identifiable {
        storage = ObjectStorage(wrappedValue, kind: .object)
    }

    /// Observes the list `wrappedValue`.
    public init<V>(wrappedValue: ObjectType) where ObjectType == List<V> {
        storage = ObjectStorage(wrappedValue, kind: .list())
    }

    /// Observes the projection `wrappedValue` (its root object's changes).
    public init<Root: ObjectBase>(wrappedValue: ObjectType) where ObjectType: Projection<Root> {
        storage = ObjectStorage(wrappedValue, kind: .projection())
    }

    /// The object; a new unmanaged one once it is deleted. Assigning observes another object.
    public var wrappedValue: ObjectType {
        get { storage.value }
        nonmutating set { storage.value = newValue }
    }

    /// Bindings to the object's properties (`$dog.name`), its quick writes and `error`; once
    /// the object is deleted, bindings to the new unmanaged object the wrapper shows.
    public var projectedValue: Wrapper { Wrapper(wrappedValue: storage.isInvalidated ? storage.value : storage.raw, storage: storage) }

    /// The error of the last quick write that failed (nil once one succeeds). Observable.
    public var error: RealmError? { storage.error }

    /// Brings the object up to date, as SwiftUI's `DynamicProperty.update()` does before a
    /// view is drawn, and follows it if it became managed.
    public func update() { storage.update() }

    /// What `$object` gives: bindings to the object's properties, by dynamic member lookup.
    @MainActor
    @dynamicMemberLookup
    public struct Wrapper {
        /// The object.
        public var wrappedValue: ObjectType
        let storage: ObjectStorage<ObjectType>

        /// A binding to the property `keyPath`: assigning it writes the property in one quick
        /// write on the object's realm.
        public subscript<Subject>(dynamicMember keyPath: ReferenceWritableKeyPath<ObjectType, Subject>) -> Binding<Subject> {
            PropertyBinding.make(wrappedValue, keyPath, realm: realmOf, isInvalidated: isInvalidated, reporter: storage)
        }

        /// A binding to the equatable property `keyPath`: assigning the value it already has
        /// writes nothing.
        public subscript<Subject: Equatable>(dynamicMember keyPath: ReferenceWritableKeyPath<ObjectType, Subject>) -> Binding<Subject> {
            PropertyBinding.make(wrappedValue, keyPath, realm: realmOf, isInvalidated: isInvalidated, skipsEqual: { $0 == $1 }, reporter: storage)
        }

        /// The error of the last quick write that failed (nil once one succeeds). Observable.
        public var error: RealmError? { storage.error }

        /// The realm of the bound object itself: a binding kept after the wrapper was given
        /// another object still writes the object it was made for, in that object's realm.
        private var realmOf: (ObjectType) -> Realm? {
            let storage = storage
            return { storage.realm(of: $0) }
        }

        private var isInvalidated: (ObjectType) -> Bool {
            let storage = storage
            return { storage.isInvalidated($0) }
        }
    }
}

extension ObservedRealmObject.Wrapper where ObjectType: ObjectBase {
    /// Deletes the object from its realm in one quick write.
    public func delete() {
        let object = wrappedValue
        guard !object.isInvalidated else { return }
        storage.quickWrite(in: object.realm) { try object.realm?.delete(object) }
    }
}
