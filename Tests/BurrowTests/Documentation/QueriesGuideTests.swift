import Burrow
import BurrowTestTraits
import Foundation
import Testing

// The samples of Sources/Burrow/Burrow.docc/Queries.md, compiled and run as the page shows them
// (DocumentationSamplesTests checks that they are the page's), each followed by checks of what
// the page says about it. The page's models are GettingStarted.md's.

/// Collects the count of each query of a sample that lists queries one a line, so that a test
/// can check each of them.
@resultBuilder enum QueryCounts {
    static func buildExpression<T>(_ results: Results<T>) -> [Int] { [results.count] }
    static func buildBlock(_ counts: [Int]...) -> [Int] { counts.flatMap { $0 } }
}

/// The counts of the queries `queries` lists.
func counts(@QueryCounts of queries: () throws -> [Int]) rethrows -> [Int] { try queries() }

@Suite(.temporaryDirectory) struct QueriesGuideTests {
    typealias Dog = GettingStartedPage.Dog
    typealias DogToy = GettingStartedPage.DogToy
    typealias Person = GettingStartedPage.Person

    /// Rex (1, a ball, has been to Toronto) and Fido (6) belong to Ali; Rover (3) to nobody.
    private func realmWithDogs() throws -> Realm {
        var config = temporaryConfiguration()
        config.objectTypes = GettingStartedPage.objectTypes
        let realm = try Realm(configuration: config)
        try realm.write {
            let toy = DogToy(value: ["name": "ball"])
            let rex = Dog(value: ["name": "Rex", "age": 1, "favoriteToy": toy])
            rex.citiesVisited.insert("Toronto")
            let fido = Dog(value: ["name": "Fido", "age": 6])
            let rover = Dog(value: ["name": "Rover", "age": 3])
            try realm.add(Person(value: ["id": 1, "name": "Ali", "dogs": [rex, fido]]))
            try realm.add(rover)
        }
        return realm
    }

    @Test func testResults() throws {
        let realm = try realmWithDogs()
        let printed = SampleLog()
        let puppies = realm.objects(Dog.self).where { $0.age < 2 }
        print(puppies.count)  // evaluated now, on first use
        printed.appendLine("\(puppies.count)")  // test only
        try realm.write { try realm.add(Dog(value: ["name": "Ace", "age": 0])) }
        print(puppies.count)  // evaluated again: the realm changed
        printed.appendLine("\(puppies.count)")  // test only
        #expect(printed.lines == ["1", "2"])

        let names = try realm.objects(Dog.self)
            .filter("age >= %@", 1)
            .where { $0.name.starts(with: "R") }
            .sorted(byKeyPath: "age", ascending: false)
            .distinct(by: ["age"])
        #expect(names.map(\.name) == ["Rover", "Rex"])
        let frozen = try names.freeze()
        #expect(frozen.where { $0.age < 2 }.map(\.name) == ["Rex"], "a frozen result is queried the same way")
    }

    @Test func testTheTypedDSL() throws {
        let realm = try realmWithDogs()
        let dogs = realm.objects(Dog.self)
        let people = realm.objects(Person.self)
        let found = counts {
            dogs.where { $0.age < 2 && $0.name.starts(with: "R") }
            dogs.where { $0.name.contains("ex", options: [.caseInsensitive, .diacriticInsensitive]) }
            dogs.where { $0.name.in(["Rex", "Fido"]) || !($0.age > 10) }
            dogs.where { $0.age.contains(1...3) }  // BETWEEN {1, 3}
            dogs.where { $0.favoriteToy.name == "ball" }  // through a link (nil link: no match)
            dogs.where { $0.favoriteToy == nil }
            people.where { $0.dogs.age > 5 }  // any dog older than 5
            people.where { $0.dogs.count >= 2 }
            people.where { ($0.dogs.age > 5 && $0.dogs.name.starts(with: "R")).count > 0 }  // one dog, both
            dogs.where { ($0.citiesVisited > "M").count >= 1 }  // MutableSet<String>: a city after "M"
            dogs.where { $0.citiesVisited.contains("Toronto") }  // List, MutableSet, Map
        }
        #expect(found == [1, 1, 3, 2, 1, 2, 1, 1, 0, 1, 1])
        #expect(people.where { ($0.dogs.age > 5 && $0.dogs.name.starts(with: "F")).count > 0 }.count == 1)
        #expect(dogs.where { $0.owners.name == "Ali" }.count == 2)
    }

    @Test func testQueryStrings() throws {
        let realm = try realmWithDogs()
        let dogs = realm.objects(Dog.self)
        let people = realm.objects(Person.self)
        let found = try counts {
            try dogs.filter("age < %@ AND name BEGINSWITH[c] %@", 2, "r")
            try dogs.filter("name IN %@ SORT(age DESC, name) LIMIT(10)", ["Rex", "Fido"])
            try people.filter("ANY dogs.age > 5 AND dogs.@count <= 3")
            try people.filter("NONE dogs.name ==[cd] 'rex'")
            try people.filter("dogs.@avg.age BETWEEN {2, 4}")
            try people.filter("SUBQUERY(dogs, $d, $d.age > 5 AND $d.name BEGINSWITH 'F').@count >= 1")
            try dogs.filter("SUBQUERY(citiesVisited, $c, $c BEGINSWITH 'T').@count == 1")
        }
        #expect(found == [1, 2, 1, 0, 1, 1, 1])
        #expect(try dogs.filter("name IN %@ SORT(age DESC, name) LIMIT(10)", ["Rex", "Fido"]).map(\.name) == ["Fido", "Rex"])
        #expect(try people.filter("SUBQUERY(dogs, $d, $d.age > 2 AND $d.name BEGINSWITH 'R').@count >= 1").isEmpty)
    }

    @Test func testBacklinksInQueryStrings() throws {
        let realm = try realmWithDogs()
        let dogs = realm.objects(Dog.self)
        let found = try counts {
            try dogs.filter("owners.@count > 0 AND ANY owners.name == 'Ali'")  // a LinkingObjects property
            try dogs.filter("SUBQUERY(owners, $p, $p.name BEGINSWITH 'A').@count > 0")
            try dogs.filter("@links.Person.dogs.@count == 0")  // no declared property needed
            try dogs.filter("ANY @links.Person.dogs.name == 'Ali'")
            try dogs.filter("@links.@count > 0")  // links from any class
        }
        #expect(found == [2, 2, 1, 2, 2])
        #expect(try dogs.filter("@links.Person.dogs.@count == 0").map(\.name) == ["Rover"])
        #expect(try dogs.filter("@links.@count > 0").map(\.name) == ["Rex", "Fido"])
        let dynamic = realm.dynamicObjects("Dog")
        #expect(try dynamic.filter("owners.@count > 0 AND ANY @links.Person.dogs.name == 'Ali'").count == 2)
    }

    @Test func testFoundationPredicates() throws {
        let realm = try realmWithDogs()
        let dogs = realm.objects(Dog.self)
        let found = try counts {
            let limit = 3
            try dogs.filter(#Predicate<Dog> { $0.age >= limit && $0.name.starts(with: "R") })
            try dogs.filter(#Predicate<Dog> { ["Rex", "Fido"].contains($0.name) || $0.favoriteToy?.name == "ball" })
        }
        #expect(found == [1, 2])
    }
}
