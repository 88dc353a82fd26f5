import BurrowTestSupport
import Testing

@testable import BurrowStorage
@testable import StorageCrashWorker

/// The handle's table of pinned versions (`PinnedVersions`), checked against a dictionary
/// through random pins and unpins, mostly of the newest versions as snapshots make them.
@Suite struct PinnedVersionsTests {
    @Test func testPinnedVersionsMatchADictionary() {
        let seed = TestSeed.make("PinnedVersionsTests.testPinnedVersionsMatchADictionary")
        var random = TestRandom(seed: seed)
        var pins = PinnedVersions()
        var model: [UInt64: Int] = [:]
        var latest: UInt64 = 20
        for step in 0..<TestEnvironment.count("BURROW_MODEL_OPS", default: 4_000) {
            if random.chance(30) { latest += 1 }
            let version = random.chance(80) ? latest : latest - UInt64(random.int(1..<20))
            if random.chance(55) {
                pins.pin(version)
                model[version, default: 0] += 1
            } else {
                pins.unpin(version)
                if let n = model[version] { model[version] = n > 1 ? n - 1 : nil }
            }
            #expect(pins.count == model.count && pins.isEmpty == model.isEmpty, "seed \(seed), step \(step)")
            #expect(pins.oldest == model.keys.min(), "seed \(seed), step \(step): oldest")
            #expect(pins.pins(of: version) == model[version] ?? 0, "seed \(seed), step \(step): version \(version)")
        }
    }
}
