import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// Frozen sectioned results and sections: they keep their version, cross to other tasks, and
/// thaw into live ones.
@Suite(.temporaryDirectory) struct FrozenSectionedResultsTests {
    @MainActor
    @Test func frozenSectionsKeepTheirVersionAndThawIntoTheLiveOnes() throws {
        let realm = try fruitRealm()
        let words = realm.objects(SectionTestModels.Word.self)
        for (ascending, newText) in [(true, "dune"), (false, "echo")] {
            let live = words.sectioned(by: \.firstLetter, ascending: ascending)
            let frozen = try live.freeze()
            let before = frozen.allKeys
            try realm.write { try realm.add(SectionTestModels.Word(words.count + 1, newText)) }
            let newKey = String(newText.first!)
            #expect(frozen.isFrozen && !frozen.isInvalidated)
            #expect(frozen.allKeys == before && frozen.map(\.key) == before, "later writes do not change it")
            #expect(frozen.versionNumber < realm.version)
            let thawed = try frozen.thaw()
            #expect(!thawed.isFrozen)
            #expect(thawed.allKeys == (ascending ? before + [newKey] : [newKey] + before), "the live sections, with the new key")
            #expect(thawed.realm === realm, "thawed into the main actor's realm")
            #expect(realm.thaw(frozen)?.allKeys == thawed.allKeys)
        }
    }

    @Test func aFrozenSectionKeepsItsObjectsAndThawsIntoItsKeysLiveSection() throws {
        let realm = try fruitRealm()
        for (ascending, key) in [(true, "a"), (false, "c")] {
            let frozen = try realm.objects(SectionTestModels.Word.self).sectioned(by: \.firstLetter, ascending: ascending)[0].freeze()
            try realm.write { try realm.add(SectionTestModels.Word(realm.objects(SectionTestModels.Word.self).count + 1, key + "zz")) }
            #expect(frozen.isFrozen && frozen.key == key && frozen.id == key && frozen.count == 1 && !frozen.isInvalidated)
            let thawed = try frozen.thaw()
            #expect(thawed?.isFrozen == false && thawed?.key == key && thawed?.count == 2)
        }
        let c = try realm.objects(SectionTestModels.Word.self).sectioned(by: \.firstLetter).last!.freeze()
        try realm.write { try realm.delete(realm.objects(SectionTestModels.Word.self).where { $0.text.starts(with: "c") }) }
        #expect(try c.thaw() == nil, "no object has the key any more")
        #expect(c.map(\.text) == ["chalk", "czz"], "the frozen section still has them")
    }

    @Test func subscriptsAndIndexPathsOfFrozenSections() throws {
        let realm = try fruitRealm()
        let frozen = try realm.objects(SectionTestModels.Word.self).sectioned(by: \.firstLetter).freeze()
        #expect(frozen.count == 3 && frozen[1].count == 2)
        #expect(frozen[1][1].text == "box")
        #expect(frozen[IndexPath(item: 1, section: 1)].text == "box")
        #expect(texts(frozen) == [["apple"], ["banana", "box"], ["chalk"]])
        #expect(frozen == frozen && frozen[0] == frozen[0] && frozen[0] != frozen[1])
        #expect(frozen != (try realm.objects(SectionTestModels.Word.self).sectioned(by: \.firstLetter, ascending: false).freeze()))
        #expect(frozen.description.contains("3 sections"))
    }

    @Test func frozenSectionsAreReadFromAnotherTask() async throws {
        let realm = try fruitRealm()
        let frozen = try realm.objects(SectionTestModels.Word.self).sectioned(by: \.firstLetter).freeze()
        let section = frozen[1]
        let (keys, words, item) = await Task.detached {
            (frozen.allKeys, section.map(\.text), frozen[IndexPath(item: 0, section: 2)].text)
        }.value
        #expect(keys == ["a", "b", "c"] && words == ["banana", "box"] && item == "chalk")
        // And the frozen form sections again on the other side.
        let thawedCount = try await Task.detached { () throws -> Int in
            let realm = try Realm(configuration: realm.configuration)
            return realm.thaw(frozen)?.count ?? -1
        }.value
        #expect(thawedCount == 3)
    }

    @Test func freezingInsideAWriteThrows() throws {
        let realm = try fruitRealm()
        let sections = realm.objects(SectionTestModels.Word.self).sectioned(by: \.firstLetter)
        try realm.write {
            #expect(throws: RealmError.self) { try sections.freeze() }
            #expect(throws: RealmError.self) { try sections[0].freeze() }
        }
    }

    @Test func frozenSectionsOfAListCannotBeThawed() throws {
        let realm = try fruitRealm()
        try realm.write { realm.word(1).related.append(objectsIn: [realm.word(2), realm.word(3)]) }
        let sections = realm.word(1).related.where { $0.count == 0 }.sectioned(by: \.firstLetter)
        #expect(texts(sections) == [["apple"], ["box"]])
        let frozen = try sections.freeze()
        #expect(texts(frozen) == [["apple"], ["box"]])
        #expect(throws: RealmError.self) { try frozen.thaw() }
        #expect(realm.thaw(frozen) == nil)
    }

    @Test func aFrozenSectionOfAnotherFileDoesNotThawHere() throws {
        let frozen = try fruitRealm().objects(SectionTestModels.Word.self).sectioned(by: \.firstLetter).freeze()
        let other = try Realm(configuration: temporaryConfiguration())
        #expect(other.thaw(frozen) == nil)
    }
}
