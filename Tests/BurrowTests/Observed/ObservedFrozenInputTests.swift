import Burrow
import BurrowTestTraits
import Foundation
import Testing

/// Frozen objects (`frozenObject` of a `Frozen`, what the seed calls `frozenPerson`) given to
/// the wrappers and their quick writes: the write goes to the live object; a deleted one
/// changes nothing and sets `error`. Also a binding whose write the realm refuses.
@MainActor
@Suite(.temporaryDirectory) struct ObservedFrozenInputTests {
    @Test func frozenObjectAppendedToResultsIsAlreadyThere() throws {
        let config = observedConfiguration()
        let rex = try added(ObservedTestModels.Dog(value: ["name": "Rex"]), config)
        @ObservedResults(ObservedTestModels.Dog.self, configuration: config) var dogs
        $dogs.append(try rex.freeze().frozenObject)
        #expect($dogs.error == nil)
        #expect(dogs.count == 1)
        $dogs.remove(try rex.freeze().frozenObject)
        #expect($dogs.error == nil)
        #expect(dogs.isEmpty)
    }

    @Test func frozenObjectAppendedToAList() throws {
        let config = observedConfiguration()
        let rex = try added(ObservedTestModels.Dog(value: ["name": "Rex"]), config)
        @ObservedRealmObject var person = try added(ObservedTestModels.Person(), config)
        $person.dogs.append(try rex.freeze().frozenObject)
        #expect($person.error == nil)
        #expect(person.dogs.map(\.name) == ["Rex"])
    }

    @Test func observedFrozenObjectBindingWritesTheLiveObject() throws {
        let config = observedConfiguration()
        let rex = try added(ObservedTestModels.Dog(value: ["name": "Rex"]), config)
        @ObservedRealmObject var dog = try rex.freeze().frozenObject
        $dog.name.wrappedValue = "Wolfie"
        #expect($dog.error == nil)
        #expect(rex.name == "Wolfie")
    }

    @Test func observedFrozenPersonListAppendWritesTheLiveList() throws {
        let config = observedConfiguration()
        let ali = try added(ObservedTestModels.Person(), config)
        @ObservedRealmObject var person = try ali.freeze().frozenObject
        $person.dogs.append(ObservedTestModels.Dog(value: ["name": "Maui"]))
        #expect($person.error == nil)
        #expect(ali.dogs.map(\.name) == ["Maui"])
    }

    @Test func bindingWriteTheRealmRefusesChangesNothing() throws {
        let config = observedConfiguration()
        let rex = try added(ObservedTestModels.Dog(value: ["name": "Rex"]), config)
        @ObservedRealmObject var dog = rex
        let id = rex._id
        $dog._id.wrappedValue = ObjectId()  // a primary key cannot change
        #expect($dog.error != nil)
        #expect(rex._id == id)
        $dog.name.wrappedValue = "Wolfie"
        #expect($dog.error == nil)
        #expect(rex.name == "Wolfie")
    }

    @Test func frozenObjectsIntoSetsAndMaps() throws {
        let config = observedConfiguration()
        let rex = try added(ObservedTestModels.Dog(value: ["name": "Rex"]), config)
        @ObservedRealmObject var person = try added(ObservedTestModels.Person(), config)
        $person.friends.insert(try rex.freeze().frozenObject)
        $person.dogsByRole.set(object: try rex.freeze().frozenObject, for: "guard")
        #expect($person.error == nil)
        #expect(person.friends.map(\.name) == ["Rex"])
        #expect((person.dogsByRole["guard"] ?? nil)?.name == "Rex")
        $person.friends.remove(try rex.freeze().frozenObject)
        #expect(person.friends.isEmpty)
    }

    @Test func deletedFrozenObjectChangesNothingThenASuccessClearsTheError() throws {
        let config = observedConfiguration()
        let realm = try Realm(configuration: config)
        let doomed = try added(ObservedTestModels.Dog(value: ["name": "Doomed"]), config)
        let frozen = try doomed.freeze().frozenObject
        try realm.write { try realm.delete(doomed) }
        @ObservedResults(ObservedTestModels.Dog.self, configuration: config) var dogs
        $dogs.append(frozen)
        #expect($dogs.error?.code == .invalidObject)
        $dogs.remove(frozen)  // already gone: nothing to do
        @ObservedRealmObject var person = try added(ObservedTestModels.Person(), config)
        $person.dogs.append(frozen)
        #expect($person.error?.code == .invalidObject)
        #expect(person.dogs.isEmpty)
        #expect(realm.objects(ObservedTestModels.Dog.self).isEmpty)
        $person.dogs.append(ObservedTestModels.Dog(value: ["name": "Maui"]))
        $dogs.append(ObservedTestModels.Dog(value: ["name": "Rex"]))
        #expect($person.error == nil)
        #expect($dogs.error == nil)
        #expect(dogs.count == 2)
    }

    @Test func frozenObjectIntoAnUnmanagedListIsAnError() throws {
        let config = observedConfiguration()
        let rex = try added(ObservedTestModels.Dog(value: ["name": "Rex"]), config)
        @StateRealmObject var dogs = ObservedTestModels.Person().dogs
        $dogs.append(try rex.freeze().frozenObject)
        #expect(_dogs.error?.code == .invalidObject)
        #expect(dogs.isEmpty)
    }
}
