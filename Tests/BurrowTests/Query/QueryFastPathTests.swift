import BurrowStore
import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// The shortcuts of lookups by one value give what the general paths give: `first` of an
/// equality on an indexed property (one index probe) against the results evaluated whole, a
/// prepared query string against a full parse, and `object(ofType:forPrimaryKey:)` against a
/// scan, over random data with duplicate and null values, deleted objects, changes inside an
/// open write, and a frozen realm.
@Suite(.temporaryDirectory) struct QueryFastPathTests {
    private let seed = TestSeed.make("QueryFastPathTests")

    private static let names = ["Rex", "Fido", "Rex 1", "", "Bella", "Zed\u{0}x"]

    /// The keys of `results` in order, evaluated whole: the general path.
    private func keys(_ results: Results<QueryTestModels.Item>) -> [ObjectKey] {
        results.map { $0._state!.key }
    }

    private func check(_ realm: Realm, _ note: String) throws {
        let all = realm.objects(QueryTestModels.Item.self)
        let live = Array(all)
        for name in Self.names + ["nobody"] {
            let expected = live.first { $0.name == name }?._state?.key
            let general = keys(all.where { $0.name == name })
            #expect(general.first == expected, "\(name) general \(note) (seed \(seed))")
            #expect(all.where { $0.name == name }.first?._state?.key == expected, "\(name) where \(note) (seed \(seed))")
            // Twice: the second call parses the prepared string.
            for _ in 0..<2 {
                #expect(try all.filter("name == %@", name).first?._state?.key == expected, "\(name) filter \(note) (seed \(seed))")
            }
            #expect(try all.filter("name == $0", name).first?._state?.key == expected, "\(name) $0 \(note) (seed \(seed))")
            // Results sorted or filtered further list their own first.
            let sorted = all.where { $0.name == name }.sorted(byKeyPath: "rank", ascending: false)
            #expect(sorted.first?._state?.key == keys(sorted).first, "\(name) sorted \(note) (seed \(seed))")
            let narrowed = try all.filter("name == %@", name).filter("rank > 1")
            #expect(narrowed.first?._state?.key == keys(narrowed).first, "\(name) narrowed \(note) (seed \(seed))")
        }
        for name in Self.names.prefix(3).map(Optional.some) + [nil] {
            let expected = live.first { $0.optName == name }?._state?.key
            #expect(all.where { $0.optName == name }.first?._state?.key == expected, "optName \(name ?? "nil") \(note) (seed \(seed))")
            #expect(try all.filter("optName == %@", name as Any).first?._state?.key == expected, "optName %@ \(note) (seed \(seed))")
        }
        for rank in -1...5 {
            let expected = live.first { $0.rank == rank }?._state?.key
            #expect(all.where { $0.rank == rank }.first?._state?.key == expected, "rank \(rank) \(note) (seed \(seed))")
            #expect(try all.filter("rank == %@", rank).first?._state?.key == expected, "rank %@ \(note) (seed \(seed))")
        }
        for id in 0..<40 {
            let expected = live.first { $0.id == id }?._state?.key
            #expect(realm.object(ofType: QueryTestModels.Item.self, forPrimaryKey: id)?._state?.key == expected, "id \(id) \(note) (seed \(seed))")
            #expect(all.where { $0.id == id }.first?._state?.key == expected, "where id \(id) \(note) (seed \(seed))")
        }
    }

