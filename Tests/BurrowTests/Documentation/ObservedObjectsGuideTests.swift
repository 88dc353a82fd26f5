import Burrow
import BurrowTestTraits
import Foundation
import Observation
import Testing

// The examples of Sources/Burrow/Burrow.docc/ObservedObjects.md, compiled and run. Each test holds
// one example as the guide shows it; keep the two in step.

final class ObservedGuideDog: Object, ObjectKeyIdentifiable {
    // The migration ladder's releases are this test program's Person, Dog and Address.
    override class func shouldIncludeInDefaultSchema() -> Bool { false }
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var name = ""
    @Persisted var favoriteToy = ""
    override class func _realmObjectName() -> String? { "Dog" }
}

final class ObservedGuidePerson: Object, ObjectKeyIdentifiable {
    // The migration ladder's releases are this test program's Person, Dog and Address.
    override class func shouldIncludeInDefaultSchema() -> Bool { false }
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var firstName = ""
    @Persisted var dogs: List<ObservedGuideDog>
    override class func _realmObjectName() -> String? { "Person" }
}

@MainActor
private struct DogsList {
    @ObservedResults(ObservedGuideDog.self) var dogs

    init(configuration: Realm.Configuration) {
        _dogs = ObservedResults(ObservedGuideDog.self, configuration: configuration)
    }

    func addDog() {
        $dogs.append(ObservedGuideDog(value: ["name": "Bandido"]))
    }

    func delete(at offsets: IndexSet) {
        $dogs.remove(atOffsets: offsets)
    }
}

@MainActor
private struct EditDogDetails {
    @ObservedRealmObject var dog: ObservedGuideDog

    func rename(toy: String) {
        $dog.favoriteToy.wrappedValue = toy
    }
}

@MainActor
private struct AddDogToPerson {
    @ObservedRealmObject var person: ObservedGuidePerson

    func save(name: String) {
        $person.dogs.append(ObservedGuideDog(value: ["name": name]))
    }
}

@MainActor
@Suite(.temporaryDirectory) struct ObservedObjectsGuideTests {
    private func configuration() -> Realm.Configuration {
        var config = temporaryConfiguration()
        config.objectTypes = [ObservedGuideDog.self, ObservedGuidePerson.self]
        return config
    }

    @Test func dogsListAddsAndDeletes() throws {
        let list = DogsList(configuration: configuration())
        list.addDog()
        list.addDog()
        #expect(list.dogs.map(\.name) == ["Bandido", "Bandido"])
        list.delete(at: [0])
        #expect(list.dogs.count == 1)
        #expect(list.$dogs.error == nil)
    }

    @Test func editDogDetailsWritesThroughTheBinding() throws {
        let realm = try Realm(configuration: configuration())
        let dog = ObservedGuideDog(value: ["name": "Rex"])
        try realm.write { try realm.add(dog) }
        let view = EditDogDetails(dog: dog)
        view.rename(toy: "Wubba")
        #expect(realm.objects(ObservedGuideDog.self).first?.favoriteToy == "Wubba")
        #expect(!realm.isInWriteTransaction)
    }

    @Test func addDogToPersonAppendsAndAdds() throws {
        let realm = try Realm(configuration: configuration())
        let person = ObservedGuidePerson(value: ["firstName": "Ali"])
        try realm.write { try realm.add(person) }
        AddDogToPerson(person: person).save(name: "Maui")
        #expect(person.dogs.map(\.name) == ["Maui"])
        #expect(realm.objects(ObservedGuideDog.self).count == 1)
    }

    @Test func explicitWritesBesideTheWrappers() throws {
        let realm = try Realm(configuration: configuration())
        let person = ObservedGuidePerson(value: ["firstName": "Ali"])
        try realm.write { try realm.add(person) }
        @ObservedRealmObject var frozenPerson = person
        let thawedPersonRealm = try frozenPerson.thaw()!.realm!
        try thawedPersonRealm.write {
            let dog = try thawedPersonRealm.create(ObservedGuideDog.self, value: ["name": "Maui", "favoriteToy": "Wubba"], update: .modified)
            person.dogs.append(dog)
        }
        #expect(person.dogs.first?.favoriteToy == "Wubba")
        let company = person
        let again = try company.realm!.thaw()
        #expect(again == realm)
    }

    @Test func localWrapperInMainActorCode() throws {
        let config = configuration()
        @ObservedResults(ObservedGuideDog.self, configuration: config) var dogs
        #expect(dogs.count == 0)
        #expect(dogs.realm == (try Realm(configuration: config)))
    }

    @Test func failedQuickWriteIsReportedOnTheWrapper() throws {
        let list = DogsList(configuration: configuration())
        list.addDog()
        let existingId = list.dogs[0]._id
        let dogs = list.$dogs
        dogs.append(ObservedGuideDog(value: ["_id": existingId]))
        let error = try #require(dogs.error)
        #expect(error.code == .primaryKeyExists)
        #expect("\(error)".contains("already exists"))
        #expect(list.dogs.count == 1)
        list.addDog()
        #expect(dogs.error == nil)
    }
}
