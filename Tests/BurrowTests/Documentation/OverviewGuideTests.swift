import Burrow
import BurrowTestTraits
import Testing

// The sample of Sources/Burrow/Burrow.docc/Burrow.md, the documentation's first page, compiled
// and run as the page shows it (DocumentationSamplesTests checks that it is the page's).

@Suite(.temporaryDirectory) struct OverviewGuideTests {
    @MainActor
    @Test func testTheOverview() throws {
        let names = try withDefaultConfiguration(temporaryConfiguration()) {
            final class Dog: Object {
                @Persisted(primaryKey: true) var name = ""
                @Persisted var age = 0
            }

            let realm = try Realm()
            try realm.write {
                try realm.add(Dog(value: ["name": "Rex", "age": 1]))
            }
            let puppies = realm.objects(Dog.self).where { $0.age < 2 }
            #expect(realm.configuration.fileURL == Realm.Configuration.defaultConfiguration.fileURL)
            return puppies.map(\.name)
        }
        #expect(names == ["Rex"])
    }
}
