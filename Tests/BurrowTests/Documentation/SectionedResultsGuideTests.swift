import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

// The examples of the "Sectioned results" part of Sources/Burrow/Burrow.docc/Queries.md, compiled
// and run (with GuideExamplesTests' models standing in for Dog). Keep the two in step.

@Suite(.temporaryDirectory) struct SectionedResultsGuideTests {
    @Test func testSectionedResults() async throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        try realm.write {
            try realm.add([
                GuideDog(value: ["name": "Rex", "age": 1]), GuideDog(value: ["name": "Fido", "age": 6]),
                GuideDog(value: ["name": "Rover", "age": 3]),
            ])
        }
        let byAge = realm.objects(GuideDog.self).sectioned(by: \.age, ascending: true)
        var printed: [String] = []
        for section in byAge {
            printed.append("\(section.key) \(section.map(\.name))")
        }
        #expect(printed == [#"1 ["Rex"]"#, #"3 ["Rover"]"#, #"6 ["Fido"]"#])
        let rex = byAge[IndexPath(item: 0, section: 0)]
        #expect(rex.name == "Rex")
        let byInitial = realm.objects(GuideDog.self).sectioned(sortDescriptors: [SortDescriptor(keyPath: "name")]) {
            String($0.name.prefix(1))
        }
        #expect(byInitial.allKeys == ["F", "R"])

        let frozen = try byAge.freeze()
        #expect(await Task.detached { frozen.map(\.key) }.value == [1, 3, 6])
        var changes = byAge.changes().makeAsyncIterator()
        guard case .initial(let sections)? = await changes.next() else {
            Issue.record("no initial element")
            return
        }
        #expect(sections.allKeys == [1, 3, 6])
    }
}
