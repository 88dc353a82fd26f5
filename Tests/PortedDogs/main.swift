// realm-swift's "Simple" and "Backlink" example apps, grown a little (an embedded address,
// helpers that each open the default realm, a second launch that reopens the file), as a user
// ports them: `import RealmSwift` became `import Burrow`, and `try` went where Swift asks.
// Nothing else differs from the RealmSwift program. `PortedProgramTests` runs it in a directory
// of its own and compares what it prints.
import Burrow

class Address: EmbeddedObject {
    @Persisted var street: String
    @Persisted var city: String
}

class Dog: Object {
    @Persisted var name: String
    @Persisted var age: Int
    // Define "owners" as the inverse relationship to Person.dogs
    @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
}

class Person: Object {
    @Persisted(primaryKey: true) var name: String
    @Persisted var dogs: List<Dog>
    @Persisted var address: Address?
}

class AppDelegate {
    func application(didFinishLaunching launch: Int) throws {
        if launch == 1 {
            try firstLaunch()
        } else {
            try laterLaunch()
        }
    }

    func firstLaunch() throws {
        _ = try Realm.deleteFiles(for: Realm.Configuration.defaultConfiguration)

        // Create a standalone object
        let mydog = Dog()

        // Set & read properties
        mydog.name = "Rex"
        mydog.age = 9
        print("Name of dog: \(mydog.name)")

        // Realms are used to group data together
        let realm = try Realm()  // Create realm pointing to default file

        // Save your object
        try realm.beginWrite()
        try realm.add(mydog)
        try realm.commitWrite()

        // Query
        let results = try realm.objects(Dog.self).filter("name contains 'x'")

        // Queries are chainable!
        let results2 = try results.filter("age > 8")
        print("Number of dogs: \(results.count)")
        print("Dogs older than eight: \(results2.count)")

        // Link objects
        let person = Person()
        person.name = "Tim"
        person.dogs.append(mydog)

        try realm.write {
            try realm.add(person)
        }

        // Helpers that open the default realm themselves share this write transaction
        try realm.write {
            try adopt(dog: ["Fido", 1], by: "John")
            try adopt(dog: ["Spot", 2], by: "Mary")
            try move(personNamed: "Tim", to: ["1 Main St", "Springfield"])
            print("People in this transaction: \(try peopleCount())")
        }

        // Log all dogs and their owners using the "owners" inverse relationship
        for dog in realm.objects(Dog.self).sorted(byKeyPath: "name") {
            let ownerNames = Array(dog.owners.map(\.name))
            print("\(dog.name) has \(ownerNames.count) owners (\(ownerNames))")
        }

        // Multi-threading
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            autoreleasepool {
                let otherRealm = try! Realm()
                let otherResults = try! otherRealm.objects(Dog.self).filter("name contains 'Rex'")
                print("Number of dogs \(otherResults.count)")
            }
            done.signal()
        }
        done.wait()
    }

    func laterLaunch() throws {
        let realm = try Realm()
        let tim = realm.object(ofType: Person.self, forPrimaryKey: "Tim")!
        print("\(tim.name) lives at \(tim.address!.street), \(tim.address!.city) with \(tim.dogs.map(\.name))")
        print("Dogs: \(realm.objects(Dog.self).count), people: \(realm.objects(Person.self).count)")
    }

    func adopt(dog: [Any], by owner: String) throws {
        let realm = try Realm()
        try realm.create(Person.self, value: [owner, [dog]])
    }

    func move(personNamed name: String, to address: [Any]) throws {
        let realm = try Realm()
        let person = realm.object(ofType: Person.self, forPrimaryKey: name)!
        person.address = Address(value: address)
    }

    func peopleCount() throws -> Int {
        try Realm().objects(Person.self).count
    }
}

let launch = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 1 : 1
try AppDelegate().application(didFinishLaunching: launch)
