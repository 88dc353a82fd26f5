import BurrowStore

#if !canImport(SwiftUI)
/// A two-way connection to a value stored elsewhere, with SwiftUI's `Binding` shape, for
/// platforms without SwiftUI: reading `wrappedValue` reads the value, assigning it writes the
/// value back. Where SwiftUI exists, Burrow's wrappers give SwiftUI's own `Binding` instead,
/// so the same code compiles on both.
///
///     @ObservedRealmObject var dog: Dog
///     let name: Binding<String> = $dog.name
///     name.wrappedValue = "Rex"                  // one write transaction on the dog's realm
///
/// A binding is not `Sendable`: the bindings Burrow makes read and write live objects, which
/// stay in the isolation domain (the main actor) of their realm.
@propertyWrapper
@dynamicMemberLookup
public struct Binding<Value> {
    private let read: () -> Value
    private let store: (Value) -> Void
    /// Where the quick writes made through this binding report a failure: the storage of the
    /// wrapper it came from, if any.
    let quickWriteReporter: ObservedStorage?

    /// A binding that reads with `get` and writes with `set`.
    public init(get: @escaping () -> Value, set: @escaping (Value) -> Void) {
        self.init(get: get, set: set, reporter: nil)
    }

    init(get: @escaping () -> Value, set: @escaping (Value) -> Void, reporter: ObservedStorage?) {
        read = get
        store = set
        quickWriteReporter = reporter
    }

    /// The binding `projectedValue` is, as SwiftUI's `@Binding var x` declares it.
    public init(projectedValue: Binding<Value>) {
        self = projectedValue
    }

    /// A binding to a value that never changes; assigning to it does nothing.
    public static func constant(_ value: Value) -> Binding<Value> {
        Binding(get: { value }, set: { _ in })
    }

    /// The value: reading reads it where it is stored, assigning writes it there.
    public var wrappedValue: Value {
        get { read() }
        nonmutating set { store(newValue) }
    }

    /// The binding itself, so that `$value` of a `@Binding var value` is the binding.
    public var projectedValue: Binding<Value> { self }

    /// A binding to the property `keyPath` of the value: reading reads the value's property,
    /// assigning assigns it and writes the changed value back through this binding.
    public subscript<Subject>(dynamicMember keyPath: WritableKeyPath<Value, Subject>) -> Binding<Subject> {
        Binding<Subject>(
            get: { self.wrappedValue[keyPath: keyPath] },
            set: { newValue in
                var value = self.wrappedValue
                value[keyPath: keyPath] = newValue
                self.wrappedValue = value
            }, reporter: quickWriteReporter)
    }
}
#endif
