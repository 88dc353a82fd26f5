import Foundation
import Synchronization
import Testing

@testable import Burrow

// The six releases of realm-swift's migration example (examples/ios/swift/Migration), as one
// program declares them side by side: each release's classes live in an enum of their own and
// are stored under the example's names (`Person`, `Dog`, `Pet`, `Address`). Each release has
// the example's data, its migration block (which brings a file of ANY older release to it) and
// the checks that every migrated file must pass. MigrationLadderTests drives them.
//
// What each release changes:
// - v0: Person(firstName, lastName, age).
// - v1: firstName and lastName become fullName.
// - v2: a Dog class; Person.dogs, a list of dogs.
// - v3: Dog is renamed to Pet (a new class, filled from the old one) with a `kind`; Person.pets.
// - v4: an Address object; Person.address.
// - v5: Address becomes an embedded object.
//
// The v5 classes and block are the example of Sources/Burrow/Burrow.docc/Migrations.md;
// DocumentationSamplesTests checks that the page shows them line by line.

/// One release of the ladder: its classes, its data, and its migration.
protocol LadderRelease: Sendable {
    /// The release's schema version (its number in the ladder).
    static var schemaVersion: UInt64 { get }
    /// The release's classes, for `objectTypes`.
    static var objectTypes: [ObjectBase.Type] { get }
    /// Brings a file of any older release to this one.
    static var migrationBlock: MigrationBlock { get }
    /// Adds the release's example data (inside a write).
    static func exampleData(_ realm: Realm) throws
    /// Checks that `realm` holds the release's example data, as every file migrated to this
    /// release must.
    static func migrationCheck(_ realm: Realm, sourceLocation: SourceLocation)
}

/// Which release's classes are in the default schema (`shouldIncludeInDefaultSchema()`), the
/// program's classes that a realm opened without `objectTypes` migrates to: none (-1) unless a
/// child process that tests the ladder without `objectTypes` chooses one before it opens a
/// realm. (The program's classes are listed once per process, so the choice holds for it.)
enum LadderDefaultSchema {
    static let release = Atomic<Int>(-1)

    static func includes(_ release: Int) -> Bool { self.release.load(ordering: .relaxed) == release }
}

/// The releases in order: `ladder[n].schemaVersion == n`.
let ladder: [any LadderRelease.Type] = [LadderV0.self, LadderV1.self, LadderV2.self, LadderV3.self, LadderV4.self, LadderV5.self]

// MARK: - v0

enum LadderV0: LadderRelease {
    final class Person: Object {
        override class func _realmObjectName() -> String? { "Person" }
        override class func shouldIncludeInDefaultSchema() -> Bool { LadderDefaultSchema.includes(0) }
        @Persisted var firstName = ""
        @Persisted var lastName = ""
        @Persisted var age = 0
        convenience init(firstName: String, lastName: String, age: Int) {
            self.init()
            self.firstName = firstName
            self.lastName = lastName
            self.age = age
        }
    }

    static var schemaVersion: UInt64 { 0 }
    static var objectTypes: [ObjectBase.Type] { [Person.self] }

    // The first release has nothing to migrate.
    static let migrationBlock: MigrationBlock = { _, _ in }

    static func exampleData(_ realm: Realm) throws {
        let person1 = Person(firstName: "John", lastName: "Doe", age: 42)
        let person2 = Person(firstName: "Jane", lastName: "Doe", age: 43)
        let person3 = Person(firstName: "John", lastName: "Smith", age: 44)
        try realm.add([person1, person2, person3])
    }

