import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// The model of `QueryMapOfObjectsTests`, stored under the name it had before it was namespaced.
enum QueryMapOfObjectsModels {
    /// A map of objects, for queries on `Map<String, QueryTestModels.Tag?>`.
    final class TagMap: Object {
        override class func _realmObjectName() -> String? { "QTagMap" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var byName: Map<String, QueryTestModels.Tag?>
    }
}

/// `where`, `filter`, sorting and aggregates on a `Map` of objects give results over its
/// values (in key order, nil values left out), checked against the same maps in plain Swift.
@Suite(.temporaryDirectory) struct QueryMapOfObjectsTests {

    private struct Fixture {
        let realm: Realm
        /// Per tag id, its label and weight.
        let tags: [(label: String, weight: Int)]
        /// Per map object, its entries: key → tag id, or nil.
        let maps: [[String: Int?]]
        let seed: UInt64

        /// The tag ids the map of object `index` holds, in key order, nil values left out.
        func values(_ index: Int) -> [Int] {
            maps[index].sorted { $0.key < $1.key }.compactMap(\.value)
        }

        func map(_ index: Int) throws -> Map<String, QueryTestModels.Tag?> {
            try #require(realm.object(ofType: QueryMapOfObjectsModels.TagMap.self, forPrimaryKey: index)).byName
        }
    }

    private func fixture() throws -> Fixture {
        let seed = TestSeed.make("QueryMapOfObjectsTests")
        var r = TestRandom(seed: seed)
        let realm = try Realm(configuration: temporaryInMemoryConfiguration())
        var tags: [(String, Int)] = []
        var maps: [[String: Int?]] = []
        try realm.write {
            var tagObjects: [QueryTestModels.Tag] = []
            for id in 0..<8 {
                let tag = QueryTestModels.Tag()
                tag.id = id
                tag.label = QData.labels[r.next(upperBound: QData.labels.count)]
                tag.weight = r.next(upperBound: 10)
                try realm.add(tag)
                tagObjects.append(tag)
                tags.append((tag.label, tag.weight))
            }
            for id in 0..<30 {
                var model: [String: Int?] = [:]
                for _ in 0..<r.next(upperBound: 6) {
                    let key = ["a", "b", "c", "d", "e", "f"][r.next(upperBound: 6)]
                    model[key] = r.next(upperBound: 4) == 0 ? Int?.none : r.next(upperBound: tags.count)
                }
                let object = QueryMapOfObjectsModels.TagMap()
                object.id = id
                try realm.add(object)
                for (key, tag) in model { object.byName[key] = tag.map { tagObjects[$0] } }
                maps.append(model)
            }
        }
        return Fixture(realm: realm, tags: tags, maps: maps, seed: seed)
    }

    @Test func testWhereAndFilterGiveTheMatchingValuesInKeyOrder() throws {
        let f = try fixture()
        for index in f.maps.indices {
            let map = try f.map(index)
            for weight in [0, 3, 7] {
                let want = f.values(index).filter { f.tags[$0].weight > weight }
                #expect(map.where { $0.weight > weight }.map { $0!.id } == want, "seed \(f.seed), map \(index)")
                #expect(try map.filter("weight > %@", weight).map { $0!.id } == want, "seed \(f.seed), map \(index)")
            }
            for label in ["red", "blue"] {
                let want = f.values(index).filter { f.tags[$0].label.lowercased() == label }
                #expect(map.where { $0.label.equals(label, options: .caseInsensitive) }.map { $0!.id } == want, "seed \(f.seed)")
                #expect(try map.filter("label ==[c] %@", label).map { $0!.id } == want, "seed \(f.seed)")
            }
            #expect(try map.filter("TRUEPREDICATE").count == f.values(index).count, "seed \(f.seed)")
        }
    }

    @Test func testSortingDistinctAndAggregatesReadTheValues() throws {
        let f = try fixture()
        for index in f.maps.indices {
            let map = try f.map(index)
            let values = f.values(index)
            let weights = values.map { f.tags[$0].weight }
            let byWeight = values.enumerated().sorted { (f.tags[$0.1].weight, $0.0) < (f.tags[$1.1].weight, $1.0) }.map(\.1)
            #expect(map.sorted(byKeyPath: "weight").map { $0!.id } == byWeight, "seed \(f.seed)")
            var seen = Set<String>()
            #expect(map.distinct(by: ["label"]).map { $0!.id } == values.filter { seen.insert(f.tags[$0].label).inserted }, "seed \(f.seed)")
            #expect(map.sum(ofProperty: "weight") as Int == weights.reduce(0, +), "seed \(f.seed)")
            #expect(map.max(ofProperty: "weight") as Int? == weights.max(), "seed \(f.seed)")
            #expect(map.min(ofProperty: "weight") as Int? == weights.min(), "seed \(f.seed)")
        }
    }

    @Test func testResultsFollowTheMapAsItChanges() throws {
        let f = try fixture()
        let map = try f.map(0)
        let heavy = map.where { $0.weight >= 0 }
        let before = heavy.count
        let tag = try #require(f.realm.object(ofType: QueryTestModels.Tag.self, forPrimaryKey: 1))
        try f.realm.write {
            map.removeAll()
            map["z"] = tag
            map["y"] = nil
            map.updateValue(nil, forKey: "x")
        }
        #expect(heavy.map { $0!.id } == [1], "seed \(f.seed), \(before) values before")
        try f.realm.write { try f.realm.delete(tag) }
        #expect(heavy.isEmpty)
    }

    @Test func testAnUnmanagedMapTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = Map<String, QueryTestModels.Tag?>().where { $0.weight > 1 }
        }
    }
}
