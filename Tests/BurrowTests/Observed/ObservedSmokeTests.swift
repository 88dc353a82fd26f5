import Burrow
import BurrowTestTraits
import Foundation
import Observation
import Testing

@MainActor
@Suite(.temporaryDirectory) struct ObservedSmokeTests {
    private func configuration() -> Realm.Configuration {
        var config = temporaryConfiguration()
        config.objectTypes = [
            CommonModels.Dog.self, CommonModels.DogToy.self, CommonModels.Person.self, CommonModels.Address.self, ObservedSmokeModels.Owner.self,
        ]
        return config
    }

    @Test func resultsFollowAnotherActorsCommit() async throws {
        let config = configuration()
        @ObservedResults(CommonModels.Dog.self, configuration: config) var dogs
        #expect(dogs.isEmpty)
        $dogs.append(CommonModels.Dog(value: ["name": "Bandido"]))
        #expect(dogs.count == 1)
        #expect($dogs.error == nil)
        let fired = track { _ = dogs.count }
        let db = try await RealmActor(configuration: config)
        try await db.asyncWrite { realm in try realm.add(CommonModels.Dog(value: ["name": "Rex"])) }
        await fired.wait()
        #expect(dogs.count == 2)
        $dogs.remove(atOffsets: [0])
        #expect(dogs.count == 1)
        $dogs.remove(atOffsets: [5])
        #expect($dogs.error != nil)
        #expect(dogs.count == 1)
    }

    @Test func objectBindingWrites() throws {
        let config = configuration()
        let realm = try Realm(configuration: config)
        let dog = CommonModels.Dog(value: ["name": "Rex"])
        try realm.write { try realm.add(dog) }
        @ObservedRealmObject var observed = dog
        $observed.name.wrappedValue = "Wolfie"
        #expect(dog.name == "Wolfie")
        #expect(!realm.isInWriteTransaction)
        let person = ObservedSmokeModels.Owner(value: ["id": 1])
        try realm.write { try realm.add(person) }
        @ObservedRealmObject var owner = person
        $owner.dogs.append(CommonModels.Dog(value: ["name": "Maui"]))
        #expect(person.dogs.count == 1)
        $owner.dogs.append(CommonModels.Dog(value: ["_id": dog._id, "name": "dup"]))
        #expect(person.dogs.count == 1)
        #expect($owner.error?.code == .primaryKeyExists)
        let thawed = try person.thaw()!.realm!
        #expect(thawed == realm)
    }

    @Test func frozenObjectsAreThawedForQuickWrites() throws {
        let config = configuration()
        let realm = try Realm(configuration: config)
        let rex = CommonModels.Dog(value: ["name": "Rex"])
        let owner = ObservedSmokeModels.Owner(value: ["id": 3])
        try realm.write {
            try realm.add(rex)
            try realm.add(owner)
        }
        let frozenRex = try rex.freeze().frozenObject
        @ObservedRealmObject var observed = owner
        $observed.dogs.append(frozenRex)
        #expect($observed.error == nil)
        #expect(owner.dogs.first?._id == rex._id)
        @ObservedRealmObject var thawedRex = frozenRex
        #expect(!thawedRex.isFrozen, "the wrapper thaws a frozen object, as RealmSwift's does")
        #expect(thawedRex.realm == realm, "into the main actor's realm")
        @ObservedResults(CommonModels.Dog.self, configuration: config) var dogs
        $dogs.remove(frozenRex)
        #expect(dogs.isEmpty)
        $dogs.append(frozenRex)
        #expect($dogs.error?.code == .invalidObject, "a frozen object deleted since cannot be thawed")
        #expect(dogs.isEmpty)
    }

    @Test func stateObjectUnmanagedThenManaged() throws {
        let object = ObservedSmokeModels.Owner(value: ["id": 7])
        @StateRealmObject var state = object.dogs
        $state.append(CommonModels.Dog(value: ["name": "A"]))
        #expect(state.count == 1)
        let realm = try Realm(configuration: configuration())
        try realm.write { try realm.add(object) }
        _state.update()
        $state.append(CommonModels.Dog(value: ["name": "B"]))
        #expect(state.count == 2)
        #expect(realm.objects(CommonModels.Dog.self).count == 2)
    }
}

/// A one-shot signal an Observation `onChange` (any thread) gives to an awaiting test.
final class Signal: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation
    init() { (stream, continuation) = AsyncStream.makeStream() }
    func fire() { continuation.yield() }
    func wait() async { for await _ in stream { return } }
}

/// The model of `ObservedSmokeTests`, stored under the name it had before it was namespaced.
enum ObservedSmokeModels {
    final class Owner: Object, ObjectKeyIdentifiable {
        override class func _realmObjectName() -> String? { "SmokeOwner" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var dogs: List<CommonModels.Dog>
    }
}
