import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// The index path changes between two versions of sectioned results, worked out from the
/// sections and the change of the results underneath; and the part one section's stream sees.
@Suite(.temporaryDirectory) struct SectionedResultsDiffTests {
    private typealias Path = SectionPlace

    @Test func aChangeInOneSectionIsNothingToTheOthers() {
        // a = [0], b = [1, 2], c = [3]; the object at 0 is modified in place.
        let old = SectionLayout(sectionKeys: ["a", "b", "b", "c"])
        let diff = SectionedResultsDiff(from: old, to: old, results: CollectionDiff(modifications: [0]))
        #expect(diff.modifications == [Path(section: 0, item: 0)])
        #expect(diff.restricted(to: "b", from: old, to: old).isEmpty)
        #expect(diff.restricted(to: "a", from: old, to: old) == diff)
    }

    @Test func aSectionRestrictedDiffKeepsItsOwnSectionChanges() {
        let old = SectionLayout(sectionKeys: ["a", "b"])
        let new = SectionLayout(sectionKeys: ["b", "c"])
        // The object of a left, one of c came.
        let diff = SectionedResultsDiff(from: old, to: new, results: CollectionDiff(deletions: [0], insertions: [1]))
        #expect(diff.sectionsToDelete == [0] && diff.sectionsToInsert == [1])
        #expect(diff.deletions.isEmpty, "a's object goes with its section")
        #expect(diff.insertions == [Path(section: 1, item: 0)])
        #expect(diff.restricted(to: "b", from: old, to: new).isEmpty)
        #expect(diff.restricted(to: "a", from: old, to: new).sectionsToDelete == [0])
        #expect(diff.restricted(to: "c", from: old, to: new).insertions == [Path(section: 1, item: 0)])
    }

    @Test func sectionsInTheOrderOfTheirKeysFirstObjects() {
        let layout = SectionLayout(sectionKeys: [2, 1, 2, 3, 1])
        #expect(layout.keys == [2, 1, 3])
        #expect(layout.members == [[0, 2], [1, 4], [3]])
        #expect(layout.places.map { [$0.section, $0.item] } == [[0, 0], [1, 0], [0, 1], [2, 0], [1, 1]])
        #expect(layout.positions(of: 4) == nil)
    }
}
