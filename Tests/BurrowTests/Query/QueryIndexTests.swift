import BurrowStore
import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// Conditions the primary-key tree or a secondary index answers give exactly what a scan of
/// every row gives, in a snapshot and inside a write transaction, after updates and deletes.
@Suite(.temporaryDirectory) struct QueryIndexTests {
    /// The seed of the data every test of the suite queries, printed once per test.
    private let seed = TestSeed.make("QueryIndexTests")

    private static func queries() -> [(String, [Any])] {
        var queries: [(String, [Any])] = []
        let strings = QData.names + [QData.longPrefix + "aa", QData.longPrefix + "b" + String(repeating: "z", count: 40), "Q", "rover!"]
        for op in ["==", "<", "<=", ">", ">="] {
            for s in strings { queries.append(("name \(op) %@", [s])) }
            for s in ["Rex", QData.longPrefix + "a", ""] { queries.append(("optName \(op) %@", [s])) }
            for n in [-4, -1, 0, 3, 8, 20] {
                queries.append(("rank \(op) %@", [n]))
                queries.append(("id \(op) %@", [n * 7]))
            }
            for i in [0, 2, 7, 9] { queries.append(("when \(op) %@", [QData.date(i)])) }
            for u in QData.uuids.prefix(3) { queries.append(("uid \(op) %@", [u])) }
        }
        queries.append(("name IN %@", [Array(strings.prefix(8))]))
        queries.append(("name IN {'Rex', 'Rex', 'nope'}", []))
        queries.append(("rank IN {0, 1, 2, 99}", []))
        queries.append(("id IN {3, 5, 5, 1000}", []))
        queries.append(("optName == nil", []))
        queries.append(("rank BETWEEN {-1, 4}", []))
        queries.append(("name BETWEEN %@", [[QData.longPrefix, QData.longPrefix + "b"]]))
        queries.append(("when BETWEEN %@", [[QData.date(1), QData.date(4)]]))
        queries.append(("rank > 1 AND name BEGINSWITH 'R'", []))
        // Prefixes: short, empty, as long as an index key keeps whole, longer, with a NUL.
        let prefixes = [
            "R", "Re", "r", "", "p", "a*", "Ü", "\u{0}", String(QData.longPrefix.prefix(KeyEncoding.boundedLength)), QData.longPrefix,
            QData.longPrefix + "a",
        ]
        for prefix in prefixes {
            queries.append(("name BEGINSWITH %@", [prefix]))
            queries.append(("optName BEGINSWITH %@ AND rank >= 0", [prefix]))
        }
        queries.append(("name == 'Rex' AND rank < 3", []))
        return queries
    }

