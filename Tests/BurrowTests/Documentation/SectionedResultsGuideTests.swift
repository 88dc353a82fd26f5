import Burrow
import BurrowTestTraits
import Foundation
import Testing

// The sample of the "Sectioned results" part of Sources/Burrow/Burrow.docc/Queries.md, compiled
// and run as the page shows it (DocumentationSamplesTests checks that it is the page's).

@Suite(.temporaryDirectory) struct SectionedResultsGuideTests {
    typealias Dog = GettingStartedPage.Dog

    @Test func testSectionedResults() async throws {
        var config = temporaryConfiguration()
        config.objectTypes = GettingStartedPage.objectTypes
        let realm = try Realm(configuration: config)
        try realm.write {
            try realm.add([
                Dog(value: ["name": "Rex", "age": 1]), Dog(value: ["name": "Fido", "age": 6]),
                Dog(value: ["name": "Rover", "age": 3]),
            ])
        }
        let byAge = realm.objects(Dog.self).sectioned(by: \.age, ascending: true)
        var printed: [String] = []  // test only
        for section in byAge {
            print(section.key, section.map(\.name))  // 1 ["Rex"], then 3 ["Rover"], then 6 ["Fido"]
            printed.append("\(section.key) \(section.map(\.name))")  // test only
        }
        #expect(printed == [#"1 ["Rex"]"#, #"3 ["Rover"]"#, #"6 ["Fido"]"#])  // test only
        let rex = byAge[IndexPath(item: 0, section: 0)]
        #expect(rex.name == "Rex")  // test only
        let byInitial = realm.objects(Dog.self).sectioned(sortDescriptors: [SortDescriptor(keyPath: "name")]) {
            String($0.name.prefix(1))
        }
        print(byInitial.allKeys)  // ["F", "R"]
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
