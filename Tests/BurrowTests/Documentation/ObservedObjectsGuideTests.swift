import Burrow
import BurrowTestTraits
import Foundation
import Observation
import Testing

// The samples of Sources/Burrow/Burrow.docc/ObservedObjects.md, compiled and run as the page
// shows them (DocumentationSamplesTests checks that they are the page's), each followed by checks
// of what the page says about it.

/// The page's models and views, under the page's names.
enum ObservedObjectsPage {
    final class Dog: Object, ObjectKeyIdentifiable {
        override class func shouldIncludeInDefaultSchema() -> Bool { false }  // test only
        @Persisted(primaryKey: true) var _id: ObjectId
        @Persisted var name = ""
        @Persisted var favoriteToy = ""
    }

    final class Person: Object, ObjectKeyIdentifiable {
        override class func shouldIncludeInDefaultSchema() -> Bool { false }  // test only
        @Persisted(primaryKey: true) var _id: ObjectId
        @Persisted var firstName = ""
        @Persisted var dogs: List<Dog>
    }

    @MainActor
    struct DogsList {
        @ObservedResults(Dog.self) var dogs

        func addDog() {
            $dogs.append(Dog(value: ["name": "Bandido"]))  // one write transaction
        }

        func delete(at offsets: IndexSet) {
            $dogs.remove(atOffsets: offsets)  // .onDelete(perform: $dogs.remove)
        }
    }

    @MainActor
    struct EditDogDetails {
        @ObservedRealmObject var dog: Dog

        func rename(toy: String) {
            $dog.favoriteToy.wrappedValue = toy  // TextField("Favorite toy", text: $dog.favoriteToy)
        }
    }

    @MainActor
    struct AddDogToPerson {
        @ObservedRealmObject var person: Person

        func save(name: String) {
            $person.dogs.append(Dog(value: ["name": name]))  // the new dog is added with it
        }
    }
}

extension ObservedObjectsPage.DogsList {
    /// The list on a test's file rather than the default configuration's.
    init(configuration: Realm.Configuration) {
        _dogs = ObservedResults(ObservedObjectsPage.Dog.self, configuration: configuration)
    }
}

@MainActor
@Suite(.temporaryDirectory) struct ObservedObjectsGuideTests {
    typealias Dog = ObservedObjectsPage.Dog
    typealias Person = ObservedObjectsPage.Person
    typealias DogsList = ObservedObjectsPage.DogsList
    typealias EditDogDetails = ObservedObjectsPage.EditDogDetails
    typealias AddDogToPerson = ObservedObjectsPage.AddDogToPerson

    private func configuration() -> Realm.Configuration {
        var config = temporaryConfiguration()
        config.objectTypes = [Dog.self, Person.self]
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
        let dog = Dog(value: ["name": "Rex"])
        try realm.write { try realm.add(dog) }
        let view = EditDogDetails(dog: dog)
        view.rename(toy: "Wubba")
        #expect(realm.objects(Dog.self).first?.favoriteToy == "Wubba")
        #expect(!realm.isInWriteTransaction)
    }

    @Test func addDogToPersonAppendsAndAdds() throws {
        let realm = try Realm(configuration: configuration())
        let person = Person(value: ["firstName": "Ali"])
        try realm.write { try realm.add(person) }
        AddDogToPerson(person: person).save(name: "Maui")
        #expect(person.dogs.map(\.name) == ["Maui"])
        #expect(realm.objects(Dog.self).count == 1)
    }

    @Test func explicitWritesBesideTheWrappers() throws {
        let mine = try Realm(configuration: configuration())
        let person = Person(value: ["firstName": "Ali"])
        try mine.write { try mine.add(person) }
        @ObservedRealmObject var frozenPerson = person
        let company = person
        let thawedPersonRealm = try frozenPerson.thaw()!.realm!
        try thawedPersonRealm.write {
            let dog = try thawedPersonRealm.create(Dog.self, value: ["name": "Maui", "favoriteToy": "Wubba"], update: .modified)
            person.dogs.append(dog)
        }

        let realm = try company.realm!.thaw()
        #expect(person.dogs.first?.favoriteToy == "Wubba")
        #expect(realm === mine && thawedPersonRealm === mine, "the wrapper's objects are the main actor's realm's")
    }

    @MainActor func check(config: Realm.Configuration) {
        @ObservedResults(Dog.self, configuration: config) var dogs
        print(dogs.count)
    }

    @Test func localWrapperInMainActorCode() throws {
        let config = configuration()
        let realm = try Realm(configuration: config)
        try realm.write { try realm.add(Dog(value: ["name": "Rex"])) }
        check(config: config)
        @ObservedResults(Dog.self, configuration: config) var dogs
        #expect(dogs.count == 1)
        #expect(dogs.realm === realm, "the main actor's one realm of the file")
    }

    @Test func failedQuickWriteIsReportedOnTheWrapper() throws {
        @ObservedResults(Dog.self, configuration: configuration()) var dogs
        $dogs.append(Dog(value: ["name": "Rex"]))
        let existingId = dogs[0]._id
        $dogs.append(Dog(value: ["_id": existingId]))  // a duplicate primary key
        if let error = $dogs.error { print(error) }  // "A Dog with primary key … already exists. …"
        let error = try #require($dogs.error)
        #expect(error.code == .primaryKeyExists)
        #expect("\(error)".hasPrefix("A Dog with primary key"))
        #expect("\(error)".contains("already exists"))
        #expect(dogs.count == 1, "the write changed nothing")
        $dogs.append(Dog(value: ["name": "Fido"]))
        #expect($dogs.error == nil, "the next quick write that succeeds clears it")
    }
}
