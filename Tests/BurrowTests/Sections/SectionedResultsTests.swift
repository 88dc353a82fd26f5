import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// Live sectioned results: how objects fall into sections, the order of sections and of
/// objects in them, subscripts, following the realm, identity, and what a bad sectioning does.
@Suite(.temporaryDirectory) struct SectionedResultsTests {
    @Test func sectionsComeInTheOrderOfThePrimarySortEitherWay() throws {
        let realm = try fruitRealm()
        let words = realm.objects(SectionTestModels.Word.self)
        for ascending in [true, false] {
            let expected = ascending ? [["apple"], ["banana", "box"], ["chalk"]] : [["chalk"], ["box", "banana"], ["apple"]]
            let byKeyPath = words.sectioned(by: \.firstLetter, ascending: ascending)
            #expect(byKeyPath.count == 3)
            #expect(byKeyPath.map(\.key) == (ascending ? ["a", "b", "c"] : ["c", "b", "a"]))
            #expect(texts(byKeyPath) == expected)

            let descriptors = [SortDescriptor(keyPath: "text", ascending: ascending)]
            let byKeyPathAndSort = words.sectioned(by: \.firstLetter, sortDescriptors: descriptors)
            #expect(texts(byKeyPathAndSort) == expected)
            let byBlock = words.sectioned(by: { String($0.text.first!) }, sortDescriptors: descriptors)
            #expect(texts(byBlock) == expected)
            let byTrailingBlock = words.sectioned(sortDescriptors: descriptors) { $0.firstLetter }
            #expect(byTrailingBlock.allKeys == byKeyPath.allKeys)
        }
    }