    @Test func testFirstOfAnIndexedEqualityIsTheEvaluatedResultsFirst() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        var r = TestRandom(seed: seed)
        var nextID = 0
        for round in 0..<40 {
            try realm.beginWrite()
            for _ in 0..<r.int(1...10) {
                let items = realm.objects(QueryTestModels.Item.self)
                let count = items.count
                switch r.int(0..<5) {
                case 0, 1:
                    let item = QueryTestModels.Item()
                    item.id = nextID
                    nextID += 1
                    item.name = r.element(Self.names)
                    item.optName = r.chance(30) ? nil : r.element(Self.names)
                    item.rank = r.int(-1...5)
                    try realm.add(item)
                case 2 where count > 0:
                    try realm.delete(items[r.int(0..<count)])
                case 3 where count > 0:
                    let item = items[r.int(0..<count)]
                    item.name = r.element(Self.names)
                    item.optName = r.chance(30) ? nil : r.element(Self.names)
                default:
                    if count > 0 { items[r.int(0..<count)].rank = r.int(-1...5) }
                }
            }
            if r.chance(50) { try check(realm, "in the open write of round \(round)") }
            if r.chance(20) { try realm.cancelWrite() } else { try realm.commitWrite() }
            try check(realm, "after round \(round)")
        }
        let frozen = try realm.freeze()
        try check(frozen, "frozen")
        // The frozen realm keeps its version while the live one changes.
        let before = frozen.objects(QueryTestModels.Item.self).where { $0.name == "Rex" }.first?._state?.key
        try realm.write { try realm.delete(realm.objects(QueryTestModels.Item.self).where { $0.name == "Rex" }) }
        #expect(realm.objects(QueryTestModels.Item.self).where { $0.name == "Rex" }.first == nil)
        #expect(frozen.objects(QueryTestModels.Item.self).where { $0.name == "Rex" }.first?._state?.key == before)
        try check(frozen, "frozen, after the live realm changed")
        try check(realm, "after deleting every Rex")
    }

    /// The index key written on the stack is the one `IndexKey.encode` makes.
    @Test func testAnIndexKeyEncodedOnTheStackIsTheEncodedKey() {
        var r = TestRandom(seed: seed)
        var values: [_StoredValue] = [.null, .int(-3), .bool(true), .string(""), .string("\u{0}"), .string("Rex"), .data(Data([0, 1]))]
        for _ in 0..<300 {
            let length = r.chance(10) ? r.int(250...300) : r.int(0...20)
            let bytes = (0..<length).map { _ in r.chance(10) ? UInt8(0) : UInt8(r.int(1...127)) }
            values.append(.string(String(decoding: bytes, as: UTF8.self)))
        }
        values.append(.string(String(repeating: "é", count: 200)))
        for value in values {
            #expect(IndexKey.withEncoded(value) { Array($0) } == IndexKey.encode(value), "\(value) (seed \(seed))")
        }
    }

    /// A prepared query string gives what the full parse gives, errors included, for
    /// arguments of every kind: the prepared type, other types, nil, lists, objects.
    @Test func testAPreparedQueryStringParsesAsTheFullParse() throws {
        let realm = try Realm(configuration: temporaryInMemoryConfiguration())
        _ = try QData.populate(realm, count: 30, seed: seed)
        let managed = try #require(realm.objects(QueryTestModels.Tag.self).first)
        let info = ClassInfo.of(QueryTestModels.Item.self)
        let texts = [
            "name == %@", "name = $0", "name != %@", "name BEGINSWITH[c] %@", "rank > %@", "rank == %@", "optName == %@", "uid == %@",
            "when >= %@", "id == %@", "ANY tags == %@", "name IN %@", "rank BETWEEN %@", "flag == %@", "score < %@", "nosuch == %@",
            "name == %@ AND rank > 0", "rank == 1 SORT(name)", "%@ == name", "name == %@ SORT(rank)", "name == %@ LIMIT(2)",
            "name == %K", "name == $1", "name ==", "tags.label == %@", "optName == nil", "name == 'Rex'", "amount == %@",
        ]
        let arguments: [Any] = [
            "Rex", "", "Fido", 3, -1, 2.5, Int64(7), true, QData.uuids[0], QData.date(2), ["Rex", "Fido"], [1, 4],
            Optional<String>.none as Any, Optional("Rex") as Any, managed, QueryTestModels.Tag(), ObjectId(), Decimal128(1), Data([1, 2]),
        ]
        var r = TestRandom(seed: seed)
        for _ in 0..<1500 {
            let text = r.element(texts)
            let argument = r.element(arguments)
            func outcome(_ prepared: Bool) -> String {
                do {
                    let parsed = try QueryParser.parse(text, arguments: [argument], for: info, prepared: prepared)
                    return "\(parsed.predicate) \(parsed.trailing.count)"
                } catch {
                    return "error \(error.description)"
                }
            }
            let full = outcome(false)
            #expect(outcome(true) == full, "\(text) with \(argument) (seed \(seed))")
            #expect(outcome(true) == full, "\(text) with \(argument), again (seed \(seed))")
        }
        // Strings of that form are prepared; others are not.
        let prepared: [(String, Any, Bool)] = [
            ("name == %@", "Rex", true), ("name = $0", "Rex", true), ("rank > %@", 1, true), ("optName == %@", "Rex", true),
            ("ANY tags == %@", "a", true), ("name IN %@", ["Rex"], false), ("name == %@ SORT(rank)", "Rex", false),
            ("%@ == name", "Rex", false), ("name == %K", "name", false), ("name == %@ AND rank > 0", "Rex", false),
        ]
        for (text, argument, expected) in prepared {
            // The thread's memo may hold the string already, prepared by the loop above or by
            // another test on this thread with another argument: only this call counts.
            ThreadMemo.current.preparedComparisons = RecentEntries(capacity: 16)
            _ = try QueryParser.parse(text, arguments: [argument], for: info)
            let found = ThreadMemo.current.preparedComparisons.first(ObjectIdentifier(info), where: { $0.text == text })
            #expect((found != nil) == expected, "\(text)")
        }
        // With the string prepared, a call with no argument or two does not take the prepared
        // path: the full parse reports the missing or unused one.
        _ = try QueryParser.parse("name == %@", arguments: ["Rex"], for: info)
        #expect(ThreadMemo.current.preparedComparisons.contains(ObjectIdentifier(info), where: { $0.text == "name == %@" }))
        for args in [[Any](), ["Rex", "Fido"]] {
            let full = Result { try QueryParser.parse("name == %@", arguments: args, for: info, prepared: false).predicate.description }
            let fast = Result { try QueryParser.parse("name == %@", arguments: args, for: info).predicate.description }
            #expect("\(full)" == "\(fast)")
        }
    }
}
