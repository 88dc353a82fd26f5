import Burrow
import BurrowTestTraits
import Foundation
import Observation
import Testing

/// `@ObservedRealmObject` and `@StateRealmObject`: bindings to properties, quick writes on
/// lists, sets and maps (primitives and objects, unmanaged, managed and frozen), projections,
/// deletion, commits of other actors, `bind(_:)` and `Binding.constant`.
@MainActor
@Suite(.temporaryDirectory) struct ObservedObjectQuickWriteTests {
    // MARK: Object properties

    @Test func unmanagedThenManagedObjectBindings() throws {
        let config = observedConfiguration()
        let rex = ObservedTestModels.Dog(value: ["name": "Rex"])
        @StateRealmObject var dog = rex
        $dog.name.wrappedValue = "Wolfie"  // a plain assignment while unmanaged
        #expect(dog.name == "Wolfie")
        #expect($dog.wrappedValue.name == "Wolfie")
        let realm = try Realm(configuration: config)
        try realm.write { try realm.add(rex) }
        _dog.update()
        $dog.name.wrappedValue = "Maui"  // now one write transaction
        #expect(!realm.isInWriteTransaction)
        #expect(try Realm(configuration: config).objects(ObservedTestModels.Dog.self).first?.name == "Maui")
        #expect(_dog.error == nil)
    }

    @Test func managedObjectBindingSkipsEqualValueAndObservesItsOwnWrite() throws {
        let config = observedConfiguration()
        @ObservedRealmObject var dog = try added(ObservedTestModels.Dog(value: ["name": "Rex"]), config)
        let realm = try Realm(configuration: config)
        let version = realm.version
        $dog.name.wrappedValue = "Rex"
        #expect(realm.version == version)  // no write for an unchanged value
        let fired = trackOnce { _ = dog.name }
        $dog.age.wrappedValue = 3
        #expect(fired.isSet)  // a quick write reports at once
        #expect(realm.version > version)
        #expect(dog.age == 3)
    }

    @Test func deletedObjectShowsANewUnmanagedObjectAndBindingsKeepTheLastValue() throws {
        let config = observedConfiguration()
        let rex = try added(ObservedTestModels.Dog(value: ["name": "Rex"]), config)
        @ObservedRealmObject var dog = rex
        let name = $dog.name
        #expect(name.wrappedValue == "Rex")
        $dog.delete()
        #expect(rex.isInvalidated)
        #expect(dog.realm == nil)
        #expect(!dog.isInvalidated)
        #expect(dog.name == "")
        #expect(name.wrappedValue == "Rex")
        name.wrappedValue = "Ghost"  // writes nothing, no error
        #expect(name.wrappedValue == "Rex")
        #expect($dog.error == nil)
        #expect(try Realm(configuration: config).objects(ObservedTestModels.Dog.self).isEmpty)
    }

    @Test func deletionByAnotherActorIsObserved() async throws {
        let config = observedConfiguration()
        let rex = try added(ObservedTestModels.Dog(value: ["name": "Rex"]), config)
        @ObservedRealmObject var dog = rex
        let name = $dog.name
        let signal = track { _ = dog.name }
        let db = try await RealmActor(configuration: config)
        try await db.asyncWrite { realm in try realm.delete(realm.objects(ObservedTestModels.Dog.self)) }
        await signal.wait()
        #expect(dog.realm == nil)
        #expect(dog.name == "")
        #expect(name.wrappedValue == "Rex")
    }

    @Test func commitOfAnotherActorReachesAnObservedObject() async throws {
        let config = observedConfiguration()
        @ObservedRealmObject var dog = try added(ObservedTestModels.Dog(value: ["name": "Rex"]), config)
        let signal = track { _ = dog.name }
        let db = try await RealmActor(configuration: config)
        try await db.asyncWrite { realm in realm.objects(ObservedTestModels.Dog.self).first!.name = "Wolfie" }
        await signal.wait()
        #expect(dog.name == "Wolfie")
        #expect($dog.name.wrappedValue == "Wolfie")
    }

