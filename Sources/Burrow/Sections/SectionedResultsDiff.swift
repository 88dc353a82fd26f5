/// The changes between two versions of sectioned results, as `SectionedResultsChange.update`
/// reports them, worked out from the sections before and after and the change of the sorted
/// results underneath (whose deletions and insertions include objects that moved in the sort).
///
/// An object in both versions that did not move in the results is reported as moved (deleted at
/// its old index path, inserted at its new one) if its section key changed, or if it was
/// modified and its place in the section changed; modified in place, it is a modification at
/// its old index path. Deletions in deleted sections are left out. These are RealmSwift's rules.
struct SectionedResultsDiff: Equatable, Sendable {
    private(set) var deletions: [Path] = []
    private(set) var insertions: [Path] = []
    private(set) var modifications: [Path] = []
    private(set) var sectionsToInsert: [Int] = []
    private(set) var sectionsToDelete: [Int] = []

    /// A (section, item) index path.
    struct Path: Hashable, Comparable, Sendable {
        let section: Int
        let item: Int

        static func < (a: Path, b: Path) -> Bool { (a.section, a.item) < (b.section, b.item) }
    }

    var isEmpty: Bool {
        deletions.isEmpty && insertions.isEmpty && modifications.isEmpty && sectionsToInsert.isEmpty && sectionsToDelete.isEmpty
    }

    /// The changes from sections `old` to sections `new`, whose results changed by `results`
    /// (deletions at positions of the old results, insertions and modifications at positions of
    /// the new; a results change that moved nothing is empty).
    init<Key>(from old: SectionLayout<Key>, to new: SectionLayout<Key>, results: CollectionDiff) {
        sectionsToDelete = old.keys.indices.filter { new.sectionOfKey[old.keys[$0]] == nil }
        sectionsToInsert = new.keys.indices.filter { old.sectionOfKey[new.keys[$0]] == nil }
        let deletedSections = Set(sectionsToDelete)
        func delete(_ place: SectionLayout<Key>.Place) {
            if !deletedSections.contains(place.section) { deletions.append(Path(section: place.section, item: place.item)) }
        }
        func insert(_ place: SectionLayout<Key>.Place) { insertions.append(Path(section: place.section, item: place.item)) }

        for position in results.deletions { delete(old.places[position]) }
        for position in results.insertions { insert(new.places[position]) }
        // The objects in both that kept their order: the old positions not deleted match, in
        // order, the new positions not inserted.
        let modified = Set(results.modifications)
        let deleted = Set(results.deletions)
        let inserted = Set(results.insertions)
        var newPosition = 0
        for oldPosition in old.places.indices where !deleted.contains(oldPosition) {
            while inserted.contains(newPosition) { newPosition += 1 }
            guard newPosition < new.places.count else { break }
            let before = old.places[oldPosition]
            let after = new.places[newPosition]
            let sameSection = old.keys[before.section] == new.keys[after.section]
            if !sameSection || (modified.contains(newPosition) && before.item != after.item) {
                delete(before)
                insert(after)
            } else if modified.contains(newPosition) {
                modifications.append(Path(section: before.section, item: before.item))
            }
            newPosition += 1
        }
        deletions.sort()
        insertions.sort()
        modifications.sort()
    }

    /// The part of these changes about the section of `key`, as a section's change stream
    /// reports them: its objects' deletions and modifications if it was a section before, its
    /// insertions if it is one after, and its own insertion or deletion.
    func restricted<Key>(to key: Key, from old: SectionLayout<Key>, to new: SectionLayout<Key>) -> SectionedResultsDiff {
        var part = SectionedResultsDiff()
        if let section = old.sectionOfKey[key] {
            part.deletions = deletions.filter { $0.section == section }
            part.modifications = modifications.filter { $0.section == section }
            part.sectionsToDelete = sectionsToDelete.filter { $0 == section }
        }
        if let section = new.sectionOfKey[key] {
            part.insertions = insertions.filter { $0.section == section }
            part.sectionsToInsert = sectionsToInsert.filter { $0 == section }
        }
        return part
    }

    private init() {}
}