    static func migrationCheck(_ realm: Realm, sourceLocation: SourceLocation) {
        let persons = realm.objects(Person.self)
        #expect(persons.count == 3, sourceLocation: sourceLocation)
        guard persons.count == 3 else { return }
        #expect(persons[0].firstName == "John", sourceLocation: sourceLocation)
        #expect(persons[0].lastName == "Doe", sourceLocation: sourceLocation)
        #expect(persons[0].age == 42, sourceLocation: sourceLocation)
        #expect(persons[1].firstName == "Jane", sourceLocation: sourceLocation)
        #expect(persons[1].lastName == "Doe", sourceLocation: sourceLocation)
        #expect(persons[1].age == 43, sourceLocation: sourceLocation)
        #expect(persons[2].firstName == "John", sourceLocation: sourceLocation)
        #expect(persons[2].lastName == "Smith", sourceLocation: sourceLocation)
        #expect(persons[2].age == 44, sourceLocation: sourceLocation)
    }
}

// MARK: - v1

enum LadderV1: LadderRelease {
    final class Person: Object {
        override class func _realmObjectName() -> String? { "Person" }
        override class func shouldIncludeInDefaultSchema() -> Bool { LadderDefaultSchema.includes(1) }
        @Persisted var fullName = ""
        @Persisted var age = 0
        convenience init(fullName: String, age: Int) {
            self.init()
            self.fullName = fullName
            self.age = age
        }
    }

    static var schemaVersion: UInt64 { 1 }
    static var objectTypes: [ObjectBase.Type] { [Person.self] }

    static let migrationBlock: MigrationBlock = { migration, oldSchemaVersion in
        if oldSchemaVersion < 1 {
            // The two name fields become one.
            migration.enumerateObjects(ofType: Person.className()) { oldObject, newObject in
                let firstName = oldObject!["firstName"] as! String
                let lastName = oldObject!["lastName"] as! String
                newObject!["fullName"] = "\(firstName) \(lastName)"
            }
        }
    }

    static func exampleData(_ realm: Realm) throws {
        let person1 = Person(fullName: "John Doe", age: 42)
        let person2 = Person(fullName: "Jane Doe", age: 43)
        let person3 = Person(fullName: "John Smith", age: 44)
        try realm.add([person1, person2, person3])
    }

    static func migrationCheck(_ realm: Realm, sourceLocation: SourceLocation) {
        let persons = realm.objects(Person.self)
        #expect(persons.count == 3, sourceLocation: sourceLocation)
        guard persons.count == 3 else { return }
        #expect(persons[0].fullName == "John Doe", sourceLocation: sourceLocation)
        #expect(persons[0].age == 42, sourceLocation: sourceLocation)
        #expect(persons[1].fullName == "Jane Doe", sourceLocation: sourceLocation)
        #expect(persons[1].age == 43, sourceLocation: sourceLocation)
        #expect(persons[2].fullName == "John Smith", sourceLocation: sourceLocation)
        #expect(persons[2].age == 44, sourceLocation: sourceLocation)
    }
}

// MARK: - v2

enum LadderV2: LadderRelease {
    final class Dog: Object {
        override class func _realmObjectName() -> String? { "Dog" }
        override class func shouldIncludeInDefaultSchema() -> Bool { LadderDefaultSchema.includes(2) }
        @Persisted var name = ""
        convenience init(name: String) {
            self.init()
            self.name = name
        }
    }

    final class Person: Object {
        override class func _realmObjectName() -> String? { "Person" }
        override class func shouldIncludeInDefaultSchema() -> Bool { LadderDefaultSchema.includes(2) }
        @Persisted var fullName = ""
        @Persisted var age = 0
        @Persisted var dogs: List<Dog>
        convenience init(fullName: String, age: Int) {
            self.init()
            self.fullName = fullName
            self.age = age
        }
    }

    static var schemaVersion: UInt64 { 2 }
    static var objectTypes: [ObjectBase.Type] { [Person.self, Dog.self] }