    @Test func bindToAProperty() throws {
        let config = observedConfiguration()
        let dog = ObservedTestModels.Dog(value: ["name": "Rex"])
        let binding = dog.bind(\.name)
        #expect(binding.wrappedValue == "Rex")
        binding.wrappedValue = "Maui"
        #expect(dog.name == "Maui")
        let realm = try Realm(configuration: config)
        try realm.write { try realm.add(dog) }
        let managed = dog.bind(\.name)
        managed.wrappedValue = "Wolfie"
        #expect(dog.name == "Wolfie")
        #expect(binding.wrappedValue == "Wolfie")
        #expect(!realm.isInWriteTransaction)
        // Inside a write, a binding's write joins it.
        try realm.write { dog.bind(\.age).wrappedValue = 4 }
        #expect(dog.age == 4)
    }

    @Test func constantBinding() {
        let binding = Binding.constant("Rex")
        binding.wrappedValue = "Maui"
        #expect(binding.wrappedValue == "Rex")
        let dog = ObservedTestModels.Dog(value: ["name": "Rex"])
        let bound = Binding.constant(dog)
        #expect(bound.wrappedValue === dog)
    }

    // MARK: Lists

    @Test func listOfPrimitivesUnmanagedThenManaged() throws {
        let config = observedConfiguration()
        let ali = ObservedTestModels.Person()
        @StateRealmObject var numbers = ali.luckyNumbers
        $numbers.append(7)
        $numbers.append(3)
        #expect(Array(numbers) == [7, 3])
        let realm = try Realm(configuration: config)
        try realm.write { try realm.add(ali) }
        _numbers.update()
        $numbers.append(11)
        $numbers.remove(at: 0)
        #expect(Array(ali.luckyNumbers) == [3, 11])
        $numbers.move(fromOffsets: [1], toOffset: 0)
        #expect(Array(ali.luckyNumbers) == [11, 3])
        #expect(!realm.isInWriteTransaction)
        #expect(_numbers.error == nil)
    }

    @Test func listOfObjectsThroughAnObservedObject() throws {
        let config = observedConfiguration()
        let realm = try Realm(configuration: config)
        @ObservedRealmObject var person = try added(ObservedTestModels.Person(value: ["firstName": "Ali"]), config)
        let unmanaged = ObservedTestModels.Dog(value: ["name": "A"])
        $person.dogs.append(unmanaged)
        #expect(unmanaged.realm == realm)
        let managed = try added(ObservedTestModels.Dog(value: ["name": "B"]), config)
        $person.dogs.append(managed)
        let frozen = try added(ObservedTestModels.Dog(value: ["name": "C"]), config).freeze()
        $person.dogs.append(frozen)
        #expect(person.dogs.map(\.name) == ["A", "B", "C"])
        $person.dogs.move(fromOffsets: [0, 1], toOffset: 3)
        #expect(person.dogs.map(\.name) == ["C", "A", "B"])
        $person.dogs.remove(atOffsets: [0, 2])
        #expect(person.dogs.map(\.name) == ["A"])
        #expect(realm.objects(ObservedTestModels.Dog.self).count == 3)  // removing from a list deletes nothing
        #expect($person.error == nil)
    }

    @Test func failedListQuickWritesChangeNothingAndReport() throws {
        let config = observedConfiguration()
        @ObservedRealmObject var person = try added(ObservedTestModels.Person(value: ["dogs": [["name": "A"]]]), config)
        $person.dogs.remove(at: 4)
        #expect($person.error?.code == .invalidArgument)
        $person.dogs.remove(atOffsets: [0, 1])
        #expect($person.error?.code == .invalidArgument)
        $person.dogs.move(fromOffsets: [0], toOffset: 5)
        #expect($person.error?.code == .invalidArgument)
        $person.dogs.append(ObservedTestModels.Dog(value: ["_id": person.dogs[0]._id, "name": "Twin"]))
        #expect($person.error?.code == .primaryKeyExists)
        let doomed = try added(ObservedTestModels.Dog(value: ["name": "Doomed"]), config)
        let frozen = try doomed.freeze()
        let realm = try Realm(configuration: config)
        try realm.write { try realm.delete(doomed) }
        $person.dogs.append(frozen)
        #expect($person.error?.code == .invalidObject)
        #expect(person.dogs.map(\.name) == ["A"])
        #expect(realm.objects(ObservedTestModels.Dog.self).count == 1)
        $person.dogs.append(ObservedTestModels.Dog(value: ["name": "B"]))
        #expect($person.error == nil)
        #expect(person.dogs.count == 2)
    }

