import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// Models of the queries of RealmSwift's documentation examples that SeedExamplesTests lacks: the
/// actor example's Todo and the SwiftUI example's Company. Each is stored under the name it had
/// before it was namespaced.
enum QuerySeedModels {
    final class Todo: Object {
        @Persisted(primaryKey: true) var _id: ObjectId
        @Persisted var name = ""
        @Persisted var owner = ""
        @Persisted var status = ""
        override class func _realmObjectName() -> String? { "Todo" }
    }

    final class Employee: Object {
        override class func _realmObjectName() -> String? { "QSeedEmployee" }
        @Persisted var name = ""
        @Persisted var dogs: List<CommonModels.Dog>
    }

    final class Company: Object {
        override class func _realmObjectName() -> String? { "QSeedCompany" }
        @Persisted var employees: List<QuerySeedModels.Employee>
        @Persisted var dogs: List<CommonModels.Dog>
    }
}

/// Every query of those examples, written as RealmSwift's documentation writes it (with `try`
/// where Burrow's `filter` throws).
@Suite(.temporaryDirectory) struct QuerySeedTests {
    /// "CRUD - Update", "Update Objects in Bulk": `filter("age < 2")`, then the puppies given
    /// to a person with `setValue(_:forKey:)`.
    @Test func testFindDogsYoungerThanTwoAndGiveThemAway() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        try realm.write {
            // Create a person to take care of some dogs.
            let person = CommonModels.Person(value: ["id": 1, "name": "Ali"])
            try realm.add(person)

            let dog = CommonModels.Dog(value: ["name": "Rex", "age": 1])
            try realm.add(dog)
            try realm.add(CommonModels.Dog(value: ["name": "Old", "age": 9]))

            // Find dogs younger than 2.
            let puppies = try realm.objects(CommonModels.Dog.self).filter("age < 2")

            // Give all puppies to Ali.
            person.setValue(puppies, forKey: "dogs")
        }
        let ali = try #require(realm.object(ofType: CommonModels.Person.self, forPrimaryKey: 1))
        #expect(ali.dogs.map(\.name) == ["Rex"])
    }

    /// "CRUD - Update", "Update a Map/Dictionary" and "Update an AnyRealmValue Property".
    @Test func testFindADogByName() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        try realm.write {
            try realm.add(CommonModels.Dog(value: ["name": "Wolfie"]))
            try realm.add(CommonModels.Dog(value: ["name": "Rex"]))
        }
        let wolfie = realm.objects(CommonModels.Dog.self).where {
            $0.name == "Wolfie"
        }.first!
        #expect(wolfie.name == "Wolfie")
        let rex = realm.objects(CommonModels.Dog.self).where {
            $0.name == "Rex"
        }.first!
        try realm.write {
            rex.companion = .object(CommonModels.Dog(value: ["name": "Regina"]))
        }
        #expect(realm.objects(CommonModels.Dog.self).where { $0.name == "Regina" }.count == 1)
    }

    /// "CRUD - Update", the async example: a query inside a function isolated to the actor.
    @Test func testQueryInsideAnActorIsolatedFunction() async throws {
        var config = temporaryConfiguration()
        config.objectTypes = [QuerySeedModels.Todo.self]
        let actor = try await RealmActor(configuration: config)
        try await actor.asyncWrite { realm in
            try realm.add(QuerySeedModels.Todo(value: ["name": "Keep it safe", "owner": "Frodo", "status": "In Progress"]))
            try realm.add(QuerySeedModels.Todo(value: ["name": "Other", "owner": "Sam"]))
        }
        // Read objects in functions isolated to the actor and pass primitive values to the caller
        func getObjectId(in actor: isolated RealmActor, forTodoNamed name: String) async -> ObjectId {
            let todo = actor.realm.objects(QuerySeedModels.Todo.self).where {
                $0.name == name
            }.first!
            return todo._id
        }
        let objectId = await getObjectId(in: actor, forTodoNamed: "Keep it safe")
        let found = try await actor.objects(QuerySeedModels.Todo.self, where: { $0._id == objectId })
        #expect(found.count == 1)
        #expect(found.first?.owner == "Frodo")
    }

    /// swiftui-quick-writes.md: `employees.where { … }.first!` and `dogs.where { … }.first!`
    /// on a company's lists.
    @Test func testQueryACompanysLists() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        let company = QuerySeedModels.Company()
        try realm.write {
            company.employees.append(QuerySeedModels.Employee(value: ["name": "Dachary"]))
            company.employees.append(QuerySeedModels.Employee(value: ["name": "Other"]))
            company.dogs.append(CommonModels.Dog(value: ["name": "Maui"]))
            try realm.add(company)
            // An employee outside the company's list is not found through the list.
            try realm.add(QuerySeedModels.Employee(value: ["name": "Dachary"]))
        }
        let employeeName = "Dachary"
        let dogName = "Maui"
        let thisEmployee = company.employees.where { $0.name == employeeName }.first!
        let thisDog = company.dogs.where { $0.name == dogName }.first!
        try realm.write {
            thisEmployee.dogs.append(thisDog)
        }
        #expect(company.employees.where { $0.name == employeeName }.count == 1)
        #expect(realm.objects(QuerySeedModels.Employee.self).where { $0.name == employeeName }.count == 2)
        #expect(company.employees.first?.dogs.first?.name == "Maui")
    }
}
