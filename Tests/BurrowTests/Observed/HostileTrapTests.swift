import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// The misuses of observed wrappers that trap, as in RealmSwift, each in a child process with
/// a twin that does the same without the misuse and must exit successfully.
@Suite(.temporaryDirectory) struct HostileTrapTests {
    /// A `HostileQuickWriteModels.Owner` added to a new in-memory realm named `name` (in the child process).
    @MainActor
    private static func addedOwner(_ name: String) throws -> HostileQuickWriteModels.Owner {
        var config = Realm.Configuration(inMemoryIdentifier: name)
        config.objectTypes = [
            HostileQuickWriteModels.Owner.self, CommonModels.Dog.self, CommonModels.DogToy.self, CommonModels.Person.self, CommonModels.Address.self,
        ]
        let realm = try Realm(configuration: config)
        let owner = HostileQuickWriteModels.Owner(value: ["id": 1])
        try realm.write { try realm.add(owner) }
        return owner
    }

    @Test func assigningTheObservedObjectsPropertyOutsideAWriteTraps() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            try await MainActor.run {
                let owner = try Self.addedOwner("hostile-trap-assign")
                @ObservedRealmObject var observed = owner
                observed.name = "not through the binding"
            }
        }
        #expect(standardError(of: result).contains("outside of a write transaction"), "\(standardError(of: result))")
    }

    @Test func assigningThroughTheBindingIsAQuickWrite() async throws {
        await #expect(processExitsWith: .success) {
            try await MainActor.run {
                let owner = try Self.addedOwner("hostile-trap-binding")
                @ObservedRealmObject var observed = owner
                $observed.name.wrappedValue = "through the binding"
                guard owner.name == "through the binding" else { exit(3) }
            }
        }
    }

    @Test func observingATypeOutsideTheConfigurationsObjectTypesTraps() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            await MainActor.run {
                var config = Realm.Configuration(inMemoryIdentifier: "hostile-trap-schema")
                config.objectTypes = [CommonModels.DogToy.self]
                @ObservedResults(CommonModels.Dog.self, configuration: config) var dogs
                _ = dogs.count
            }
        }
        #expect(standardError(of: result).contains("is not one of this realm's objectTypes"), "\(standardError(of: result))")
    }

    @Test func observingATypeOfTheConfigurationsObjectTypesWorks() async throws {
        await #expect(processExitsWith: .success) {
            await MainActor.run {
                var config = Realm.Configuration(inMemoryIdentifier: "hostile-trap-schema-twin")
                config.objectTypes = [CommonModels.DogToy.self]
                @ObservedResults(CommonModels.DogToy.self, configuration: config) var toys
                guard toys.isEmpty else { exit(3) }
            }
        }
    }
}
