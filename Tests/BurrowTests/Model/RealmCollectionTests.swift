import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// The models of `RealmCollectionTests`. They keep their RC names, which descriptions show
/// (`Results<RCDog>`), and so are stored under the names they had at the top level.
enum RealmCollectionModels {
    final class RCDog: Object {
        @Persisted var name = ""
        @Persisted var age = 0
        @Persisted var owner: RealmCollectionModels.RCOwner?
    }

    final class RCOwner: Object {
        @Persisted var name = ""
        @Persisted(originProperty: "owner") var dogs: LinkingObjects<RealmCollectionModels.RCDog>
    }

    final class RCKennel: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var dogs: List<RealmCollectionModels.RCDog>
        @Persisted var dogSet: MutableSet<RealmCollectionModels.RCDog>
        @Persisted var scores: List<Int>
    }
}

/// What generic code over `RealmCollection` sees of a collection of dogs.
private struct DogSummary: Equatable {
    var count = 0
    var olderThanOne = 0
    var olderThanTwoTyped = 0
    var namesByAge: [String] = []
    var namesByName: [String] = []
    var distinctAges = 0
    var indexMatchesObject = true
    var indexOfOldest: String?
    var minAge: Int?
    var maxAge: Int?
    var sumAge = 0
    var averageAge: Double?
    var keyedNames: [String] = []
    var maxByKeyPath: Int?
    var hasRealm = false
    var isFrozen = true
    var isInvalidated = true
}

/// Written once against the protocol, as ported code over RealmSwift's collections is.
private func summarize<C: RealmCollection>(_ dogs: C) throws -> DogSummary where C.Element == RealmCollectionModels.RCDog {
    var summary = DogSummary()
    summary.count = dogs.count
    summary.olderThanOne = try dogs.filter("age > %@", 1).count
    summary.olderThanTwoTyped = dogs.where { $0.age > 2 }.count
    summary.namesByAge = dogs.sorted(byKeyPath: "age", ascending: false).map(\.name)
    summary.namesByName = dogs.sorted(by: [SortDescriptor(keyPath: "name")]).map(\.name)
    summary.distinctAges = dogs.distinct(by: ["age"]).count
    for dog in dogs {
        guard let index = dogs.index(of: dog), dogs[index].isSameObject(as: dog) else {
            summary.indexMatchesObject = false
            continue
        }
    }
    summary.indexOfOldest = try dogs.index(matching: "age == %@", 5).map { dogs[$0].name }
    let rexByString = try dogs.index(matching: "name == 'Rex'")
    if dogs.index(matching: { $0.name == "Rex" }) != nil || rexByString != nil {
        summary.indexMatchesObject = false
    }
    summary.minAge = dogs.min(ofProperty: "age")
    summary.maxAge = dogs.max(ofProperty: "age")
    summary.sumAge = dogs.sum(ofProperty: "age")
    summary.averageAge = dogs.average(ofProperty: "age")
    summary.keyedNames = (dogs.value(forKey: "name") as? [String] ?? []).sorted()
    summary.maxByKeyPath = dogs.value(forKeyPath: "@max.age") as? Int
    summary.hasRealm = dogs.realm != nil
    summary.isFrozen = dogs.isFrozen
    summary.isInvalidated = dogs.isInvalidated
    return summary
}

/// `RealmCollection`, `AnyRealmCollection` and `RealmCollectionValue`: one piece of generic code
/// gives the same answers over `Results`, `List`, `MutableSet`, `LinkingObjects` and
/// `AnyRealmCollection` of the same objects, and key-value coding works over them.
@Suite(.temporaryDirectory) struct RealmCollectionTests {
    private func configuration() -> Realm.Configuration {
        var config = temporaryConfiguration()
        config.objectTypes = [RealmCollectionModels.RCDog.self, RealmCollectionModels.RCOwner.self, RealmCollectionModels.RCKennel.self]
        return config
    }

    /// A realm with three dogs (ages 1, 3, 5) owned by one owner, in one kennel's list and set.
    private func kennel() throws -> (Realm, RealmCollectionModels.RCKennel, RealmCollectionModels.RCOwner) {
        let realm = try Realm(configuration: configuration())
        let owner = RealmCollectionModels.RCOwner(value: ["name": "Ali"])
        let kennel = RealmCollectionModels.RCKennel(value: ["id": 1, "scores": [4, 8, 15]])
        try realm.write {
            try realm.add(kennel)
            for (name, age) in [("Fido", 1), ("Bowie", 3), ("Maui", 5)] {
                let dog = RealmCollectionModels.RCDog(value: ["name": name, "age": age, "owner": owner])
                try realm.add(dog)
                kennel.dogs.append(dog)
                kennel.dogSet.insert(dog)
            }
        }
        return (realm, kennel, owner)
    }