    @Test func frozenObjectIntoAnUnmanagedListIsAnError() throws {
        let config = observedConfiguration()
        let frozen = try added(ObservedTestModels.Dog(value: ["name": "Rex"]), config).freeze()
        @StateRealmObject var dogs = ObservedTestModels.Person().dogs
        $dogs.append(frozen)
        #expect(_dogs.error?.code == .invalidObject)
        #expect(dogs.isEmpty)
    }

    @Test func observedListFollowsAnotherActor() async throws {
        let config = observedConfiguration()
        let ali = try added(ObservedTestModels.Person(value: ["firstName": "Ali"]), config)
        @ObservedRealmObject var dogs = ali.dogs
        #expect(dogs.isEmpty)
        let signal = track { _ = dogs.count }
        let db = try await RealmActor(configuration: config)
        try await db.asyncWrite { realm in
            realm.objects(ObservedTestModels.Person.self).first!.dogs.append(ObservedTestModels.Dog(value: ["name": "Rex"]))
        }
        await signal.wait()
        #expect(dogs.map(\.name) == ["Rex"])
    }

    // MARK: Sets

    @Test func setOfPrimitivesUnmanagedThenManaged() throws {
        let config = observedConfiguration()
        let ali = ObservedTestModels.Person()
        @StateRealmObject var nicknames = ali.nicknames
        $nicknames.insert("Al")
        $nicknames.insert("Al")
        #expect(nicknames.count == 1)
        let realm = try Realm(configuration: config)
        try realm.write { try realm.add(ali) }
        _nicknames.update()
        $nicknames.insert("Ace")
        $nicknames.remove("Al")
        #expect(Array(ali.nicknames) == ["Ace"])
        #expect(!realm.isInWriteTransaction)
    }

    @Test func setOfObjectsUnmanagedManagedAndFrozen() throws {
        let config = observedConfiguration()
        let realm = try Realm(configuration: config)
        let ali = try added(ObservedTestModels.Person(), config)
        @StateRealmObject var friends = ali.friends
        let rex = ObservedTestModels.Dog(value: ["name": "Rex"])
        $friends.insert(rex)
        #expect(rex.realm == realm)
        let maui = try added(ObservedTestModels.Dog(value: ["name": "Maui"]), config)
        $friends.insert(try maui.freeze())
        #expect(friends.count == 2)
        $friends.remove(try rex.freeze())
        $friends.remove(maui)
        #expect(friends.isEmpty)
        #expect(realm.objects(ObservedTestModels.Dog.self).count == 2)
        #expect(_friends.error == nil)
        let doomed = try added(ObservedTestModels.Dog(), config)
        let frozen = try doomed.freeze()
        try realm.write { try realm.delete(doomed) }
        $friends.insert(frozen)
        #expect(_friends.error?.code == .invalidObject)
        #expect(friends.isEmpty)
    }

    // MARK: Maps

    @Test func mapOfPrimitivesUnmanagedThenManaged() throws {
        let config = observedConfiguration()
        let ali = ObservedTestModels.Person()
        @StateRealmObject var scores = ali.scores
        $scores.set(object: 3, for: "golf")
        #expect($scores["golf"] == 3)
        let realm = try Realm(configuration: config)
        try realm.write { try realm.add(ali) }
        _scores.update()
        $scores.set(object: 5, for: "chess")
        $scores.remove(key: "golf")
        $scores.set(object: nil, for: "darts")
        #expect(ali.scores.keys == ["chess"])
        #expect(ali.scores["chess"] == 5)
        #expect(!realm.isInWriteTransaction)
    }

