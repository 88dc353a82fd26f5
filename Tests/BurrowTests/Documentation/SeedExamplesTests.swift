import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// The models of RealmSwift's documentation page "CRUD - Update", stored under its class names.
enum SeedExamplesModels {
    final class Dog: Object {
        // The migration ladder's releases are this test program's Person, Dog and Address.
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted var name = ""
        @Persisted var age = 0
        @Persisted var color = ""
        @Persisted var currentCity = ""
        @Persisted var citiesVisited: MutableSet<String>
        @Persisted var companion: AnyRealmValue
        // Map of city name -> favorite park in that city
        @Persisted var favoriteParksByCity: Map<String, String>
        // The "Use Create to Copy an Object" example's version of the model links a toy.
        @Persisted var favoriteToy: CommonModels.DogToy?
        override class func _realmObjectName() -> String? { "Dog" }
    }

    final class Person: Object {
        // The migration ladder's releases are this test program's Person, Dog and Address.
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        // To-many relationship - a person can have many dogs
        @Persisted var dogs: List<SeedExamplesModels.Dog>
        // Embed a single object.
        @Persisted var address: SeedExamplesModels.Address?
        override class func _realmObjectName() -> String? { "Person" }
    }

    final class Address: EmbeddedObject {
        // The migration ladder's releases are this test program's Person, Dog and Address.
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted var street: String?
        @Persisted var city: String?
        @Persisted var country: String?
        @Persisted var postalCode: String?
        override class func _realmObjectName() -> String? { "Address" }
    }

    final class PersonProjection: Projection<SeedExamplesModels.Person> {
        @Projected(\SeedExamplesModels.Person.name) var firstName
        @Projected(\SeedExamplesModels.Person.address?.city) var homeCity
    }
}

/// The examples of RealmSwift's documentation pages "CRUD - Update", "Write Transactions" and
/// "Write Data - SwiftUI", one test per example, named after its section, written as the page
/// writes it (with `try` where Swift asks). The pages' other queries are in
/// Query/QuerySeedTests.
@Suite(.temporaryDirectory) struct SeedExamplesTests {
    private func seedRealm() throws -> Realm {
        var config = temporaryConfiguration()
        config.objectTypes = [SeedExamplesModels.Dog.self, SeedExamplesModels.Person.self, SeedExamplesModels.Address.self, CommonModels.DogToy.self]
        return try Realm(configuration: config)
    }

    @Test func testRunATransaction() throws {
        let realm = try seedRealm()
        try realm.write {
            try realm.add(SeedExamplesModels.Person(value: ["id": 1, "name": "Ali"]))
        }
        #expect(realm.objects(SeedExamplesModels.Person.self).count == 1)
    }

    @Test func testUpdateAnObject() throws {
        let realm = try seedRealm()
        try realm.write { try realm.add(SeedExamplesModels.Dog(value: ["name": "Rex", "age": 1])) }

        // Get a dog to update
        let dog = realm.objects(SeedExamplesModels.Dog.self).first!
        // Open a thread-safe transaction
        try realm.write {
            // Update some properties on the instance.
            // These changes are saved to the realm
            dog.name = "Wolfie"
            dog.age += 1
        }
        #expect(realm.objects(SeedExamplesModels.Dog.self).first?.name == "Wolfie")
        #expect(realm.objects(SeedExamplesModels.Dog.self).first?.age == 2)
    }

    @Test func testUpdatePropertiesWithKeyValueCoding() throws {
        let realm = try seedRealm()
        try realm.write {
            try realm.add(SeedExamplesModels.Dog(value: ["name": "Rex", "currentCity": "Paris"]))
            try realm.add(SeedExamplesModels.Dog(value: ["name": "Fido", "currentCity": "Oslo"]))
        }
        let allDogs = realm.objects(SeedExamplesModels.Dog.self)
        try realm.write {
            allDogs.first?.setValue("Sparky", forKey: "name")
            // Move the dogs to Toronto for vacation
            allDogs.setValue("Toronto", forKey: "currentCity")
        }
        #expect(allDogs.first?.name == "Sparky")
        #expect(allDogs.map(\.currentCity) == ["Toronto", "Toronto"])
    }

