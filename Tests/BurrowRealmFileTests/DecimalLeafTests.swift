import BurrowStore
import Testing

@testable import BurrowRealmFile

/// Format 24's narrow decimals: BID32 and BID64 values widened to the BID128 encoding Burrow's
/// `Decimal128` keeps, equal in value and exponent.
struct DecimalLeafTests {
    private func decimal(_ text: String) throws -> Decimal128 { try Decimal128.parseOrExplain(text).get() }

    @Test func bid32ValuesWidenToTheSameNumber() throws {
        // Sign, an 8-bit exponent biased by 101, a 23-bit coefficient.
        #expect(Decimal128(bidBits: DecimalLeaf.widened(0x3280_0001, width: 32)) == (try decimal("1")))
        #expect(Decimal128(bidBits: DecimalLeaf.widened(0xB200_0001, width: 32)) == (try decimal("-0.1")))
        #expect(Decimal128(bidBits: DecimalLeaf.widened(0x3280_0000 | 1_234_567, width: 32)).description == "1234567")
        // The long form: 11 after the sign, a coefficient of 100 followed by its 21 bits.
        let large: UInt32 = 0x6000_0000 | (101 << 21) | (9_999_999 - (1 << 23))
        #expect(Decimal128(bidBits: DecimalLeaf.widened(UInt64(large), width: 32)).description == "9999999")
        #expect(Decimal128(bidBits: DecimalLeaf.widened(0x7C00_0000, width: 32)).isNaN)
        #expect(Decimal128(bidBits: DecimalLeaf.widened(0xF800_0000, width: 32)) == -Decimal128.infinity)
    }

    @Test func bid64ValuesWidenToTheSameNumber() throws {
        // Sign, a 10-bit exponent biased by 398, a 53-bit coefficient.
        #expect(Decimal128(bidBits: DecimalLeaf.widened(0x31C0_0000_0000_0001, width: 64)) == (try decimal("1")))
        #expect(Decimal128(bidBits: DecimalLeaf.widened(0x31A0_0000_0000_0019, width: 64)).description == "2.5")
        #expect(
            Decimal128(bidBits: DecimalLeaf.widened(0xB1C0_0000_0000_0000 | 9_007_199_254_740_991, width: 64)) == (try decimal("-9007199254740991")))
        #expect(Decimal128(bidBits: DecimalLeaf.widened(0x7800_0000_0000_0000, width: 64)) == Decimal128.infinity)
    }

    @Test func theNullPatternsReadAsNull() {
        #expect(DecimalLeaf.decimal(low: 0xAA, high: 0x7C00_0000_0000_0000) == .null)
        #expect(DecimalLeaf.decimal(low: 0xAB, high: 0x7C00_0000_0000_0000) != .null)
    }
}
