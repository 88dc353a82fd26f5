import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// What an `.update` of a sectioned results or section stream says, for comparing.
struct SectionUpdate: Equatable, CustomStringConvertible {
    var deletions: [IndexPath] = []
    var insertions: [IndexPath] = []
    var modifications: [IndexPath] = []
    var sectionsToInsert: [Int] = []
    var sectionsToDelete: [Int] = []

    var description: String {
        "del \(deletions.map { [$0[0], $0[1]] }) ins \(insertions.map { [$0[0], $0[1]] }) mod \(modifications.map { [$0[0], $0[1]] }) +sec \(sectionsToInsert) -sec \(sectionsToDelete)"
    }
}

/// The collection and the changes of `change`, or a recorded issue if it is not an update.
func update<C>(_ change: SectionedResultsChange<C>?, sourceLocation: SourceLocation = #_sourceLocation) -> (C, SectionUpdate)? {
    guard case .update(let collection, let deletions, let insertions, let modifications, let sectionsToInsert, let sectionsToDelete)? = change else {
        Issue.record("expected an update, got \(String(describing: change))", sourceLocation: sourceLocation)
        return nil
    }
    return (
        collection,
        SectionUpdate(
            deletions: deletions, insertions: insertions, modifications: modifications,
            sectionsToInsert: Array(sectionsToInsert), sectionsToDelete: Array(sectionsToDelete))
    )
}

/// The collection of an `.initial` element, or a recorded issue.
func initial<C>(_ change: SectionedResultsChange<C>?, sourceLocation: SourceLocation = #_sourceLocation) -> C? {
    guard case .initial(let collection)? = change else {
        Issue.record("expected the initial element, got \(String(describing: change))", sourceLocation: sourceLocation)
        return nil
    }
    return collection
}

/// Change streams of sectioned results and of sections: index paths and section changes as
/// RealmSwift reports them, key path filters, silent writes and errors.
@Suite(.temporaryDirectory) struct SectionedResultsChangeTests {
    @Test func objectsLeavingMovingAndArrivingAcrossSections() async throws {
        let realm = try fruitRealm()
        let changes = realm.objects(SectionTestModels.Word.self).sectioned(by: \.firstLetter).changes(keyPaths: ["text"]).makeAsyncIterator()
        #expect(initial(await next(changes))?.count == 3)

        try realm.write {
            try realm.delete([realm.word(1), realm.word(3)])  // banana, apple: section a goes
            realm.word(2).text = "bog"  // box: modified, moves to item 0 of b
            try realm.add(SectionTestModels.Word(5, "zebra"))  // a new section z
        }
        guard let (sections, first) = update(await next(changes)) else { return }
        #expect(texts(sections) == [["bog"], ["chalk"], ["zebra"]])
        #expect(
            first
                == SectionUpdate(
                    deletions: [path(1, 0), path(1, 1)], insertions: [path(0, 0), path(2, 0)], modifications: [],
                    sectionsToInsert: [2], sectionsToDelete: [0]),
            "apple's deletion is the deletion of its section; bog is deleted and inserted; zebra is listed in its new section")