    private func check(_ realm: Realm, _ note: String) throws {
        let table = try #require(try realm.table(for: QueryTestModels.Item.self, creating: false))
        let info = ClassInfo.of(QueryTestModels.Item.self)
        let executor = QueryExecutor(context: realm)
        for (query, args) in Self.queries() {
            let predicate = try QueryParser.parse(query, arguments: args, for: info).predicate
            // The primary key answers == and IN; its ranges scan.
            let primaryRange = query.hasPrefix("id ") && !query.hasPrefix("id ==") && !query.hasPrefix("id IN")
            #expect((try executor.indexCandidates(predicate, table) != nil) == !primaryRange, "\(query) should use an index: \(!primaryRange)")
            let viaIndex = try executor.filterTable(predicate, table).keys
            let viaScan = try executor.filterTable(predicate, table, useIndexes: false).keys
            #expect(viaIndex == viaScan, "\(query) \(args) \(note) (seed \(seed))")
            // `first` of results not evaluated yet probes the index where it answers exactly;
            // probe or not, it is the scan's first object.
            if let probe = QueryExecutor.indexProbe(predicate, table) {
                #expect(try QueryExecutor.first(probe, table, in: realm) == viaScan.first, "\(query) \(args) probed \(note) (seed \(seed))")
            }
            let first = try realm.objects(QueryTestModels.Item.self).filter(query, arguments: args).first
            #expect(first?._state?.key == viaScan.first, "\(query) \(args) first \(note) (seed \(seed))")
            // The unindexed twin of `name` agrees too.
            if query.hasPrefix("name") {
                let twin = try QueryParser.parse("plain" + "N" + query.dropFirst(), arguments: args, for: info).predicate
                if !query.contains("AND") { #expect(try executor.indexCandidates(twin, table) == nil) }
                #expect(try executor.filterTable(twin, table).keys == viaIndex, "\(query) \(args) on the unindexed twin \(note)")
            }
        }
    }

    @Test func testAnIndexListingTooManyObjectsGivesWayToAScan() throws {
        let realm = try Realm(configuration: temporaryInMemoryConfiguration())
        let (items, _) = try QData.populate(realm, count: 3000, seed: seed)
        let table = try #require(try realm.table(for: QueryTestModels.Item.self, creating: false))
        let info = ClassInfo.of(QueryTestModels.Item.self)
        let executor = QueryExecutor(context: realm)
        // (query, whether the index is worth reading: few objects match)
        let cases: [(String, Bool)] = [
            ("rank > -10", false), ("rank >= 0 AND flag == true", false), ("name BEGINSWITH ''", false),
            ("name == 'Rex'", true), ("rank == 8", true), ("name BEGINSWITH 'Ñ'", true), ("uid == %@", true),
        ]
        for (query, selective) in cases {
            let predicate = try QueryParser.parse(query, arguments: [QData.uuids[0]], for: info).predicate
            #expect((try executor.indexCandidates(predicate, table) != nil) == selective, "\(query) (seed \(seed))")
            let keys = try executor.filterTable(predicate, table).keys
            #expect(try keys == executor.filterTable(predicate, table, useIndexes: false).keys, "\(query) (seed \(seed))")
        }
        #expect(try executor.filterTable(try QueryParser.parse("rank > -10", arguments: [], for: info).predicate, table).keys.count == items.count)
    }

    @Test func testFirstProbesAnIndexOnlyWhereItAnswersExactly() throws {
        let realm = try Realm(configuration: temporaryInMemoryConfiguration())
        _ = try QData.populate(realm, count: 400, seed: seed)
        let table = try #require(try realm.table(for: QueryTestModels.Item.self, creating: false))
        let info = ClassInfo.of(QueryTestModels.Item.self)
        let long = QData.longPrefix + "aa"
        // (query, whether one probe answers it)
        let cases: [(String, [Any], Bool)] = [
            ("name == 'Rex'", [], true), ("'Rex' == name", [], true), ("id == 14", [], true), ("rank == 3", [], true),
            ("uid == %@", [QData.uuids[1]], true), ("optName == nil", [], true), ("name == 'nobody'", [], true),
            ("name == %@", [long], false), ("name ==[c] 'rex'", [], false), ("rank > 3", [], false),
            ("name IN {'Rex', 'Fido'}", [], false), ("name == 'Rex' AND rank < 3", [], false), ("plainName == 'Rex'", [], false),
        ]
        for (query, args, probes) in cases {
            let predicate = try QueryParser.parse(query, arguments: args, for: info).predicate
            let probe = QueryExecutor.indexProbe(predicate, table)
            #expect((probe != nil) == probes, "\(query) (seed \(seed))")
            let all = try realm.objects(QueryTestModels.Item.self).filter(query, arguments: args)
            let expected = try QueryExecutor(context: realm).filterTable(predicate, table, useIndexes: false).keys.first
            #expect(
                try realm.objects(QueryTestModels.Item.self).filter(query, arguments: args).first?._state?.key == expected, "\(query) (seed \(seed))")
            // Evaluated results answer from their keys.
            _ = all.count
            #expect(all.first?._state?.key == expected, "\(query) evaluated (seed \(seed))")
        }
        // The typed DSL takes the same path, and a probe sees the open write's changes.
        let rex = try #require(realm.objects(QueryTestModels.Item.self).where { $0.name == "Rex" }.first)
        let key = rex._state?.key
        try realm.beginWrite()
        rex.name = "Rexford"
        #expect(realm.objects(QueryTestModels.Item.self).where { $0.name == "Rexford" }.first?._state?.key == key)
        #expect(realm.objects(QueryTestModels.Item.self).where { $0.name == "Rex" }.first?._state?.key != key)
        try realm.delete(rex)
        #expect(realm.objects(QueryTestModels.Item.self).where { $0.name == "Rexford" }.first == nil)
        try realm.cancelWrite()
        #expect(realm.objects(QueryTestModels.Item.self).where { $0.name == "Rex" }.first?._state?.key == key)
    }

    @Test func testIndexAndScanGiveIdenticalResults() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        _ = try QData.populate(realm, count: 250, seed: seed)
        try check(realm, "in a snapshot")
        try realm.write {
            var r = TestRandom(seed: seed)
            let items = realm.objects(QueryTestModels.Item.self)
            for _ in 0..<60 {
                let item = items[r.next(upperBound: items.count)]
                if r.next(upperBound: 3) == 0 {
                    try realm.delete(item)
                } else {
                    item.name = QData.names[r.next(upperBound: QData.names.count)]
                    item.plainName = item.name
                    item.rank = r.next(upperBound: 20) - 5
                    item.optName = r.next(upperBound: 2) == 0 ? nil : QData.longPrefix + "a"
                }
            }
            try check(realm, "inside a write")
        }
        try check(realm, "after the write")
    }
}
