import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// Random writes against a dictionary model: each element of a sectioned results stream must
/// show the model's sections, and its changes must turn the previous element's sections into
/// them the way a table view applies batch updates.
@Suite(.temporaryDirectory) struct SectionedResultsChangeModelTests {
    /// Sections as (key, object ids).
    private typealias Sections = [(key: String, ids: [Int])]

    private static func sections(of frozen: FrozenSectionedResults<String, SectionTestModels.Word>) -> Sections {
        frozen.map { ($0.key, $0.map(\.id)) }
    }

    /// The model's sections: sorted by text then id, by first letter.
    private static func sections(of model: [Int: String]) -> Sections {
        var result: Sections = []
        for (id, text) in model.sorted(by: { ($0.value, $0.key) < ($1.value, $1.key) }) {
            let key = String(text.first!)
            if result.last?.key == key { result[result.count - 1].ids.append(id) } else { result.append((key, [id])) }
        }
        return result
    }

    /// Checks that `change` turns `old` into `new`, and reports every object of `modified` that
    /// is in both, as a modification or a move.
    private static func check(_ change: SectionUpdate, from old: Sections, to new: Sections, modified: Set<Int>, _ context: String) {
        let deletedSections = Set(change.sectionsToDelete)
        let insertedSections = Set(change.sectionsToInsert)
        #expect(deletedSections.allSatisfy(old.indices.contains) && insertedSections.allSatisfy(new.indices.contains), "\(context)")
        #expect(
            change.deletions.allSatisfy { old.indices.contains($0[0]) && !deletedSections.contains($0[0]) && old[$0[0]].ids.indices.contains($0[1]) },
            "\(context)")
        #expect(
            change.modifications.allSatisfy {
                old.indices.contains($0[0]) && old[$0[0]].ids.indices.contains($0[1]) && !change.deletions.contains($0)
            }, "\(context)")
        #expect(change.insertions.allSatisfy { new.indices.contains($0[0]) && new[$0[0]].ids.indices.contains($0[1]) }, "\(context)")
        for section in insertedSections {
            #expect(
                Set(change.insertions.filter { $0[0] == section }.map { $0[1] }) == Set(new[section].ids.indices),
                "every object of an inserted section is inserted: \(context)")
        }
        let keptOld = old.indices.filter { !deletedSections.contains($0) }
        let keptNew = new.indices.filter { !insertedSections.contains($0) }
        #expect(keptOld.map { old[$0].key } == keptNew.map { new[$0].key }, "sections keep their order: \(context)")
        for (o, n) in zip(keptOld, keptNew) {
            let remaining = old[o].ids.indices.filter { !change.deletions.contains(IndexPath(indexes: [o, $0])) }.map { old[o].ids[$0] }
            let existing = new[n].ids.indices.filter { !change.insertions.contains(IndexPath(indexes: [n, $0])) }.map { new[n].ids[$0] }
            #expect(remaining == existing, "section \(old[o].key): \(context)")
        }
        func place(_ id: Int, in sections: Sections) -> IndexPath? {
            for (s, section) in sections.enumerated() { if let i = section.ids.firstIndex(of: id) { return IndexPath(indexes: [s, i]) } }
            return nil
        }
        for id in modified {
            guard let before = place(id, in: old), let after = place(id, in: new) else { continue }
            let moved = (change.deletions.contains(before) || deletedSections.contains(before[0])) && change.insertions.contains(after)
            #expect(change.modifications.contains(before) || moved, "object \(id) modified: \(context)")
        }
        #expect(change.modifications.allSatisfy { modified.contains(old[$0[0]].ids[$0[1]]) }, "only modified objects: \(context)")
    }

    @Test func sectionedStreamsFollowRandomWrites() async throws {
        let rounds = TestEnvironment.count("BURROW_MODEL_OPS", default: 120)
        let seed = TestSeed.make("SectionedResultsChangeModelTests, \(rounds) rounds (BURROW_MODEL_OPS sets the rounds)")
        var random = TestRandom(seed: seed)
        let realm = try Realm(configuration: temporaryConfiguration())
        let sections = realm.objects(SectionTestModels.Word.self).sectioned(
            by: \.firstLetter, sortDescriptors: [SortDescriptor(keyPath: "text"), SortDescriptor(keyPath: "id")])
        let changes = sections.changes().makeAsyncIterator()
        guard let first = initial(await next(changes)) else { return }
        #expect(first.isEmpty)
        var model: [Int: String] = [:]
        var nextId = 1
        func randomText() -> String {
            let letters = ["a", "b", "c", "d"]
            return (0..<(1 + random.next(upperBound: 3))).map { _ in letters[random.next(upperBound: letters.count)] }.joined()
        }
        for round in 0..<rounds {
            let before = Self.sections(of: model)
            var modified = Set<Int>()
            var touched = Set<Int>()
            var described: [String] = []
            try realm.write {
                for _ in 0..<(1 + random.next(upperBound: 3)) {
                    let candidates = model.keys.filter { !touched.contains($0) }.sorted()
                    switch candidates.isEmpty ? 0 : random.next(upperBound: 4) {
                    case 0:
                        let text = randomText()
                        try realm.add(SectionTestModels.Word(nextId, text))
                        model[nextId] = text
                        touched.insert(nextId)
                        described.append("add \(nextId) \(text)")
                        nextId += 1
                    case 1:
                        let id = candidates[random.next(upperBound: candidates.count)]
                        try realm.delete(realm.word(id))
                        model[id] = nil
                        touched.insert(id)
                        described.append("delete \(id)")
                    case 2:
                        let id = candidates[random.next(upperBound: candidates.count)]
                        var text = randomText()
                        while text == model[id] { text = randomText() }
                        realm.word(id).text = text
                        model[id] = text
                        modified.insert(id)
                        touched.insert(id)
                        described.append("rename \(id) \(text)")
                    default:
                        let id = candidates[random.next(upperBound: candidates.count)]
                        realm.word(id).flag.toggle()
                        modified.insert(id)
                        touched.insert(id)
                        described.append("flag \(id)")
                    }
                }
            }
            let context = "round \(round), seed \(seed): \(described.joined(separator: ", "))"
            guard let (frozen, change) = update(await next(changes)) else { return }
            let after = Self.sections(of: frozen)
            let expected = Self.sections(of: model)
            #expect(after.map(\.key) == expected.map(\.key) && after.map(\.ids) == expected.map(\.ids), "\(context)")
            Self.check(change, from: before, to: after, modified: modified, context)
            #expect(sections.allKeys == expected.map(\.key), "the live sectioned results agree: \(context)")
        }
    }
}
