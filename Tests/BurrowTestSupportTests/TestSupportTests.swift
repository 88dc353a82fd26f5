import BurrowTestSupport
import Testing

/// The shared test generator keeps SplitMix64's sequence (so printed seeds still replay), and
/// the seed parser reads what `BURROW_SEED` may hold.
@Suite struct TestSupportTests {
    @Test func testTheGeneratorIsSplitMix64() {
        var random = TestRandom(seed: 0)
        #expect(random.next() == 0xE220_A839_7B1D_CDAF)
        #expect(random.next() == 0x6E78_9E6A_A1B9_65F4)
        #expect(random.next() == 0x06C4_5D18_8009_454F)
    }

    @Test func testBytesAreEachDrawLeastSignificantFirst() {
        var words = TestRandom(seed: 42)
        let expected = (0..<3).flatMap { _ in
            let word = words.next()
            return (0..<8).map { UInt8(truncatingIfNeeded: word >> (8 * UInt64($0))) }
        }
        for count in [0, 1, 7, 8, 9, 20, 24] {
            var random = TestRandom(seed: 42)
            #expect(random.bytes(count) == Array(expected.prefix(count)), "\(count) bytes")
        }
    }

    @Test func testIntsAndChancesComeFromOneDrawEach() {
        var random = TestRandom(seed: 7)
        var draws = TestRandom(seed: 7)
        #expect(random.int(3...9) == 3 + Int(draws.next() % 7))
        #expect(random.int(0..<10) == Int(draws.next() % 10))
        #expect(random.next(upperBound: 10) == Int(draws.next() % 10))
        #expect(random.chance(40) == (Int(draws.next() % 100) < 40))
        #expect(random.element(["a", "b", "c"]) == ["a", "b", "c"][Int(draws.next() % 3)])
    }

    @Test func testSeedsParseInDecimalAndHex() {
        #expect(TestSeed.parse("12345") == 12345)
        #expect(TestSeed.parse(" 0x1F ") == 31)
        #expect(TestSeed.parse("0xFFFFFFFFFFFFFFFF") == UInt64.max)
        #expect(TestSeed.parse("18446744073709551615") == UInt64.max)
        #expect(TestSeed.parse("") == nil)
        #expect(TestSeed.parse("seed") == nil)
        #expect(TestSeed.parse("0x") == nil)
    }
}
