import BurrowStore
import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// The small caches of the tree readers (`TreeHandles`) and of each thread (`RecentEntries`):
/// random lookups and stores over more tree names than the short array holds, against a
/// dictionary.
@Suite(.temporaryDirectory) struct ReaderCacheTests {
    @Test func testTreeHandlesAgreeWithADictionary() {
        let seed = TestSeed.make("ReaderCacheTests.testTreeHandlesAgreeWithADictionary")
        var random = TestRandom(seed: seed)
        let families = StoreTreeName.Family.allCases
        let names: [TreeName] =
            [.schema, .sequences]
            + (0..<18).map { i in
                let family = families[i % families.count]
                return TreeName(family, UInt32(i / 3), field: family.isPerField ? i % 4 : nil)
            }
        var cache = TreeHandles<Int>()
        var model: [TreeName: Int?] = [:]
        for step in 0..<5_000 {
            let name = names[random.next(upperBound: names.count)]
            switch random.next(upperBound: 40) {
            case 0:
                cache.removeAll()
                model.removeAll()
            case 1...13:
                // nil stands for "no such tree", which is remembered too.
                let handle: Int? = random.next(upperBound: 4) == 0 ? nil : random.next(upperBound: 1_000)
                cache.remember(name, handle)
                model[name] = .some(handle)
            default:
                let found = cache.lookup(name)
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
