import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// The models of sectioned values.
enum ValueSectionsModels {
    final class Holder: Object {
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var words: List<String>
        @Persisted var wordSet: MutableSet<String>
        @Persisted var numbers: List<Int?>
        @Persisted var flags: List<Bool>
    }

    static func realm(_ name: String = #function) throws -> (Realm, Holder) {
        var configuration = temporaryConfiguration(name)
        configuration.objectTypes = [Holder.self]
        let realm = try Realm(configuration: configuration)
        let holder = Holder(value: [
            "id": 1, "words": ["banana", "box", "apple", "chalk"], "wordSet": ["banana", "box", "apple", "chalk"],
            "numbers": [12, nil, 3, 15, 7, nil], "flags": [true, false, true],
        ])
        try realm.write { try realm.add(holder) }
        return (realm, holder)
    }
}

/// Sectioned results of values, as RealmSwift's "sectioned results on primitives"
/// (`SectionedResultsTests`' primitive suites): a list's, a set's or results' values sorted by
/// themselves and divided by a key block, live, frozen, thawed and streamed.
@Suite(.temporaryDirectory) struct ValueSectionsTests {
    private typealias Holder = ValueSectionsModels.Holder

    private static let initial: @Sendable (String) -> String = { String($0.prefix(1)) }

    private func contents<S: Collection>(_ sections: S) -> [String: [String]] where S.Element: Collection, S.Element.Element == String {
        var contents: [String: [String]] = [:]
        for section in sections { contents[String(section.first!.prefix(1))] = Array(section) }
        return contents
    }

    @Test func aListASetResultsAndAnyRealmCollectionSectionTheirValues() throws {
        let (_, holder) = try ValueSectionsModels.realm()
        for ascending in [true, false] {
            let expected = ascending ? ["a", "b", "c"] : ["c", "b", "a"]
            let fromList = holder.words.sectioned(by: Self.initial, ascending: ascending)
            let fromSet = holder.wordSet.sectioned(by: Self.initial, ascending: ascending)
            let fromResults = holder.words.where { $0 != "" }.sectioned(by: Self.initial, ascending: ascending)
            let fromAny = AnyRealmCollection(holder.words).sectioned(by: Self.initial, ascending: ascending)
            for sections in [fromList, fromSet, fromResults, fromAny] {
                #expect(sections.allKeys == expected)
                #expect(sections.map(\.key) == expected)
                #expect(Array(sections[1]) == (ascending ? ["banana", "box"] : ["box", "banana"]))
                #expect(sections[IndexPath(item: 0, section: 0)] == (ascending ? "apple" : "chalk"))
                #expect(!sections.isFrozen)
            }
        }
        let bySortDescriptor = holder.words.sectioned(sortDescriptors: [SortDescriptor(keyPath: "self", ascending: false)], Self.initial)
        #expect(bySortDescriptor.allKeys == ["c", "b", "a"])
    }

    @Test func optionalAndBoolValuesSection() throws {
        let (_, holder) = try ValueSectionsModels.realm()
        let byTens = holder.numbers.sectioned(by: { $0.map { $0 / 10 } })
        #expect(byTens.allKeys == [nil, 0, 1], "nil sorts first, in a section of its own")
        #expect(byTens.map { Array($0) } == [[nil, nil], [3, 7], [12, 15]])
        let descending = holder.numbers.sectioned(by: { $0.map { $0 / 10 } }, ascending: false)
        #expect(descending.allKeys == [1, 0, nil])
        let flags = holder.flags.sectioned(by: { $0 })
        #expect(flags.allKeys == [false, true] && flags.map(\.count) == [1, 2])
    }

    @Test func sectionsFollowTheCollection() throws {
        let (realm, holder) = try ValueSectionsModels.realm()
        let sections = holder.words.sectioned(by: Self.initial)
        let bSection = sections[1]
        #expect(Array(bSection) == ["banana", "box"])
        try realm.write {
            holder.words.append("dog")
            holder.words.append("bee")
            holder.words.remove(at: 2)  // apple
        }
        #expect(sections.allKeys == ["b", "c", "d"])
        #expect(Array(bSection) == ["banana", "bee", "box"], "a section follows its key")
        #expect(contents(sections) == ["b": ["banana", "bee", "box"], "c": ["chalk"], "d": ["dog"]])
    }

    @Test func sectionsOfObjectsWithoutASortFailInsteadOfTrapping() throws {
        let (realm, _) = try ValueSectionsModels.realm()
        let objects = realm.objects(Holder.self).sectioned(by: { $0.id }, ascending: true)
        #expect(objects.isEmpty && objects.description.contains("failed"), "objects do not sort by themselves")
        #expect(throws: RealmError.self) { try objects.freeze() }
    }