    static let migrationBlock: MigrationBlock = { migration, oldSchemaVersion in
        if oldSchemaVersion < 1 {
            migration.enumerateObjects(ofType: Person.className()) { oldObject, newObject in
                let firstName = oldObject!["firstName"] as! String
                let lastName = oldObject!["lastName"] as! String
                newObject!["fullName"] = "\(firstName) \(lastName)"
            }
        }
        if oldSchemaVersion < 2 {
            // The dogs the example's people have, and one dog nobody owns.
            migration.enumerateObjects(ofType: Person.className()) { _, newObject in
                if newObject!["fullName"] as! String == "John Doe" {
                    let dogs = newObject!["dogs"] as! List<MigrationObject>
                    let marley = migration.create(Dog.className(), value: ["Marley"])
                    let lassie = migration.create(Dog.className(), value: ["Lassie"])
                    dogs.append(marley)
                    dogs.append(lassie)
                } else if newObject!["fullName"] as! String == "Jane Doe" {
                    let dogs = newObject!["dogs"] as! List<MigrationObject>
                    let toto = migration.create(Dog.className(), value: ["Toto"])
                    dogs.append(toto)
                }
            }
            migration.create(Dog.className(), value: ["Slinkey"])
        }
    }

    static func exampleData(_ realm: Realm) throws {
        let person1 = Person(fullName: "John Doe", age: 42)
        let person2 = Person(fullName: "Jane Doe", age: 43)
        let person3 = Person(fullName: "John Smith", age: 44)
        let pet1 = Dog(name: "Marley")
        let pet2 = Dog(name: "Lassie")
        let pet3 = Dog(name: "Toto")
        let pet4 = Dog(name: "Slinkey")
        try realm.add([person1, person2, person3])
        // Slinkey belongs to nobody, so it is added by itself; the others come with their lists.
        try realm.add(pet4)
        person1.dogs.append(pet1)
        person1.dogs.append(pet2)
        person2.dogs.append(pet3)
    }

    static func migrationCheck(_ realm: Realm, sourceLocation: SourceLocation) {
        let persons = realm.objects(Person.self)
        #expect(persons.count == 3, sourceLocation: sourceLocation)
        guard persons.count == 3 else { return }
        #expect(persons[0].fullName == "John Doe", sourceLocation: sourceLocation)
        #expect(persons[0].age == 42, sourceLocation: sourceLocation)
        #expect(persons[0].dogs.map(\.name) == ["Marley", "Lassie"], sourceLocation: sourceLocation)
        #expect(persons[1].fullName == "Jane Doe", sourceLocation: sourceLocation)
        #expect(persons[1].age == 43, sourceLocation: sourceLocation)
        #expect(persons[1].dogs.map(\.name) == ["Toto"], sourceLocation: sourceLocation)
        #expect(persons[2].fullName == "John Smith", sourceLocation: sourceLocation)
        #expect(persons[2].age == 44, sourceLocation: sourceLocation)
        #expect(persons[2].dogs.isEmpty, sourceLocation: sourceLocation)
        let dogs = realm.objects(Dog.self)
        #expect(dogs.count == 4, sourceLocation: sourceLocation)
        #expect(dogs.contains { $0.name == "Slinkey" }, sourceLocation: sourceLocation)
    }
}

// MARK: - v3

enum LadderV3: LadderRelease {
    /// The example's Dog under a new name, with a kind.
    final class Pet: Object {
        override class func _realmObjectName() -> String? { "Pet" }
        override class func shouldIncludeInDefaultSchema() -> Bool { LadderDefaultSchema.includes(3) }
        enum Kind: Int, PersistableEnum {
            case unspecified
            case dog
            case chicken
            case cow
        }

        @Persisted var name = ""
        @Persisted var kind = Kind.unspecified

        convenience init(name: String, kind: Kind) {
            self.init()
            self.name = name
            self.kind = kind
        }
    }

    final class Person: Object {
        override class func _realmObjectName() -> String? { "Person" }
        override class func shouldIncludeInDefaultSchema() -> Bool { LadderDefaultSchema.includes(3) }
        @Persisted var fullName = ""
        @Persisted var age = 0
        @Persisted var pets: List<Pet>
        convenience init(fullName: String, age: Int) {
            self.init()
            self.fullName = fullName
            self.age = age
        }
    }