    @Test func laterSortDescriptorsOrderTheObjectsOfASection() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        try realm.write {
            try realm.add([
                SectionTestModels.Word(1, "b", count: 2), SectionTestModels.Word(2, "a", count: 1), SectionTestModels.Word(3, "c", count: 2),
                SectionTestModels.Word(4, "d", count: 1),
            ])
        }
        let byCount = realm.objects(SectionTestModels.Word.self).sectioned(
            by: \.count, sortDescriptors: [SortDescriptor(keyPath: "count", ascending: false), SortDescriptor(keyPath: "text", ascending: false)])
        #expect(byCount.allKeys == [2, 1])
        #expect(texts(byCount) == [["c", "b"], ["d", "a"]])
        let byFlag = realm.objects(SectionTestModels.Word.self).sectioned(by: \.flag)
        #expect(byFlag.allKeys == [false])
        #expect(byFlag[0].count == 4)
    }

    @Test func sectioningKeepsTheQueryOfTheResults() throws {
        let realm = try fruitRealm()
        let sections = realm.objects(SectionTestModels.Word.self).where { $0.text != "box" }.sectioned(by: \.firstLetter)
        #expect(texts(sections) == [["apple"], ["banana"], ["chalk"]])
    }

    @Test func allKeysSubscriptsAndIndexPaths() throws {
        let realm = try fruitRealm()
        let sections = realm.objects(SectionTestModels.Word.self).sectioned(by: \.firstLetter, ascending: true)
        #expect(sections.allKeys == ["a", "b", "c"])
        let first = sections[0]
        #expect(first.key == "a" && first.id == "a" && first.count == 1)
        #expect(first[0].text == "apple")
        #expect(sections[IndexPath(item: 0, section: 0)].text == "apple")
        #expect(sections[path(1, 1)].text == "box")
        #expect(sections[IndexPath(indexes: [2, 0])].text == "chalk")
        #expect(sections.realm === realm && first.realm === realm)
        #expect(!sections.isFrozen && !sections.isInvalidated && !first.isFrozen && !first.isInvalidated)
        #expect(sections.description.contains("3 sections"))
    }

    @Test func sectionsAppearAndDisappearAsTheRealmChanges() throws {
        let realm = try fruitRealm()
        let sections = realm.objects(SectionTestModels.Word.self).sectioned(by: \.firstLetter)
        let a = sections[0]
        #expect(a.count == 1)

        try realm.write { try realm.add(SectionTestModels.Word(5, "zebra")) }
        #expect(sections.allKeys == ["a", "b", "c", "z"], "a new key makes a new section")

        try realm.write { try realm.delete(realm.word(3)) }
        #expect(sections.allKeys == ["b", "c", "z"], "the section of the last object with a key goes")
        #expect(a.isEmpty && a.isInvalidated, "a section held from before is empty while its key has no object")

        try realm.write {
            try realm.add(SectionTestModels.Word(6, "avocado"))
            #expect(sections.allKeys == ["a", "b", "c", "z"], "inside the write, the sections see its changes")
        }
        #expect(a.map(\.text) == ["avocado"] && !a.isInvalidated, "the held section follows its key back")

        try realm.write { realm.word(2).text = "cello" }
        #expect(texts(sections) == [["avocado"], ["banana"], ["cello", "chalk"], ["zebra"]], "an object moves to its new key's section")
    }

    @Test func loopsVisitTheSectionsAndObjectsThereWereWhenTheyBegan() throws {
        let realm = try fruitRealm()
        let sections = realm.objects(SectionTestModels.Word.self).sectioned(by: \.firstLetter)
        var seen: [String] = []
        try realm.write {
            for section in sections {
                seen.append(section.key)
                if section.key == "a" { try realm.add(SectionTestModels.Word(5, "dune")) }  // a section after c
            }
        }
        #expect(seen == ["a", "b", "c"] && sections.allKeys == ["a", "b", "c", "d"])

        var visited: [String] = []
        var invalidated = 0
        try realm.write {
            for word in sections[1] {
                if word.isInvalidated {
                    invalidated += 1
                    continue
                }
                visited.append(word.text)
                try realm.delete(realm.objects(SectionTestModels.Word.self).where { $0.text.starts(with: "b") })
            }
        }
        #expect(visited == ["banana"] && invalidated == 1, "box was deleted before the loop reached it")
        #expect(sections.allKeys == ["a", "c", "d"])
    }

    @Test func objectsWithOneKeyShareASectionEvenWhenTheSortSeparatesThem() throws {
        let realm = try fruitRealm()
        // Sorted by text, keyed by length parity: the sort does not decide the key.
        let sections = realm.objects(SectionTestModels.Word.self).sectioned(sortDescriptors: [SortDescriptor(keyPath: "text")]) { $0.text.count % 2 }
        #expect(sections.allKeys == [1, 0], "keys in the order of their first objects: apple (5), banana (6)")
        #expect(texts(sections) == [["apple", "box", "chalk"], ["banana"]])
    }

    @Test func equalityIsIdentityOfOneSectioning() throws {
        let realm = try fruitRealm()
        let words = realm.objects(SectionTestModels.Word.self)
        let sections = words.sectioned(by: \.firstLetter)
        let copy = sections
        #expect(sections == sections && sections == copy)
        #expect(sections != words.sectioned(by: \.firstLetter), "two sectionings are two sectioned results, as in RealmSwift")
        #expect(sections[0] == copy[0] && sections[0] != sections[1])
        #expect(sections[0] != words.sectioned(by: \.firstLetter)[0])
    }

    @Test func sectionsAreIdentifiableByKey() throws {
        let realm = try fruitRealm()
        let sections = realm.objects(SectionTestModels.Word.self).sectioned(by: \.firstLetter)
        func ids<S: Sequence>(_ sections: S) -> [String] where S.Element: Identifiable, S.Element.ID == String { sections.map(\.id) }
        #expect(ids(sections) == ["a", "b", "c"])
        #expect(ids(try sections.freeze()) == ["a", "b", "c"])
    }

    @Test func sectionsOfAFrozenRealmAreFrozen() throws {
        let realm = try fruitRealm()
        let frozenRealm = try realm.freeze()
        let sections = frozenRealm.objects(SectionTestModels.Word.self).sectioned(by: \.firstLetter)
        try realm.write { try realm.add(SectionTestModels.Word(5, "zebra")) }
        #expect(sections.isFrozen && sections[0].isFrozen)
        #expect(sections.allKeys == ["a", "b", "c"])
    }

    // MARK: Sectionings that cannot work

    /// Sectioned results that failed: no sections, the error from `freeze()` and `changes()`.
    private func expectFailure(
        _ sections: SectionedResults<some Hashable & Sendable, SectionTestModels.Word>, _ message: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        #expect(sections.isEmpty && sections.allKeys.isEmpty, sourceLocation: sourceLocation)
        #expect(sections.description.contains("failed"), sourceLocation: sourceLocation)
        do {
            _ = try sections.freeze()
            Issue.record("freeze() did not throw", sourceLocation: sourceLocation)
        } catch let error as RealmError {
            #expect(error.code == .invalidArgument && error.description.contains(message), "\(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
        }
        var changes = sections.changes().makeAsyncIterator()
        guard case .error(let error)? = await changes.next() else {
            Issue.record("the stream did not yield the error", sourceLocation: sourceLocation)
            return
        }
        #expect(error.description.contains(message), sourceLocation: sourceLocation)
        #expect(await changes.next() == nil, "the stream ends", sourceLocation: sourceLocation)
    }

    @Test func aSectioningWithoutSortDescriptorsFailsWithoutTrapping() async throws {
        let realm = try fruitRealm()
        await expectFailure(realm.objects(SectionTestModels.Word.self).sectioned(sortDescriptors: []) { $0.firstLetter }, "without a sort descriptor")
        await expectFailure(realm.objects(SectionTestModels.Word.self).sectioned(by: \.firstLetter, sortDescriptors: []), "without a sort descriptor")
    }

    @Test func aSectionKeyPathThatIsNotThePrimarySortFailsWithoutTrapping() async throws {
        let realm = try fruitRealm()
        let sections = realm.objects(SectionTestModels.Word.self).sectioned(
            by: \.firstLetter, sortDescriptors: [SortDescriptor(keyPath: "count"), SortDescriptor(keyPath: "text")])
        await expectFailure(sections, "must match the primary sort descriptor")
    }

    @Test func aKeyPathNoSortCanUseFailsWithoutTrapping() async throws {
        let realm = try fruitRealm()
        await expectFailure(realm.objects(SectionTestModels.Word.self).sectioned(by: \.textAndCount), "does not read one @Persisted property")
        await expectFailure(realm.objects(SectionTestModels.Word.self).sectioned(by: \.tags.count), "tags")
        await expectFailure(
            realm.objects(SectionTestModels.Word.self).sectioned(sortDescriptors: [SortDescriptor(keyPath: "nope")]) { $0.text }, "nope")
        await expectFailure(
            realm.objects(SectionTestModels.Word.self).sectioned(sortDescriptors: [SortDescriptor(keyPath: "tags")]) { $0.text }, "tags")
    }

    @Test func sectionedResultsOfAnInvalidatedRealmSayItAndDoNotTrap() throws {
        let realm = try fruitRealm()
        let byBlock = realm.objects(SectionTestModels.Word.self).sectioned(sortDescriptors: [SortDescriptor(keyPath: "text")]) {
            $0.text.first.map(String.init) ?? ""
        }
        let byKeyPath = realm.objects(SectionTestModels.Word.self).sectioned(by: \.firstLetter)
        #expect(byBlock.count == 3 && byKeyPath.count == 3)
        let section = byBlock[1]
        realm.invalidate()
        #expect(byBlock.isInvalidated && byKeyPath.isInvalidated && section.isInvalidated)
        // Reading them again computes the keys from objects of the realm's new version, never
        // from the invalidated objects read before.
        #expect(byBlock.allKeys == ["a", "b", "c"] && byKeyPath.allKeys == ["a", "b", "c"])
        #expect(section.map(\.text) == ["banana", "box"])
        let fresh = realm.objects(SectionTestModels.Word.self).sectioned(by: \.firstLetter)
        #expect(!fresh.isInvalidated && fresh.count == 3)
    }

    @MainActor
    @Test func onTheMainActorSectionsAreLiveAndTheirStreamRunsInATask() async throws {
        let config = temporaryConfiguration()
        let realm = try fruitRealm(config)
        let sections = realm.objects(SectionTestModels.Word.self).sectioned(by: \.firstLetter)
        #expect(sections.allKeys == ["a", "b", "c"])
        let stream = sections.changes()
        let reader = Task {
            var keys: [[String]] = []
            for await change in stream {
                switch change {
                case .initial(let frozen): keys.append(frozen.allKeys)
                case .update(let frozen, _, _, _, _, _): keys.append(frozen.allKeys)
                case .error(let error): Issue.record("\(error)")
                }
                if keys.count == 2 { break }
            }
            return keys
        }
        let db = try await RealmActor(configuration: config)
        try await db.asyncWrite { realm in try realm.add(SectionTestModels.Word(5, "zebra")) }
        #expect(await reader.value == [["a", "b", "c"], ["a", "b", "c", "z"]], "a commit of another actor arrives")
        realm.refresh()
        #expect(sections.allKeys == ["a", "b", "c", "z"])
    }
}
