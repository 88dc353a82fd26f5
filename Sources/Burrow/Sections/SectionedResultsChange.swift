import BurrowStore
import Foundation

/// What a change stream of sectioned results (or of one section) yields, as RealmSwift's
/// `SectionedResultsChange`: the sectioned results as they first were, then each change, with
/// the sectioned results after it.
///
/// In `.update`, as RealmSwift reports them (and as a table or collection view applies batch
/// updates): `deletions`, `modifications` and `sectionsToDelete` are positions in the previous
/// sectioned results; `insertions` and `sectionsToInsert` are positions in the new ones. Index
/// paths are (section, item) and each array is in ascending order. Objects of a deleted section
/// are not listed in `deletions` (deleting the section removes them); objects of an inserted
/// section are listed in `insertions`. An object that moved (to another section, or within its
/// section because of a change it was modified by) is deleted at its old index path and
/// inserted at its new one.
public enum SectionedResultsChange<Collection: Sendable>: Sendable {
    /// The first element: the sections as they were when the stream was made.
    case initial(Collection)
    /// A change committed since the last element, with the sections after it.
    case update(
        Collection, deletions: [IndexPath], insertions: [IndexPath], modifications: [IndexPath],
        sectionsToInsert: IndexSet, sectionsToDelete: IndexSet)
    /// The stream could not start (it was made inside a write transaction, or of sectioned
    /// results that could not be made or observed); it is the stream's only element.
    case error(RealmError)
}

/// RealmSwift's former name of `SectionedResultsChange`.
@available(*, deprecated, renamed: "SectionedResultsChange")
public typealias RealmSectionedResultsChange = SectionedResultsChange