    static var schemaVersion: UInt64 { 3 }
    static var objectTypes: [ObjectBase.Type] { [Person.self, Pet.self] }

    static let migrationBlock: MigrationBlock = { migration, oldSchemaVersion in
        if oldSchemaVersion < 1 {
            migration.enumerateObjects(ofType: Person.className()) { oldObject, newObject in
                let firstName = oldObject!["firstName"] as! String
                let lastName = oldObject!["lastName"] as! String
                newObject!["fullName"] = "\(firstName) \(lastName)"
            }
        }
        if oldSchemaVersion < 2 {
            // A file from before dogs existed gets the example's pets directly.
            migration.enumerateObjects(ofType: Person.className()) { _, newObject in
                if newObject!["fullName"] as! String == "John Doe" {
                    let pets = newObject!["pets"] as! List<MigrationObject>
                    let marley = migration.create(Pet.className(), value: ["Marley", Pet.Kind.dog.rawValue])
                    let lassie = migration.create(Pet.className(), value: ["Lassie", Pet.Kind.dog.rawValue])
                    pets.append(marley)
                    pets.append(lassie)
                } else if newObject!["fullName"] as! String == "Jane Doe" {
                    let pets = newObject!["pets"] as! List<MigrationObject>
                    let toto = migration.create(Pet.className(), value: ["Toto", Pet.Kind.dog.rawValue])
                    pets.append(toto)
                }
            }
            migration.create(Pet.className(), value: ["Slinkey", Pet.Kind.dog.rawValue])
        }
        if oldSchemaVersion == 2 {
            // Only a version-2 file has dogs: each owner's dogs become pets, in their order.
            migration.enumerateObjects(ofType: Person.className()) { oldObject, newObject in
                let pets = newObject!["pets"] as! List<MigrationObject>
                for dog in oldObject!["dogs"] as! List<DynamicObject> {
                    let pet = migration.create(Pet.className(), value: [dog["name"] as! String, Pet.Kind.dog.rawValue])
                    pets.append(pet)
                }
            }
            // A dog nobody owns becomes a pet too.
            migration.enumerateObjects(ofType: "Dog") { oldDogObject, _ in
                var dogFound = false
                migration.enumerateObjects(ofType: Person.className()) { _, newObject in
                    for pet in newObject!["pets"] as! List<DynamicObject> where pet["name"] as! String == oldDogObject!["name"] as! String {
                        dogFound = true
                        break
                    }
                }
                if !dogFound {
                    migration.create(Pet.className(), value: [oldDogObject!["name"] as! String, Pet.Kind.dog.rawValue])
                }
            }
        }
    }

    static func exampleData(_ realm: Realm) throws {
        let person1 = Person(fullName: "John Doe", age: 42)
        let person2 = Person(fullName: "Jane Doe", age: 43)
        let person3 = Person(fullName: "John Smith", age: 44)
        let pet1 = Pet(name: "Marley", kind: .dog)
        let pet2 = Pet(name: "Lassie", kind: .dog)
        let pet3 = Pet(name: "Toto", kind: .dog)
        let pet4 = Pet(name: "Slinkey", kind: .dog)
        try realm.add([person1, person2, person3])
        person1.pets.append(pet1)
        person1.pets.append(pet2)
        person2.pets.append(pet3)
        try realm.add(pet4)
    }

