import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// The small caches of the tree readers (`RecentNames`) and of each thread (`RecentEntries`),
/// against dictionaries: random lookups and stores over more names than the short array holds,
/// with equal names in different `String` storage.
@Suite(.temporaryDirectory) struct RecentNamesTests {
    @Test func testRecentNamesAgreesWithADictionary() {
        let seed = TestSeed.make("RecentNamesTests.testRecentNamesAgreesWithADictionary")
        var random = TestRandom(seed: seed)
        // Names long enough to live in heap storage, so that copies built anew differ in identity.
        let names = (0..<20).map { "table_with_a_long_name_\($0)" }
        var cache = RecentNames<Int?>()
        var model: [String: Int?] = [:]
        for step in 0..<5_000 {
            var name = names[random.next(upperBound: names.count)]
            if random.next(upperBound: 2) == 0 { name = String(decoding: Array(name.utf8), as: UTF8.self) }
            if random.next(upperBound: 3) == 0 {
                // nil stands for "no such tree", which is remembered too.
                let value: Int? = random.next(upperBound: 4) == 0 ? nil : random.next(upperBound: 1_000)
                cache.remember(name, value)
                model[name] = .some(value)
            } else {
                let found = cache.value(for: name)
                #expect(found.map { $0 ?? -1 } == model[name].map { $0 ?? -1 }, "seed \(seed), step \(step), \(name)")
            }
        }
    }

    @Test func testRecentEntriesKeepTheNewestAndFindByKey() {
        var entries = RecentEntries<Int, String>(capacity: 4)
        for key in 0..<4 { entries.add(key, "v\(key)") }
        #expect((0..<4).map { entries.value(for: $0) } == ["v0", "v1", "v2", "v3"])
        // Past the capacity each new entry replaces the oldest.
        entries.add(4, "v4")
        entries.add(5, "v5")
        #expect(entries.value(for: 0) == nil)
        #expect(entries.value(for: 1) == nil)
        #expect((2..<6).map { entries.value(for: $0) } == ["v2", "v3", "v4", "v5"])
        #expect(entries.contains(4) { $0 == "v4" })
        #expect(!entries.contains(4) { $0 == "v5" })
        #expect(!entries.contains(9) { _ in true })
    }
}
