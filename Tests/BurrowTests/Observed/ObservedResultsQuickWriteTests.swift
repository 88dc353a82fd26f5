import Burrow
import BurrowTestTraits
import Foundation
import Observation
import Testing

/// `@ObservedResults`: its quick writes (unmanaged, managed and frozen objects), its query
/// (filter string, `where:`, sort, changed at run time), commits of other actors reaching
/// Observation, `keyPaths:`, and failed quick writes that change nothing and set `error`.
@MainActor
@Suite(.temporaryDirectory) struct ObservedResultsQuickWriteTests {
    @Test func appendUnmanagedThenManagedObjects() throws {
        let config = observedConfiguration()
        @ObservedResults(ObservedTestModels.Dog.self, configuration: config) var dogs
        let rex = ObservedTestModels.Dog(value: ["name": "Rex"])
        #expect(rex.realm == nil)
        $dogs.append(rex)
        #expect(rex.realm != nil)
        #expect(dogs.count == 1)
        // The same, now managed, object again: already in the realm, nothing added.
        $dogs.append(rex)
        #expect(dogs.count == 1)
        #expect($dogs.error == nil)
        // A managed object added elsewhere shows through the same realm.
        let realm = try Realm(configuration: config)
        try realm.write { try realm.add(ObservedTestModels.Dog(value: ["name": "Maui"])) }
        #expect(dogs.map(\.name).sorted() == ["Maui", "Rex"])
    }

    @Test func removeManagedAndFrozenObjects() throws {
        let config = observedConfiguration()
        let realm = try Realm(configuration: config)
        let rex = ObservedTestModels.Dog(value: ["name": "Rex"])
        let maui = ObservedTestModels.Dog(value: ["name": "Maui"])
        try realm.write {
            try realm.add(rex)
            try realm.add(maui)
        }
        @ObservedResults(ObservedTestModels.Dog.self, configuration: config) var dogs
        let frozenMaui = try maui.freeze()
        $dogs.remove(rex)
        #expect(dogs.map(\.name) == ["Maui"])
        $dogs.remove(frozenMaui)
        #expect(dogs.isEmpty)
        // Removing what was deleted since it was frozen changes nothing and says so.
        $dogs.remove(frozenMaui)
        #expect($dogs.error?.code == .invalidObject)
        // So does removing an unmanaged object, which RealmSwift's wrapper throws for.
        try realm.write { try realm.add(ObservedTestModels.Dog(value: ["name": "Kept"])) }
        $dogs.remove(ObservedTestModels.Dog(value: ["name": "Stray"]))
        #expect($dogs.error?.description.contains("unmanaged") == true)
        #expect(realm.objects(ObservedTestModels.Dog.self).map(\.name) == ["Kept"])
    }

    @Test func appendFrozenObjectAddsNothingNew() throws {
        let config = observedConfiguration()
        let realm = try Realm(configuration: config)
        let rex = ObservedTestModels.Dog(value: ["name": "Rex"])
        try realm.write { try realm.add(rex) }
        @ObservedResults(ObservedTestModels.Dog.self, configuration: config) var dogs
        $dogs.append(try rex.freeze())
        #expect(dogs.count == 1)
        #expect($dogs.error == nil)
    }

    @Test func appendOfADeletedFrozenObjectFailsThenASuccessClearsTheError() throws {
        let config = observedConfiguration()
        let realm = try Realm(configuration: config)
        let rex = ObservedTestModels.Dog(value: ["name": "Rex"])
        try realm.write { try realm.add(rex) }
        let frozen = try rex.freeze()
        try realm.write { try realm.delete(rex) }
        @ObservedResults(ObservedTestModels.Dog.self, configuration: config) var dogs
        $dogs.append(frozen)
        #expect($dogs.error?.code == .invalidObject)
        #expect(dogs.isEmpty)
        $dogs.append(ObservedTestModels.Dog(value: ["name": "Maui"]))
        #expect($dogs.error == nil)
        #expect(dogs.count == 1)
    }

    @Test func duplicatePrimaryKeyChangesNothingAndIsObservable() throws {
        let config = observedConfiguration()
        @ObservedResults(ObservedTestModels.Dog.self, configuration: config) var dogs
        let rex = ObservedTestModels.Dog(value: ["name": "Rex"])
        $dogs.append(rex)
        let fired = trackOnce { _ = $dogs.error }
        $dogs.append(ObservedTestModels.Dog(value: ["_id": rex._id, "name": "Impostor"]))
        #expect(fired.isSet)
        #expect($dogs.error?.code == .primaryKeyExists)
        #expect(dogs.map(\.name) == ["Rex"])
        #expect(try Realm(configuration: config).objects(ObservedTestModels.Dog.self).map(\.name) == ["Rex"])
        $dogs.append(ObservedTestModels.Dog(value: ["name": "Maui"]))
        #expect($dogs.error == nil)
        #expect(dogs.count == 2)
    }

    @Test func removeAtOffsetsOutOfBoundsChangesNothing() throws {
        let config = observedConfiguration()
        @ObservedResults(ObservedTestModels.Dog.self, configuration: config, sortDescriptor: SortDescriptor(keyPath: "name")) var dogs
        for name in ["C", "A", "B"] { $dogs.append(ObservedTestModels.Dog(value: ["name": name])) }
        $dogs.remove(atOffsets: [1, 3])
        #expect($dogs.error?.code == .invalidArgument)
        #expect(dogs.map(\.name) == ["A", "B", "C"])
        $dogs.remove(atOffsets: [0, 2])
        #expect($dogs.error == nil)
        #expect(dogs.map(\.name) == ["B"])
    }

