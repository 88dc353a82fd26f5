import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// The typed `where { }` DSL builds the same predicates as the query strings the model tests
/// check: each DSL query is compared with its query-string twin on the same random data.
@Suite(.temporaryDirectory) struct QueryDSLTests {
    /// The seed of the data every test of the suite queries, printed once per test.
    private let seed = TestSeed.make("QueryDSLTests")

    @Test func testDSLQueriesMatchTheirQueryStrings() throws {
        let realm = try Realm(configuration: temporaryInMemoryConfiguration())
        _ = try QData.populate(realm, count: 200, seed: seed)
        let items = realm.objects(QueryTestModels.Item.self)
        let tag = try #require(realm.object(ofType: QueryTestModels.Tag.self, forPrimaryKey: 1))
        func same(_ dsl: Results<QueryTestModels.Item>, _ query: String, _ args: Any..., sourceLocation: SourceLocation = #_sourceLocation) {
            do {
                let expected = try items.filter(query, arguments: args).map(\.id)
                #expect(dsl.map(\.id) == expected, "\(query) (seed \(seed))", sourceLocation: sourceLocation)
            } catch {
                Issue.record("\(query): \(error)", sourceLocation: sourceLocation)
            }
        }
        same(items.where { $0.rank < 2 }, "rank < 2")
        same(items.where { $0.rank <= 2 && $0.rank >= -1 }, "rank <= 2 AND rank >= -1")
        same(items.where { $0.rank > 2 || $0.flag == true }, "rank > 2 OR flag == true")
        same(items.where { !($0.rank == 2) }, "NOT rank == 2")
        same(items.where { $0.rank != 2 }, "rank != 2")
        same(items.where { $0.flag }, "flag == true")
        same(items.where { !$0.flag }, "NOT flag == true")
        same(items.where { $0.score > 1.5 }, "score > 1.5")
        same(items.where { $0.ratio >= 0.5 }, "ratio >= 0.5")
        same(items.where { $0.amount < Decimal128(2) }, "amount < 2")
        same(items.where { $0.when > QData.date(3) }, "when > %@", QData.date(3))
        same(items.where { $0.oid == QData.oids[2] }, "oid == %@", QData.oids[2])
        same(items.where { $0.uid != QData.uuids[1] }, "uid != %@", QData.uuids[1])
        same(items.where { $0.blob == Data([1, 2]) }, "blob == %@", Data([1, 2]))
        same(items.where { $0.optInt == nil }, "optInt == nil")
        same(items.where { $0.optInt > 2 }, "optInt > 2")
        same(items.where { $0.optName == "Rex" }, "optName == 'Rex'")
        same(items.where { $0.optName != nil }, "optName != nil")
        same(items.where { $0.level == .mid }, "level == 1")
        same(items.where { $0.level > .low }, "level > 0")
        same(items.where { $0.name == "Rex" }, "name == 'Rex'")
        same(items.where { $0.name.starts(with: "R") }, "name BEGINSWITH 'R'")
        same(items.where { $0.name.starts(with: "r", options: .caseInsensitive) }, "name BEGINSWITH[c] 'r'")
        same(items.where { $0.name.ends(with: "x", options: [.caseInsensitive, .diacriticInsensitive]) }, "name ENDSWITH[cd] 'x'")
        same(items.where { $0.name.contains("e", options: .diacriticInsensitive) }, "name CONTAINS[d] 'e'")
        same(items.where { $0.name.contains("ll") }, "name CONTAINS 'll'")
        same(items.where { $0.name.like("R*r") }, "name LIKE 'R*r'")
        same(items.where { $0.name.like("r?x", caseInsensitive: true) }, "name LIKE[c] 'r?x'")
        same(items.where { $0.name.equals("rex", options: .caseInsensitive) }, "name ==[c] 'rex'")
        same(items.where { $0.name.notEquals("rex", options: .caseInsensitive) }, "name !=[c] 'rex'")
        same(items.where { $0.optName.starts(with: "R") }, "optName BEGINSWITH 'R'")
        same(items.where { $0.name.in(["Rex", "Bella"]) }, "name IN {'Rex', 'Bella'}")
        same(items.where { $0.rank.in([1, 2, 3]) }, "rank IN {1, 2, 3}")
        same(items.where { $0.rank.contains(1...4) }, "rank BETWEEN {1, 4}")
        same(items.where { $0.rank.contains(1..<4) }, "rank >= 1 AND rank < 4")
        same(items.where { $0.name == $0.plainName }, "name == plainName")
        same(items.where { $0.link.label == "red" }, "link.label == 'red'")
        same(items.where { $0.link.weight > 4 }, "link.weight > 4")
        same(items.where { $0.link == nil }, "link == nil")
        same(items.where { $0.link == tag }, "link == %@", tag)
        same(items.where { $0.links.weight > 6 }, "ANY links.weight > 6")
        same(items.where { $0.links.label == "blue" }, "ANY links.label == 'blue'")
        same(items.where { $0.links.count > 1 }, "links.@count > 1")
        same(items.where { $0.links.weight.sum > 10 }, "links.@sum.weight > 10")
        same(items.where { $0.links.weight.avg >= 4 }, "links.@avg.weight >= 4")
        same(items.where { $0.links.contains(tag) }, "%@ IN links", tag)
        same(items.where { $0.tags.contains("x") }, "'x' IN tags")
        same(items.where { $0.tags.containsAny(in: ["x", "X"]) }, "ANY tags IN {'x', 'X'}")
        same(items.where { $0.tags.count == 2 }, "tags.@count == 2")
        same(items.where { $0.numbers.max > 7 }, "numbers.@max > 7")
        same(items.where { $0.numbers.min < 2 }, "numbers.@min < 2")
        same(items.where { $0.numbers.sum >= 9 }, "numbers.@sum >= 9")
        same(items.where { $0.numbers.avg > 4 }, "numbers.@avg > 4")
        same(items.where { $0.numbers.contains(2...7) }, "ALL numbers BETWEEN {2, 7}")
        same(items.where { $0.numberSet.contains(3) }, "3 IN numberSet")
        same(items.where { $0.numberSet.count == 0 }, "numberSet.@count == 0")
        same(items.where { $0.map.contains(2) }, "ANY map.@values == 2")
        same(items.where { $0.map["a"] == 1 }, "map['a'] == 1")
        same(items.where { $0.map.keys == "b" }, "ANY map.@keys == 'b'")
        same(items.where { $0.map.values > 3 }, "ANY map.@values > 3")
        same(items.where { $0.map.count >= 2 }, "map.@count >= 2")
        same(items.where { $0.any == .int(2) }, "any == 2")
        same(items.where { $0.any > .double(1.5) }, "any > 1.5")
        same(items.where { $0.any == .string("Rex") }, "any == 'Rex'")
        same(items.where { $0.any == .none }, "any == nil")

        // Subqueries: (conditions on one collection's elements).count.
        same(items.where { ($0.numbers > 5).count > 1 }, "SUBQUERY(numbers, $n, $n > 5).@count > 1")
        same(items.where { ($0.numbers >= 2 && $0.numbers < 6).count == 0 }, "SUBQUERY(numbers, $n, $n >= 2 AND $n < 6).@count == 0")
        same(items.where { ($0.tags == "x" || $0.tags == "X").count >= 2 }, "SUBQUERY(tags, $t, $t == 'x' OR $t == 'X').@count >= 2")
        same(items.where { ($0.map.values > 2).count == 1 }, "SUBQUERY(map, $v, $v > 2).@count == 1")
        same(items.where { ($0.map.keys != "a").count > 1 && $0.rank > 0 }, "SUBQUERY(map.@keys, $k, $k != 'a').@count > 1 AND rank > 0")
        same(
            items.where { ($0.links.weight > 2 && $0.links.label == "blue").count > 0 },
            "SUBQUERY(links, $t, $t.weight > 2 AND $t.label == 'blue').@count > 0")
        same(items.where { !($0.links.weight < 5).count.contains(1...2) }, "NOT SUBQUERY(links, $t, $t.weight < 5).@count BETWEEN {1, 2}")

        let tags = realm.objects(QueryTestModels.Tag.self)
        #expect(
            tags.where { ($0.owners.rank > 2 && $0.owners.flag).count > 1 }.map(\.id)
                == (try tags.filter("SUBQUERY(owners, $o, $o.rank > 2 AND $o.flag == true).@count > 1")).map(\.id))
        #expect(tags.where { $0.owners.count > 2 }.map(\.id) == (try tags.filter("owners.@count > 2")).map(\.id))
        #expect(tags.where { $0.owners.name == "Rex" }.map(\.id) == (try tags.filter("ANY owners.name == 'Rex'")).map(\.id))
        // Key paths name the property, however the closure spells the object.
        #expect(items.sorted(by: \.rank, ascending: false).map(\.id) == items.sorted(byKeyPath: "rank", ascending: false).map(\.id))
    }

    @Test func testASubqueryOverTwoCollectionsTraps() async {
        await #expect(processExitsWith: .failure) {
            let realm = try Realm(configuration: temporaryInMemoryConfiguration())
            _ = realm.objects(QueryTestModels.Item.self).where { ($0.numbers > 1 && $0.links.weight > 1).count > 0 }
        }
        await #expect(processExitsWith: .failure) {
            let realm = try Realm(configuration: temporaryInMemoryConfiguration())
            _ = realm.objects(QueryTestModels.Item.self).where { ($0.rank > 1).count > 0 }
        }
    }
}
