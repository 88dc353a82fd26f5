import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Observation
import Synchronization
import Testing

@testable import Burrow

/// Quick writes and bindings used against the odds: objects deleted by another actor between
/// the main actor's last read and the write, wrappers of invalidated realms, frozen objects,
/// writes inside the caller's own transaction, and wrappers dropped by the hundred.
@MainActor
@Suite(.temporaryDirectory) struct HostileQuickWriteTests {
    private func configuration(_ name: String = #function) -> Realm.Configuration {
        var config = temporaryConfiguration(name)
        config.objectTypes = [
            CommonModels.Dog.self, CommonModels.DogToy.self, CommonModels.Person.self, CommonModels.Address.self, HostileQuickWriteModels.Owner.self,
        ]
        return config
    }

    /// Deletes the `HostileQuickWriteModels.Owner` with key 1 and every `CommonModels.Dog` from another actor.
    private func deleteFromAnotherActor(_ config: Realm.Configuration) async throws {
        let db = try await RealmActor(configuration: config)
        try await db.asyncWrite { realm in
            try realm.delete(realm.objects(HostileQuickWriteModels.Owner.self))
            try realm.delete(realm.objects(CommonModels.Dog.self))
        }
    }

    @Test func propertyBindingOfObjectDeletedElsewhereReportsInsteadOfTrapping() async throws {
        let config = configuration()
        let realm = try Realm(configuration: config)
        let dog = CommonModels.Dog(value: ["name": "Rex"])
        try realm.write { try realm.add(dog) }
        @ObservedRealmObject var observed = dog
        let name = $observed.name
        let owner = HostileQuickWriteModels.Owner(value: ["id": 1])
        try realm.write { try realm.add(owner) }
        let ownerName = owner.bind(\.name)
        try await deleteFromAnotherActor(config)
        // The main actor's realm has not read the deletion yet; the write transaction does.
        #expect(!dog.isInvalidated)
        name.wrappedValue = "Wolfie"
        #expect($observed.error?.code == .invalidObject)
        #expect(!realm.isInWriteTransaction)
        #expect(dog.isInvalidated)
        #expect(realm.objects(CommonModels.Dog.self).isEmpty, "nothing was written")
        ownerName.wrappedValue = "Ann"
        #expect(!realm.isInWriteTransaction)
        #expect(realm.objects(HostileQuickWriteModels.Owner.self).isEmpty)
    }

    @Test func listQuickWritesOnOwnerDeletedElsewhereReportInsteadOfTrapping() async throws {
        let config = configuration()
        let realm = try Realm(configuration: config)
        let owner = HostileQuickWriteModels.Owner(value: ["id": 1])
        owner.dogs.append(objectsIn: [CommonModels.Dog(value: ["name": "A"]), CommonModels.Dog(value: ["name": "B"])])
        try realm.write { try realm.add(owner) }
        @ObservedRealmObject var observed = owner
        let dogs = $observed.dogs
        try await deleteFromAnotherActor(config)
        dogs.append(CommonModels.Dog(value: ["name": "C"]))
        #expect($observed.error?.code == .invalidObject)
        #expect(realm.objects(CommonModels.Dog.self).isEmpty, "the new dog was not added either")
        for change in [{ dogs.remove(at: 0) }, { dogs.remove(atOffsets: [0, 1]) }, { dogs.move(fromOffsets: [0], toOffset: 2) }] {
            change()
            #expect($observed.error?.code == .invalidObject)
            #expect(!realm.isInWriteTransaction)
        }
    }

