import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

// The examples of Sources/Burrow/Burrow.docc/Queries.md, compiled and run (with GuideExamplesTests'
// models standing in for Dog and Person). Keep the two in step.

@Suite(.temporaryDirectory) struct QueriesGuideTests {
    private func realmWithDogs() throws -> Realm {
        let realm = try Realm(configuration: temporaryConfiguration())
        try realm.write {
            let toy = DogToy(value: ["name": "ball"])
            let rex = GuideDog(value: ["name": "Rex", "age": 1, "favoriteToy": toy])
            rex.citiesVisited.insert("Toronto")
            let fido = GuideDog(value: ["name": "Fido", "age": 6])
            let rover = GuideDog(value: ["name": "Rover", "age": 3])
            try realm.add(GuidePerson(value: ["id": 1, "name": "Ali", "dogs": [rex, fido]]))
            try realm.add(rover)
        }
        return realm
    }

    @Test func testResults() throws {
        let realm = try realmWithDogs()
        let puppies = realm.objects(GuideDog.self).where { $0.age < 2 }
        #expect(puppies.count == 1)
        try realm.write { try realm.add(GuideDog(value: ["name": "Ace", "age": 0])) }
        #expect(puppies.count == 2)

        let names = try realm.objects(GuideDog.self)
            .filter("age >= %@", 1)
            .where { $0.name.starts(with: "R") }
            .sorted(byKeyPath: "age", ascending: false)
            .distinct(by: ["age"])
        #expect(names.map(\.name) == ["Rover", "Rex"])
        #expect(realm.objects(GuideDog.self).sorted(by: \.age).first?.name == "Ace")
        let frozen = try names.freeze()
        #expect(frozen.where { $0.age < 2 }.map(\.name) == ["Rex"])
    }

    @Test func testTheTypedDSL() throws {
        let realm = try realmWithDogs()
        let dogs = realm.objects(GuideDog.self)
        let people = realm.objects(GuidePerson.self)
        #expect(dogs.where { $0.age < 2 && $0.name.starts(with: "R") }.count == 1)
        #expect(dogs.where { $0.name.contains("ex", options: [.caseInsensitive, .diacriticInsensitive]) }.count == 1)
        #expect(dogs.where { $0.name.in(["Rex", "Fido"]) || !($0.age > 10) }.count == 3)
        #expect(dogs.where { $0.age.contains(1...3) }.count == 2)
        #expect(dogs.where { $0.favoriteToy.name == "ball" }.count == 1)
        #expect(dogs.where { $0.favoriteToy == nil }.count == 2)
        #expect(people.where { $0.dogs.age > 5 }.count == 1)
        #expect(people.where { $0.dogs.count >= 2 }.count == 1)
        #expect(people.where { ($0.dogs.age > 5 && $0.dogs.name.starts(with: "R")).count > 0 }.count == 0)
        #expect(people.where { ($0.dogs.age > 5 && $0.dogs.name.starts(with: "F")).count > 0 }.count == 1)
        #expect(dogs.where { ($0.citiesVisited > "M").count >= 1 }.map(\.name) == ["Rex"])
        #expect(people.where { $0.dogs.age.max < 9 }.count == 1)
        #expect(dogs.where { $0.citiesVisited.contains("Toronto") }.count == 1)
        #expect(dogs.where { $0.owners.name == "Ali" }.count == 2)
    }

    @Test func testQueryStrings() throws {
        let realm = try realmWithDogs()
        let dogs = realm.objects(GuideDog.self)
        let people = realm.objects(GuidePerson.self)
        #expect(try dogs.filter("age < %@ AND name BEGINSWITH[c] %@", 2, "r").count == 1)
        #expect(try dogs.filter("name IN %@ SORT(age DESC, name) LIMIT(10)", ["Rex", "Fido"]).map(\.name) == ["Fido", "Rex"])
        #expect(try people.filter("ANY dogs.age > 5 AND dogs.@count <= 3").count == 1)
        #expect(try people.filter("NONE dogs.name ==[cd] 'rex'").count == 0)
        #expect(try people.filter("dogs.@avg.age BETWEEN {2, 4}").count == 1)
        #expect(try people.filter("SUBQUERY(dogs, $d, $d.age > 2 AND $d.name BEGINSWITH 'R').@count >= 1").count == 0)
        #expect(try people.filter("SUBQUERY(dogs, $d, $d.age > 5 AND $d.name BEGINSWITH 'F').@count >= 1").count == 1)
        #expect(try dogs.filter("SUBQUERY(citiesVisited, $c, $c BEGINSWITH 'T').@count == 1").map(\.name) == ["Rex"])
    }

    @Test func testBacklinksInQueryStrings() throws {
        let realm = try realmWithDogs()
        let dogs = realm.objects(GuideDog.self)
        #expect(try dogs.filter("owners.@count > 0 AND ANY owners.name == 'Ali'").map(\.name) == ["Rex", "Fido"])
        #expect(try dogs.filter("SUBQUERY(owners, $p, $p.name BEGINSWITH 'A').@count > 0").map(\.name) == ["Rex", "Fido"])
        #expect(try dogs.filter("@links.Person.dogs.@count == 0").map(\.name) == ["Rover"])
        #expect(try dogs.filter("ANY @links.Person.dogs.name == 'Ali'").map(\.name) == ["Rex", "Fido"])
        #expect(try dogs.filter("@links.@count > 0").map(\.name) == ["Rex", "Fido"])
        let dynamic = realm.dynamicObjects("Dog")
        #expect(try dynamic.filter("owners.@count > 0 AND ANY @links.Person.dogs.name == 'Ali'").count == 2)
    }

    @Test func testFoundationPredicates() throws {
        let realm = try realmWithDogs()
        let dogs = realm.objects(GuideDog.self)
        let limit = 3
        #expect(try dogs.filter(#Predicate<GuideDog> { $0.age >= limit && $0.name.starts(with: "R") }).map(\.name) == ["Rover"])
        #expect(try dogs.filter(#Predicate<GuideDog> { ["Rex", "Fido"].contains($0.name) || $0.favoriteToy?.name == "ball" }).count == 2)
    }
}
