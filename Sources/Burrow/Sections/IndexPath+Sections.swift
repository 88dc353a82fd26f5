import BurrowStore
import Foundation

#if !canImport(Darwin)
/// The section and item of an index path, as UIKit and AppKit add them on Apple platforms, so
/// that code indexing `SectionedResults` with `IndexPath(item:section:)` compiles everywhere.
/// An index path of sectioned results is (section, item).
extension IndexPath {
    /// The index path of item `item` in section `section`.
    public init(item: Int, section: Int) {
        self.init(indexes: [section, item])
    }

    /// The index path of row `row` in section `section` (a table view's name for `item`).
    public init(row: Int, section: Int) {
        self.init(indexes: [section, row])
    }

    /// The section: the first index. Traps if the index path has fewer than two indices.
    public var section: Int {
        get { self[0] }
        set { self[0] = newValue }
    }

    /// The item in the section: the second index. Traps if the index path has fewer than two.
    public var item: Int {
        get { self[1] }
        set { self[1] = newValue }
    }

    /// The row in the section: the second index, as `item`.
    public var row: Int {
        get { self[1] }
        set { self[1] = newValue }
    }
}
#endif

extension IndexPath {
    /// The (section, item) of an index path of sectioned results; traps for a path of another
    /// length.
    var sectionedPlace: (section: Int, item: Int) {
        precondition(count == 2, "An index path of sectioned results has two indices (section, item), not \(count)")
        return (self[0], self[1])
    }
}