    @Test func bindingsOfDeletedOrInvalidatedObjectsReadTheNewUnmanagedObject() async throws {
        let config = configuration()
        let realm = try Realm(configuration: config)
        let dog = CommonModels.Dog(value: ["name": "Rex"])
        let owner = HostileQuickWriteModels.Owner(value: ["id": 1, "name": "Ann"])
        try realm.write {
            try realm.add(dog)
            try realm.add(owner)
        }
        @ObservedRealmObject var observedDog = dog
        @ObservedRealmObject var observedOwner = owner
        try await deleteFromAnotherActor(config)
        _ = realm.refresh()
        #expect(dog.isInvalidated)
        #expect($observedDog.name.wrappedValue == "", "the new unmanaged Dog the wrapper shows")

        let other = try Realm(configuration: configuration("invalidated"))
        let kept = HostileQuickWriteModels.Owner(value: ["id": 2, "name": "Bo"])
        try other.write { try other.add(kept) }
        @ObservedRealmObject var observedKept = kept
        other.invalidate()
        #expect(kept.isInvalidated)
        #expect($observedKept.name.wrappedValue == "")
        #expect(observedOwner.name == "")
    }

    @Test func aBindingKeptAcrossReassigningTheWrapperWritesItsOwnObject() throws {
        let config = configuration()
        let realm = try Realm(configuration: config)
        let first = HostileQuickWriteModels.Owner(value: ["id": 1])
        try realm.write { try realm.add(first) }
        @ObservedRealmObject var observed = first
        let firstName = $observed.name
        observed = HostileQuickWriteModels.Owner(value: ["id": 2])
        // The wrapper now shows an unmanaged object; the binding still writes the managed one,
        // in a write transaction of its realm.
        firstName.wrappedValue = "Ann"
        #expect(first.name == "Ann")
        #expect(firstName.wrappedValue == "Ann")
        #expect($observed.error == nil)
        #expect(!realm.isInWriteTransaction)
        #expect(observed.name == "")
        try realm.write { try realm.delete(first) }
        firstName.wrappedValue = "ignored"
        #expect(firstName.wrappedValue == "Ann", "a deleted object's binding keeps its last value")
    }

    @Test func frozenObjectsAreThawedForBindings() throws {
        let config = configuration()
        let realm = try Realm(configuration: config)
        let owner = HostileQuickWriteModels.Owner(value: ["id": 1])
        try realm.write { try realm.add(owner) }
        let frozen = try owner.freeze().frozenObject
        frozen.bind(\.name).wrappedValue = "Ann"
        #expect(owner.name == "Ann", "the live object was written")
        frozen.bind(\.dogs).append(CommonModels.Dog(value: ["name": "Rex"]))
        #expect(owner.dogs.count == 1)

        @ObservedRealmObject var observed = HostileQuickWriteModels.Owner()
        observed = try owner.freeze().frozenObject
        #expect(!observed.isFrozen, "an assigned frozen object is thawed, as one given to init is")
        $observed.name.wrappedValue = "Bo"
        #expect($observed.error == nil)
        #expect(owner.name == "Bo")
    }

    @Test func frozenObjectOfAnotherFileIsReportedAsSuch() throws {
        let config = configuration()
        let other = try Realm(configuration: configuration("otherFile"))
        let foreign = CommonModels.Dog(value: ["name": "Far"])
        try other.write { try other.add(foreign) }
        let frozen = try foreign.freeze().frozenObject
        let realm = try Realm(configuration: config)
        let owner = HostileQuickWriteModels.Owner(value: ["id": 1])
        try realm.write { try realm.add(owner) }
        @ObservedRealmObject var observed = owner
        $observed.dogs.append(frozen)
        #expect($observed.error?.code == .invalidObject)
        #expect($observed.error?.description.contains("another file") == true, "\($observed.error?.description ?? "")")
        #expect(owner.dogs.isEmpty)
        @ObservedResults(CommonModels.Dog.self, configuration: config) var dogs
        $dogs.append(frozen)
        #expect($dogs.error?.description.contains("another file") == true)
        #expect(dogs.isEmpty)
        #expect(other.objects(CommonModels.Dog.self).count == 1)
    }

