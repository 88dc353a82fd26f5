import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// Sectioned results of projections, as RealmSwift's `SectionedResults<Key, SomeProjection>`:
/// sectioned by a projected (or computed) property, sorted by the root property it reads, live,
/// and frozen or followed as sections of the projected objects.
@Suite(.temporaryDirectory) struct ProjectionSectionsTests {
    private typealias Card = SectionTestModels.WordCard

    @Test func aProjectedKeyPathSortsByTheRootPropertyItReads() throws {
        let realm = try fruitRealm()
        let cards = realm.objects(Card.self)
        for ascending in [true, false] {
            let byInitial = cards.sectioned(by: \.initial, ascending: ascending)
            let keys = ascending ? ["a", "b", "c"] : ["c", "b", "a"]
            #expect(byInitial.allKeys == keys)
            let titles = byInitial.map { $0.map(\.title) }
            #expect(titles == (ascending ? [["apple"], ["banana", "box"], ["chalk"]] : [["chalk"], ["box", "banana"], ["apple"]]))
            let section: ResultsSection<String, Card> = byInitial[1]
            #expect(section.key == "b" && section.id == "b")
            let card: Card = byInitial[IndexPath(item: 1, section: 1)]
            #expect(card.rootObject.isSameObject(as: realm.word(ascending ? 2 : 1)))
        }
        let byTitle = cards.sectioned(by: \.title)
        #expect(byTitle.allKeys == ["apple", "banana", "box", "chalk"])
        #expect(cards.sorted(by: \.title, ascending: false).map(\.title) == ["chalk", "box", "banana", "apple"])
    }

    /// `ProjectionObservable` names a projection's root class in generic code, as in RealmSwift.
    @Test func genericCodeNamesTheRootThroughProjectionObservable() throws {
        func rootTexts<P: ProjectionObservable>(_ projections: some Sequence<P>) -> [String] where P.Root == SectionTestModels.Word {
            projections.map(\.rootObject.text)
        }
        let realm = try fruitRealm()
        let cards = realm.objects(Card.self).sorted(byKeyPath: "text")
        #expect(rootTexts(cards) == ["apple", "banana", "box", "chalk"])
        let made = Card(projecting: realm.word(4))
        #expect(rootTexts([made]) == ["chalk"])
    }

    @Test func sortDescriptorsAndBlocksNameTheRootsProperties() throws {
        let realm = try fruitRealm()
        let cards = realm.objects(Card.self)
        let sorted = cards.sectioned(by: \.initial, sortDescriptors: [SortDescriptor(keyPath: "text", ascending: false)])
        #expect(sorted.allKeys == ["c", "b", "a"])
        let byBlock = cards.sectioned(sortDescriptors: [SortDescriptor(keyPath: "text")]) { String($0.title.suffix(1)) }
        #expect(byBlock.allKeys == ["e", "a", "x", "k"], "keys in the order of their first card by text")
        #expect(try cards.filter("text BEGINSWITH 'b'").sectioned(by: \.initial).map(\.count) == [2])

        let wrongPrimary = cards.sectioned(by: \.initial, sortDescriptors: [SortDescriptor(keyPath: "count")])
        #expect(wrongPrimary.isEmpty)
        #expect(wrongPrimary.description.contains("'text'"), "names the root property the key path reads: \(wrongPrimary)")
        let throughAList = cards.sectioned(by: \.relatedCount)
        #expect(throughAList.isEmpty && throughAList.description.contains("failed"), "\(throughAList)")
    }

    @Test func projectionSectionsAreLive() throws {
        let realm = try fruitRealm()
        let byInitial = realm.objects(Card.self).sectioned(by: \.initial)
        let b = byInitial[1]
        try realm.write {
            try realm.add(SectionTestModels.Word(5, "avocado"))
            try realm.delete(realm.word(4))
            byInitial[1][0].title = "bandana"
        }
        #expect(byInitial.allKeys == ["a", "b"])
        #expect(b.map(\.title) == ["bandana", "box"], "assigning a projected property writes the root's")
        #expect(realm.word(1).text == "bandana")
        #expect(byInitial[0].map(\.title) == ["apple", "avocado"])
        var iterated: [String] = []
        for section in byInitial { iterated += section.map(\.title) }
        #expect(iterated == ["apple", "avocado", "bandana", "box"])
    }