    @Test func testUpsertAnObject() throws {
        let realm = try seedRealm()
        try realm.write {
            let person1 = SeedExamplesModels.Person(value: ["id": 1234, "name": "Jones"])
            // Add a new person to the realm. Since nobody with ID 1234
            // has been added yet, this adds the instance to the realm.
            try realm.add(person1, update: .modified)

            let person2 = SeedExamplesModels.Person(value: ["id": 1234, "name": "Bowie"])
            // Judging by the ID, it's the same person, just with a
            // different name.
            try realm.add(person2, update: .modified)
        }
        #expect(realm.objects(SeedExamplesModels.Person.self).count == 1)
        #expect(realm.object(ofType: SeedExamplesModels.Person.self, forPrimaryKey: 1234)?.name == "Bowie")
    }

    @Test func testUpsertPartialUpdateByPrimaryKey() throws {
        let realm = try seedRealm()
        try realm.write { try realm.add(SeedExamplesModels.Person(value: ["id": 123, "name": "Ali"])) }
        try realm.write {
            // Use .modified to only update the provided values.
            // Note that the "name" property will remain the same
            // for the person with primary key "id" 123.
            try realm.create(SeedExamplesModels.Person.self, value: ["id": 123, "dogs": [["Buster", 5]]], update: .modified)
        }
        let person = try #require(realm.object(ofType: SeedExamplesModels.Person.self, forPrimaryKey: 123))
        #expect(person.name == "Ali")
        #expect(person.dogs.map(\.name) == ["Buster"])
        #expect(person.dogs.first?.age == 5)
    }

    @Test func testUpdateAMapDictionary() throws {
        let realm = try seedRealm()
        try realm.write {
            let wolfie = SeedExamplesModels.Dog(value: ["name": "Wolfie"])
            wolfie.favoriteParksByCity["New York"] = "Domino Park"
            try realm.add(wolfie)
        }
        // Find the dog we want to update
        let wolfie = realm.objects(SeedExamplesModels.Dog.self).where {
            $0.name == "Wolfie"
        }.first!
        #expect(wolfie.favoriteParksByCity["New York"] == "Domino Park")

        // Update values for keys, or add values if the keys do not currently exist
        try realm.write {
            wolfie.favoriteParksByCity["New York"] = "Washington Square Park"
            wolfie.favoriteParksByCity.updateValue("A Street Park", forKey: "Boston")
            wolfie.favoriteParksByCity.setValue("Little Long Pond", forKey: "Seal Harbor")
        }
        #expect(wolfie.favoriteParksByCity["New York"] == "Washington Square Park")
        #expect(wolfie.favoriteParksByCity.count == 3)
        #expect(wolfie.favoriteParksByCity.keys == ["Boston", "New York", "Seal Harbor"])
    }

    @Test func testUpdateAMutableSetProperty() throws {
        let realm = try seedRealm()
        let dog2 = SeedExamplesModels.Dog(value: ["name": "Maui's friend"])
        dog2.citiesVisited.insert("Toronto")
        dog2.citiesVisited.insert("Montreal")
        try realm.write { try realm.add(dog2) }

        // Record a dog's name, current city, and store it to the cities visited.
        let dog = SeedExamplesModels.Dog()
        dog.name = "Maui"
        dog.currentCity = "New York"
        try realm.write {
            try realm.add(dog)
            dog.citiesVisited.insert(dog.currentCity)
        }
        // Update the dog's current city, and add it to the set of cities visited.
        try realm.write {
            dog.currentCity = "Toronto"
            dog.citiesVisited.insert(dog.currentCity)
        }
        #expect(dog.citiesVisited.count == 2)
        // The dog2 set contains one element that isn't present in the dog set.
        try realm.write {
            dog.citiesVisited.formUnion(dog2.citiesVisited)
        }
        #expect(dog.citiesVisited.count == 3)
        // Or you can remove elements that are present in the second set.
        try realm.write {
            dog.citiesVisited.subtract(dog2.citiesVisited)
        }
        #expect(dog.citiesVisited.count == 1)
        #expect(Array(dog.citiesVisited) == ["New York"])
        // In this case, the two sets contain no common elements, so this set should now contain 0 items.
        try realm.write {
            dog.citiesVisited.formIntersection(dog2.citiesVisited)
        }
        #expect(dog.citiesVisited.count == 0)
    }

