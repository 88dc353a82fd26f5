import BurrowStore
import Foundation

#if canImport(SwiftUI)
import SwiftUI
#endif

/// Quick writes through a binding to a `List` (`$person.dogs` of `@ObservedRealmObject`, or
/// `$list` of `@StateRealmObject`): each one write transaction on the list's realm, or a plain
/// change of an unmanaged list. A failure changes nothing and is reported on the wrapper the
/// binding came from.
extension Binding {
    /// Runs `change` on the bound value as one quick write.
    @MainActor
    func quickWrite(realm: Realm?, _ change: () throws -> Void) {
        QuickWrite.perform(in: realm, silencing: quickWriteReporter?.followedToken, reportingTo: quickWriteReporter, change)
    }
}

extension Binding {
    /// Appends `element`; an unmanaged object appended to a managed list becomes managed.
    @MainActor
    public func append<E>(_ element: E) where Value == List<E> {
        let list = wrappedValue
        quickWrite(realm: list.realm) {
            try QuickWrite.requireValid(list.isInvalidated, "object holding the \(Value.self)")
            list.append(try QuickWrite.thawingFrozen(element, into: list.realm))
        }
    }

    /// Appends the live object of `frozen`, thawed into the list's realm.
    @MainActor
    public func append<E: ObjectBase>(_ frozen: Frozen<E>) where Value == List<E> {
        append(frozen.frozenObject)
    }

    /// Removes the element at `index`; an index out of bounds changes nothing and is reported.
    @MainActor
    public func remove<E>(at index: Int) where Value == List<E> {
        let list = wrappedValue
        quickWrite(realm: list.realm) {
            try QuickWrite.requireValid(list.isInvalidated, "object holding the \(Value.self)")
            try QuickWriteOffsets.check(index, count: list.count)
            list.remove(at: index)
        }
    }

    /// Removes the elements at `offsets`, as `.onDelete(perform: $person.dogs.remove)` asks.
    @MainActor
    public func remove<E>(atOffsets offsets: IndexSet) where Value == List<E> {
        let list = wrappedValue
        quickWrite(realm: list.realm) {
            try QuickWrite.requireValid(list.isInvalidated, "object holding the \(Value.self)")
            try QuickWriteOffsets.check(offsets, count: list.count)
            list.remove(atOffsets: offsets)
        }
    }

    /// Moves the elements at `offsets` to just before `destination`, keeping their order, as
    /// `.onMove(perform: $person.dogs.move)` asks. The elements themselves move: embedded
    /// objects stay the same objects.
    @MainActor
    public func move<E>(fromOffsets offsets: IndexSet, toOffset destination: Int) where Value == List<E> {
        let list = wrappedValue
        quickWrite(realm: list.realm) {
            try QuickWrite.requireValid(list.isInvalidated, "object holding the \(Value.self)")
            try QuickWriteOffsets.check(offsets, count: list.count, allowingEnd: destination)
            list.move(fromOffsets: offsets, toOffset: destination)
        }
    }
}

/// Quick writes through a binding to a `MutableSet`.
extension Binding {
    /// Inserts `element`; an unmanaged object inserted into a managed set becomes managed.
    @MainActor
    public func insert<E>(_ element: E) where Value == MutableSet<E> {
        let set = wrappedValue
        quickWrite(realm: set.realm) { set.insert(try QuickWrite.thawingFrozen(element, into: set.realm)) }
    }

    /// Inserts the live object of `frozen`, thawed into the set's realm.
    @MainActor
    public func insert<E: ObjectBase>(_ frozen: Frozen<E>) where Value == MutableSet<E> {
        insert(frozen.frozenObject)
    }

    /// Removes `element`, if the set has it.
    @MainActor
    public func remove<E>(_ element: E) where Value == MutableSet<E> {
        let set = wrappedValue
        quickWrite(realm: set.realm) { set.remove(try QuickWrite.thawingFrozen(element, into: set.realm)) }
    }

    /// Removes the live object of `frozen`, if the set has it.
    @MainActor
    public func remove<E: ObjectBase>(_ frozen: Frozen<E>) where Value == MutableSet<E> {
        remove(frozen.frozenObject)
    }
}

/// Quick writes through a binding to a `Map`, as RealmSwift's `BoundMap`.
extension Binding {
    /// The value for `key`, or nil.
    @MainActor
    public subscript<K, V>(key: K) -> V? where Value == Map<K, V> {
        wrappedValue[key]
    }

    /// Sets `key` to `object`, or removes `key` if `object` is nil; an unmanaged object set
    /// in a managed map becomes managed.
    @MainActor
    public func set<K, V>(object: V?, for key: K) where Value == Map<K, V> {
        let map = wrappedValue
        quickWrite(realm: map.realm) {
            if let object { map[key] = try QuickWrite.thawingFrozen(object, into: map.realm) } else { map.removeObject(for: key) }
        }
    }

    /// Sets `key` to the live object of `frozen`, thawed into the map's realm.
    @MainActor
    public func set<K, V: ObjectBase>(object frozen: Frozen<V>, for key: K) where Value == Map<K, V?> {
        set(object: .some(frozen.frozenObject), for: key)
    }

    /// Removes `key` and its value, if the map has it.
    @MainActor
    public func remove<K, V>(key: K) where Value == Map<K, V> {
        let map = wrappedValue
        quickWrite(realm: map.realm) { map.removeObject(for: key) }
    }
}
