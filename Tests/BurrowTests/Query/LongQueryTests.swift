import BurrowStore
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// Queries of any length: chains of AND and OR are flat, however long, and nesting deeper
/// than `QueryPredicate.maximumDepth` is a clear error, never a stack overflow. The deepest
/// cases run in a child process, so that an overflow fails the test instead of ending the suite.
@Suite(.temporaryDirectory) struct LongQueryTests {
    static let terms = 100_000

    /// Items of ranks 0 to 9, with scores 0.25 above their ranks.
    static func seeded() throws -> Realm {
        let realm = try Realm(configuration: temporaryInMemoryConfiguration())
        try realm.write {
            for rank in 0..<10 { try realm.add(QueryTestModels.Item(value: ["id": rank, "rank": rank, "score": Double(rank) + 0.25])) }
        }
        return realm
    }

    @Test func testAHundredThousandTermAndChainReturnsTheMatchingObjects() async {
        await #expect(processExitsWith: .success) {
            let realm = try LongQueryTests.seeded()
            // Every score differs from each x.5, so only `rank < 3` decides.
            let query = (0..<LongQueryTests.terms).map { "score != \($0).5" }.joined(separator: " AND ") + " AND rank < 3"
            let ranks = try realm.objects(QueryTestModels.Item.self).filter(query).map(\.rank)
            guard ranks.sorted() == [0, 1, 2] else { exit(3) }
        }
    }

    @Test func testAHundredThousandTermOrChainReturnsTheMatchingObjects() async {
        await #expect(processExitsWith: .success) {
            let realm = try LongQueryTests.seeded()
            let query = (100..<100 + LongQueryTests.terms).map { "rank == \($0)" }.joined(separator: " OR ") + " OR rank == 2 || rank == 5"
            let ranks = try realm.objects(QueryTestModels.Item.self).filter(query).map(\.rank)
            guard ranks.sorted() == [2, 5] else { exit(3) }
        }
    }

    @Test func testDeepParenthesesAreRefusedWithTheLimit() throws {
        let realm = try Self.seeded()
        let depth = 10_000
        let query = String(repeating: "(", count: depth) + "rank == 1" + String(repeating: ")", count: depth)
        let error = #expect(throws: RealmError.self) { try realm.objects(QueryTestModels.Item.self).filter(query) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.description.contains("nested more than \(QueryPredicate.maximumDepth) levels") == true, "\(String(describing: error))")
    }

    @Test func testADeepChainOfNotIsRefusedWithTheLimit() throws {
        let realm = try Self.seeded()
        let query = String(repeating: "NOT ", count: 10_000) + "rank == 1"
        let error = #expect(throws: RealmError.self) { try realm.objects(QueryTestModels.Item.self).filter(query) }
        #expect(error?.description.contains("nested more than \(QueryPredicate.maximumDepth) levels") == true, "\(String(describing: error))")
    }

    @Test func testNestingUpToTheLimitWorks() throws {
        let realm = try Self.seeded()
        let depth = QueryPredicate.maximumDepth - 1
        let query = String(repeating: "(", count: depth) + "rank == 1" + String(repeating: ")", count: depth)
        #expect(try realm.objects(QueryTestModels.Item.self).filter(query).map(\.rank) == [1])
    }

    @Test func testChainsOfAHundredThousandConditionsBuiltInALoopWork() async {
        await #expect(processExitsWith: .success) {
            let realm = try LongQueryTests.seeded()
            let all = realm.objects(QueryTestModels.Item.self).where { item in
                var condition = item.score != 0.5
                for term in 1..<LongQueryTests.terms { condition = condition && item.score != Double(term) + 0.5 }
                return condition && item.rank < 3
            }
            guard all.map(\.rank).sorted() == [0, 1, 2] else { exit(3) }
            let any = realm.objects(QueryTestModels.Item.self).where { item in
                var condition = item.rank == 100
                for term in 101..<100 + LongQueryTests.terms { condition = condition || item.rank == term }
                return condition || item.rank == 2 || item.rank == 5
            }
            guard any.map(\.rank).sorted() == [2, 5] else { exit(4) }
        }
    }

    @Test func testAChainReusedFromTheMiddleKeepsItsOwnConditions() throws {
        let realm = try Self.seeded()
        let results = realm.objects(QueryTestModels.Item.self)
        let both = results.where { item in
            let base = item.rank < 5 && item.rank > 0
            _ = base && item.rank == 3  // appended in place
            return base && item.rank != 2  // must not include `rank == 3`
        }
        #expect(both.map(\.rank).sorted() == [1, 3, 4])
    }

    @Test func testConditionsNestedInALoopBeyondTheLimitTrap() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try LongQueryTests.seeded()
            _ = realm.objects(QueryTestModels.Item.self).where { item in
                var condition = item.rank == 0
                for term in 1..<1_000 { condition = !(condition || item.rank == term) }
                return condition
            }
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("at most \(QueryPredicate.maximumDepth) are allowed"), "\(stderr)")
    }
}
