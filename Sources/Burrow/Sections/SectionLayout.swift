import BurrowStorage
import BurrowStore

/// How the objects of sorted results fall into sections: the section keys in the order they
/// first appear in the results, the positions (in the results) of each section's objects in
/// result order, and the place of each position in its section. Live, frozen and observed
/// sectioned results all compute it the same way, from the section key of each object.
///
/// Sections follow the first appearance of their key, as RealmSwift's do, so when the primary
/// sort decides the section key (as it must), sections come in that sort's order. Objects with
/// one key belong to one section even if the sort does not keep them together.
struct SectionLayout<Key: Hashable & Sendable>: Sendable, Equatable {
    typealias Place = SectionPlace

    /// The section keys, in section order.
    private(set) var keys: [Key] = []
    /// The positions in the results of each section's objects, in result order.
    private(set) var members: [[Int]] = []
    /// The section of each key.
    private(set) var sectionOfKey: [Key: Int] = [:]
    /// The place of each position of the results.
    private(set) var places: [Place] = []

    /// No sections.
    init() {}

    /// The sections of results whose objects, in result order, have `sectionKeys`.
    init(sectionKeys: some Sequence<Key>) {
        for (position, key) in sectionKeys.enumerated() {
            if let section = sectionOfKey[key] {
                places.append(Place(section: section, item: members[section].count))
                members[section].append(position)
            } else {
                let section = keys.count
                sectionOfKey[key] = section
                keys.append(key)
                members.append([position])
                places.append(Place(section: section, item: 0))
            }
        }
    }

    /// The positions in the results of the objects with `key`, or nil if none has it.
    func positions(of key: Key) -> [Int]? {
        sectionOfKey[key].map { members[$0] }
    }

    /// The key of the section at `position`; traps out of bounds.
    func key(at position: Int) -> Key {
        precondition(position >= 0 && position < keys.count, "Index \(position) is out of bounds (the sectioned results have \(keys.count) sections)")
        return keys[position]
    }

    /// The position in the results of item `item` of the section of `key`, whose positions
    /// are `positions` (its elements are `noun`s); traps out of bounds.
    static func position(of item: Int, in positions: [Int], section key: Key, _ noun: String) -> Int {
        precondition(
            item >= 0 && item < positions.count, "Index \(item) is out of bounds (the section \(key) has \(counted(positions.count, noun)))")
        return positions[item]
    }
}

/// Where an object of sectioned results is: its section, and its item in that section (an index
/// path's two indices). Ordered by section, then item.
struct SectionPlace: Hashable, Comparable, Sendable {
    let section: Int
    let item: Int

    static func < (a: SectionPlace, b: SectionPlace) -> Bool { (a.section, a.item) < (b.section, b.item) }
}