    @Test func testUpdateAnAnyRealmValueProperty() throws {
        let realm = try seedRealm()
        try realm.write { try realm.add(SeedExamplesModels.Dog(value: ["name": "Rex"])) }
        // Get a dog to update
        let rex = realm.objects(SeedExamplesModels.Dog.self).where {
            $0.name == "Rex"
        }.first!
        try realm.write {
            // As with creating an object with an AnyRealmValue, you must specify the
            // type of the value when you update the property.
            rex.companion = .object(SeedExamplesModels.Dog(value: ["name": "Regina"]))
        }
        #expect((rex.companion.objectValue as? SeedExamplesModels.Dog)?.name == "Regina")
        #expect(realm.objects(SeedExamplesModels.Dog.self).count == 2)
    }

    @Test func testUpdateAnEmbeddedObjectProperty() throws {
        let realm = try seedRealm()
        try realm.write { try realm.add(SeedExamplesModels.Person(value: ["id": 123, "address": ["street": "1 Old Road"]])) }
        let idOfPersonToUpdate = 123
        // Find the person to update by ID
        guard let person = realm.object(ofType: SeedExamplesModels.Person.self, forPrimaryKey: idOfPersonToUpdate) else {
            Issue.record("Person \(idOfPersonToUpdate) not found")
            return
        }
        try realm.write {
            // Update the embedded object directly through the person
            person.address?.street = "789 Any Street"
            person.address?.city = "Anytown"
            person.address?.postalCode = "12345"
        }
        #expect(person.address?.street == "789 Any Street")
        #expect(person.address?.city == "Anytown")
        #expect(person.address?.postalCode == "12345")
    }

    @Test func testOverwriteAnEmbeddedObject() throws {
        let realm = try seedRealm()
        try realm.write { try realm.add(SeedExamplesModels.Person(value: ["id": 123, "address": ["street": "1 Old Road"]])) }
        guard let person = realm.object(ofType: SeedExamplesModels.Person.self, forPrimaryKey: 123) else {
            Issue.record("Person 123 not found")
            return
        }
        try realm.write {
            let newAddress = SeedExamplesModels.Address()
            newAddress.street = "789 Any Street"
            newAddress.city = "Anytown"
            newAddress.country = "USA"
            newAddress.postalCode = "12345"
            // Overwrite the embedded object
            person.address = newAddress
        }
        #expect(person.address?.country == "USA")
        #expect(realm.objects(SeedExamplesModels.Address.self).count == 1)
    }

    @MainActor
    @Test func testUseCreateToCopyAnObjectIntoTheRealm() throws {
        let realm = try seedRealm()
        let other = try seedRealm()
        let wubba = CommonModels.DogToy(value: ["name": "Wubba"])
        try other.write { try other.add(wubba) }
        let person = SeedExamplesModels.Person(value: ["id": 1])
        try realm.write { try realm.add(person) }
        let frozenPerson = try person.freeze()

        // Adding an object that links to another realm's object fails as RealmSwift's documentation describes.
        let error = #expect(throws: RealmError.self) {
            try realm.write { person.dogs.append(SeedExamplesModels.Dog(value: ["name": "Maui", "favoriteToy": wubba])) }
        }
        #expect(error?.description.contains("Use create instead to copy it into this Realm") == true)

