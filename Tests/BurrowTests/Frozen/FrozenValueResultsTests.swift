import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// The models of results of values (`owner.scores.sorted()`, a map's values, a list of
/// `AnyRealmValue`s): frozen here, observed in `ValueResultsChangeTests`.
enum FrozenValueModels {
    final class Target: Object {
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var rank = 0
    }

    final class Owner: Object {
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var scores: List<Int>
        @Persisted var maybeScores: List<Int?>
        @Persisted var tags: MutableSet<String>
        @Persisted var ratings: Map<String, Int>
        @Persisted var mixed: List<AnyRealmValue>
        @Persisted var any: AnyRealmValue
        @Persisted var targets: List<FrozenValueModels.Target>
        @Persisted var targetSet: MutableSet<FrozenValueModels.Target>
        @Persisted var targetsByName: Map<String, FrozenValueModels.Target?>
    }

    static func configuration(_ name: String = #function) -> Realm.Configuration {
        var config = temporaryConfiguration(name)
        config.objectTypes = [Target.self, Owner.self]
        return config
    }

    /// A realm holding owner 1 with `value`.
    static func realm(with value: [String: Any], _ name: String) throws -> (Realm, Owner) {
        let realm = try Realm(configuration: configuration(name))
        let owner = Owner(value: value.merging(["id": 1]) { old, _ in old })
        try realm.write { try realm.add(owner) }
        return (realm, owner)
    }
}

/// `freeze()` of results of values, as RealmSwift's frozen results (`isFrozen`, readable from
/// any thread, unchanged by later writes, queried in their version, thawed to the live query):
/// each frozen result is compared with the live results of the same query on the same data.
@Suite(.temporaryDirectory) struct FrozenValueResultsTests {
    private typealias Owner = FrozenValueModels.Owner
    private typealias Target = FrozenValueModels.Target

    /// A realm holding owner 1 with `value`.
    private func realm(with value: [String: Any], _ name: String = #function) throws -> (Realm, Owner) {
        try FrozenValueModels.realm(with: value, name)
    }

    /// The version the realm reads now.
    private func currentVersion(_ realm: Realm) throws -> UInt64 {
        try realm.objects(Owner.self).freeze().versionNumber
    }

    // MARK: Freezing

    @Test func sortedFilteredAndDistinctListValuesFreezeAsTheLiveResultsAre() throws {
        let (realm, owner) = try realm(with: ["scores": [5, 3, 9, 3, 1, 7]])
        let sorted = owner.scores.sorted()
        let descending = owner.scores.sorted(ascending: false)
        let large = owner.scores.where { $0 > 3 }
        let small = try owner.scores.filter("self < %@", 5)
        let distinct = owner.scores.distinct()
        let frozenSorted = try sorted.freeze()
        let frozenDescending = try descending.freeze()
        let frozenLarge = try large.freeze()
        let frozenSmall = try small.freeze()
        let frozenDistinct = try distinct.freeze()
        #expect(Array(frozenSorted) == [1, 3, 3, 5, 7, 9])
        #expect(Array(frozenSorted) == Array(sorted))
        #expect(Array(frozenDescending) == [9, 7, 5, 3, 3, 1])
        #expect(Array(frozenLarge) == [5, 9, 7] && Array(frozenLarge) == Array(large), "in list order")
        #expect(Array(frozenSmall) == [3, 3, 1] && Array(frozenSmall) == Array(small))
        #expect(Array(frozenDistinct) == [5, 3, 9, 1, 7] && Array(frozenDistinct) == Array(distinct), "the first of each")
        let version = try currentVersion(realm)
        for frozen in [frozenSorted, frozenDescending, frozenLarge, frozenSmall, frozenDistinct] {
            #expect(frozen.isFrozen && frozen.versionNumber == version)
        }
        #expect(!sorted.isFrozen)
        #expect(frozenSorted.count == 6 && frozenSorted.first == 1 && frozenSorted.last == 9 && frozenSorted[2] == 3)
        #expect(frozenSorted.startIndex == 0 && frozenSorted.endIndex == 6 && frozenSorted.indices == 0..<6)

        try realm.write {
            owner.scores.append(4)
            owner.scores.remove(at: 0)
            owner.scores[0] = 100
        }
        #expect(Array(sorted) == [1, 3, 4, 7, 9, 100], "the live results follow the list")
        #expect(Array(frozenSorted) == [1, 3, 3, 5, 7, 9], "the frozen ones keep their version")
        #expect(Array(frozenLarge) == [5, 9, 7] && Array(frozenDistinct) == [5, 3, 9, 1, 7])
        #expect(try frozenSorted.versionNumber == version && version < currentVersion(realm))
        // Freezing again gives the new version.
        #expect(Array(try sorted.freeze()) == [1, 3, 4, 7, 9, 100])
        #expect(try sorted.freeze().versionNumber > version)
    }