    @Test func mapOfObjectsUnmanagedManagedAndFrozen() throws {
        let config = observedConfiguration()
        let realm = try Realm(configuration: config)
        let ali = try added(ObservedTestModels.Person(), config)
        @StateRealmObject var roles = ali.dogsByRole
        let rex = ObservedTestModels.Dog(value: ["name": "Rex"])
        $roles.set(object: rex, for: "guard")
        #expect(rex.realm == realm)
        let maui = try added(ObservedTestModels.Dog(value: ["name": "Maui"]), config)
        $roles.set(object: try maui.freeze(), for: "pet")
        #expect(roles.count == 2)
        #expect(($roles["pet"] ?? nil)?.name == "Maui")
        $roles.remove(key: "guard")
        #expect(roles.keys == ["pet"])
        #expect(_roles.error == nil)
        $roles.set(object: ObservedTestModels.Dog(value: ["_id": maui._id]), for: "twin")
        #expect(_roles.error?.code == .primaryKeyExists)
        #expect(roles.keys == ["pet"])
    }

    @Test func observedSetAndMapFollowAnotherActor() async throws {
        let config = observedConfiguration()
        let ali = try added(ObservedTestModels.Person(), config)
        @StateRealmObject var nicknames = ali.nicknames
        @StateRealmObject var scores = ali.scores
        let setChanged = track { _ = nicknames.count }
        let mapChanged = track { _ = scores.count }
        let db = try await RealmActor(configuration: config)
        try await db.asyncWrite { realm in
            let person = realm.objects(ObservedTestModels.Person.self).first!
            person.nicknames.insert("Al")
            person.scores["golf"] = 4
        }
        await setChanged.wait()
        await mapChanged.wait()
        #expect(Array(nicknames) == ["Al"])
        #expect(scores["golf"] == 4)
    }

    // MARK: Projections

    @Test func projectionUnmanagedThenManaged() throws {
        let config = observedConfiguration()
        let rex = ObservedTestModels.Dog(value: ["name": "Rex", "age": 2])
        @StateRealmObject var card = ObservedTestModels.DogCard(projecting: rex)
        #expect(card.label == "Rex")
        let realm = try Realm(configuration: config)
        try realm.write { try realm.add(rex) }
        _card.update()
        @ObservedRealmObject var observed = ObservedTestModels.DogCard(projecting: rex)
        $observed.label.wrappedValue = "Wolfie"
        #expect(rex.name == "Wolfie")
        #expect(!realm.isInWriteTransaction)
        $card.years.wrappedValue = 3
        #expect(rex.age == 3)
        #expect(_card.error == nil)
    }

    @Test func projectionFollowsAnotherActorAndItsRootsDeletion() async throws {
        let config = observedConfiguration()
        let rex = try added(ObservedTestModels.Dog(value: ["name": "Rex"]), config)
        @ObservedRealmObject var card = ObservedTestModels.DogCard(projecting: rex)
        let signal = track { _ = card.label }
        let db = try await RealmActor(configuration: config)
        try await db.asyncWrite { realm in realm.objects(ObservedTestModels.Dog.self).first!.name = "Wolfie" }
        await signal.wait()
        #expect(card.label == "Wolfie")
        let gone = track { _ = card.label }
        try await db.asyncWrite { realm in try realm.delete(realm.objects(ObservedTestModels.Dog.self)) }
        await gone.wait()
        #expect(card.label == "")
        #expect(card.rootObject.realm == nil)
    }

    // MARK: Objects through results, deleted by a binding

    @Test func stateObjectDeleteThroughItsBinding() throws {
        let config = observedConfiguration()
        @ObservedResults(ObservedTestModels.Dog.self, configuration: config) var dogs
        @StateRealmObject var dog = ObservedTestModels.Dog(value: ["name": "Rex"])
        $dog.delete()  // unmanaged: nothing to delete
        #expect(dogs.isEmpty)
        $dogs.append(dog)
        #expect(dogs.count == 1)
        $dog.delete()
        #expect(dogs.isEmpty)
        #expect(dog.realm == nil)
        #expect(_dog.error == nil)
    }
}