    @Test func freezingGivesTheSectionsOfTheProjectedObjects() async throws {
        let realm = try fruitRealm()
        let byInitial = realm.objects(Card.self).sectioned(by: \.initial)
        let frozen: FrozenSectionedResults<String, SectionTestModels.Word> = try byInitial.freeze()
        let section: FrozenResultsSection<String, SectionTestModels.Word> = try byInitial[1].freeze()
        try realm.write { try realm.add(SectionTestModels.Word(5, "dog")) }
        #expect(texts(frozen) == [["apple"], ["banana", "box"], ["chalk"]], "later writes do not change it")
        #expect(section.key == "b" && section.map(\.text) == ["banana", "box"])
        let titles = await Task.detached {
            frozen.map { $0.map { Card(projecting: $0.frozenObject).title } }
        }.value
        #expect(titles == [["apple"], ["banana", "box"], ["chalk"]], "frozen objects project on any task")
        let thawed = try frozen.thaw()
        #expect(thawed.allKeys == ["a", "b", "c", "d"], "thawed as sections of the live objects")

        let cards = realm.objects(Card.self).sorted(byKeyPath: "text")
        let frozenCards: FrozenResults<SectionTestModels.Word> = try cards.freeze()
        try realm.write { try realm.delete(realm.word(5)) }
        #expect(frozenCards.map(\.text) == ["apple", "banana", "box", "chalk", "dog"])
        try realm.write {
            #expect(throws: RealmError.self) { try byInitial.freeze() }
            #expect(throws: RealmError.self) { try cards.freeze() }
        }
    }

    @Test func changeStreamsOfProjectionSections() async throws {
        let realm = try fruitRealm()
        let byInitial = realm.objects(Card.self).sectioned(by: \.initial)
        let all = byInitial.changes(keyPaths: ["text"]).makeAsyncIterator()
        let b = byInitial[1].changes().makeAsyncIterator()
        let objects = realm.objects(SectionTestModels.Word.self).sectioned(by: \.firstLetter)
        let allObjects = objects.changes(keyPaths: ["text"]).makeAsyncIterator()
        let bObjects = objects[1].changes().makeAsyncIterator()
        #expect(initial(await next(all))?.allKeys == ["a", "b", "c"])
        #expect(initial(await next(b))?.map(\.text) == ["banana", "box"])
        _ = await next(allObjects)
        _ = await next(bObjects)

        try realm.write {
            realm.word(3).text = "bird"  // apple leaves a (deleting it) for b
            realm.word(4).count = 2  // not an observed key path of `all`
        }
        guard let (sections, change) = update(await next(all)), let (_, objectsChange) = update(await next(allObjects)) else { return }
        #expect(texts(sections) == [["banana", "bird", "box"], ["chalk"]])
        #expect(change == objectsChange, "the changes the sections of the objects report")
        #expect(change.sectionsToDelete == [0] && change.modifications.isEmpty)
        guard let (section, sectionChange) = update(await next(b)), let (_, bObjectsChange) = update(await next(bObjects)) else { return }
        #expect(section.map(\.text) == ["banana", "bird", "box"])
        #expect(sectionChange == bObjectsChange)
        #expect(sectionChange.insertions.contains(path(0, 1)))

        let failed = realm.objects(Card.self).sectioned(by: \.initial, sortDescriptors: []).changes().makeAsyncIterator()
        guard case .error(let error)? = await next(failed) else {
            Issue.record("sections that could not be made yield their error")
            return
        }
        #expect(error.code == .invalidArgument)
    }

    @Test func changeStreamsOfResultsOfProjections() async throws {
        let realm = try fruitRealm()
        let cards = realm.objects(Card.self).sorted(byKeyPath: "text")
        let changes = cards.changes(keyPaths: ["count"]).makeAsyncIterator()
        guard case .initial(let first)? = await next(changes) else {
            Issue.record("expected the initial results")
            return
        }
        #expect(first.map(\.text) == ["apple", "banana", "box", "chalk"])
        try realm.write { realm.word(2).count = 3 }
        guard case .update(let results, let deletions, let insertions, let modifications)? = await next(changes) else {
            Issue.record("expected an update")
            return
        }
        #expect(results.map(\.count) == [0, 0, 3, 0])
        #expect(deletions.isEmpty && insertions.isEmpty && modifications == [2])
    }
}