    @Test func frozenValuesAggregateAsTheLiveOnesDo() throws {
        let (realm, owner) = try realm(with: ["scores": [5, 3, 9, 3, 1, 7]])
        let live = owner.scores.where { $0 > 2 }
        let frozen = try live.freeze()
        let frozenList = try owner.scores.freeze()
        try realm.write { owner.scores.append(100) }
        #expect(frozen.min() == 3 && frozen.max() == 9 && frozen.sum() == 27)
        #expect(frozen.average() == 5.4)
        #expect(frozenList.sum() == 28 && frozenList.min() == 1)
        #expect(live.max() == 100 && live.sum() == 127, "the live results moved on")
        #expect(frozen.where { $0 > 100 }.max() == nil && frozen.where { $0 > 100 }.sum() == 0)
    }

    @Test func optionalValuesSortWithNilFirst() throws {
        let (realm, owner) = try realm(with: [:])
        try realm.write { owner.maybeScores.append(objectsIn: [3, nil, 1, 3, nil]) }
        let ascending = try owner.maybeScores.sorted().freeze()
        let descending = try owner.maybeScores.sorted(ascending: false).freeze()
        let present = try owner.maybeScores.where { $0 != nil }.freeze()
        try realm.write { owner.maybeScores.removeAll() }
        #expect(Array(ascending) == [nil, nil, 1, 3, 3])
        #expect(Array(descending) == [3, 3, 1, nil, nil])
        #expect(Array(present) == [3, 1, 3])
        #expect(Array(ascending.distinct()) == [nil, 1, 3])
    }

    @Test func setAndMapValuesFreeze() throws {
        let (realm, owner) = try realm(with: [
            "tags": ["apple", "bee", "avocado", "cherry"], "ratings": ["b": 2, "a": 5, "d": 1, "c": 5],
        ])
        let aTags = owner.tags.where { $0.starts(with: "a") }
        let sortedTags = owner.tags.sorted(ascending: false)
        let filteredTags = try owner.tags.filter("self BEGINSWITH 'a'")
        let sortedRatings = owner.ratings.sorted(ascending: true)
        let highRatings = owner.ratings.where { $0 > 1 }
        let distinctRatings = owner.ratings.distinct(by: ["self"])
        let frozen = try (
            aTags: aTags.freeze(), sortedTags: sortedTags.freeze(), filteredTags: filteredTags.freeze(),
            sortedRatings: sortedRatings.freeze(), highRatings: highRatings.freeze(), distinctRatings: distinctRatings.freeze()
        )
        #expect(Set(frozen.aTags) == ["apple", "avocado"] && Array(frozen.aTags) == Array(aTags), "the live results' order")
        #expect(Array(frozen.filteredTags) == Array(frozen.aTags))
        #expect(Array(frozen.sortedTags) == ["cherry", "bee", "avocado", "apple"])
        #expect(Array(frozen.sortedRatings) == [1, 2, 5, 5])
        #expect(Array(frozen.highRatings) == [5, 2, 5], "in the order of the keys a, b, c")
        #expect(Array(frozen.distinctRatings) == [5, 2, 1] && Array(frozen.distinctRatings) == Array(distinctRatings))

        try realm.write {
            owner.tags.insert("apricot")
            owner.tags.remove("apple")
            owner.ratings["a"] = 0
            owner.ratings["e"] = 9
        }
        #expect(Set(aTags) == ["apricot", "avocado"] && Array(highRatings) == [2, 5, 9])
        #expect(Set(frozen.aTags) == ["apple", "avocado"] && Array(frozen.sortedTags) == ["cherry", "bee", "avocado", "apple"])
        #expect(Array(frozen.sortedRatings) == [1, 2, 5, 5] && Array(frozen.highRatings) == [5, 2, 5])
    }