    @Test func filterStringWhereAndSort() throws {
        let config = observedConfiguration()
        let realm = try Realm(configuration: config)
        try realm.write {
            for (name, age) in [("Rex", 5), ("Pup", 1), ("Ace", 0), ("Old", 12)] {
                try realm.add(ObservedTestModels.Dog(value: ["name": name, "age": age]))
            }
        }
        @ObservedResults(ObservedTestModels.Dog.self, configuration: config, filter: "age < 2", sortDescriptor: SortDescriptor(keyPath: "name"))
        var puppies
        @ObservedResults(
            ObservedTestModels.Dog.self, configuration: config, where: { $0.age > 2 },
            sortDescriptor: SortDescriptor(keyPath: "age", ascending: false))
        var adults
        #expect(puppies.map(\.name) == ["Ace", "Pup"])
        #expect(adults.map(\.name) == ["Old", "Rex"])

        // An appended object the filter leaves out is added, but not shown.
        $puppies.append(ObservedTestModels.Dog(value: ["name": "Big", "age": 7]))
        #expect(puppies.map(\.name) == ["Ace", "Pup"])
        #expect(adults.map(\.name) == ["Old", "Big", "Rex"])

        // The query changed at run time shows new results and tells Observation.
        let fired = trackOnce { _ = puppies.count }
        $puppies.filter = "age >= 5"
        #expect(fired.isSet)
        #expect(puppies.map(\.name) == ["Big", "Old", "Rex"])
        $puppies.sortDescriptor = SortDescriptor(keyPath: "age")
        #expect(puppies.map(\.name) == ["Rex", "Big", "Old"])
        $puppies.where = { $0.name.starts(with: "O") || $0.name == "Ace" }
        #expect($puppies.filter == nil)
        #expect(puppies.map(\.name) == ["Ace", "Old"])
        $adults.where = nil
        $adults.sortDescriptor = nil
        #expect(adults.count == 5)
    }

    @Test func badFilterOrSortShowsNothingAndSetsError() throws {
        let config = observedConfiguration()
        let realm = try Realm(configuration: config)
        try realm.write { try realm.add(ObservedTestModels.Dog(value: ["name": "Rex"])) }
        @ObservedResults(ObservedTestModels.Dog.self, configuration: config, filter: "noSuchProperty == 1") var dogs
        #expect(dogs.isEmpty)
        #expect($dogs.error != nil)
        @ObservedResults(ObservedTestModels.Dog.self, configuration: config, sortDescriptor: SortDescriptor(keyPath: "nope")) var sorted
        #expect(sorted.isEmpty)
        #expect($sorted.error != nil)
        $dogs.filter = "name == 'Rex'"
        #expect(dogs.count == 1)
    }

    @Test func commitOfAnotherActorReachesObservation() async throws {
        let config = observedConfiguration()
        @ObservedResults(ObservedTestModels.Dog.self, configuration: config, filter: "age < 2") var puppies
        #expect(puppies.isEmpty)
        let signal = track { _ = puppies.count }
        let db = try await RealmActor(configuration: config)
        try await db.asyncWrite { realm in try realm.add(ObservedTestModels.Dog(value: ["name": "Pup", "age": 1])) }
        await signal.wait()
        #expect(puppies.map(\.name) == ["Pup"])
        // And a deletion by the other actor.
        let gone = track { _ = puppies.count }
        try await db.asyncWrite { realm in try realm.delete(realm.objects(ObservedTestModels.Dog.self)) }
        await gone.wait()
        #expect(puppies.isEmpty)
    }

    @Test func keyPathsLimitWhatCounts() async throws {
        let config = observedConfiguration()
        let realm = try Realm(configuration: config)
        try realm.write { try realm.add(ObservedTestModels.Dog(value: ["name": "Rex", "age": 1])) }
        @ObservedResults(ObservedTestModels.Dog.self, keyPaths: ["name"], configuration: config) var names
        @ObservedResults(ObservedTestModels.Dog.self, configuration: config) var everything
        _ = names.count
        _ = everything.count
        let namesFired = trackOnce { _ = names.first?.name }
        let fence = track { _ = everything.first?.age }
        let db = try await RealmActor(configuration: config)
        try await db.asyncWrite { realm in realm.objects(ObservedTestModels.Dog.self).first!.age = 2 }
        await fence.wait()
        for _ in 0..<50 { await Task.yield() }
        #expect(!namesFired.isSet)
        let renamed = track { _ = names.first?.name }
        try await db.asyncWrite { realm in realm.objects(ObservedTestModels.Dog.self).first!.name = "Wolfie" }
        await renamed.wait()
        #expect(names.first?.name == "Wolfie")
        #expect(names.first?.age == 2)
    }

    @Test func updateRefreshesTheRealm() async throws {
        let config = observedConfiguration()
        @ObservedResults(ObservedTestModels.Dog.self, configuration: config) var dogs
        #expect(dogs.isEmpty)
        let db = try await RealmActor(configuration: config)
        try await db.asyncWrite { realm in try realm.add(ObservedTestModels.Dog(value: ["name": "Rex"])) }
        _dogs.update()
        #expect(dogs.count == 1)
    }

    /// The wrapper shows the main actor's realm: the instance `Realm(configuration:)` gives
    /// there, so a write in it shows at once.
    @Test func resultsLiveInTheMainActorsRealm() throws {
        let config = observedConfiguration()
        @ObservedResults(ObservedTestModels.Dog.self, configuration: config) var dogs
        let realm = try Realm(configuration: config)
        #expect(dogs.realm == realm)
        try realm.write { try realm.add(ObservedTestModels.Dog()) }
        #expect(dogs.count == 1)
    }
}