    @Test func testGenericCodeGivesTheSameAnswersOverEveryCollection() throws {
        let (realm, kennel, owner) = try kennel()
        let expected = DogSummary(
            count: 3, olderThanOne: 2, olderThanTwoTyped: 2, namesByAge: ["Maui", "Bowie", "Fido"],
            namesByName: ["Bowie", "Fido", "Maui"], distinctAges: 3, indexMatchesObject: true, indexOfOldest: "Maui",
            minAge: 1, maxAge: 5, sumAge: 9, averageAge: 3, keyedNames: ["Bowie", "Fido", "Maui"], maxByKeyPath: 5,
            hasRealm: true, isFrozen: false, isInvalidated: false)
        let results = realm.objects(RealmCollectionModels.RCDog.self)
        #expect(try summarize(results) == expected)
        #expect(try summarize(kennel.dogs) == expected)
        #expect(try summarize(kennel.dogSet) == expected)
        #expect(try summarize(owner.dogs) == expected)
        #expect(try summarize(AnyRealmCollection(results)) == expected)
        #expect(try summarize(AnyRealmCollection(kennel.dogs)) == expected)
        #expect(try summarize(AnyRealmCollection(owner.dogs)) == expected)
    }

    @Test func testAnyRealmCollectionHoldsAnyKindOfCollection() throws {
        let (realm, kennel, owner) = try kennel()
        let all: [AnyRealmCollection<RealmCollectionModels.RCDog>] = [
            AnyRealmCollection(realm.objects(RealmCollectionModels.RCDog.self)), AnyRealmCollection(kennel.dogs),
            AnyRealmCollection(kennel.dogSet), AnyRealmCollection(owner.dogs),
        ]
        #expect(all.map(\.count) == [3, 3, 3, 3])
        #expect(all.map { $0.base is List<RealmCollectionModels.RCDog> } == [false, true, false, false])
        // Wrapping a wrapper wraps what it wraps.
        #expect(AnyRealmCollection(all[1]).base is List<RealmCollectionModels.RCDog>)
        #expect(all[0].description.hasPrefix("AnyRealmCollection(Results<RCDog>"))
        // It stays live: a change to the wrapped list shows through.
        try realm.write { kennel.dogs.remove(at: 0) }
        #expect(all[1].map(\.name) == ["Bowie", "Maui"])
        #expect(Array(all[1].objects(at: [1])).map(\.name) == ["Maui"])
        let ints = AnyRealmCollection(kennel.scores)
        #expect(Array(ints) == [4, 8, 15])
        #expect(ints.index(of: 15) == 2)
        #expect(ints.index(of: 16) == nil)
    }

    @Test func testSetValueForKeyChangesEveryObjectOfAnyCollection() throws {
        let (realm, kennel, owner) = try kennel()
        func setAges<C: RealmCollection>(_ dogs: C, to age: Int) where C.Element == RealmCollectionModels.RCDog {
            dogs.setValue(age, forKey: "age")
        }
        try realm.write { setAges(kennel.dogSet, to: 7) }
        #expect(realm.objects(RealmCollectionModels.RCDog.self).map(\.age) == [7, 7, 7])
        try realm.write { setAges(owner.dogs, to: 8) }
        #expect(realm.objects(RealmCollectionModels.RCDog.self).map(\.age) == [8, 8, 8])
        try realm.write { setAges(AnyRealmCollection(realm.objects(RealmCollectionModels.RCDog.self)), to: 9) }
        #expect(realm.objects(RealmCollectionModels.RCDog.self).map(\.age) == [9, 9, 9])
    }

    @Test func testValueForKeyPathAppliesCollectionOperators() throws {
        let (realm, kennel, _) = try kennel()
        let dogs = kennel.dogs
        #expect(dogs.value(forKeyPath: "@count") as? Int == 3)
        #expect(dogs.value(forKeyPath: "@min.age") as? Int == 1)
        #expect(dogs.value(forKeyPath: "@max.age") as? Int == 5)
        #expect(dogs.value(forKeyPath: "@sum.age") as? Int == 9)
        #expect(dogs.value(forKeyPath: "@avg.age") as? Double == 3)
        #expect(dogs.value(forKeyPath: "@unionOfObjects.name") as? [String] == ["Fido", "Bowie", "Maui"])
        #expect(dogs.value(forKeyPath: "owner.name") as? [String] == ["Ali", "Ali", "Ali"])
        #expect(dogs.value(forKeyPath: "@max.owner.name") as? String == "Ali")
        #expect(dogs.value(forKeyPath: "@median.age") == nil)
        // Through an object: a step that reaches a collection applies the rest to it.
        #expect(kennel.value(forKeyPath: "dogs.@sum.age") as? Int == 9)
        #expect(realm.objects(RealmCollectionModels.RCDog.self).first?.value(forKeyPath: "owner.name") as? String == "Ali")
        #expect(realm.objects(RealmCollectionModels.RCDog.self).first?.value(forKeyPath: "owner.nothing") == nil)
        // Nothing to aggregate: a sum is 0, the others nil.
        let none = try realm.objects(RealmCollectionModels.RCDog.self).filter("age > 100")
        #expect(none.value(forKeyPath: "@sum.age") as? Int == 0)
        #expect(none.value(forKeyPath: "@avg.age") == nil)
        #expect(none.value(forKeyPath: "@max.age") == nil)
        #expect(none.value(forKeyPath: "@count") as? Int == 0)
    }

