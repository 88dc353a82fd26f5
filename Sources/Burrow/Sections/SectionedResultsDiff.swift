import BurrowStore

/// The changes between two versions of sectioned results, as `SectionedResultsChange.update`
/// reports them, worked out from the sections before and after and the change of the sorted
/// results underneath (whose deletions and insertions include objects that moved in the sort).
///
/// An object in both versions that did not move in the results is reported as moved (deleted at
/// its old index path, inserted at its new one) if its section key changed, or if it was
/// modified and its place in the section changed; modified in place, it is a modification at
/// its old index path. Deletions in deleted sections are left out. These are RealmSwift's rules.
struct SectionedResultsDiff: Equatable, Sendable {
    private(set) var deletions: [SectionPlace] = []
    private(set) var insertions: [SectionPlace] = []
    private(set) var modifications: [SectionPlace] = []
    private(set) var sectionsToInsert: [Int] = []
    private(set) var sectionsToDelete: [Int] = []

    var isEmpty: Bool {
        deletions.isEmpty && insertions.isEmpty && modifications.isEmpty && sectionsToInsert.isEmpty && sectionsToDelete.isEmpty
    }

    /// The changes from sections `old` to sections `new`, whose results changed by `results`:
    /// deletions at positions of the old results, insertions and modifications at positions of
    /// the new, as `CollectionDiff` reports them (empty when the results kept their objects in
    /// their order, unmodified).
    init<Key>(from old: SectionLayout<Key>, to new: SectionLayout<Key>, results: CollectionDiff) {
        sectionsToDelete = old.keys.indices.filter { new.sectionOfKey[old.keys[$0]] == nil }
        sectionsToInsert = new.keys.indices.filter { old.sectionOfKey[new.keys[$0]] == nil }
        let deletedSections = Set(sectionsToDelete)
        func delete(_ place: SectionPlace) {
            if !deletedSections.contains(place.section) { deletions.append(place) }
        }

        for position in results.deletions { delete(old.places[position]) }
        insertions = results.insertions.map { new.places[$0] }
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
                insertions.append(after)
            } else if modified.contains(newPosition) {
                modifications.append(before)
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
