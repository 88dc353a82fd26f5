import BurrowStore

#if canImport(SwiftUI)
import SwiftUI
#endif

/// Bindings to a property of an object or projection: reading reads the property (its last
/// value once the object is deleted), assigning writes it in one quick write on the object's
/// realm (a plain assignment while the object is unmanaged), as RealmSwift's bindings do.
@MainActor
enum PropertyBinding {
    /// A binding to `keyPath` of `object`; a failed write is reported to `reporter`.
    static func make<T: AnyObject, V>(
        _ object: T, _ keyPath: ReferenceWritableKeyPath<T, V>, realm: @escaping (T) -> Realm?, isInvalidated: @escaping (T) -> Bool,
        skipsEqual: ((V, V) -> Bool)? = nil, reporter: ObservedStorage?
    ) -> Binding<V> {
        var last = object[keyPath: keyPath]
        return Binding.quick(
            get: {
                guard !isInvalidated(object) else { return last }
                last = object[keyPath: keyPath]
                return last
            },
            set: { newValue in
                guard !isInvalidated(object) else { return }
                if let skipsEqual, skipsEqual(object[keyPath: keyPath], newValue) { return }
                QuickWrite.perform(in: realm(object), silencing: reporter?.followedToken, reportingTo: reporter) {
                    try QuickWrite.requireValid(isInvalidated(object), "\(T.self)")
                    object[keyPath: keyPath] = newValue
                }
            }, reporter: reporter)
    }

    static func make<T: ObjectBase, V>(_ object: T, _ keyPath: ReferenceWritableKeyPath<T, V>, reporter: ObservedStorage?) -> Binding<V> {
        make(object, keyPath, realm: { $0.realm }, isInvalidated: { $0.isInvalidated }, reporter: reporter)
    }

    static func make<T: ObjectBase, V: Equatable>(_ object: T, _ keyPath: ReferenceWritableKeyPath<T, V>, reporter: ObservedStorage?) -> Binding<V> {
        make(object, keyPath, realm: { $0.realm }, isInvalidated: { $0.isInvalidated }, skipsEqual: { $0 == $1 }, reporter: reporter)
    }
}

#if !canImport(SwiftUI)
extension Binding {
    /// A binding whose quick writes report to `reporter`.
    static func quick(get: @escaping () -> Value, set: @escaping (Value) -> Void, reporter: ObservedStorage?) -> Binding<Value> {
        Binding(get: get, set: set, reporter: reporter)
    }
}
#endif

extension Binding where Value: ObjectBase {
    /// A binding to the property `member` of the bound object: assigning it writes the
    /// property in one quick write (`$dog.name` of `@StateRealmObject var dog`).
    @MainActor
    public subscript<V>(dynamicMember member: ReferenceWritableKeyPath<Value, V>) -> Binding<V> {
        PropertyBinding.make(wrappedValue, member, reporter: quickWriteReporter)
    }

    /// A binding to the equatable property `member`: assigning the value it already has
    /// writes nothing.
    @MainActor
    public subscript<V: Equatable>(dynamicMember member: ReferenceWritableKeyPath<Value, V>) -> Binding<V> {
        PropertyBinding.make(wrappedValue, member, reporter: quickWriteReporter)
    }

    /// Deletes the bound object from its realm in one quick write.
    @MainActor
    public func delete() {
        let object = wrappedValue
        QuickWrite.perform(in: object.realm, silencing: nil, reportingTo: quickWriteReporter) { try object.realm?.delete(object) }
    }
}

extension Binding {
    /// A binding to the property `member` of the bound projection: assigning it writes the
    /// root object's property in one quick write (`$card.label` of `@StateRealmObject var
    /// card`), a plain assignment while the root is unmanaged.
    @MainActor
    public subscript<Root: ObjectBase, V>(dynamicMember member: ReferenceWritableKeyPath<Value, V>) -> Binding<V> where Value: Projection<Root> {
        PropertyBinding.make(wrappedValue, member, realm: { $0.realm }, isInvalidated: { $0.isInvalidated }, reporter: quickWriteReporter)
    }

    /// A binding to the equatable property `member` of the bound projection: assigning the
    /// value it already has writes nothing.
    @MainActor
    public subscript<Root: ObjectBase, V: Equatable>(dynamicMember member: ReferenceWritableKeyPath<Value, V>) -> Binding<V>
    where Value: Projection<Root> {
        PropertyBinding.make(
            wrappedValue, member, realm: { $0.realm }, isInvalidated: { $0.isInvalidated }, skipsEqual: { $0 == $1 }, reporter: quickWriteReporter)
    }

    /// Deletes the bound projection's root object from its realm in one quick write.
    @MainActor
    public func delete<Root: ObjectBase>() where Value: Projection<Root> {
        let root = wrappedValue.rootObject
        guard !root.isInvalidated else { return }
        QuickWrite.perform(in: root.realm, silencing: quickWriteReporter?.followedToken, reportingTo: quickWriteReporter) {
            try root.realm?.delete(root)
        }
    }
}

extension ProjectionObservable {
    /// A binding to the projected property `keyPath`, for a control that takes a `Binding`
    /// (`TextField("Label", text: card.bind(\.label))`): assigning it writes the root
    /// object's property in one quick write. A failed write changes nothing and is logged
    /// (`Logger`). Main actor.
    @MainActor
    public func bind<V: Equatable>(_ keyPath: ReferenceWritableKeyPath<Self, V>) -> Binding<V> {
        PropertyBinding.make(
            self, keyPath, realm: { $0.rootObject.realm }, isInvalidated: { $0.rootObject.isInvalidated }, skipsEqual: { $0 == $1 },
            reporter: nil)
    }

    /// A binding to the projected property `keyPath`, of any type.
    @MainActor
    public func bind<V>(_ keyPath: ReferenceWritableKeyPath<Self, V>) -> Binding<V> {
        PropertyBinding.make(self, keyPath, realm: { $0.rootObject.realm }, isInvalidated: { $0.rootObject.isInvalidated }, reporter: nil)
    }
}

extension _OptionalPersistable where Self: ObjectBase {
    /// A binding to the property `keyPath` of this object, for a control that takes a
    /// `Binding` (`TextField("Name", text: dog.bind(\.name))`): assigning it writes the
    /// property in one quick write on the object's realm. A frozen object is thawed first, as
    /// in RealmSwift: the binding reads and writes its live object on the main actor. A failed
    /// write changes nothing and is logged (`Logger`). Main actor.
    @MainActor
    public func bind<V: Equatable>(_ keyPath: ReferenceWritableKeyPath<Self, V>) -> Binding<V> {
        PropertyBinding.make(thawedForBinding, keyPath, reporter: nil)
    }

    /// A binding to the collection (or other) property `keyPath` of this object (thawed first
    /// if frozen).
    @MainActor
    public func bind<V>(_ keyPath: ReferenceWritableKeyPath<Self, V>) -> Binding<V> {
        PropertyBinding.make(thawedForBinding, keyPath, reporter: nil)
    }

    /// This object, or, if it is frozen, its live object on the main actor (itself if that
    /// cannot be had: deleted since, whose writes then fail and are reported).
    @MainActor
    private var thawedForBinding: Self {
        guard isFrozen else { return self }
        return ((try? thaw(isolation: MainActor.shared)) ?? nil) ?? self
    }
}