        try realm.write {
            realm.word(2).text = "bogg"  // stays at (0, 0)
            realm.word(4).count = 1  // not an observed key path
        }
        guard let (_, second) = update(await next(changes)) else { return }
        #expect(second == SectionUpdate(modifications: [path(0, 0)]))
    }

    @Test func aModificationIsReportedAtItsIndexPathBeforeTheChange() async throws {
        let realm = try fruitRealm()
        let changes = realm.objects(SectionTestModels.Word.self).sectioned(by: \.firstLetter).changes().makeAsyncIterator()
        _ = await next(changes)
        try realm.write {
            try realm.delete(realm.word(3))  // apple: section a (0) goes, chalk's section moves from 2 to 1
            realm.word(4).count = 7
        }
        guard let (sections, seen) = update(await next(changes)) else { return }
        #expect(sections.allKeys == ["b", "c"])
        #expect(seen == SectionUpdate(modifications: [path(2, 0)], sectionsToDelete: [0]), "as in RealmSwift and UIKit's batch updates")
    }

    @Test func aSectionKeyChangeMovesTheObjectEvenWhenTheSortOrderStays() async throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        try realm.write {
            try realm.add([
                SectionTestModels.Word(1, "banana", count: 1), SectionTestModels.Word(2, "box", count: 2),
                SectionTestModels.Word(3, "apple", count: 3), SectionTestModels.Word(4, "chalk", count: 4),
            ])
        }
        // Sorted by count, keyed by first letter; only `flag` counts as a modification.
        let sections = realm.objects(SectionTestModels.Word.self).sectioned(sortDescriptors: [SortDescriptor(keyPath: "count")]) { $0.firstLetter }
        #expect(texts(sections) == [["banana", "box"], ["apple"], ["chalk"]])
        let changes = sections.changes(keyPaths: ["flag"]).makeAsyncIterator()
        _ = await next(changes)
        try realm.write { realm.word(3).text = "cherry" }
        guard let (after, seen) = update(await next(changes)) else { return }
        #expect(texts(after) == [["banana", "box"], ["cherry", "chalk"]])
        #expect(seen == SectionUpdate(insertions: [path(1, 0)], sectionsToDelete: [1]))
    }

    @Test func sectionStreamsReportOnlyTheirSection() async throws {
        let realm = try fruitRealm()
        let sections = realm.objects(SectionTestModels.Word.self).sectioned(by: \.firstLetter)
        let a = sections[0].changes(keyPaths: ["text"]).makeAsyncIterator()
        let b = sections[1].changes(keyPaths: ["text"]).makeAsyncIterator()
        #expect(initial(await next(a))?.map(\.text) == ["apple"])
        #expect(initial(await next(b))?.map(\.text) == ["banana", "box"])

        try realm.write { try realm.delete([realm.word(1), realm.word(3)]) }  // banana, apple
        guard let (aGone, aFirst) = update(await next(a)), let (bLeft, bFirst) = update(await next(b)) else { return }
        #expect(aFirst == SectionUpdate(sectionsToDelete: [0]))
        #expect(aGone.isEmpty && aGone.isInvalidated && aGone.key == "a")
        #expect(bFirst == SectionUpdate(deletions: [path(1, 0)]))
        #expect(bLeft.map(\.text) == ["box"])

        try realm.write {
            realm.word(2).text = "bog"  // box moves behind bag
            try realm.add(SectionTestModels.Word(5, "bag"))
        }
        guard let (bNow, bSecond) = update(await next(b)) else { return }
        #expect(bNow.map(\.text) == ["bag", "bog"])
        #expect(bSecond == SectionUpdate(deletions: [path(0, 0)], insertions: [path(0, 0), path(0, 1)]))

        try realm.write { try realm.add(SectionTestModels.Word(6, "app")) }  // a comes back; b is untouched
        guard let (aBack, aSecond) = update(await next(a)) else { return }
        #expect(aSecond == SectionUpdate(insertions: [path(0, 0)], sectionsToInsert: [0]))
        #expect(aBack.map(\.text) == ["app"] && !aBack.isInvalidated)

        try realm.write { realm.word(5).text = "bagel" }
        guard let (_, bThird) = update(await next(b)) else { return }
        // b read nothing since before a came back: both commits come as one element, with the
        // modification at bag's index path before them (b was section 0 then).
        #expect(bThird == SectionUpdate(modifications: [path(0, 0)]))
    }

    @Test func aSectionStreamWithKeyPathsIgnoresOtherProperties() async throws {
        let realm = try fruitRealm()
        let a = realm.objects(SectionTestModels.Word.self).sectioned(by: \.firstLetter)[0].changes(keyPaths: ["flag"]).makeAsyncIterator()
        _ = await next(a)
        try realm.write { realm.word(3).count = 123 }  // apple, not observed
        try realm.write { realm.word(3).count = 456 }
        try realm.write { realm.word(1).flag = true }  // banana: another section
        try realm.write { realm.word(3).flag = true }
        guard let (section, seen) = update(await next(a)) else { return }
        #expect(seen == SectionUpdate(modifications: [path(0, 0)]))
        #expect(section.first?.flag == true && section.first?.count == 456)
    }

    @Test func keyPathsLimitModificationsButNotMovesBetweenSections() async throws {
        let realm = try fruitRealm()
        let changes = realm.objects(SectionTestModels.Word.self).sectioned(by: \.firstLetter).changes(keyPaths: ["flag"]).makeAsyncIterator()
        _ = await next(changes)

        try realm.write { realm.word(3).text = "box" }  // apple leaves a for b
        guard let (moved, first) = update(await next(changes)) else { return }
        #expect(texts(moved) == [["banana", "box", "box"], ["chalk"]])
        #expect(first == SectionUpdate(insertions: [path(0, 2)], sectionsToDelete: [0]))

        try realm.write { realm.word(3).count = 9 }  // not observed
        try realm.write { realm.word(3).text = "box" }  // the same value: it stays where it is
        try realm.write { realm.word(3).flag = true }  // observed
        guard let (_, second) = update(await next(changes)) else { return }
        #expect(second == SectionUpdate(modifications: [path(0, 2)]), "the first element after the ignored commits")
    }

    @Test func aSilencedWriteProducesNoElementAndBecomesTheBaseline() async throws {
        let realm = try fruitRealm()
        let sections = realm.objects(SectionTestModels.Word.self).sectioned(by: \.firstLetter)
        let silenced = sections.changes()
        let quiet = silenced.makeAsyncIterator()
        let loud = sections.changes().makeAsyncIterator()
        let section = sections[1].changes()
        let quietSection = section.makeAsyncIterator()
        _ = await next(quiet)
        _ = await next(loud)
        _ = await next(quietSection)

        try realm.write(withoutNotifying: [silenced.token, section.token]) { try realm.delete(realm.objects(SectionTestModels.Word.self)) }
        guard let (empty, everything) = update(await next(loud)) else { return }
        #expect(empty.isEmpty)
        #expect(everything == SectionUpdate(sectionsToDelete: [0, 1, 2]))

        try realm.write { try realm.add([SectionTestModels.Word(5, "zebra"), SectionTestModels.Word(6, "bee")]) }
        guard let (now, seen) = update(await next(quiet)) else { return }
        #expect(now.allKeys == ["b", "z"])
        #expect(seen == SectionUpdate(insertions: [path(0, 0), path(1, 0)], sectionsToInsert: [0, 1]), "relative to the silenced commit")
        guard let (b, bSeen) = update(await next(quietSection)) else { return }
        #expect(b.map(\.text) == ["bee"])
        #expect(bSeen == SectionUpdate(insertions: [path(0, 0)], sectionsToInsert: [0]), "b was deleted silently; it comes back")
    }

    @Test func aStreamMadeInsideAWriteYieldsAnError() async throws {
        let realm = try fruitRealm()
        let sections = realm.objects(SectionTestModels.Word.self).sectioned(by: \.firstLetter)
        var streams: [ChangeStream<SectionedResultsChange<FrozenSectionedResults<String, SectionTestModels.Word>>>] = []
        var sectionStreams: [ChangeStream<SectionedResultsChange<FrozenResultsSection<String, SectionTestModels.Word>>>] = []
        try realm.write {
            streams.append(sections.changes())
            sectionStreams.append(sections[0].changes())
        }
        var iterator = streams[0].makeAsyncIterator()
        guard case .error(let error)? = await iterator.next() else {
            Issue.record("no error")
            return
        }
        #expect(error.code == .wrongState)
        #expect(await iterator.next() == nil)
        var sectionIterator = sectionStreams[0].makeAsyncIterator()
        guard case .error? = await sectionIterator.next() else {
            Issue.record("no error")
            return
        }
    }

    @Test func aStreamOfAnInvalidatedRealmsSectionsFollowsItsFile() async throws {
        let realm = try fruitRealm()
        let sections = realm.objects(SectionTestModels.Word.self).sectioned(by: \.firstLetter)
        _ = sections.count
        realm.invalidate()
        let changes = sections.changes().makeAsyncIterator()
        #expect(initial(await next(changes))?.allKeys == ["a", "b", "c"])
        try realm.write { try realm.add(SectionTestModels.Word(5, "dune")) }
        #expect(update(await next(changes))?.1 == SectionUpdate(insertions: [path(3, 0)], sectionsToInsert: [3]))
    }
}
