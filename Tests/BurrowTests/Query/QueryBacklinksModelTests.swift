import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// Backlinks in query strings, as RealmSwift's query language has them: a `LinkingObjects`
/// property in a key path (`owners.@count`, `ANY owners.name`, `SUBQUERY(owners, …)`),
/// `@links.Class.property` (the same objects without a declared property) and `@links.@count`
/// (every link, from any class and property). Each query runs on typed results and on the
/// dynamic results of the same class, and is checked against the links of random data
/// followed back in plain Swift.
@Suite(.temporaryDirectory) struct QueryBacklinksModelTests {
    private var itemCount: Int { TestEnvironment.count("BURROW_QUERY_ITEMS", default: 200) }

    private struct Fixture {
        let realm: Realm
        let items: [QItemModel]
        let tagCount: Int
        let seed: UInt64

        /// The items whose `links` hold tag `tag`, each once, in id order: its `owners`.
        func owners(_ tag: Int) -> [QItemModel] { items.filter { $0.links.contains(tag) } }
        /// The items whose `link` is tag `tag`.
        func linkers(_ tag: Int) -> [QItemModel] { items.filter { $0.link == tag } }
        /// Every link to tag `tag`: a list holding it twice links to it twice.
        func allLinks(_ tag: Int) -> Int {
            items.reduce(0) { $0 + ($1.link == tag ? 1 : 0) + $1.links.count { $0 == tag } }
        }

        /// Checks that `query` finds, among the tags, those `expected` holds for, through
        /// typed and dynamic results alike.
        func check(_ query: String, _ args: [Any] = [], sourceLocation: SourceLocation = #_sourceLocation, _ expected: (Int) -> Bool) {
            let want = (0..<tagCount).filter(expected)
            do {
                let typed = try realm.objects(QueryTestModels.Tag.self).filter(query, arguments: args).map(\.id)
                let dynamic = try realm.dynamicObjects("QTag").filter(query, arguments: args).map { $0["id"] as! Int }
                #expect(typed == want, "\(query) (seed \(seed)): typed \(typed), the model expects \(want)", sourceLocation: sourceLocation)
                #expect(dynamic == want, "\(query) (seed \(seed)): dynamic \(dynamic), the model expects \(want)", sourceLocation: sourceLocation)
            } catch {
                Issue.record("\(query) threw \(error)", sourceLocation: sourceLocation)
            }
        }
    }

    private func fixture() throws -> Fixture {
        let seed = TestSeed.make("QueryBacklinksModelTests")
        let realm = try Realm(configuration: temporaryInMemoryConfiguration())
        let (items, tags) = try QData.populate(realm, count: itemCount, seed: seed)
        return Fixture(realm: realm, items: items, tagCount: tags.count, seed: seed)
    }

    @Test func testLinkingObjectsPropertiesInKeyPathsMatchTheModel() throws {
        let f = try fixture()
        let counts = (0..<f.tagCount).map { f.owners($0).count }.sorted()
        for n in [0, counts[counts.count / 2], counts.last!] {
            f.check("owners.@count > \(n)") { f.owners($0).count > n }
            f.check("owners.@count == %@", [n]) { f.owners($0).count == n }
        }
        f.check("ANY owners.name == 'Rex'") { f.owners($0).contains { $0.name == "Rex" } }
        f.check("ANY owners.name ==[c] 'rex'") { f.owners($0).contains { $0.name.lowercased() == "rex" } }
        f.check("ALL owners.flag == true") { f.owners($0).allSatisfy(\.flag) }
        f.check("NONE owners.rank > 6") { !f.owners($0).contains { $0.rank > 6 } }
        for total in [-5, 0, 20, 60] {
            f.check("owners.@sum.rank > %@", [total]) { f.owners($0).reduce(0) { $0 + $1.rank } > total }
        }
        f.check("owners.@max.rank == 8") { f.owners($0).map(\.rank).max() == 8 }
        f.check("owners.@avg.score > 0.75") { tag in
            let scores = f.owners(tag).map(\.score)
            return !scores.isEmpty && scores.reduce(0, +) / Double(scores.count) > 0.75
        }
        for n in [0, 2, 5] {
            f.check("SUBQUERY(owners, $i, $i.rank > 2 AND $i.flag == true).@count > %@", [n]) { tag in
                f.owners(tag).count { $0.rank > 2 && $0.flag } > n
            }
        }
    }

    @Test func testLinksOfAClassAndPropertyMatchTheModel() throws {
        let f = try fixture()
        for n in [0, 10, 40] {
            f.check("@links.QItem.links.@count > \(n)") { f.owners($0).count > n }
            f.check("@links.QItem.link.@count > \(n)") { f.linkers($0).count > n }
            f.check("@links.QItem.link.@count >= owners.@count") { f.linkers($0).count >= f.owners($0).count }
        }
        f.check("ANY @links.QItem.links.name == 'Rex'") { f.owners($0).contains { $0.name == "Rex" } }
        f.check("ANY @links.QItem.link.name BEGINSWITH 'R'") { f.linkers($0).contains { $0.name.hasPrefix("R") } }
        f.check("ALL @links.QItem.link.rank >= 0") { f.linkers($0).allSatisfy { $0.rank >= 0 } }
        f.check("@links.QItem.link.@min.score < 0") { f.linkers($0).map(\.score).min().map { $0 < 0 } ?? false }
        f.check("@links.QItem.links.@sum.rank > 30") { f.owners($0).reduce(0) { $0 + $1.rank } > 30 }
        for n in [0, 3, 8] {
            f.check("SUBQUERY(@links.QItem.link, $i, $i.rank > 2).@count > %@", [n]) { f.linkers($0).count { $0.rank > 2 } > n }
        }
    }