    static func migrationCheck(_ realm: Realm, sourceLocation: SourceLocation) {
        let persons = realm.objects(Person.self)
        #expect(persons.count == 3, sourceLocation: sourceLocation)
        guard persons.count == 3 else { return }
        #expect(persons[0].fullName == "John Doe", sourceLocation: sourceLocation)
        #expect(persons[0].age == 42, sourceLocation: sourceLocation)
        #expect(persons[0].pets.map(\.name) == ["Marley", "Lassie"], sourceLocation: sourceLocation)
        #expect(persons[0].pets.map(\.kind) == [.dog, .dog], sourceLocation: sourceLocation)
        #expect(persons[1].fullName == "Jane Doe", sourceLocation: sourceLocation)
        #expect(persons[1].age == 43, sourceLocation: sourceLocation)
        #expect(persons[1].pets.map(\.name) == ["Toto"], sourceLocation: sourceLocation)
        #expect(persons[1].pets.map(\.kind) == [.dog], sourceLocation: sourceLocation)
        #expect(persons[2].fullName == "John Smith", sourceLocation: sourceLocation)
        #expect(persons[2].age == 44, sourceLocation: sourceLocation)
        #expect(persons[2].pets.isEmpty, sourceLocation: sourceLocation)
        let pets = realm.objects(Pet.self)
        #expect(pets.count == 4, sourceLocation: sourceLocation)
        #expect(pets.contains { $0.name == "Slinkey" && $0.kind == .dog }, sourceLocation: sourceLocation)
    }
}

// MARK: - v4

enum LadderV4: LadderRelease {
    final class Pet: Object {
        override class func _realmObjectName() -> String? { "Pet" }
        override class func shouldIncludeInDefaultSchema() -> Bool { LadderDefaultSchema.includes(4) }
        enum Kind: Int, PersistableEnum {
            case unspecified
            case dog
            case chicken
            case cow
        }

        @Persisted var name = ""
        @Persisted var kind = Kind.unspecified

        convenience init(name: String, kind: Kind) {
            self.init()
            self.name = name
            self.kind = kind
        }
    }

    final class Person: Object {
        override class func _realmObjectName() -> String? { "Person" }
        override class func shouldIncludeInDefaultSchema() -> Bool { LadderDefaultSchema.includes(4) }
        @Persisted var fullName = ""
        @Persisted var age = 0
        @Persisted var address: Address?
        @Persisted var pets: List<Pet>
        convenience init(fullName: String, age: Int, address: Address?) {
            self.init()
            self.fullName = fullName
            self.age = age
            self.address = address
        }
    }

    /// A top-level object in this release. (The example names its origin property "adddress",
    /// a typo; the residents are those whose `address` it is.)
    final class Address: Object {
        override class func _realmObjectName() -> String? { "Address" }
        override class func shouldIncludeInDefaultSchema() -> Bool { LadderDefaultSchema.includes(4) }
        @Persisted var street = ""
        @Persisted var city = ""
        @Persisted(originProperty: "address")
        var residents: LinkingObjects<Person>
        convenience init(street: String, city: String) {
            self.init()
            self.street = street
            self.city = city
        }
    }

    static var schemaVersion: UInt64 { 4 }
    static var objectTypes: [ObjectBase.Type] { [Person.self, Pet.self, Address.self] }