        // Thaw the object and get its realm to perform the write to append the new dog.
        let thawedPerson = try frozenPerson.thaw()!
        let thawedPersonRealm = try frozenPerson.thaw()!.realm!
        try thawedPersonRealm.write {
            // Use create to copy the existing object into the realm.
            let toy = try thawedPersonRealm.create(CommonModels.DogToy.self, value: wubba, update: .error)
            let dog = try thawedPersonRealm.create(SeedExamplesModels.Dog.self, value: ["name": "Maui", "favoriteToy": toy], update: .error)
            thawedPerson.dogs.append(dog)
            #expect(toy.realm === thawedPersonRealm)
        }
        #expect(thawedPerson.realm === thawedPersonRealm)
        realm.refresh()
        #expect(person.dogs.map(\.name) == ["Maui"])
        #expect(person.dogs.first?.favoriteToy?.name == "Wubba")
    }

    @Test func testChangeClassProjectionProperties() throws {
        let realm = try seedRealm()
        try realm.write {
            try realm.add(SeedExamplesModels.Person(value: ["id": 1, "name": "Jason", "address": ["city": "Tulsa"]]))
            try realm.add(SeedExamplesModels.Person(value: ["id": 2, "name": "Ali"]))
        }
        // Retrieve all class projections of the given type `PersonProjection`
        // and filter for the first class projection where the `firstName` property
        // value is "Jason"
        let person = realm.objects(SeedExamplesModels.PersonProjection.self).first(where: { $0.firstName == "Jason" })!
        // Update class projection property in a write transaction
        try realm.write {
            person.firstName = "David"
        }
        #expect(realm.object(ofType: SeedExamplesModels.Person.self, forPrimaryKey: 1)?.name == "David")
        #expect(person.homeCity == "Tulsa")
        #expect(realm.objects(SeedExamplesModels.PersonProjection.self).map(\.firstName) == ["David", "Ali"])
    }

    /// crud-transactions.rst, "Interface-Driven Writes": a write that one observer does not hear
    /// about (RealmSwift's `observe` token is the stream's `token` here).
    @Test func testInterfaceDrivenWrites() async throws {
        let realm = try seedRealm()
        let collection = realm.objects(SeedExamplesModels.Dog.self)
        // Observe Realm Notifications
        let stream = collection.changes()
        let observer = stream.makeAsyncIterator()
        guard case .initial(let dogs) = await next(observer) else {
            Issue.record("no initial element")
            return
        }
        #expect(dogs.isEmpty)
        // Later, pass the token in an array to the realm.write(withoutNotifying:)
        // method to write without sending a notification to that observer.
        try realm.write(withoutNotifying: [stream.token]) {
            try realm.add(SeedExamplesModels.Dog(value: ["name": "Rex"]))
        }
        // The next element this observer gets is for the next ordinary write.
        try realm.write { try realm.add(SeedExamplesModels.Dog(value: ["name": "Wolfie"])) }
        guard case .update(let updated, let deletions, let insertions, _) = await next(observer) else {
            Issue.record("expected an update")
            return
        }
        #expect(updated.map(\.name) == ["Rex", "Wolfie"])
        #expect(deletions.isEmpty && insertions == [1], "only Wolfie is news to this observer")
    }

    /// swiftui-quick-writes.md, "Perform an Explicit Write". SwiftUI's property wrappers hand
    /// out frozen objects; in Burrow a frozen object is a `Frozen<T>`. Its realm thaws into the
    /// live realm of the caller's isolation, and the object thaws into that same realm.
    @MainActor
    @Test func testPerformAnExplicitWrite() throws {
        let config = temporaryConfiguration()
        do {
            let realm = try Realm(configuration: config)
            try realm.write {
                let company = QuerySeedModels.Company()
                company.employees.append(QuerySeedModels.Employee(value: ["name": "Dachary"]))
                company.dogs.append(CommonModels.Dog(value: ["name": "Maui"]))
                try realm.add(company)
            }
        }
        // The `frozenCompany` here represents an `@ObservedRealmObject var company: Company`
        let frozenCompany = try Realm(configuration: config).objects(QuerySeedModels.Company.self).freeze().first!
        func performAnExplicitWrite(company: Frozen<QuerySeedModels.Company>, employeeName: String, dogName: String) throws {
            // Get the realm that is managing the `Company` object you passed in.
            // Thaw the realm so you can write to it.
            let realm = try company.realm!.thaw()
            // Thawing the `Company` object that you passed in also thaws the objects in its List properties.
            // This lets you append the `Dog` to the `Employee` without individually thawing both of them.
            let thawedCompany = try company.thaw()!
            let thisEmployee = thawedCompany.employees.where { $0.name == employeeName }.first!
            let thisDog = thawedCompany.dogs.where { $0.name == dogName }.first!
            try realm.write {
                thisEmployee.dogs.append(thisDog)
            }
        }
        try performAnExplicitWrite(company: frozenCompany, employeeName: "Dachary", dogName: "Maui")
        let realm = try Realm(configuration: config)
        #expect(realm.objects(QuerySeedModels.Employee.self).first?.dogs.map(\.name) == ["Maui"])
        #expect(frozenCompany.employees.first?.dogs.isEmpty == true, "the frozen value still shows its version")
    }
}