    @Test func testLinksCountedFromEveryClassAndPropertyMatchTheModel() throws {
        let f = try fixture()
        let counts = (0..<f.tagCount).map(f.allLinks).sorted()
        for n in [0, counts[counts.count / 2], counts.last!] {
            f.check("@links.@count > \(n)") { f.allLinks($0) > n }
            f.check("@links.@count == %@", [n]) { f.allLinks($0) == n }
        }
        f.check("@links.@count > owners.@count") { f.allLinks($0) > f.owners($0).count }
        // Through a link: the links to the item's tag (none for an item without one). Through
        // many objects: each one's count, any of which may match, as RealmSwift compares them.
        for n in [0, counts[counts.count / 2]] {
            let want = f.items.filter { $0.link.map { f.allLinks($0) > n } ?? false }.map(\.id)
            #expect(try f.realm.objects(QueryTestModels.Item.self).filter("link.@links.@count > %@", n).map(\.id) == want, "seed \(f.seed)")
            #expect(try f.realm.dynamicObjects("QItem").filter("link.@links.@count > %@", n).map { $0["id"] as! Int } == want)
            let wantThroughList = f.items.filter { $0.links.contains { f.allLinks($0) == n } }.map(\.id)
            #expect(
                try f.realm.objects(QueryTestModels.Item.self).filter("links.@links.@count == %@", n).map(\.id) == wantThroughList, "seed \(f.seed)")
        }
        #expect(try f.realm.objects(QueryTestModels.Item.self).filter("link.@links.@count == 0").count == 0, "a nil link has no count")
        // Frozen results run the same queries on their version.
        let frozen = try f.realm.objects(QueryTestModels.Tag.self).freeze()
        #expect(
            try frozen.filter("@links.@count > 3 OR ANY @links.QItem.link.flag == true").map(\.id)
                == (0..<f.tagCount).filter { f.allLinks($0) > 3 || f.linkers($0).contains(where: \.flag) })
        // Links from a second class count too.
        try f.realm.write {
            let shelf = try f.realm.create(QueryTestModels.Shelf.self)
            shelf.tags.insert(f.realm.object(ofType: QueryTestModels.Tag.self, forPrimaryKey: 0)!)
        }
        f.check("@links.@count == %@", [f.allLinks(0) + 1]) { $0 == 0 || f.allLinks($0) == f.allLinks(0) + 1 }
        f.check("@links.QShelf.tags.@count == 1") { $0 == 0 }
    }

    @Test func testTheTypedDSLAgreesWithQueryStringsOverLinkingObjects() throws {
        let f = try fixture()
        let tags = f.realm.objects(QueryTestModels.Tag.self)
        #expect(tags.where { $0.owners.count > 30 }.map(\.id) == (try tags.filter("@links.QItem.links.@count > 30")).map(\.id))
        #expect(tags.where { $0.owners.name == "Rex" }.map(\.id) == (try tags.filter("ANY @links.QItem.links.name == 'Rex'")).map(\.id))
        #expect(tags.where { $0.owners.rank.sum > 20 }.map(\.id) == (try tags.filter("@links.QItem.links.@sum.rank > 20")).map(\.id))
    }

    @Test func testBadLinksPathsNameWhatDoesNotExist() throws {
        let realm = try Realm(configuration: temporaryInMemoryConfiguration())
        try realm.write {
            let item = QueryTestModels.Item()
            item.link = QueryTestModels.Tag()
            try realm.add(item)
        }
        let cases: [(String, [String])] = [
            ("@links.QNope.links.@count > 0", ["no class named QNope", "links to QTag"]),
            ("@links.QItem.linkz.@count > 0", ["QItem has no property 'linkz'", "its links to QTag: link, links"]),
            ("@links.QItem.name.@count > 0", ["property 'name' of QItem", "not a link to QTag"]),
            ("@links.QItem.links.nope == 1", ["QItem has no property 'nope'"]),
            ("@links.QTag.owners.@count > 0", ["property 'owners' of QTag is LinkingObjects<QItem>", "not a link to QTag"]),
            ("@links > 0", ["'.' after @links"]),
            ("@links.@sum > 0", ["a class name (@links.Class.property) or @count after @links."]),
            ("@links.QItem > 0", ["a property of QItem after @links.QItem"]),
            ("SUBQUERY(@links.@count, $i, $i.rank > 0).@count > 0", ["@links.Class.property (a collection of objects)"]),
            ("@links.QItem.links.@count == 'many'", ["cannot be compared"]),
        ]
        for (query, fragments) in cases {
            for results in [realm.objects(QueryTestModels.Tag.self), realm.dynamicObjects("QTag")] as [any QueryableResults] {
                do {
                    try results.run(query)
                    Issue.record("\(query) did not throw")
                } catch {
                    #expect(error.code == .invalidArgument, "\(query)")
                    for fragment in fragments {
                        #expect(error.description.contains(fragment), "\(query): \(error.description) should mention \(fragment)")
                    }
                }
            }
        }
    }
}

/// Typed and dynamic results alike, for running one query string on both.
private protocol QueryableResults {
    func run(_ query: String) throws(RealmError)
}

extension Results: QueryableResults {
    func run(_ query: String) throws(RealmError) { _ = try filter(query).count }
}