    @Test func frozenSectionsKeepTheirVersionAndThaw() async throws {
        let (realm, holder) = try ValueSectionsModels.realm()
        let sections = holder.words.sectioned(by: Self.initial)
        let frozen = try sections.freeze()
        let frozenSection = try sections[1].freeze()
        try realm.write { holder.words.append("cat") }
        #expect(frozen.isFrozen && frozen.allKeys == ["a", "b", "c"])
        #expect(Array(frozen[2]) == ["chalk"] && Array(frozenSection) == ["banana", "box"])
        #expect(frozen[IndexPath(item: 1, section: 1)] == "box")
        let read = await Task.detached { frozen.map { Array($0) } }.value
        #expect(read == [["apple"], ["banana", "box"], ["chalk"]])

        let thawed = try #require(realm.thaw(frozen))
        #expect(!thawed.isFrozen && Array(thawed[2]) == ["cat", "chalk"], "the thawed sections are live")
        #expect(try frozen.thaw()?.allKeys == ["a", "b", "c"])
        #expect(try frozenSection.thaw().map { Array($0) } == ["banana", "box"])
        try realm.write { try realm.delete(holder) }
        #expect(realm.thaw(frozen) == nil)
        #expect(try frozenSection.thaw() == nil)
    }

    @Test func aFrozenCollectionSections() throws {
        // RealmSwift's testFrozenFromParentCollection: sectioning a frozen collection gives
        // frozen sections, which thaw into live ones.
        let (realm, holder) = try ValueSectionsModels.realm()
        let frozenList = try holder.words.freeze()
        try realm.write { holder.words.removeAll() }
        let sections = frozenList.sectioned(by: Self.initial, ascending: false)
        #expect(sections.isFrozen && sections.allKeys == ["c", "b", "a"])
        #expect(frozenList.sorted().sectioned(by: Self.initial).count == 3)
        let thawed = try #require(realm.thaw(sections))
        #expect(thawed.isEmpty, "the live list is empty now")
    }

    @Test func changesReportSectionsAndValues() async throws {
        let (realm, holder) = try ValueSectionsModels.realm()
        let sections = holder.words.sectioned(by: Self.initial)
        let stream = sections.changes().makeAsyncIterator()
        let bStream = sections[1].changes().makeAsyncIterator()
        guard case .initial(let first)? = await next(stream), case .initial(let firstB)? = await next(bStream) else {
            Issue.record("no initial elements")
            return
        }
        #expect(first.allKeys == ["a", "b", "c"] && Array(firstB) == ["banana", "box"])

        try realm.write { holder.words.append("dog") }
        guard case .update(let after, let deletions, let insertions, let modifications, let inserted, let deleted)? = await next(stream) else {
            Issue.record("expected an update")
            return
        }
        #expect(after.allKeys == ["a", "b", "c", "d"])
        #expect(deletions.isEmpty && modifications.isEmpty && deleted.isEmpty)
        #expect(insertions == [IndexPath(item: 0, section: 3)] && Array(inserted) == [3])

        try realm.write { holder.words.append("bee") }
        guard case .update(let bAfter, let bDeletions, let bInsertions, _, _, _)? = await next(bStream) else {
            Issue.record("expected an update of section b")
            return
        }
        #expect(Array(bAfter) == ["banana", "bee", "box"] && bDeletions.isEmpty && bInsertions == [IndexPath(item: 1, section: 1)])
        guard case .update(_, _, let wholeInsertions, _, _, _)? = await next(stream) else {
            Issue.record("expected an update")
            return
        }
        #expect(wholeInsertions == [IndexPath(item: 1, section: 1)])

        try realm.write { holder.words.remove(at: holder.words.firstIndex(of: "apple")!) }
        guard case .update(let noA, let removed, _, _, _, let sectionsGone)? = await next(stream) else {
            Issue.record("expected an update")
            return
        }
        #expect(noA.allKeys == ["b", "c", "d"] && Array(sectionsGone) == [0] && removed.isEmpty, "a deleted section's values are not listed")
    }

    @Test func aListOfObjectsSectionsByAKeyPathDirectly() throws {
        // RealmSwift's collections section as results do: the key path form, not the block
        // form of values, for objects.
        let realm = try fruitRealm()
        let word = realm.object(ofType: SectionTestModels.Word.self, forPrimaryKey: 1)!
        try realm.write { word.related.append(objectsIn: realm.objects(SectionTestModels.Word.self)) }
        let sections = word.related.sectioned(by: \.firstLetter, ascending: false)
        #expect(texts(sections) == [["chalk"], ["box", "banana"], ["apple"]], "sorted by text, largest first")
        let byCount = word.related.sectioned(by: \.count, sortDescriptors: [SortDescriptor(keyPath: "count"), "text"])
        #expect(byCount.count == 1 && byCount[0].map(\.text) == ["apple", "banana", "box", "chalk"])
    }

    @Test func aStreamOfSectionedValuesInsideAWriteYieldsItsError() async throws {
        let (realm, holder) = try ValueSectionsModels.realm()
        var stream: ChangeStream<SectionedResultsChange<FrozenSectionedValueResults<String, String>>>?
        try realm.write { stream = holder.words.sectioned(by: Self.initial).changes() }
        guard case .error(let error)? = await next(try #require(stream).makeAsyncIterator()) else {
            Issue.record("expected the error")
            return
        }
        #expect(error.code == .wrongState)
    }
}