    static let migrationBlock: MigrationBlock = { migration, oldSchemaVersion in
        if oldSchemaVersion < 1 {
            migration.enumerateObjects(ofType: Person.className()) { oldObject, newObject in
                let firstName = oldObject!["firstName"] as! String
                let lastName = oldObject!["lastName"] as! String
                newObject!["fullName"] = "\(firstName) \(lastName)"
            }
        }
        if oldSchemaVersion < 2 {
            migration.enumerateObjects(ofType: Person.className()) { _, newObject in
                if newObject!["fullName"] as! String == "John Doe" {
                    let pets = newObject!["pets"] as! List<MigrationObject>
                    let marley = migration.create(Pet.className(), value: ["Marley", Pet.Kind.dog.rawValue])
                    let lassie = migration.create(Pet.className(), value: ["Lassie", Pet.Kind.dog.rawValue])
                    pets.append(marley)
                    pets.append(lassie)
                } else if newObject!["fullName"] as! String == "Jane Doe" {
                    let pets = newObject!["pets"] as! List<MigrationObject>
                    let toto = migration.create(Pet.className(), value: ["Toto", Pet.Kind.dog.rawValue])
                    pets.append(toto)
                }
            }
            migration.create(Pet.className(), value: ["Slinkey", Pet.Kind.dog.rawValue])
        }
        if oldSchemaVersion == 2 {
            migration.enumerateObjects(ofType: Person.className()) { oldObject, newObject in
                let pets = newObject!["pets"] as! List<MigrationObject>
                for dog in oldObject!["dogs"] as! List<DynamicObject> {
                    let pet = migration.create(Pet.className(), value: [dog["name"] as! String, Pet.Kind.dog.rawValue])
                    pets.append(pet)
                }
            }
            migration.enumerateObjects(ofType: "Dog") { oldDogObject, _ in
                var dogFound = false
                migration.enumerateObjects(ofType: Person.className()) { _, newObject in
                    for pet in newObject!["pets"] as! List<DynamicObject> where pet["name"] as! String == oldDogObject!["name"] as! String {
                        dogFound = true
                        break
                    }
                }
                if !dogFound {
                    migration.create(Pet.className(), value: [oldDogObject!["name"] as! String, Pet.Kind.dog.rawValue])
                }
            }
        }
        if oldSchemaVersion < 4 {
            // John Doe's address, as a new Address object.
            migration.enumerateObjects(ofType: Person.className()) { _, newObject in
                if newObject!["fullName"] as! String == "John Doe" {
                    let address = migration.create(Address.className(), value: ["Broadway", "New York"])
                    newObject!["address"] = address
                }
            }
        }
    }

    static func exampleData(_ realm: Realm) throws {
        let address = Address(street: "Broadway", city: "New York")
        let person1 = Person(fullName: "John Doe", age: 42, address: address)
        let person2 = Person(fullName: "Jane Doe", age: 43, address: nil)
        let person3 = Person(fullName: "John Smith", age: 44, address: nil)
        let pet1 = Pet(name: "Marley", kind: .dog)
        let pet2 = Pet(name: "Lassie", kind: .dog)
        let pet3 = Pet(name: "Toto", kind: .dog)
        let pet4 = Pet(name: "Slinkey", kind: .dog)
        try realm.add([person1, person2, person3])
        person1.pets.append(pet1)
        person1.pets.append(pet2)
        person2.pets.append(pet3)
        try realm.add(pet4)
    }

    static func migrationCheck(_ realm: Realm, sourceLocation: SourceLocation) {
        let persons = realm.objects(Person.self)
        #expect(persons.count == 3, sourceLocation: sourceLocation)
        guard persons.count == 3 else { return }
        #expect(persons[0].fullName == "John Doe", sourceLocation: sourceLocation)
        #expect(persons[0].age == 42, sourceLocation: sourceLocation)
        #expect(persons[0].address?.street == "Broadway", sourceLocation: sourceLocation)
        #expect(persons[0].address?.city == "New York", sourceLocation: sourceLocation)
        #expect(persons[0].address?.residents.map(\.fullName) == ["John Doe"], sourceLocation: sourceLocation)
        #expect(persons[0].pets.map(\.name) == ["Marley", "Lassie"], sourceLocation: sourceLocation)
        #expect(persons[0].pets.map(\.kind) == [.dog, .dog], sourceLocation: sourceLocation)
        #expect(persons[1].fullName == "Jane Doe", sourceLocation: sourceLocation)
        #expect(persons[1].age == 43, sourceLocation: sourceLocation)
        #expect(persons[1].address == nil, sourceLocation: sourceLocation)
        #expect(persons[1].pets.map(\.name) == ["Toto"], sourceLocation: sourceLocation)
        #expect(persons[1].pets.map(\.kind) == [.dog], sourceLocation: sourceLocation)
        #expect(persons[2].fullName == "John Smith", sourceLocation: sourceLocation)
        #expect(persons[2].age == 44, sourceLocation: sourceLocation)
        #expect(persons[2].address == nil, sourceLocation: sourceLocation)
        #expect(persons[2].pets.isEmpty, sourceLocation: sourceLocation)
        let pets = realm.objects(Pet.self)
        #expect(pets.count == 4, sourceLocation: sourceLocation)
        #expect(pets.contains { $0.name == "Slinkey" && $0.kind == .dog }, sourceLocation: sourceLocation)
        #expect(realm.objects(Address.self).count == 1, sourceLocation: sourceLocation)
    }
}

