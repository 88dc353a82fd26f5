import Burrow
import BurrowTestTraits
import Foundation
import Testing

/// The examples of the SwiftUI quick-writes seed, their views' model code ported as it is
/// written there (property wrappers declared as locals of main-actor code).
@MainActor
@Suite(.temporaryDirectory) struct ObservedSeedExampleTests {
    /// "Update an Object's Properties": `TextField("Favorite toy", text: $dog.favoriteToy)`
    /// reads the property and each edit is one write.
    @Test func favoriteToyBindingWrites() throws {
        let config = observedConfiguration()
        let realm = try Realm(configuration: config)
        let rex = ObservedTestModels.Dog(value: ["name": "Rex", "favoriteToy": "ball"])
        try realm.write { try realm.add(rex) }

        @ObservedRealmObject var dog = rex
        let text = $dog.favoriteToy
        #expect(dog.name == "Rex")
        #expect(text.wrappedValue == "ball")
        text.wrappedValue = "rope"
        #expect(!realm.isInWriteTransaction)
        #expect(rex.favoriteToy == "rope")
        #expect($dog.error == nil)
        let other = try Realm(configuration: config)
        #expect(other.objects(ObservedTestModels.Dog.self).first?.favoriteToy == "rope")
    }

    /// "Add or Remove Objects in an ObservedResults Collection": the add button appends a new
    /// dog, `.onDelete(perform: $dogs.remove)` deletes the offsets it is given.
    @Test func resultsAppendAndOnDelete() throws {
        let config = observedConfiguration()
        @ObservedResults(ObservedTestModels.Dog.self, configuration: config) var dogs
        #expect(dogs.isEmpty)
        $dogs.append(ObservedTestModels.Dog(value: ["name": "Bandido"]))
        $dogs.append(ObservedTestModels.Dog(value: ["name": "Maui"]))
        #expect(dogs.map(\.name) == ["Bandido", "Maui"])

        let onDelete: (IndexSet) -> Void = $dogs.remove
        onDelete(IndexSet(integer: 0))
        #expect(dogs.map(\.name) == ["Maui"])
        #expect($dogs.error == nil)
        #expect(try Realm(configuration: config).objects(ObservedTestModels.Dog.self).count == 1)
    }

    /// "Append an Object to a List": the save button appends a new dog to the person's list.
    @Test func appendDogToPersonsList() throws {
        let config = observedConfiguration()
        let realm = try Realm(configuration: config)
        let ali = ObservedTestModels.Person(value: ["firstName": "Ali"])
        try realm.write { try realm.add(ali) }

        @ObservedRealmObject var person = ali
        let dog = ObservedTestModels.Dog(value: ["name": "Maui", "favoriteToy": "wubba"])
        $person.dogs.append(dog)
        #expect(person.dogs.map(\.name) == ["Maui"])
        #expect(dog.realm != nil)  // the unmanaged dog became managed
        #expect(realm.objects(ObservedTestModels.Dog.self).count == 1)
        #expect($person.error == nil)
    }

    /// "Use Create to Copy an Object Into the Realm": thaw the observed person's realm and
    /// create a dog whose toy is an existing object, `update: .modified`.
    @Test func createWithExistingToyThroughThawedRealm() throws {
        let config = observedConfiguration()
        let realm = try Realm(configuration: config)
        let wubba = ObservedTestModels.Toy(value: ["name": "Wubba"])
        let owner = ObservedTestModels.Person(value: ["firstName": "Ali"])
        try realm.write {
            try realm.add(wubba)
            try realm.add(owner)
        }
        @ObservedRealmObject var person = owner
        let frozenPerson = try person.freeze().frozenObject

        let thawedPersonRealm = try frozenPerson.thaw()!.realm!
        try thawedPersonRealm.write {
            let dog = try thawedPersonRealm.create(
                ObservedTestModels.Dog.self, value: ["name": "Maui", "favoriteToy": "", "toy": wubba], update: .modified)
            person.dogs.append(dog)
        }
        #expect(person.dogs.first?.toy?.name == "Wubba")
        #expect(realm.objects(ObservedTestModels.Toy.self).count == 1)  // the toy was linked, not copied
        #expect(thawedPersonRealm == realm)
    }

    /// "Perform an Explicit Write": `company.realm!.thaw()` and `company.thaw()!` give the live
    /// realm and company of a frozen company, so a write can link an existing dog to an
    /// existing employee.
    @Test func performAnExplicitWriteOnAFrozenCompany() throws {
        let config = observedConfiguration()
        let realm = try Realm(configuration: config)
        let live = ObservedTestModels.Company(value: [
            "companyName": "Doggo Inc", "employees": [["name": "Dachary"], ["name": "Nate"]], "dogs": [["name": "Maui"], ["name": "Rex"]],
        ])
        try realm.write { try realm.add(live) }
        @ObservedRealmObject var company = live
        let frozenCompany = try company.freeze().frozenObject

        func performAnExplicitWrite(company: ObservedTestModels.Company, employeeName: String, dogName: String) throws {
            let realm = try company.realm!.thaw()
            let thawedCompany = try company.thaw()!
            let thisEmployee = thawedCompany.employees.where { $0.name == employeeName }.first!
            let thisDog = thawedCompany.dogs.where { $0.name == dogName }.first!
            try realm.write {
                thisEmployee.dogs.append(thisDog)
            }
        }
        try performAnExplicitWrite(company: frozenCompany, employeeName: "Dachary", dogName: "Maui")

        #expect(company.employees.first?.dogs.map(\.name) == ["Maui"])
        #expect(company.employees.last?.dogs.isEmpty == true)
        #expect(realm.objects(ObservedTestModels.Dog.self).count == 2)
    }

    /// A live object's `thaw()` and a live realm's `thaw()` give themselves.
    @Test func thawOfLiveValuesIsIdentity() throws {
        let realm = try Realm(configuration: observedConfiguration())
        let person = ObservedTestModels.Person()
        try realm.write { try realm.add(person) }
        #expect(try person.thaw() === person)
        #expect(try realm.thaw() == realm)
        #expect(try person.realm!.thaw() == realm)
        try realm.write { try realm.delete(person) }
        #expect(try person.thaw() == nil)
    }
}
