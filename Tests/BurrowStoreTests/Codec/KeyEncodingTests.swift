import BurrowStore
import BurrowTestTraits
import Foundation
import Testing

/// Encoded keys must sort exactly as their values do, alone and with more key parts after them.
@Suite("KeyEncoding", .temporaryDirectory)
struct KeyEncodingTests {
    /// Checks, over every pair of `values`, that encoding preserves `<` and `==`, also when each
    /// encoding is followed by an object key (as in an index entry).
    func checkOrder<T>(
        _ values: [T], _ encode: (T, inout [UInt8]) -> Void, isLess: (T, T) -> Bool, _ what: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let keys = values.map { value -> [UInt8] in
            var key: [UInt8] = []
            encode(value, &key)
            return key
        }
        var mismatches = 0
        for i in values.indices {
            for j in values.indices {
                let expectLess = isLess(values[i], values[j])
                let expectEqual = !expectLess && !isLess(values[j], values[i])
                var left = keys[i]
                var right = keys[j]
                KeyEncoding.append(UInt64(j), to: &left)
                KeyEncoding.append(UInt64(i), to: &right)
                let plainLess = keys[i].lexicographicallyPrecedes(keys[j])
                let plainEqual = keys[i] == keys[j]
                // With suffixes, equal values order by the suffix; unequal ones by the value.
                let suffixedLess = left.lexicographicallyPrecedes(right)
                if plainLess != expectLess || plainEqual != expectEqual || (!expectEqual && suffixedLess != expectLess) {
                    mismatches += 1
                    if mismatches <= 3 {
                        Issue.record("\(what): \(values[i]) vs \(values[j]) encode out of order", sourceLocation: sourceLocation)
                    }
                }
            }
        }
    }

    @Test("integers")
    func integers() {
        var rng = SystemRandomNumberGenerator()
        let values: [Int64] =
            [.min, .min + 1, -1_000_000, -256, -255, -1, 0, 1, 255, 256, 1_000_000, .max - 1, .max]
            + (0..<60).map { _ in Int64.random(in: .min ... .max, using: &rng) }
        checkOrder(values, KeyEncoding.append, isLess: <, "Int64")
    }

    @Test("doubles, with both zeros equal and NaN first")
    func doubles() {
        var rng = SystemRandomNumberGenerator()
        let values: [Double] =
            [
                -.infinity, -.greatestFiniteMagnitude, -1e300, -2.5, -1, -.leastNonzeroMagnitude, -0.0, 0.0,
                .leastNonzeroMagnitude, .leastNormalMagnitude, 1, 2.5, 1e300, .greatestFiniteMagnitude, .infinity,
            ]
            + (0..<50).map { _ in Double.random(in: -1e9...1e9, using: &rng) }
            + (0..<20).map { _ in Double(bitPattern: UInt64.random(in: 0 ... .max, using: &rng)) }.filter { !$0.isNaN }
        checkOrder(values, KeyEncoding.append, isLess: <, "Double")

        var nan: [UInt8] = []
        var negativeInfinity: [UInt8] = []
        var otherNaN: [UInt8] = []
        KeyEncoding.append(Double.nan, to: &nan)
        KeyEncoding.append(-Double.nan, to: &otherNaN)
        KeyEncoding.append(-Double.infinity, to: &negativeInfinity)
        #expect(nan == otherNaN)
        #expect(nan.lexicographicallyPrecedes(negativeInfinity))
    }

    @Test("strings and data, with zero bytes and prefixes")
    func stringsAndData() {
        var rng = SystemRandomNumberGenerator()
        let alphabet: [Character] = ["\0", "a", "b", "é", "z", "\u{1F415}"]
        var strings = ["", "\0", "\0\0", "a", "a\0", "a\0b", "ab", "abc", "b", "\u{FFFF}", "é", "e\u{301}"]
        strings += (0..<40).map { _ in String((0..<Int.random(in: 0...4, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }) }
        // Encoded strings order by Unicode scalars (their UTF-8 bytes), not by Swift's `<`,
        // which compares grapheme clusters canonically ("é" == "e\u{301}").
        checkOrder(strings, KeyEncoding.append, isLess: { $0.utf8.lexicographicallyPrecedes($1.utf8) }, "String")
        let data = strings.map { Data($0.utf8) }
        checkOrder(data, KeyEncoding.append, isLess: { $0.lexicographicallyPrecedes($1) }, "Data")
    }

    @Test("booleans, dates, ObjectIds and UUIDs")
    func fixedWidth() throws {
        checkOrder([false, true], KeyEncoding.append, isLess: { !$0 && $1 }, "Bool")
        let dates = [Date.distantPast, Date(timeIntervalSince1970: -1.5), Date(timeIntervalSince1970: 0), Date(), Date.distantFuture]
        checkOrder(dates, KeyEncoding.append, isLess: <, "Date")
        let ids = (0..<30).map { _ in ObjectId.generate() } + [ObjectId(), try ObjectId.parse("ffffffffffffffffffffffff").get()]
        checkOrder(ids, KeyEncoding.append, isLess: <, "ObjectId")
        let uuids = (0..<30).map { _ in UUID() }
        checkOrder(uuids, KeyEncoding.append, isLess: { $0.uuidString.lowercased() < $1.uuidString.lowercased() }, "UUID")
    }

    @Test("an unsigned key reads back")
    func readBack() {
        var key: [UInt8] = []
        KeyEncoding.append(UInt64(0x0102_0304_0506_0708), to: &key)
        #expect(key == [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(KeyEncoding.readUInt64(key) == 0x0102_0304_0506_0708)
        #expect(KeyEncoding.readUInt64(key.prefix(7)) == nil)
    }

    @Test("bounded encodings: short values as before, long ones cut and hashed, equal stays equal")
    func bounded() {
        func encoded(_ text: String) -> [UInt8] {
            var key: [UInt8] = []
            KeyEncoding.appendBounded(text.utf8, to: &key)
            return key
        }
        let limit = KeyEncoding.boundedLength
        let short = String(repeating: "a", count: limit)
        var plain: [UInt8] = []
        KeyEncoding.append(short, to: &plain)
        #expect(encoded(short) == plain, "values up to the bound encode as the plain encoding")
        let long = short + "b" + String(repeating: "z", count: 5_000)
        let other = short + "b" + String(repeating: "z", count: 4_999) + "y"
        #expect(encoded(long) == encoded(String(long)), "equal long values encode equally")
        #expect(encoded(long) != encoded(other), "long values differing past the cut still differ")
        #expect(encoded(long).count <= 2 * limit + 2 + 16, "a long value's key is bounded")
        #expect(encoded(short).lexicographicallyPrecedes(encoded(long)), "a cut value sorts after its prefix")
        #expect(encoded(long).lexicographicallyPrecedes(encoded(String(repeating: "a", count: limit - 1) + "b")))
        let withZero = String(repeating: "\u{0}", count: limit + 10)
        #expect(encoded(withZero).count <= 2 * limit + 2 + 16)
    }
}