    @Test func anAnyRealmValueListFreezesWithFrozenObjects() throws {
        let target = Target(value: ["id": 7, "name": "seven"])
        let (realm, owner) = try realm(with: [
            "mixed": [AnyRealmValue.string("x"), .int(3), .object(target), .none, .double(1.5), .int(3)]
        ])
        let sorted = owner.mixed.sorted()
        let distinct = owner.mixed.distinct()
        let frozen = try sorted.freeze()
        let frozenDistinct = try distinct.freeze()
        #expect(frozen.count == 6 && frozenDistinct.count == 5)
        #expect(Array(frozen.prefix(5)) == [.none, .double(1.5), .int(3), .int(3), .string("x")], "nil, numbers, strings, objects")
        #expect(Array(frozen.prefix(5)) == Array(sorted.prefix(5)))
        let frozenTarget = try #require(frozen[5].object(Target.self))
        #expect(frozenTarget.isFrozen && frozenTarget.name == "seven" && frozenTarget.id == 7)
        #expect(frozenDistinct[0] == .string("x") && frozenDistinct[1] == .int(3) && frozenDistinct[3] == .none)
        #expect(frozenDistinct[2].object(Target.self)?.isFrozen == true)

        try realm.write {
            realm.object(ofType: Target.self, forPrimaryKey: 7)!.name = "renamed"
            owner.mixed.removeAll()
        }
        #expect(sorted.isEmpty)
        #expect(frozen.count == 6 && frozen[5].object(Target.self)?.name == "seven", "the object as of the frozen version")
        #expect(frozen.description.hasPrefix("FrozenValueResults<mixed> <0x"), "\(frozen.description)")
        #expect(frozen.description.contains("[1] 1.5") && frozen.description.contains("seven"), "\(frozen.description)")
    }

    @Test func aListNestedInAnAnyRealmValueFreezes() throws {
        let (realm, owner) = try realm(with: ["any": AnyRealmValue.fromArray([.int(4), .int(2), .int(8), .int(2)])])
        let nested = try #require(owner.any.listValue)
        let sorted = nested.sorted()
        let small = try nested.filter("self < 5")
        let frozen = try sorted.freeze()
        let frozenSmall = try small.freeze()
        #expect(Array(frozen) == [.int(2), .int(2), .int(4), .int(8)] && Array(frozen) == Array(sorted))
        #expect(Array(frozenSmall) == [.int(4), .int(2), .int(2)] && Array(frozenSmall) == Array(small))
        try realm.write { nested.append(.int(1)) }
        #expect(Array(frozen) == [.int(2), .int(2), .int(4), .int(8)] && sorted.count == 5)
        #expect(Array(try #require(try frozen.thaw())) == [.int(1), .int(2), .int(2), .int(4), .int(8)])
        #expect(realm.thaw(frozenSmall).map(Array.init) == [.int(4), .int(2), .int(2), .int(1)])
    }

