import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

@Suite(.temporaryDirectory) struct QuerySmokeTests {
    @Test func testBasicQueriesRun() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        try realm.write {
            for (i, name) in ["Rex", "Fido", "Rover", "Bella", "rocky"].enumerated() {
                let dog = CommonModels.Dog()
                dog.name = name
                dog.age = i
                dog.color = i % 2 == 0 ? "black" : "white"
                if i == 1 {
                    let toy = CommonModels.DogToy()
                    toy.name = "ball"
                    dog.favoriteToy = toy
                }
                try realm.add(dog)
            }
            let person = CommonModels.Person()
            person.id = 1
            person.name = "Ali"
            person.dogs.append(objectsIn: realm.objects(CommonModels.Dog.self).filter { $0.age > 2 })
            try realm.add(person)
        }
        let dogs = realm.objects(CommonModels.Dog.self)
        #expect(dogs.where { $0.age < 2 }.count == 2)
        #expect(dogs.where { $0.age < 3 && $0.name.starts(with: "R") }.map(\.name) == ["Rex", "Rover"])
        #expect(try dogs.filter("age < %@ AND name BEGINSWITH[c] %@", 5, "r").count == 3)
        #expect(dogs.where { $0.name == "Fido" }.first?.age == 1)
        #expect(dogs.where { $0.favoriteToy.name == "ball" }.count == 1)
        #expect(try dogs.filter("favoriteToy == nil").count == 4)
        #expect(dogs.sorted(byKeyPath: "age", ascending: false).first?.name == "rocky")
        #expect(dogs.sum(ofProperty: "age") as Int == 10)
        #expect(dogs.average(ofProperty: "age") as Double? == 2)
        #expect(dogs.max(ofProperty: "age") as Int? == 4)
        #expect(dogs.distinct(by: ["color"]).count == 2)
        #expect(realm.objects(CommonModels.Person.self).where { $0.dogs.age > 3 }.count == 1)
        #expect(realm.objects(CommonModels.Person.self).where { $0.dogs.age > 4 }.count == 0)
        #expect(try realm.objects(CommonModels.Person.self).filter("dogs.@count == 2").count == 1)
        #expect(try realm.objects(CommonModels.Person.self).filter("ALL dogs.age > 2").count == 1)
        #expect(try dogs.filter("name IN {'Rex', 'Bella'} SORT(name DESC)").map(\.name) == ["Rex", "Bella"])
        #expect(try dogs.filter("age BETWEEN {1, 3} LIMIT(2)").count == 2)
        #expect(realm.objects(CommonModels.Person.self).first!.dogs.where { $0.name == "Bella" }.count == 1)
        do {
            _ = try dogs.filter("agee < 3")
            Issue.record("no error")
        } catch {
            #expect(error.description.contains("agee"))
        }
        do {
            _ = try dogs.filter("age < ")
            Issue.record("no error")
        } catch {
            #expect(error.description.contains("position"))
        }
    }
}
