import BurrowStore

#if canImport(SwiftUI)
import SwiftUI

// Where SwiftUI exists, the observed wrappers are SwiftUI dynamic properties and their
// bindings are SwiftUI's own `Binding` (elsewhere Burrow's `Binding`, with the same shape, is).
// A view reads a wrapper's value in `body`, which Observation tracks, so each commit the
// wrapper reports redraws the view.

extension ObservedResults: DynamicProperty {}
extension ObservedRealmObject: DynamicProperty {}
extension StateRealmObject: DynamicProperty {}
extension ObservedSectionedResults: DynamicProperty {}

extension Binding {
    /// SwiftUI's bindings carry no wrapper: quick writes made through their Burrow methods
    /// (`$person.dogs.append`) log a failure (`Logger`) instead of reporting it on a wrapper.
    /// Property bindings made by a wrapper (`$dog.name`) report on that wrapper.
    var quickWriteReporter: ObservedStorage? { nil }

    /// A SwiftUI binding over `get` and `set`, which report on their wrapper themselves.
    static func quick(get: @escaping () -> Value, set: @escaping (Value) -> Void, reporter: ObservedStorage?) -> Binding<Value> {
        Binding(get: get, set: set)
    }
}
#endif