    @Test func frozenValuesAreReadOnOtherTasks() async throws {
        let (realm, owner) = try realm(with: ["scores": Array(0..<50), "tags": ["a", "b"]])
        let frozen = try owner.scores.sorted(ascending: false).freeze()
        let tags = try owner.tags.sorted().freeze()
        async let sums = withTaskGroup(of: Int.self) { group in
            for _ in 0..<8 { group.addTask { frozen.reduce(0, +) + frozen.where { $0 < 10 }.count } }
            return await group.reduce(into: [Int]()) { $0.append($1) }
        }
        for value in 50..<60 { try realm.write { owner.scores.append(value) } }
        let detached = await Task.detached { (Array(frozen.prefix(3)), Array(tags), frozen.sorted().first, frozen.description) }.value
        #expect(await sums == Array(repeating: (0..<50).reduce(0, +) + 10, count: 8))
        #expect(detached.0 == [49, 48, 47] && detached.1 == ["a", "b"] && detached.2 == 0)
        #expect(detached.3.hasPrefix("FrozenValueResults<int> <0x") && detached.3.contains("[0] 49"), "\(detached.3)")
        #expect(owner.scores.count == 60 && frozen.count == 50)
    }

    // MARK: Queries on frozen values

    @Test func queriesOnFrozenValuesGiveWhatTheLiveQueriesGive() throws {
        let scores = [8, 3, 5, 3, 12, 0, 5, 7, -1]
        let (realm, owner) = try realm(with: [
            "scores": scores, "tags": ["pear", "apple", "fig", "avocado"], "ratings": ["x": 4, "m": 9, "a": 4, "q": 1],
        ])
        let list: FrozenList<Int> = try owner.scores.freeze()
        let set: FrozenMutableSet<String> = try owner.tags.freeze()
        let map: FrozenMap<String, Int> = try owner.ratings.freeze()
        let results: FrozenValueResults<Int> = try owner.scores.where { $0 >= 3 }.freeze()
        let version = list.versionNumber

        // Each query's answer, on the frozen values and on the live ones (the same data until
        // the write below).
        func queries<C: _FrozenValueQuerying>(_ frozen: C) throws -> [FrozenValueResults<Int>] where C._Value == Int {
            [
                frozen.where { $0 > 4 }, try frozen.filter("self > %@", 4), try frozen.filter("self BETWEEN {3, 8}"),
                frozen.sorted(byKeyPath: "self", ascending: false), frozen.sorted(by: [SortDescriptor(keyPath: "self")]),
                frozen.distinct(by: ["self"]), frozen.sorted(ascending: true), frozen.distinct(),
                frozen.where { $0 != 3 }.sorted(ascending: false).distinct(),
            ]
        }
        func liveQueries(_ live: Results<Int>) throws -> [[Int]] {
            [
                Array(live.where { $0 > 4 }), Array(try live.filter("self > %@", 4)), Array(try live.filter("self BETWEEN {3, 8}")),
                Array(live.sorted(byKeyPath: "self", ascending: false)), Array(live.sorted(by: [SortDescriptor(keyPath: "self")])),
                Array(live.distinct(by: ["self"])), Array(live.sorted(ascending: true)), Array(live.distinct()),
                Array(live.where { $0 != 3 }.sorted(ascending: false).distinct()),
            ]
        }
        let expectedList = try liveQueries(owner.scores.where { $0 > -100 })
        let expectedResults = try liveQueries(owner.scores.where { $0 >= 3 })
        let expectedMap = try liveQueries(owner.ratings.where { $0 >= 0 })
        let liveTags = Array(owner.tags.where { $0.contains("a") }.sorted(ascending: false))
        #expect(expectedList[0] == [8, 5, 12, 5, 7] && expectedList[7] == [8, 3, 5, 12, 0, 7, -1], "the live queries themselves")

        try realm.write {
            owner.scores.removeAll()
            owner.scores.append(objectsIn: [100, 3, 3])
            owner.tags.removeAll()
            owner.ratings["a"] = 50
        }
        #expect(try queries(list).map { Array($0) } == expectedList)
        #expect(try queries(results).map { Array($0) } == expectedResults)
        #expect(try queries(map).map { Array($0) } == expectedMap)
        #expect(Array(set.where { $0.contains("a") }.sorted(ascending: false)) == liveTags)
        #expect(Array(set.where { $0.contains("a") }.sorted(ascending: false)) == ["pear", "avocado", "apple"])
        #expect(Array(try set.filter("self ENDSWITH %@", "g")) == ["fig"])
        #expect(Array(map.where { $0 == 4 }) == [4, 4] && Array(map.sorted(ascending: false)) == [9, 4, 4, 1])
        for query in try queries(list) + queries(map) {
            #expect(query.isFrozen && query.versionNumber == version)
        }
        // A query on frozen results thaws to the whole chain on the live list.
        let chained = results.where { $0 < 8 }.sorted(ascending: false)
        #expect(Array(chained) == [7, 5, 5, 3, 3])
        #expect(Array(try #require(try chained.thaw())) == [3, 3], "100 is not below 8")

        let bad = #expect(throws: RealmError.self) { _ = try list.filter("self >") }
        #expect(bad?.code == .invalidArgument)
        let property = #expect(throws: RealmError.self) { _ = try results.filter("name == 'a'") }
        #expect(property?.code == .invalidArgument, "values have no properties")
    }