    @Test func quickWriteInsideTheCallersTransactionIsReportedByItsCommit() async throws {
        let config = configuration()
        let realm = try Realm(configuration: config)
        @ObservedResults(CommonModels.Dog.self, configuration: config) var dogs
        _ = dogs.count
        let cancelled = trackOnce { _ = dogs.count }
        try realm.beginWrite()
        $dogs.append(CommonModels.Dog(value: ["name": "A"]))
        #expect(dogs.count == 1, "inside the transaction the change is visible")
        try realm.cancelWrite()
        #expect(dogs.isEmpty)
        #expect($dogs.error == nil)
        #expect(!cancelled.isSet, "a change the transaction undid was never reported")

        let committed = track { _ = dogs.count }
        try realm.beginWrite()
        $dogs.append(CommonModels.Dog(value: ["name": "B"]))
        try realm.commitWrite()
        await committed.wait()
        #expect(dogs.count == 1)
    }

    /// The time limit guards against a wait that never ends. It is generous because in the full
    /// suite on two cores a test's task may wait minutes for a thread of the cooperative pool,
    /// which the other tests keep busy: a test that returns at once can start over a minute late.
    @Test(.timeLimit(.minutes(5))) func wrappersFirstReadInsideAWriteFollowTheCommitsAfterIt() async throws {
        let config = configuration()
        let realm = try Realm(configuration: config)
        let owner = HostileQuickWriteModels.Owner(value: ["id": 1])
        try realm.write { try realm.add(owner) }
        @ObservedResults(CommonModels.Dog.self, configuration: config) var dogs
        @ObservedRealmObject var observed = owner
        try realm.beginWrite()
        // A view drawn while the transaction is open reads the wrappers first here, where no
        // change stream can start.
        let dogsChanged = track { _ = dogs.count }
        let ownerChanged = track { _ = observed.name }
        try realm.commitWrite()
        await dogsChanged.wait()
        await ownerChanged.wait()
        let fromActor = track { _ = (dogs.count, observed.name) }
        let db = try await RealmActor(configuration: config)
        try await db.asyncWrite { realm in
            try realm.add(CommonModels.Dog())
            realm.object(ofType: HostileQuickWriteModels.Owner.self, forPrimaryKey: 1)?.name = "Ann"
        }
        await fromActor.wait()
        #expect(dogs.count == 1)
        #expect(observed.name == "Ann")
    }

    @Test func droppedWrappersLeaveTheFilesChangeHub() async throws {
        let config = configuration()
        let realm = try Realm(configuration: config)
        try realm.write { try realm.add(HostileQuickWriteModels.Owner(value: ["id": 1])) }
        let owner = try #require(realm.object(ofType: HostileQuickWriteModels.Owner.self, forPrimaryKey: 1))
        let count = TestEnvironment.count("BURROW_HOSTILE_WRAPPERS", default: 200)
        for _ in 0..<count {
            @ObservedResults(CommonModels.Dog.self, configuration: config) var dogs
            @ObservedRealmObject var observed = owner
            @StateRealmObject var list = owner.dogs
            @ObservedSectionedResults(CommonModels.Dog.self, sectionKeyPath: \.name, configuration: config) var sections
            _ = (dogs.count, observed.name, list.count, sections.count)
        }
        // Each wrapper's follower task ends once cancelled; give them the turns to do so.
        for _ in 0..<10_000 where ChangeHub.hub(for: realm.storage) != nil { await Task.yield() }
        #expect(ChangeHub.hub(for: realm.storage) == nil, "no stream outlives its wrapper")
        try realm.write { owner.name = "after" }
        #expect(owner.name == "after")
    }
}

/// The model of `HostileQuickWriteTests`, stored under the name it had before it was namespaced.
enum HostileQuickWriteModels {
    final class Owner: Object, ObjectKeyIdentifiable {
        override class func _realmObjectName() -> String? { "HostileOwner" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var dogs: List<CommonModels.Dog>
        @Persisted var tags: MutableSet<String>
        @Persisted var pets: Map<String, CommonModels.Dog?>
    }
}
