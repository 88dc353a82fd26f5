import BurrowStore
import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// Each operator on each property type, run through the query-string front end and checked
/// against the same condition evaluated in plain Swift over the same random data.
@Suite(.temporaryDirectory) struct QueryOperatorModelTests {
    private var itemCount: Int { TestEnvironment.count("BURROW_QUERY_ITEMS", default: 200) }

    private struct Fixture {
        let realm: Realm
        let items: [QItemModel]
        let tags: [(label: String, weight: Int)]
        let seed: UInt64

        func check(_ query: String, _ args: [Any] = [], sourceLocation: SourceLocation = #_sourceLocation, _ expected: (QItemModel) -> Bool) {
            let want = items.filter(expected).map(\.id)
            do {
                let results = try realm.objects(QueryTestModels.Item.self).filter(query, arguments: args)
                // Counted before the results are evaluated: the count scans without keeping keys.
                let counted = results.count
                let got = results.map(\.id)
                #expect(
                    got == want, "\(query) \(args) (seed \(seed)): \(got.count) objects, the model expects \(want.count)",
                    sourceLocation: sourceLocation)
                #expect(
                    counted == want.count, "\(query) \(args) (seed \(seed)): counted \(counted), the model expects \(want.count)",
                    sourceLocation: sourceLocation)
            } catch {
                Issue.record("\(query) \(args) threw \(error)", sourceLocation: sourceLocation)
            }
        }
    }

    private func fixture() throws -> Fixture {
        let seed = TestSeed.make("QueryOperatorModelTests")
        let realm = try Realm(configuration: temporaryInMemoryConfiguration())
        let (items, tags) = try QData.populate(realm, count: itemCount, seed: seed)
        return Fixture(realm: realm, items: items, tags: tags, seed: seed)
    }

    private static let comparisons: [(String, @Sendable (Int) -> Bool)] = [
        ("==", { $0 == 0 }), ("!=", { $0 != 0 }), ("<", { $0 < 0 }), ("<=", { $0 <= 0 }), (">", { $0 > 0 }), (">=", { $0 >= 0 }),
    ]

    private static func order<T: Comparable>(_ a: T, _ b: T) -> Int { a < b ? -1 : (a == b ? 0 : 1) }

    @Test func testNumbersMatchTheModel() throws {
        let f = try fixture()
        for (op, holds) in Self.comparisons {
            for c in [-4, -1, 0, 2, 5, 9] {
                f.check("rank \(op) %@", [c]) { holds(Self.order($0.rank, c)) }
                f.check("rank \(op) \(c)") { holds(Self.order($0.rank, c)) }
                f.check("score \(op) %@", [Double(c) / 2]) { holds(Self.order($0.score, Double(c) / 2)) }
                f.check("ratio \(op) %@", [Float(c) / 4]) { holds(Self.order($0.ratio, Float(c) / 4)) }
                f.check("amount \(op) %@", [Decimal128(c)]) { holds(Self.order($0.amount, Decimal128(c))) }
                f.check("optInt \(op) %@", [c]) { $0.optInt.map { holds(Self.order($0, c)) } ?? (op == "!=") }
                // Numbers of another type compare by value.
                f.check("score \(op) %@", [c]) { holds(Self.order($0.score, Double(c))) }
                f.check("rank \(op) %@", [Double(c) + 0.5]) { holds(Self.order(Double($0.rank), Double(c) + 0.5)) }
            }
        }
        f.check("rank BETWEEN {-1, 4}") { (-1...4).contains($0.rank) }
        f.check("rank BETWEEN %@", [[2, 3]]) { (2...3).contains($0.rank) }
        f.check("score BETWEEN {0, 1.5}") { (0...1.5).contains($0.score) }
        f.check("rank IN {1, 3, 7}") { [1, 3, 7].contains($0.rank) }
        f.check("rank IN %@", [[0, 2]]) { [0, 2].contains($0.rank) }
        f.check("NOT rank IN {1, 3}") { ![1, 3].contains($0.rank) }
        f.check("rank NOT IN {1, 3}") { ![1, 3].contains($0.rank) }
        f.check("optInt == nil") { $0.optInt == nil }
        f.check("optInt != nil") { $0.optInt != nil }
        f.check("optInt == NULL OR optInt > 3") { $0.optInt == nil || $0.optInt! > 3 }
        f.check("5 > rank") { $0.rank < 5 }
        f.check("rank > score") { Double($0.rank) > $0.score }
        f.check("level == %@", [QLevel.mid]) { $0.level == .mid }
        f.check("level >= 1") { $0.level.rawValue >= 1 }
    }

    @Test func testBoolsDatesIdsAndDataMatchTheModel() throws {
        let f = try fixture()
        f.check("flag == true") { $0.flag }
        f.check("flag == %@", [false]) { !$0.flag }
        f.check("flag != true") { !$0.flag }
        f.check("flag == TRUE AND NOT flag == false") { $0.flag }
        for (op, holds) in Self.comparisons {
            for i in [0, 3, 7, 9] {
                let d = QData.date(i)
                f.check("when \(op) %@", [d]) { holds(Self.order($0.when, d)) }
            }
            for o in QData.oids.prefix(3) {
                f.check("oid \(op) %@", [o]) { holds(Self.order($0.oid, o)) }
            }
            for u in QData.uuids.prefix(3) {
                f.check("uid \(op) %@", [u]) {
                    holds(QueryValue.bytewise(withUnsafeBytes(of: $0.uid.uuid) { Array($0) }, withUnsafeBytes(of: u.uuid) { Array($0) }))
                }
            }
        }
        f.check("when BETWEEN %@", [[QData.date(2), QData.date(5)]]) { (QData.date(2)...QData.date(5)).contains($0.when) }
        // Date literals: seconds since 1970, or a UTC date and time.
        let d3 = QData.date(3)
        let seconds = Int(d3.timeIntervalSince1970.rounded(.down))
        let nanos = Int(((d3.timeIntervalSince1970 - Double(seconds)) * 1e9).rounded())
        f.check("when > T\(seconds):\(nanos)") { $0.when > Date(timeIntervalSince1970: Double(seconds) + Double(nanos) / 1e9) }
        f.check("when < 2023-03-08@20:26:41") { $0.when < Date(timeIntervalSince1970: 1_678_307_201) }
        f.check("when >= 2023-03-08T20:26:41:500000000") { $0.when >= Date(timeIntervalSince1970: 1_678_307_201.5) }
        #expect(
            f.items.contains { $0.when < Date(timeIntervalSince1970: 1_678_307_201) }
                && f.items.contains { $0.when >= Date(timeIntervalSince1970: 1_678_307_201.5) })
        f.check("oid == oid(\(QData.oids[1]))") { $0.oid == QData.oids[1] }
        f.check("uid == uuid(\(QData.uuids[2].uuidString))") { $0.uid == QData.uuids[2] }
        for b in QData.blobs {
            f.check("blob == %@", [b]) { $0.blob == b }
            f.check("blob BEGINSWITH %@", [b]) { $0.blob.starts(with: b) }
            f.check("blob CONTAINS %@", [b]) { b.isEmpty || $0.blob.range(of: b) != nil }
        }
    }

    private static func compareOptions(_ flags: String) -> String.CompareOptions {
        var options: String.CompareOptions = []
        if flags.contains("c") { options.insert(.caseInsensitive) }
        if flags.contains("d") { options.insert(.diacriticInsensitive) }
        return options
    }

    /// The model's string operators: Foundation's searches, an independent implementation.
    private static func stringHolds(_ op: String, _ s: String, _ c: String, _ flags: String) -> Bool {
        let options = compareOptions(flags)
        switch op {
        case "==": return options.isEmpty ? Array(s.utf8) == Array(c.utf8) : s.compare(c, options: options) == .orderedSame
        case "!=": return !stringHolds("==", s, c, flags)
        case "BEGINSWITH": return c.isEmpty || s.range(of: c, options: options.union(.anchored)) != nil
        case "ENDSWITH": return c.isEmpty || s.range(of: c, options: options.union([.anchored, .backwards])) != nil
        case "CONTAINS": return c.isEmpty || s.range(of: c, options: options) != nil
        case "LIKE":
            var pattern = "^"
            var escaped = false
            for ch in c {
                switch ch {
                case _ where escaped:
                    pattern += NSRegularExpression.escapedPattern(for: String(ch))
                    escaped = false
                case "\\": escaped = true
                case "*": pattern += ".*"
                case "?": pattern += "."
                default: pattern += NSRegularExpression.escapedPattern(for: String(ch))
                }
            }
            pattern += "$"
            let regex = try! NSRegularExpression(
                pattern: pattern,
                options: options.contains(.caseInsensitive) ? [.caseInsensitive, .dotMatchesLineSeparators] : [.dotMatchesLineSeparators])
            let subject = options.contains(.diacriticInsensitive) ? s.folding(options: .diacriticInsensitive, locale: nil) : s
            return regex.firstMatch(in: subject, range: NSRange(subject.startIndex..., in: subject)) != nil
        default: fatalError(op)
        }
    }

    @Test func testStringOperatorsMatchTheModel() throws {
        let f = try fixture()
        let constants = ["rex", "Rex", "RÉX", "re", "R", "x", "ll", "é", "ÉX", "", "nandu", "a*b", "zzz", QData.longPrefix, QData.longPrefix + "a"]
        for op in ["==", "!=", "BEGINSWITH", "ENDSWITH", "CONTAINS"] {
            for flags in ["", "c", "d", "cd"] {
                for c in constants {
                    let suffix = flags.isEmpty ? "" : "[\(flags)]"
                    f.check("name \(op)\(suffix) %@", [c]) { Self.stringHolds(op, $0.name, c, flags) }
                    f.check("optName \(op)\(suffix) %@", [c]) { $0.optName.map { Self.stringHolds(op, $0, c, flags) } ?? (op == "!=") }
                }
            }
        }
        for pattern in ["R*", "r?x", "*e*", "?", "*", "a\\*b", "*ll*", "b*a", "R?v*r"] {
            for flags in ["", "c"] {
                let suffix = flags.isEmpty ? "" : "[\(flags)]"
                f.check("name LIKE\(suffix) %@", [pattern]) { Self.stringHolds("LIKE", $0.name, pattern, flags) }
            }
        }
        for (op, holds) in Self.comparisons {
            for c in ["Bella", "rex", "", QData.longPrefix, QData.longPrefix + "aa"] {
                f.check("name \(op) %@", [c]) { holds(QueryValue.bytewise($0.name.utf8, c.utf8)) }
            }
        }
        f.check("name IN {'Rex', 'rover', 'nope'}") { ["Rex", "rover", "nope"].contains($0.name) }
        f.check("optName == nil") { $0.optName == nil }
        f.check("name == \"Rex\" OR name == 'rex'") { $0.name == "Rex" || $0.name == "rex" }
    }

    @Test func testAnyRealmValueMatchesTheModel() throws {
        let f = try fixture()
        func number(_ a: AnyRealmValue) -> Double? {
            switch a {
            case .int(let i): Double(i)
            case .double(let d): d
            default: nil
            }
        }
        for c in [0, 2, 4] {
            f.check("any == %@", [c]) { number($0.any) == Double(c) }
            f.check("any > %@", [c]) { number($0.any).map { $0 > Double(c) } ?? false }
            f.check("any <= %@", [Double(c) + 0.5]) { number($0.any).map { $0 <= Double(c) + 0.5 } ?? false }
        }
        f.check("any == %@", ["Rex"]) { $0.any == .string("Rex") }
        f.check("any BEGINSWITH[c] 'r'") { if case .string(let s) = $0.any { s.lowercased().hasPrefix("r") } else { false } }
        f.check("any == nil") { $0.any == .none }
        f.check("any == true") { $0.any == .bool(true) }
    }

    @Test func testCollectionsLinksAndAggregatesMatchTheModel() throws {
        let f = try fixture()
        let tags = f.tags
        for w in ["x", "X", "y"] {
            f.check("ANY tags == %@", [w]) { $0.tags.contains(w) }
            f.check("tags == %@", [w]) { $0.tags.contains(w) }
            f.check("%@ IN tags", [w]) { $0.tags.contains(w) }
            f.check("ALL tags == %@", [w]) { $0.tags.allSatisfy { $0 == w } }
            f.check("NONE tags == %@", [w]) { !$0.tags.contains(w) }
            f.check("ANY tags ==[c] %@", [w]) { $0.tags.contains { $0.lowercased() == w.lowercased() } }
        }
        for n in [0, 1, 2, 3] {
            f.check("tags.@count == %@", [n]) { $0.tags.count == n }
            f.check("numbers.@size > %@", [n]) { $0.numbers.count > n }
            f.check("numberSet.@count >= \(n)") { $0.numberSet.count >= n }
            f.check("map.@count == \(n)") { $0.map.count == n }
            f.check("links.@count < \(n)") { $0.links.count < n }
        }
        for n in [3, 5, 8] {
            f.check("ANY numbers > %@", [n]) { $0.numbers.contains { $0 > n } }
            f.check("ALL numbers < %@", [n]) { $0.numbers.allSatisfy { $0 < n } }
            f.check("numbers.@sum > %@", [n]) { $0.numbers.reduce(0, +) > n }
            f.check("numbers.@max == %@", [n]) { $0.numbers.max() == n }
            f.check("numbers.@min <= %@", [n]) { $0.numbers.min().map { $0 <= n } ?? false }
            f.check("numbers.@avg > %@", [Double(n) / 2]) {
                $0.numbers.isEmpty ? false : Double($0.numbers.reduce(0, +)) / Double($0.numbers.count) > Double(n) / 2
            }
            f.check("%@ IN numberSet", [n - 3]) { $0.numberSet.contains(n - 3) }
        }
        f.check("numbers.@sum == 0") { $0.numbers.reduce(0, +) == 0 }
        for k in ["a", "b"] {
            f.check("map[%@] == 2", [k]) { $0.map[k] == 2 }
            f.check("map['\(k)'] > 1") { ($0.map[k] ?? -1) > 1 }
            f.check("ANY map.@keys == %@", [k]) { $0.map.keys.contains(k) }
        }
        f.check("ANY map.@values == 3") { $0.map.values.contains(3) }
        f.check("map == 3") { $0.map.values.contains(3) }
        f.check("map.@sum > 4") { $0.map.values.reduce(0, +) > 4 }
        for label in ["red", "blue"] {
            f.check("link.label == %@", [label]) { $0.link.map { tags[$0].label == label } ?? false }
            f.check("link.label ==[c] %@", [label]) { $0.link.map { tags[$0].label.lowercased() == label } ?? false }
            f.check("ANY links.label == %@", [label]) { $0.links.contains { tags[$0].label == label } }
            f.check("ALL links.label != %@", [label]) { $0.links.allSatisfy { tags[$0].label != label } }
        }
        f.check("link == nil") { $0.link == nil }
        f.check("link != nil") { $0.link != nil }
        f.check("link.label == nil") { $0.link == nil }
        f.check("link.weight > 4") { $0.link.map { tags[$0].weight > 4 } ?? false }
        f.check("links.weight > 6") { $0.links.contains { tags[$0].weight > 6 } }
        f.check("links.@sum.weight > 10") { $0.links.map { tags[$0].weight }.reduce(0, +) > 10 }
        f.check("links.@max.weight < 5") { $0.links.map { tags[$0].weight }.max().map { $0 < 5 } ?? false }
        for (label, weight) in [("red", 3), ("blue", 6)] {
            f.check("SUBQUERY(links, $t, $t.label == %@ AND $t.weight > %@).@count > 0", [label, weight]) {
                $0.links.contains { tags[$0].label == label && tags[$0].weight > weight }
            }
            f.check("SUBQUERY(links, $t, $t.weight >= %@).@count == 2", [weight]) { $0.links.filter { tags[$0].weight >= weight }.count == 2 }
        }
        f.check("links.@avg.weight >= 4") {
            $0.links.isEmpty ? false : Double($0.links.map { tags[$0].weight }.reduce(0, +)) / Double($0.links.count) >= 4
        }
        let tag = try #require(f.realm.object(ofType: QueryTestModels.Tag.self, forPrimaryKey: 2))
        f.check("link == %@", [tag]) { $0.link == 2 }
        f.check("%@ IN links", [tag]) { $0.links.contains(2) }
        f.check("link IN %@", [try f.realm.objects(QueryTestModels.Tag.self).filter("id < 2")]) { $0.link.map { $0 < 2 } ?? false }
        // Linking objects, from the other side.
        let owners = (0..<tags.count).map { t in f.items.filter { $0.links.contains(t) } }
        for n in [0, 1, 5] {
            let got = try f.realm.objects(QueryTestModels.Tag.self).filter("owners.@count > %@", n).map(\.id)
            #expect(got == (0..<tags.count).filter { owners[$0].count > n }, "seed \(f.seed)")
        }
        let named = try f.realm.objects(QueryTestModels.Tag.self).filter("ANY owners.name BEGINSWITH 'R'").map(\.id)
        #expect(named == (0..<tags.count).filter { owners[$0].contains { $0.name.hasPrefix("R") } }, "seed \(f.seed)")
    }

    @Test func testCompoundsSortDistinctLimitMatchTheModel() throws {
        let f = try fixture()
        f.check("TRUEPREDICATE") { _ in true }
        f.check("FALSEPREDICATE") { _ in false }
        f.check("rank > 2 AND (flag == true OR name BEGINSWITH 'R') AND NOT score < 0") {
            $0.rank > 2 && ($0.flag || $0.name.hasPrefix("R")) && !($0.score < 0)
        }
        f.check("rank > 2 && flag || !(score >= 1)") { ($0.rank > 2 && $0.flag) || !($0.score >= 1) }
        f.check("$1 < rank AND name == $0", ["Rex", 1]) { $0.rank > 1 && $0.name == "Rex" }

        let sorted = try f.realm.objects(QueryTestModels.Item.self).filter("rank >= 0 SORT(rank DESC, score ASC, id DESC)").map(\.id)
        let want = f.items.filter { $0.rank >= 0 }.sorted {
            ($0.rank, -$0.score, $0.id) > ($1.rank, -$1.score, $1.id)
        }.map(\.id)
        #expect(sorted == want, "seed \(f.seed)")

        let distinct = try f.realm.objects(QueryTestModels.Item.self).filter("TRUEPREDICATE DISTINCT(rank, flag)").map(\.id)
        var seen = Set<[String]>()
        #expect(distinct == f.items.filter { seen.insert(["\($0.rank)", "\($0.flag)"]).inserted }.map(\.id), "seed \(f.seed)")

        let limited = try f.realm.objects(QueryTestModels.Item.self).filter("flag == true SORT(id DESC) LIMIT(5)").map(\.id)
        #expect(limited == Array(f.items.filter(\.flag).map(\.id).reversed().prefix(5)))

        let byLink = f.realm.objects(QueryTestModels.Item.self).sorted(byKeyPath: "link.weight").map(\.id)
        let linkWeights = f.items.map { $0.link.map { f.tags[$0].weight } }
        #expect(
            byLink
                == f.items.indices.sorted { a, b in
                    switch (linkWeights[a], linkWeights[b]) {
                    case (nil, nil): a < b
                    case (nil, _): true
                    case (_, nil): false
                    case (let x?, let y?): x != y ? x < y : a < b
                    }
                }.map { f.items[$0].id }, "nulls first, then by value, stable")

        // One integer key with nulls, both directions: nulls first ascending, last descending.
        for ascending in [true, false] {
            let got = f.realm.objects(QueryTestModels.Item.self).sorted(byKeyPath: "optInt", ascending: ascending).map(\.id)
            let want = f.items.indices.sorted { a, b in
                let x = f.items[a].optInt
                let y = f.items[b].optInt
                if x == y { return a < b }
                guard let x else { return ascending }
                guard let y else { return !ascending }
                return ascending ? x < y : x > y
            }.map { f.items[$0].id }
            #expect(got == want, "optInt ascending: \(ascending)")
            let filtered = try f.realm.objects(QueryTestModels.Item.self).filter("rank > 0 SORT(optInt \(ascending ? "ASC" : "DESC"))").map(\.id)
            #expect(filtered == want.filter { id in f.items[id].rank > 0 })
        }
        let results = f.realm.objects(QueryTestModels.Item.self).where { $0.rank > 0 }
        #expect(results.sum(ofProperty: "rank") as Int == f.items.filter { $0.rank > 0 }.map(\.rank).reduce(0, +))
        #expect(results.min(ofProperty: "score") as Double? == f.items.filter { $0.rank > 0 }.map(\.score).min())
        #expect(results.max(ofProperty: "when") as Date? == f.items.filter { $0.rank > 0 }.map(\.when).max())
        let scores = f.items.filter { $0.rank > 0 }.map(\.score)
        #expect(results.average(ofProperty: "score") as Double? == (scores.isEmpty ? nil : scores.reduce(0, +) / Double(scores.count)))
        #expect(results.sum(ofProperty: "amount") as Decimal128 == f.items.filter { $0.rank > 0 }.map(\.amount).reduce(Decimal128(0), +))
        // Over every object (one scan of the rows).
        let all = f.realm.objects(QueryTestModels.Item.self)
        #expect(all.sum(ofProperty: "rank") as Int == f.items.map(\.rank).reduce(0, +))
        #expect(all.min(ofProperty: "amount") as Decimal128? == f.items.map(\.amount).min())
        #expect(all.max(ofProperty: "when") as Date? == f.items.map(\.when).max())
        #expect(all.average(ofProperty: "ratio") as Double? == Double(f.items.map { Double($0.ratio) }.reduce(0, +)) / Double(f.items.count))
        #expect(all.sum(ofProperty: "link.weight") as Int == f.items.compactMap { $0.link.map { f.tags[$0].weight } }.reduce(0, +))
        #expect(f.realm.objects(QueryTestModels.Item.self).where { $0.rank > 100 }.average(ofProperty: "rank") as Double? == nil)
        #expect(f.realm.objects(QueryTestModels.Item.self).where { $0.rank > 100 }.sum(ofProperty: "rank") as Int == 0)
        #expect(results.sum(ofProperty: "optInt") as Int == f.items.filter { $0.rank > 0 }.compactMap(\.optInt).reduce(0, +))
    }

    @Test func testSubqueriesOverCollectionsOfValuesMatchTheModel() throws {
        let f = try fixture()
        for n in [0, 3, 6] {
            f.check("SUBQUERY(numbers, $n, $n > %@).@count > 1", [n]) { $0.numbers.filter { $0 > n }.count > 1 }
            f.check("SUBQUERY(numbers, $n, $n >= %@ AND $n < %@).@count == 0", [n, n + 3]) { !$0.numbers.contains { $0 >= n && $0 < n + 3 } }
            f.check("SUBQUERY(numbers, $n, $n == %@ OR NOT $n > 5).@count >= 2", [n]) { $0.numbers.filter { $0 == n || !($0 > 5) }.count >= 2 }
            // Constants on the left, inside and outside.
            f.check("1 <= SUBQUERY(numbers, $x, %@ < $x).@count", [n]) { $0.numbers.contains { n < $0 } }
            f.check("SUBQUERY(numberSet, $s, $s IN {1, 2, %@}).@count == 1", [n]) { $0.numberSet.filter { [1, 2, n].contains($0) }.count == 1 }
            f.check("SUBQUERY(numberSet, $s, $s BETWEEN {%@, 4}).@count > 0", [n - 2]) { $0.numberSet.contains { (n - 2...4).contains($0) } }
            f.check("SUBQUERY(map, $v, $v > %@).@count == 1", [n / 2]) { $0.map.values.filter { $0 > n / 2 }.count == 1 }
            f.check("rank > 0 AND SUBQUERY(numbers, $n, $n > %@).@count > 0", [n]) { $0.rank > 0 && $0.numbers.contains { $0 > n } }
        }
        for w in ["x", "X", "y"] {
            f.check("SUBQUERY(tags, $t, $t == %@).@count >= 2", [w]) { $0.tags.filter { $0 == w }.count >= 2 }
            f.check("SUBQUERY(tags, $t, $t ==[c] %@).@count == 1", [w]) { $0.tags.filter { $0.lowercased() == w.lowercased() }.count == 1 }
            f.check("SUBQUERY(tags, $t, $t != %@ AND $t BEGINSWITH[c] 'x').@count > 0", [w]) {
                $0.tags.contains { $0 != w && $0.lowercased().hasPrefix("x") }
            }
        }
        f.check("SUBQUERY(tags, $t, TRUEPREDICATE).@count == tags.@count") { _ in true }
        f.check("SUBQUERY(numbers, $n, $n > 4).@count == SUBQUERY(numbers, $n, $n <= 4).@count") { item in
            item.numbers.filter { $0 > 4 }.count == item.numbers.filter { $0 <= 4 }.count
        }
    }

    @Test func testSortingByOneIntegerMatchesTheModel() throws {
        let f = try fixture()
        let all = f.realm.objects(QueryTestModels.Item.self)
        for ascending in [true, false] {
            // Stable: equal values keep key (id) order; nulls first ascending, last descending.
            func want(_ items: [QItemModel], _ value: (QItemModel) -> Int?) -> [Int] {
                items.enumerated().sorted { a, b in
                    let x = value(a.element)
                    let y = value(b.element)
                    if x == y { return a.offset < b.offset }
                    guard let x else { return ascending }
                    guard let y else { return !ascending }
                    return ascending ? x < y : x > y
                }.map(\.element.id)
            }
            #expect(all.sorted(byKeyPath: "rank", ascending: ascending).map(\.id) == want(f.items, \.rank), "seed \(f.seed)")
            #expect(all.sorted(byKeyPath: "optInt", ascending: ascending).map(\.id) == want(f.items, \.optInt), "seed \(f.seed)")
            let filtered = all.where { $0.flag }.sorted(byKeyPath: "optInt", ascending: ascending)
            #expect(filtered.map(\.id) == want(f.items.filter(\.flag), \.optInt), "seed \(f.seed)")
            #expect(Array(all.sorted(byKeyPath: "rank", ascending: ascending).prefix(5).map(\.id)) == Array(want(f.items, \.rank).prefix(5)))
        }
    }
}