    @Test func testValueForKeyReadsEachElement() throws {
        let (realm, kennel, _) = try kennel()
        let results = realm.objects(RealmCollectionModels.RCDog.self)
        let selves = results.value(forKey: "self") as? [RealmCollectionModels.RCDog]
        #expect(selves?.count == 3)
        #expect(zip(selves ?? [], results).allSatisfy { $0.isSameObject(as: $1) })
        #expect(kennel.scores.value(forKey: "self") as? [Int] == [4, 8, 15])
        #expect(results.value(forKey: "age") as? [Int] == [1, 3, 5])
        // An unmanaged list answers from its own elements.
        let unmanaged = List<RealmCollectionModels.RCDog>()
        unmanaged.append(RealmCollectionModels.RCDog(value: ["name": "Pup", "age": 2]))
        unmanaged.append(RealmCollectionModels.RCDog(value: ["name": "Old", "age": 12]))
        #expect(unmanaged.value(forKey: "name") as? [String] == ["Pup", "Old"])
        #expect(unmanaged.value(forKeyPath: "@sum.age") as? Int == 14)
        // Its aggregates read its elements, as RealmSwift's unmanaged lists do.
        #expect(unmanaged.sum(ofProperty: "age") as Int == 14)
        #expect(unmanaged.min(ofProperty: "age") as Int? == 2)
        #expect(unmanaged.max(ofProperty: "age") as Int? == 12)
        #expect(unmanaged.average(ofProperty: "age") as Double? == 7)
        #expect(List<RealmCollectionModels.RCDog>().sum(ofProperty: "age") as Int == 0)
        #expect(List<RealmCollectionModels.RCDog>().max(ofProperty: "age") as Int? == nil)
        #expect(unmanaged.realm == nil && !unmanaged.isInvalidated && !unmanaged.isFrozen)
        #expect(unmanaged.index(of: unmanaged[1]) == 1)
        #expect(unmanaged.index(of: RealmCollectionModels.RCDog(value: ["name": "Old", "age": 12])) == nil)
    }

    @Test func testCollectionsFindOnlyTheirOwnRealmsObjects() throws {
        let (realm, home, _) = try kennel()
        let (other, _, _) = try self.kennel()
        let results = realm.objects(RealmCollectionModels.RCDog.self)
        let stranger = other.objects(RealmCollectionModels.RCDog.self)[1]
        // Same class, same object key, another file: not in these results.
        #expect(results.index(of: stranger) == nil)
        #expect(home.dogs.index(of: stranger) == nil)
        #expect(home.dogSet.index(of: stranger) == nil)
        #expect(AnyRealmCollection(home.dogs).index(of: home.dogs[1]) == 1)
        #expect(results.index(of: results[1]) == 1)
        #expect(results.index(of: RealmCollectionModels.RCDog(value: ["name": "Fido", "age": 1])) == nil)
        #expect(try results.filter("age > 1").index(of: results[0]) == nil)
        #expect(try results.filter("age > 1").index(of: results[2]) == 1)
    }

    @Test func testResultsAreFrozenOnlyInAFrozenRealm() throws {
        let (realm, _, _) = try kennel()
        #expect(!realm.objects(RealmCollectionModels.RCDog.self).isFrozen)
        let frozen = try realm.freeze()
        #expect(frozen.objects(RealmCollectionModels.RCDog.self).isFrozen)
        #expect(frozen.objects(RealmCollectionModels.RCDog.self).count == 3)
    }

    @Test func testLinkingObjectsFollowTheirObject() throws {
        let (realm, _, owner) = try kennel()
        let dogs = owner.dogs
        #expect(dogs.realm != nil && !dogs.isInvalidated)
        try realm.write { try realm.delete(owner) }
        #expect(dogs.isInvalidated)
        #expect(RealmCollectionModels.RCOwner().dogs.realm == nil)
    }

    @Test func testAggregatingTextOfAnUnmanagedListTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let list = List<RealmCollectionModels.RCDog>()
            list.append(RealmCollectionModels.RCDog())
            let total: Int = list.sum(ofProperty: "name")
            print(total)
        }
        let message = standardError(of: result)
        #expect(message.contains("Cannot compute sum(ofProperty: \"name\")"), "\(message)")
    }

    @Test func testQueryingAnUnmanagedListTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let list = List<RealmCollectionModels.RCDog>()
            list.append(RealmCollectionModels.RCDog())
            _ = list.where { $0.age > 1 }.count
        }
        let message = standardError(of: result)
        #expect(message.contains("Only a managed List can be queried"), "\(message)")
    }
}