    @Test func frozenCollectionsOfObjectsStillGiveFrozenResults() throws {
        let a = Target(value: ["id": 1, "name": "a", "rank": 2])
        let b = Target(value: ["id": 2, "name": "b", "rank": 1])
        let (realm, owner) = try realm(with: ["targets": [a, b], "targetSet": [a, b], "targetsByName": ["x": a, "y": b]])
        let list = try owner.targets.freeze()
        let set = try owner.targetSet.freeze()
        let map = try owner.targetsByName.freeze()
        try realm.write { realm.object(ofType: Target.self, forPrimaryKey: 1)!.rank = 10 }
        let fromList: FrozenResults<Target> = list.where { $0.rank > 1 }
        let fromSet: FrozenResults<Target> = try set.filter("name == %@", "b")
        let fromMap: FrozenResults<Target> = map.sorted(byKeyPath: "rank")
        let distinct: FrozenResults<Target> = list.distinct(by: ["rank"])
        #expect(fromList.map(\.name) == ["a"] && fromList.first?.rank == 2, "the objects of the frozen version")
        #expect(fromSet.map(\.name) == ["b"])
        #expect(fromMap.map(\.name) == ["b", "a"])
        #expect(distinct.count == 2)
        // Results of objects freeze to FrozenResults too.
        let frozenResults: FrozenResults<Target> = try owner.targets.where { $0.rank > 1 }.freeze()
        #expect(frozenResults.map(\.name) == ["a"])
    }

    // MARK: Thawing

    @Test func thawGivesTheSameQueryOnTheLiveCollection() async throws {
        let (realm, owner) = try realm(with: ["scores": [4, 1, 6], "tags": ["a"], "ratings": ["k": 3]])
        let frozen = try owner.scores.where { $0 > 2 }.sorted().freeze()
        let tags = try owner.tags.sorted().freeze()
        let ratings = try owner.ratings.where { $0 < 10 }.freeze()
        try realm.write {
            owner.scores.append(objectsIn: [10, 2, 3])
            owner.tags.insert("b")
            owner.ratings["j"] = 11
            owner.ratings["l"] = 1
        }
        #expect(Array(frozen) == [4, 6])
        let viaRealm = try #require(realm.thaw(frozen))
        #expect(Array(viaRealm) == [3, 4, 6, 10] && !viaRealm.isFrozen && viaRealm.realm === realm, "the query on the list now")
        #expect(realm.thaw(tags).map(Array.init) == ["a", "b"] && realm.thaw(ratings).map(Array.init) == [3, 1])
        // The thawed results are live: they follow later writes.
        try realm.write { owner.scores.append(5) }
        #expect(Array(viaRealm) == [3, 4, 5, 6, 10])
        // thaw() opens the live realm of the caller's isolation: one realm per actor, and in
        // nonisolated code (here, and in a detached task) a realm of its own.
        let thawed = try #require(try frozen.thaw())
        #expect(Array(thawed) == [3, 4, 5, 6, 10] && !thawed.isFrozen)
        let onAnotherTask = await Task.detached { try? frozen.thaw().map(Array.init) }.value
        #expect(onAnotherTask == [3, 4, 5, 6, 10])
        let onTheMainActor = await MainActor.run { () -> (Bool, [Int]?) in
            let (first, second) = (try? frozen.thaw(), try? tags.thaw())
            return (first?.realm != nil && first?.realm === second?.realm, first.map(Array.init))
        }
        #expect(onTheMainActor.0, "two thaws on one actor give results of one realm")
        #expect(onTheMainActor.1 == [3, 4, 5, 6, 10])
        // Another file's realm does not hold the list.
        let other = try Realm(configuration: FrozenValueModels.configuration())
        try other.write { try other.add(Owner(value: ["id": 1, "scores": [7, 8]])) }
        #expect(other.thaw(frozen) == nil && other.thaw(tags) == nil)

        try realm.write { try realm.delete(owner) }
        #expect(try frozen.thaw() == nil && realm.thaw(frozen) == nil && realm.thaw(tags) == nil && realm.thaw(ratings) == nil)
        #expect(Array(frozen) == [4, 6] && Array(ratings) == [3], "the frozen values still read their version")
    }