// MARK: - v5 (the example of Sources/Burrow/Burrow.docc/Migrations.md)

enum LadderV5: LadderRelease {
    final class Pet: Object {
        override class func _realmObjectName() -> String? { "Pet" }
        override class func shouldIncludeInDefaultSchema() -> Bool { LadderDefaultSchema.includes(5) }
        enum Kind: Int, PersistableEnum {
            case unspecified
            case dog
            case chicken
            case cow
        }

        @Persisted var name = ""
        @Persisted var kind = Kind.unspecified

        convenience init(name: String, kind: Kind) {
            self.init()
            self.name = name
            self.kind = kind
        }
    }

    final class Person: Object {
        override class func _realmObjectName() -> String? { "Person" }
        override class func shouldIncludeInDefaultSchema() -> Bool { LadderDefaultSchema.includes(5) }
        @Persisted var fullName = ""
        @Persisted var age = 0
        @Persisted var address: Address?
        @Persisted var pets: List<Pet>
        convenience init(fullName: String, age: Int, address: Address?) {
            self.init()
            self.fullName = fullName
            self.age = age
            self.address = address
        }
    }

    final class Address: EmbeddedObject {
        override class func _realmObjectName() -> String? { "Address" }
        override class func shouldIncludeInDefaultSchema() -> Bool { LadderDefaultSchema.includes(5) }
        @Persisted var street = ""
        @Persisted var city = ""
        @Persisted(originProperty: "address")
        var residents: LinkingObjects<Person>
        convenience init(street: String, city: String) {
            self.init()
            self.street = street
            self.city = city
        }
    }

    static var schemaVersion: UInt64 { 5 }
    static var objectTypes: [ObjectBase.Type] { [Person.self, Pet.self, Address.self] }

    static let migrationBlock: MigrationBlock = { migration, oldSchemaVersion in
        if oldSchemaVersion < 1 {
            // Version 1 joined firstName and lastName into fullName.
            migration.enumerateObjects(ofType: Person.className()) { oldObject, newObject in
                let firstName = oldObject!["firstName"] as! String
                let lastName = oldObject!["lastName"] as! String
                newObject!["fullName"] = "\(firstName) \(lastName)"
            }
        }
        if oldSchemaVersion < 2 {
            // Version 2 gave people dogs. A file older than that has none to copy, so the
            // migration creates the pets version 2 would have added, as pets.
            migration.enumerateObjects(ofType: Person.className()) { _, newObject in
                if newObject!["fullName"] as! String == "John Doe" {
                    let pets = newObject!["pets"] as! List<MigrationObject>
                    let marley = migration.create(Pet.className(), value: ["Marley", Pet.Kind.dog.rawValue])
                    let lassie = migration.create(Pet.className(), value: ["Lassie", Pet.Kind.dog.rawValue])
                    pets.append(marley)
                    pets.append(lassie)
                } else if newObject!["fullName"] as! String == "Jane Doe" {
                    let pets = newObject!["pets"] as! List<MigrationObject>
                    let toto = migration.create(Pet.className(), value: ["Toto", Pet.Kind.dog.rawValue])
                    pets.append(toto)
                }
            }
            migration.create(Pet.className(), value: ["Slinkey", Pet.Kind.dog.rawValue])
        }
        if oldSchemaVersion == 2 {
            // Version 3 renamed Dog to Pet. Only a version-2 file has dogs: each person's old
            // list of dogs becomes a list of pets, in the same order.
            migration.enumerateObjects(ofType: Person.className()) { oldObject, newObject in
                let pets = newObject!["pets"] as! List<MigrationObject>
                for dog in oldObject!["dogs"] as! List<DynamicObject> {
                    let pet = migration.create(Pet.className(), value: [dog["name"] as! String, Pet.Kind.dog.rawValue])
                    pets.append(pet)
                }
            }
            // Dogs nobody owned become pets too.
            migration.enumerateObjects(ofType: "Dog") { oldDogObject, _ in
                var dogFound = false
                migration.enumerateObjects(ofType: Person.className()) { _, newObject in
                    for pet in newObject!["pets"] as! List<DynamicObject> where pet["name"] as! String == oldDogObject!["name"] as! String {
                        dogFound = true
                        break
                    }
                }
                if !dogFound {
                    migration.create(Pet.className(), value: [oldDogObject!["name"] as! String, Pet.Kind.dog.rawValue])
                }
            }
        }
        if oldSchemaVersion < 4 {
            // Version 4 gave John Doe an address.
            migration.enumerateObjects(ofType: Person.className()) { _, newObject in
                if newObject!["fullName"] as! String == "John Doe" {
                    let address = Address(value: ["Broadway", "New York"])
                    newObject!["address"] = address
                }
            }
        }
    }

