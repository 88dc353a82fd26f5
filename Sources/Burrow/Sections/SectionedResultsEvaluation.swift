import BurrowStore

/// What a live `SectionedResults` computed last, and at which change stamp of its realm: shared
/// by the sectioned results and every section taken from them, so that the section keys are
/// computed once per change of the realm, however many sections read them. Its identity is the
/// sectioned results' identity (their `==`). Confined to the realm's isolation.
final class SectionedResultsEvaluation<Key: Hashable & Sendable> {
    /// The realm's change stamp `layout` was computed at (`.max`: never computed).
    var stamp: UInt64 = .max
    var layout = SectionLayout<Key>()
}