    @Test func aNestedListNoLongerInItsPlaceDoesNotThaw() throws {
        let (realm, owner) = try realm(with: ["any": AnyRealmValue.fromArray([.int(1), .int(2)])])
        let frozen = try #require(owner.any.listValue).sorted(ascending: false).freeze()
        try realm.write { owner.any = .int(5) }
        #expect(Array(frozen) == [.int(2), .int(1)], "the frozen values still read their version")
        // The list is gone as if its object were deleted (freezing it again throws), so its
        // results do not thaw, nor does the frozen list.
        let thawed = realm.thaw(frozen)
        #expect(thawed == nil, "the place holds no list any more")
    }

    @Test func resultsOfAFrozenOwnersListFreezeAtTheOwnersVersion() throws {
        let (realm, owner) = try realm(with: ["scores": [3, 1, 2]])
        let frozenOwner = try owner.freeze()
        try realm.write { owner.scores.append(0) }
        let results = frozenOwner.scores.sorted()
        #expect(results.isFrozen)
        let frozen = try results.freeze()
        #expect(Array(frozen) == [1, 2, 3] && frozen.versionNumber == frozenOwner.versionNumber)
        #expect(realm.thaw(frozen).map(Array.init) == [0, 1, 2, 3], "thawed to the list as it is now")
    }

    // MARK: What cannot be frozen

    @Test func freezingInAWriteOrOfADeletedOwnerThrows() throws {
        let (realm, owner) = try realm(with: ["scores": [1, 2], "ratings": ["a": 1]])
        let sorted = owner.scores.sorted()
        let ratings = owner.ratings.where { $0 > 0 }
        try realm.write {
            expectRealmError(.wrongState, mentioning: ["write transaction"]) { _ = try sorted.freeze() }
            expectRealmError(.wrongState, mentioning: ["write transaction"]) { _ = try ratings.freeze() }
        }
        try realm.write { try realm.delete(owner) }
        expectRealmError(.invalidObject, mentioning: ["deleted"]) { _ = try sorted.freeze() }
        expectRealmError(.invalidObject, mentioning: []) { _ = try ratings.freeze() }
    }

    @Test func resultsOfObjectsThroughGenericCodeThrowInvalidArgument() throws {
        let (_, owner) = try realm(with: ["scores": [3, 1], "targets": [["id": 1]]])
        func freezeValues<T: RealmCollectionValue>(_ results: Results<T>) throws -> FrozenValueResults<T> { try results.freeze() }
        let error = expectRealmError(.invalidArgument, mentioning: ["FrozenResults"]) {
            _ = try freezeValues(owner.targets.where { $0.id > 0 })
        }
        #expect(error != nil)
        expectRealmError(.invalidArgument, mentioning: []) { _ = try freezeValues(owner.realm!.objects(Target.self)) }
        #expect(Array(try freezeValues(owner.scores.sorted())) == [1, 3], "results of values take the generic path")
    }
}
