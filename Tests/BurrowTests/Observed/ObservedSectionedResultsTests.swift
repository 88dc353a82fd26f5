import Burrow
import BurrowTestTraits
import Foundation
import Observation
import Testing

/// `@ObservedSectionedResults`: sections of the main actor's realm that follow commits from
/// any actor, quick deletes within a section, and sectioning errors reported, not trapped.
@MainActor
@Suite(.temporaryDirectory) struct ObservedSectionedResultsTests {
    private func configuration() -> Realm.Configuration {
        var config = temporaryConfiguration()
        config.objectTypes = [CommonModels.Dog.self, CommonModels.DogToy.self, CommonModels.Person.self, CommonModels.Address.self]
        return config
    }

    private func add(_ dogs: [(String, String)], _ config: Realm.Configuration) throws {
        let realm = try Realm(configuration: config)
        try realm.write {
            for (name, color) in dogs { try realm.add(CommonModels.Dog(value: ["name": name, "color": color])) }
        }
    }

    @Test func sectionsByKeyPathFollowAnotherActorsCommit() async throws {
        let config = configuration()
        try add([("Rex", "brown"), ("Spot", "black"), ("Maui", "brown")], config)
        @ObservedSectionedResults(CommonModels.Dog.self, sectionKeyPath: \.color, configuration: config) var byColor
        #expect(byColor.allKeys == ["black", "brown"])
        #expect(byColor[1].map(\.name).sorted() == ["Maui", "Rex"])

        let fired = track { _ = byColor.count }
        let db = try await RealmActor(configuration: config)
        try await db.asyncWrite { realm in try realm.add(CommonModels.Dog(value: ["name": "Snow", "color": "white"])) }
        await fired.wait()
        #expect(byColor.allKeys == ["black", "brown", "white"])
        #expect($byColor.error == nil)
    }

    @Test func removeAtOffsetsDeletesWithinTheSection() throws {
        let config = configuration()
        try add([("Rex", "brown"), ("Spot", "black"), ("Maui", "brown")], config)
        @ObservedSectionedResults(
            CommonModels.Dog.self, sectionKeyPath: \.color, sortDescriptors: [SortDescriptor(keyPath: "color"), SortDescriptor(keyPath: "name")],
            configuration: config) var byColor
        let brown = byColor[1]
        #expect(brown.map(\.name) == ["Maui", "Rex"])
        $byColor.remove(atOffsets: [1], section: brown)
        #expect(byColor[1].map(\.name) == ["Maui"])
        #expect(try Realm(configuration: config).objects(CommonModels.Dog.self).count == 2)

        $byColor.remove(atOffsets: [3], section: byColor[1])
        #expect($byColor.error?.code == .invalidArgument)
        #expect(byColor[1].map(\.name) == ["Maui"], "an offset out of bounds changes nothing")
    }

    @Test func blockSectionsAndRuntimeChanges() throws {
        let config = configuration()
        try add([("Rex", "brown"), ("Spot", "black"), ("Ruby", "white")], config)
        @ObservedSectionedResults(
            CommonModels.Dog.self, sectionBlock: { String($0.name.prefix(1)) }, sortDescriptors: [SortDescriptor(keyPath: "name")],
            configuration: config)
        var byInitial
        #expect(byInitial.allKeys == ["R", "S"])
        #expect(byInitial[0].map(\.name) == ["Rex", "Ruby"])

        $byInitial.filter = "color != 'white'"
        #expect(byInitial[0].map(\.name) == ["Rex"])
        $byInitial.sortDescriptors = [SortDescriptor(keyPath: "name", ascending: false)]
        #expect(byInitial.allKeys == ["S", "R"])
    }

    @Test func sectioningThatCannotWorkShowsNothingAndReports() throws {
        let config = configuration()
        try add([("Rex", "brown")], config)
        @ObservedSectionedResults(CommonModels.Dog.self, sectionBlock: { $0.color }, sortDescriptors: [], configuration: config) var unsorted
        #expect(unsorted.isEmpty)
        #expect($unsorted.error?.code == .invalidArgument)

        @ObservedSectionedResults(
            CommonModels.Dog.self, sectionKeyPath: \.color, sortDescriptors: [SortDescriptor(keyPath: "name")], configuration: config)
        var mismatched
        #expect(mismatched.isEmpty)
        #expect($mismatched.error?.code == .invalidArgument)
    }
}
