import BurrowStore
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// Results of queries are lazy and live, chain, freeze with their query, and cross actors.
@Suite(.temporaryDirectory) struct QueryResultsTests {
    private func dogs(_ realm: Realm, _ specs: [(String, Int)]) throws {
        try realm.write {
            for (name, age) in specs { try realm.add(CommonModels.Dog(value: ["name": name, "age": age])) }
        }
    }

    @Test func testResultsFollowWritesAndChain() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        try dogs(realm, [("Rex", 1), ("Fido", 3)])
        let puppies = realm.objects(CommonModels.Dog.self).where { $0.age < 2 }
        let sortedPuppies = puppies.sorted(byKeyPath: "name")
        #expect(puppies.count == 1)
        try dogs(realm, [("Ace", 0)])
        #expect(puppies.map(\.name) == ["Rex", "Ace"])
        #expect(sortedPuppies.map(\.name) == ["Ace", "Rex"])
        try realm.write {
            realm.objects(CommonModels.Dog.self).where { $0.name == "Fido" }.first!.age = 1
            // Inside the write, results see the write's own changes.
            #expect(puppies.count == 3)
        }
        #expect(sortedPuppies.map(\.name) == ["Ace", "Fido", "Rex"])
        #expect(sortedPuppies.last?.name == "Rex")
        // Chained filters narrow in order.
        let chained = try puppies.filter("name != 'Ace'").where { $0.name.starts(with: "R") }
        #expect(chained.map(\.name) == ["Rex"])
        #expect(
            puppies.sorted(by: [SortDescriptor(keyPath: "age", ascending: false), SortDescriptor(keyPath: "name")]).map(\.name) == [
                "Fido", "Rex", "Ace",
            ])
        // A class with no objects yet gives empty results and aggregates.
        let none = realm.objects(QueryTestModels.Tag.self).where { $0.weight > 1 }
        #expect(none.isEmpty)
        #expect(none.sum(ofProperty: "weight") as Int == 0)
        #expect(none.max(ofProperty: "weight") as Int? == nil)
    }

    @Test func testCountOfEveryObjectFollowsWritesWithoutEvaluating() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        let all = realm.objects(CommonModels.Dog.self)
        #expect(all.count == 0 && all.isEmpty)
        try dogs(realm, [("Rex", 1), ("Fido", 3), ("Ace", 0)])
        #expect(all.count == 3)
        #expect(all.query.stamp != realm.changeStamp, "counted from the tree, not evaluated")
        try realm.write {
            try realm.delete(all.where { $0.name == "Fido" }.first!)
            try realm.add(CommonModels.Dog(value: ["name": "Bo", "age": 2]))
            try realm.add(CommonModels.Dog(value: ["name": "Max", "age": 5]))
            #expect(all.count == 4, "the write's own changes count")
        }
        #expect(all.count == 4)
        // Evaluated results count their keys, and agree.
        #expect(all.map(\.name).sorted() == ["Ace", "Bo", "Max", "Rex"] && all.count == 4)
        #expect(all.query.stamp == realm.changeStamp)
        #expect(realm.objects(CommonModels.Dog.self).where { $0.age < 2 }.count == 2)
    }

    @Test func testCountOfAFilterFollowsWritesWithoutEvaluating() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        let puppies = realm.objects(CommonModels.Dog.self).where { $0.age < 2 }
        let named = try realm.objects(CommonModels.Dog.self).filter("age < 2 AND name BEGINSWITH[c] 'r'")
        #expect(puppies.count == 0 && named.count == 0)
        try dogs(realm, [("Rex", 1), ("Fido", 3), ("rover", 0), ("Ace", 1)])
        #expect(puppies.count == 3)
        // A condition the row tests cannot decide alone (case-insensitive) goes to the evaluator.
        #expect(named.count == 2)
        #expect(puppies.query.stamp != realm.changeStamp, "counted by a scan, not evaluated")
        try realm.write {
            try realm.delete(puppies.where { $0.name == "Ace" }.first!)
            try realm.add(CommonModels.Dog(value: ["name": "Rusty", "age": 0]))
            realm.objects(CommonModels.Dog.self).where { $0.name == "Fido" }.first!.age = 1
            #expect(puppies.count == 4, "the write's own changes count")
            #expect(named.count == 3)
        }
        #expect(puppies.count == 4 && named.count == 3)
        // Evaluated results count their keys, and agree.
        #expect(puppies.map(\.name) == ["Rex", "Fido", "rover", "Rusty"] && puppies.count == 4)
        #expect(puppies.query.stamp == realm.changeStamp)
        try realm.write { realm.objects(CommonModels.Dog.self).where { $0.name == "Rex" }.first!.age = 7 }
        #expect(puppies.count == 3, "a cached evaluation is not counted after the realm changed")
    }

    @Test func testQueriesThroughLinksInsideAWriteSeeTheWrite() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        _ = try QData.populate(realm, count: 60, seed: 7)
        let before = try realm.objects(QueryTestModels.Item.self).filter(
            "link.weight > 4 OR ANY links.label == 'red' OR SUBQUERY(links, $t, $t.weight > 2).@count > 1"
        ).map(\.id)
        try realm.write {
            let heavy = QueryTestModels.Tag(value: ["id": 100, "label": "red", "weight": 50])
            try realm.add(heavy)
            let first = realm.objects(QueryTestModels.Item.self).where { $0.id == 0 }.first!
            first.link = heavy
            let inWrite = try realm.objects(QueryTestModels.Item.self).filter(
                "link.weight > 4 OR ANY links.label == 'red' OR SUBQUERY(links, $t, $t.weight > 2).@count > 1"
            ).map(\.id)
            #expect(Set(inWrite) == Set(before).union([0]))
            #expect(realm.objects(QueryTestModels.Tag.self).where { $0.owners.count > 0 }.count >= 1)
            #expect(realm.objects(QueryTestModels.Item.self).where { $0.link.weight == 50 }.map(\.id) == [0])
        }
        #expect(realm.objects(QueryTestModels.Item.self).where { $0.link.weight == 50 }.map(\.id) == [0])
    }

    @Test func testFrozenResultsKeepTheirQuery() async throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        try dogs(realm, [("Rex", 1), ("Fido", 3), ("Ace", 0), ("Rover", 7)])
        let frozen = try realm.objects(CommonModels.Dog.self).where { $0.age < 5 }.sorted(byKeyPath: "age").freeze()
        try dogs(realm, [("Late", 2)])
        #expect(frozen.map(\.name) == ["Ace", "Rex", "Fido"])
        let narrowed = try frozen.filter("name BEGINSWITH 'R' OR age == 0")
        #expect(narrowed.map(\.name) == ["Ace", "Rex"])
        #expect(frozen.where { $0.age > 0 }.sorted(byKeyPath: "name").map(\.name) == ["Fido", "Rex"])
        #expect(frozen.sum(ofProperty: "age") as Int == 4)
        #expect(frozen.max(ofProperty: "age") as Int? == 3)
        #expect(frozen.distinct(by: ["age"]).count == 3)
        let total = await Task.detached { narrowed.map(\.name).joined(separator: ",") }.value
        #expect(total == "Ace,Rex")
    }

    @Test func testActorObjectsWhere() async throws {
        var config = temporaryConfiguration()
        config.objectTypes = [CommonModels.Dog.self, CommonModels.DogToy.self, CommonModels.Person.self, CommonModels.Address.self]
        let db = try await RealmActor(configuration: config)
        try await db.asyncWrite { realm in
            try realm.add(CommonModels.Dog(value: ["name": "Wolfie", "age": 4]))
            try realm.add(CommonModels.Dog(value: ["name": "Rex", "age": 1]))
        }
        let wolfie: Frozen<CommonModels.Dog>? = try await db.objects(CommonModels.Dog.self, where: { $0.name == "Wolfie" }).first
        #expect(wolfie?.age == 4)
        #expect(try await db.objects(CommonModels.Dog.self, where: { $0.age > 10 }).isEmpty)
    }

    @Test func testListQueriesFollowTheList() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        let person = CommonModels.Person(value: ["id": 7, "name": "Ali"])
        try realm.write {
            person.dogs.append(CommonModels.Dog(value: ["name": "B", "age": 2]))
            person.dogs.append(CommonModels.Dog(value: ["name": "A", "age": 5]))
            try realm.add(person)
            try realm.add(CommonModels.Dog(value: ["name": "C", "age": 9]))
        }
        let older = person.dogs.where { $0.age > 1 }
        #expect(older.map(\.name) == ["B", "A"], "list order")
        #expect(person.dogs.sorted(byKeyPath: "name").map(\.name) == ["A", "B"])
        #expect(try person.dogs.filter("age > %@", 3).map(\.name) == ["A"])
        #expect(try realm.objects(CommonModels.Dog.self).filter("SELF IN %@", person.dogs).map(\.name) == ["B", "A"])
        #expect(try realm.objects(CommonModels.Dog.self).filter("name IN %@", ["A", "C"]).map(\.name) == ["A", "C"])
        #expect(try realm.objects(CommonModels.Person.self).filter("ANY dogs IN %@", person.dogs).count == 1)
        try realm.write { person.dogs.append(realm.objects(CommonModels.Dog.self).where { $0.name == "C" }.first!) }
        #expect(older.map(\.name) == ["B", "A", "C"])
        #expect(realm.objects(CommonModels.Person.self).where { $0.dogs.age > 8 }.count == 1)
        #expect(realm.objects(CommonModels.Person.self).where { $0.dogs.count == 3 }.count == 1)
        #expect(realm.objects(CommonModels.Dog.self).where { $0.owners.name == "Ali" }.count == 3)
        #expect(realm.objects(CommonModels.Dog.self).where { $0.owners.count == 0 }.count == 0)
        // LinkingObjects take queries too, and follow new links.
        let dogC = realm.objects(CommonModels.Dog.self).where { $0.name == "C" }.first!
        let owners = dogC.owners.where { $0.name.starts(with: "A") }
        #expect(owners.map(\.id) == [7])
        try realm.write { try realm.add(CommonModels.Person(value: ["id": 8, "name": "Alma", "dogs": [dogC]])) }
        #expect(owners.map(\.id) == [7, 8])
        #expect(try dogC.owners.filter("id > 7").map(\.name) == ["Alma"])
        #expect(dogC.owners.sorted(byKeyPath: "name").map(\.name) == ["Ali", "Alma"])
        // Sorting, distinct and aggregates on the collections themselves.
        #expect(person.dogs.sum(ofProperty: "age") as Int == 16)
        #expect(person.dogs.max(ofProperty: "age") as Int? == 9)
        #expect(person.dogs.average(ofProperty: "age") as Double? == 16.0 / 3)
        #expect(person.dogs.distinct(by: ["name"]).count == 3)
        #expect(person.dogs.sorted(by: [SortDescriptor(keyPath: "age", ascending: false)]).map(\.name) == ["C", "A", "B"])
        #expect(dogC.owners.min(ofProperty: "id") as Int? == 7)
        #expect(dogC.owners.sum(ofProperty: "id") as Int == 15)
    }

    @Test func testMutableSetQueries() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        let shelf = QueryTestModels.Shelf()
        try realm.write {
            for (id, weight) in [(1, 5), (2, 9), (3, 1)] {
                shelf.tags.insert(QueryTestModels.Tag(value: ["id": id, "label": "t\(id)", "weight": weight]))
            }
            try realm.add(shelf)
            try realm.add(QueryTestModels.Tag(value: ["id": 4, "label": "outside", "weight": 100]))
        }
        let heavy = shelf.tags.where { $0.weight > 2 }
        #expect(Set(heavy.map(\.id)) == [1, 2])
        #expect(try shelf.tags.filter("label BEGINSWITH 't'").count == 3)
        #expect(shelf.tags.sorted(byKeyPath: "weight").map(\.id) == [3, 1, 2])
        #expect(shelf.tags.sum(ofProperty: "weight") as Int == 15)
        try realm.write { shelf.tags.insert(realm.object(ofType: QueryTestModels.Tag.self, forPrimaryKey: 4)!) }
        #expect(Set(heavy.map(\.id)) == [1, 2, 4])
        #expect(realm.objects(QueryTestModels.Shelf.self).where { $0.tags.weight > 50 }.count == 1)
        #expect(try realm.objects(QueryTestModels.Shelf.self).filter("tags.@count == 4 AND ALL tags.weight >= 1").count == 1)
    }

    @Test func testDeletedAndLinkedObjectsInQueries() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        let toy = CommonModels.DogToy(value: ["name": "ball"])
        try realm.write {
            try realm.add(CommonModels.Dog(value: ["name": "Rex", "favoriteToy": toy]))
            try realm.add(CommonModels.Dog(value: ["name": "Fido"]))
        }
        let withBall = realm.objects(CommonModels.Dog.self).where { $0.favoriteToy.name == "ball" }
        let withToy = try realm.objects(CommonModels.Dog.self).filter("favoriteToy == %@", toy)
        #expect(withBall.count == 1)
        #expect(withToy.count == 1)
        try realm.write { try realm.delete(toy) }
        #expect(withBall.count == 0)
        #expect(try realm.objects(CommonModels.Dog.self).filter("favoriteToy == nil").count == 2)
        // An unmanaged object cannot be compared with links.
        do {
            _ = try realm.objects(CommonModels.Dog.self).filter("favoriteToy == %@", CommonModels.DogToy())
            Issue.record("comparing with an unmanaged object did not throw")
        } catch {
            #expect(error.code == .invalidArgument)
            #expect(error.description.contains("unmanaged"))
        }
    }

    @Test func testIntegerSortKeepsEqualValuesInOrderAcrossTheWholeRange() {
        let column: [Int64?] = [5, nil, .min, .max, 5, -1, nil, 0, .min, 256, 255]
        #expect(QueryExecutor.stableOrder(column, ascending: true) == [1, 6, 2, 8, 5, 7, 0, 4, 10, 9, 3])
        #expect(QueryExecutor.stableOrder(column, ascending: false) == [3, 9, 10, 0, 4, 7, 5, 2, 8, 1, 6])
        #expect(QueryExecutor.stableOrder([], ascending: true).isEmpty)
        #expect(QueryExecutor.radixOrder([3, 1, 2, 1]) == [1, 3, 2, 0])
    }
}
