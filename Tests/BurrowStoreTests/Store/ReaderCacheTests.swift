import BurrowStore
import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

/// The small cache of the tree readers (`TreeHandles`): random lookups and stores over more
/// tree names than the short array holds, against a dictionary.
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
}
