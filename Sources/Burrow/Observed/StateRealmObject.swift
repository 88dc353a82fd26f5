import BurrowStore

#if canImport(SwiftUI)
import SwiftUI
#endif

/// A property wrapper that owns an object, projection, `List`, `MutableSet` or `Map`, and
/// follows its changes, as RealmSwift's `@StateRealmObject`:
///
///     @StateRealmObject var draft = Dog()             // unmanaged until added
///     $draft.name.wrappedValue = "Rex"                 // a plain assignment while unmanaged
///     @StateRealmObject var dogs = person.dogs
///     $dogs.append(Dog(value: ["name": "Maui"]))       // one write transaction once managed
///
/// It shows the value as `@ObservedRealmObject` does (a new unmanaged value once deleted) and
/// follows it once it is managed (from the first read, or `update()`, after it is added to a
/// realm). `$draft` is a `Binding` to the value: its members give bindings to properties, and
/// on a collection it makes quick writes (`append`, `remove(at:)`, `insert`,
/// `set(object:for:)`…). A failed quick write changes nothing and sets `error`.
///
/// Isolation: the main actor.
@MainActor
@propertyWrapper
public struct StateRealmObject<T: AnyObject> {
    let storage: ObjectStorage<T>

    /// Owns the list `wrappedValue`.
    public init<Value>(wrappedValue: T) where T == List<Value> {
        storage = ObjectStorage(wrappedValue, kind: .list())
    }

    /// Owns the set `wrappedValue`.
    public init<Value>(wrappedValue: T) where T == MutableSet<Value> {
        storage = ObjectStorage(wrappedValue, kind: .set())
    }

    /// Owns the map `wrappedValue`.
    public init<Key, Value>(wrappedValue: T) where T == Map<Key, Value> {
        storage = ObjectStorage(wrappedValue, kind: .map())
    }

    /// Owns the object `wrappedValue`.
    public init(wrappedValue: T) where T: ObjectBase & Identifiable {
        storage = ObjectStorage(wrappedValue, kind: .object)
    }

    /// Owns the projection `wrappedValue`.
    public init<Root: ObjectBase>(wrappedValue: T) where T: Projection<Root> {
        storage = ObjectStorage(wrappedValue, kind: .projection())
    }

    /// The value; a new unmanaged one once it is deleted. Assigning owns another value.
    public var wrappedValue: T {
        get { storage.value }
        nonmutating set { storage.value = newValue }
    }

    /// A binding to the value, for its properties' bindings and its quick writes.
    public var projectedValue: Binding<T> {
        let storage = storage
        return Binding.quick(get: { storage.value }, set: { storage.value = $0 }, reporter: storage)
    }

    /// The error of the last quick write that failed (nil once one succeeds). Observable.
    public var error: RealmError? { storage.error }

    /// Brings the value up to date, as SwiftUI's `DynamicProperty.update()` does before a view
    /// is drawn, and follows it if it became managed.
    public func update() { storage.update() }
}