    static func exampleData(_ realm: Realm) throws {
        let address = Address(street: "Broadway", city: "New York")
        let person1 = Person(fullName: "John Doe", age: 42, address: address)
        let person2 = Person(fullName: "Jane Doe", age: 43, address: nil)
        let person3 = Person(fullName: "John Smith", age: 44, address: nil)
        let pet1 = Pet(name: "Marley", kind: .dog)
        let pet2 = Pet(name: "Lassie", kind: .dog)
        let pet3 = Pet(name: "Toto", kind: .dog)
        let pet4 = Pet(name: "Slinkey", kind: .dog)
        try realm.add([person1, person2, person3])
        person1.pets.append(pet1)
        person1.pets.append(pet2)
        person2.pets.append(pet3)
        try realm.add(pet4)
    }

    static func migrationCheck(_ realm: Realm, sourceLocation: SourceLocation) {
        let persons = realm.objects(Person.self)
        #expect(persons.count == 3, sourceLocation: sourceLocation)
        guard persons.count == 3 else { return }
        #expect(persons[0].fullName == "John Doe", sourceLocation: sourceLocation)
        #expect(persons[0].age == 42, sourceLocation: sourceLocation)
        #expect(persons[0].address?.street == "Broadway", sourceLocation: sourceLocation)
        #expect(persons[0].address?.city == "New York", sourceLocation: sourceLocation)
        #expect(persons[0].address?.residents.map(\.fullName) == ["John Doe"], sourceLocation: sourceLocation)
        #expect(persons[0].pets.map(\.name) == ["Marley", "Lassie"], sourceLocation: sourceLocation)
        #expect(persons[0].pets.map(\.kind) == [.dog, .dog], sourceLocation: sourceLocation)
        #expect(persons[1].fullName == "Jane Doe", sourceLocation: sourceLocation)
        #expect(persons[1].age == 43, sourceLocation: sourceLocation)
        #expect(persons[1].address == nil, sourceLocation: sourceLocation)
        #expect(persons[1].pets.map(\.name) == ["Toto"], sourceLocation: sourceLocation)
        #expect(persons[1].pets.map(\.kind) == [.dog], sourceLocation: sourceLocation)
        #expect(persons[2].fullName == "John Smith", sourceLocation: sourceLocation)
        #expect(persons[2].age == 44, sourceLocation: sourceLocation)
        #expect(persons[2].address == nil, sourceLocation: sourceLocation)
        #expect(persons[2].pets.isEmpty, sourceLocation: sourceLocation)
        let pets = realm.objects(Pet.self)
        #expect(pets.count == 4, sourceLocation: sourceLocation)
        #expect(pets.contains { $0.name == "Slinkey" && $0.kind == .dog }, sourceLocation: sourceLocation)
    }
}
