import Burrow
import BurrowTestTraits
import Foundation
import Testing

/// A wrapper whose query or sectioning cannot work shows no objects and says why in `error`;
/// once the query or sort is corrected, it shows the objects and `error` is nil again, rather
/// than objects beside an error claiming they cannot be shown.
@MainActor
@Suite(.temporaryDirectory) struct HostileQueryErrorTests {
    private func configuration(_ name: String = #function) -> Realm.Configuration {
        var config = temporaryConfiguration(name)
        config.objectTypes = [CommonModels.Dog.self, CommonModels.DogToy.self, CommonModels.Person.self, CommonModels.Address.self]
        return config
    }

    @Test func aCorrectedFilterOrSortClearsTheQuerysError() throws {
        let config = configuration()
        @ObservedResults(CommonModels.Dog.self, configuration: config) var dogs
        $dogs.append(CommonModels.Dog(value: ["name": "Rex", "age": 3]))
        $dogs.filter = "age =="
        #expect(dogs.isEmpty)
        #expect($dogs.error?.code == .invalidArgument)
        $dogs.filter = "age > 1"
        #expect(dogs.count == 1)
        #expect($dogs.error == nil)
        $dogs.sortDescriptor = SortDescriptor(keyPath: "nope")
        #expect(dogs.isEmpty)
        #expect($dogs.error != nil)
        $dogs.sortDescriptor = SortDescriptor(keyPath: "name")
        #expect(dogs.count == 1)
        #expect($dogs.error == nil)
    }

    @Test func aQuickWritesErrorIsNotClearedByAQueryThatWorks() throws {
        let config = configuration()
        @ObservedResults(CommonModels.Dog.self, configuration: config) var dogs
        let rex = CommonModels.Dog(value: ["name": "Rex"])
        $dogs.append(rex)
        $dogs.append(CommonModels.Dog(value: ["_id": rex._id, "name": "Copy"]))
        #expect($dogs.error?.code == .primaryKeyExists)
        $dogs.filter = "age >= 0"
        #expect(dogs.count == 1)
        #expect($dogs.error?.code == .primaryKeyExists, "the quick write's error stays until one succeeds")
    }

    @Test func aCorrectedSortClearsTheSectioningsError() throws {
        let config = configuration()
        let realm = try Realm(configuration: config)
        try realm.write { try realm.add(CommonModels.Dog(value: ["name": "Rex"])) }
        @ObservedSectionedResults(
            CommonModels.Dog.self, sectionKeyPath: \.name, sortDescriptors: [SortDescriptor(keyPath: "age")], configuration: config)
        var byName
        #expect(byName.isEmpty)
        #expect($byName.error != nil)
        $byName.sortDescriptors = [SortDescriptor(keyPath: "name")]
        #expect(byName.count == 1)
        #expect($byName.error == nil)
        $byName.filter = "age =="
        $byName.sortDescriptors = [SortDescriptor(keyPath: "age")]
        $byName.sortDescriptors = [SortDescriptor(keyPath: "name")]
        #expect(byName.isEmpty)
        #expect($byName.error?.code == .invalidArgument, "the filter still cannot run")
        $byName.filter = nil
        #expect(byName.count == 1)
        #expect($byName.error == nil)
    }
}
