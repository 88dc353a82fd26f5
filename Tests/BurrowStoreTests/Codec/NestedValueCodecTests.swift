import BurrowStore
import BurrowTestSupport
import Foundation
import Testing

/// The byte form of the lists and dictionaries inside an `AnyRealmValue`: every value reads back
/// as written, a damaged payload is named by `nestedProblem` and reads leniently (its damaged
/// parts as null, never past its bytes), and a walk over one a hundred levels deep uses no
/// recursion.
@Suite struct NestedValueCodecTests {
    private let resolve: ValueCodec.LinkResolver<ObjectLink> = { table, key in .object(ObjectLink(table: table, key: key)) }

    private func encoded(_ value: StoreValue) -> [UInt8] {
        var bytes: [UInt8] = []
        ValueCodec.appendAny(value, to: &bytes)
        return bytes
    }

    private func decoded(_ bytes: [UInt8]) -> StoreValue {
        bytes.withUnsafeBytes { ValueCodec.decode($0, as: .any, linkTarget: 0, resolve: resolve) }
    }

    private func problem(_ bytes: [UInt8]) -> String? {
        bytes.withUnsafeBytes { ValueCodec.nestedProblem($0) }
    }

    private func u32(_ value: Int) -> [UInt8] { withUnsafeBytes(of: UInt32(value).littleEndian) { Array($0) } }

    /// A list `depth` levels deep with `leaf` innermost.
    private func nested(_ depth: Int, around leaf: StoreValue) -> StoreValue {
        var value = leaf
        for _ in 0..<depth { value = .list([value]) }
        return value
    }

    private var sample: StoreValue {
        .dictionary([
            "": .null,
            "b": .list([.int(-1), .string("two"), .data(Data([0, 1, 2])), .list([]), .dictionary([:])]),
            "a": .object(ObjectLink(table: 3, key: ObjectKey(42))),
            "ü": .list([.dictionary(["x": .double(0.5), "y": .uuid(UUID(uuidString: "3b241101-e2bb-4255-8caf-4136c566a962")!)])]),
            "date": .date(Date(timeIntervalSinceReferenceDate: 12.5)),
            "id": .objectId(ObjectId(rawBytes: [UInt8](repeating: 7, count: 12).withUnsafeBytes { $0 })),
            "n": .decimal128(Decimal128(bidBits: (low: 5, high: 0x3040_0000_0000_0000))),
        ])
    }

    @Test func everyValueReadsBackAsWrittenAndIsSound() {
        let values: [StoreValue] = [.list([]), .dictionary([:]), sample, .list([sample, sample]), nested(100, around: .bool(true))]
        for value in values {
            let bytes = encoded(value)
            #expect(decoded(bytes) == value)
            #expect(problem(bytes) == nil)
        }
    }

    @Test func aDictionaryKeepsItsKeysInTheOrderOfTheirBytes() {
        let bytes = encoded(.dictionary(["b": .int(1), "a": .int(2), "ä": .int(3), "B": .int(4)]))
        guard case .dictionary(let entries)? = bytes.withUnsafeBytes({ ValueCodec.nestedParts($0) }) else {
            Issue.record("not a dictionary")
            return
        }
        #expect(entries.map(\.key) == ["B", "a", "b", "ä"])
    }

    @Test func everyLinkAtEveryDepthIsFound() {
        let first = ObjectLink(table: 3, key: ObjectKey(42))
        let second = ObjectLink(table: 4, key: ObjectKey(7))
        let value: StoreValue = .list([.object(first), .dictionary(["k": nested(50, around: .object(second))]), .object(first)])
        var found: [ObjectLink] = []
        encoded(value).withUnsafeBytes { ValueCodec.forEachLink(inAny: $0) { found.append(ObjectLink(table: $0, key: $1)) } }
        #expect(found.count == 3)
        #expect(Set(found) == [first, second])
    }

    @Test func aListDeeperThanAHundredLevelsIsDamageAndReadsAsNullBelowTheLimit() {
        let bytes = encoded(nested(101, around: .int(1)))
        #expect(problem(bytes)?.contains("deeper than 100") == true)
        // The hundred levels the limit allows read; what is below them reads as null.
        #expect(decoded(bytes) == nested(100, around: .null))
    }

    @Test func unsortedOrRepeatedKeysAreDamage() {
        func dictionary(_ keys: [String]) -> [UInt8] {
            var bytes: [UInt8] = [ValueCodec.Tag.dictionary.rawValue] + u32(keys.count)
            for key in keys { bytes += u32(key.utf8.count) + Array(key.utf8) + u32(1) + [ValueCodec.Tag.null.rawValue] }
            return bytes
        }
        #expect(problem(dictionary(["a", "b"])) == nil)
        #expect(problem(dictionary(["b", "a"]))?.contains("out of order") == true)
        #expect(problem(dictionary(["a", "a"]))?.contains("repeated") == true)
        // A key that is not UTF-8 is damage, and reads as null rather than as another key.
        var bytes = dictionary(["ab"])
        bytes[9] = 0xFF
        #expect(problem(bytes)?.contains("not UTF-8") == true)
        #expect(decoded(bytes) == .null)
    }

    @Test func lengthsThatDoNotFitAreDamageAndNeverReadPastTheBytes() {
        let whole = encoded(sample)
        // Every cut short, and every count or length made too large, is found.
        for count in 0..<whole.count {
            let cut = Array(whole[..<count])
            if count > 0 { #expect(problem(cut) != nil, "cut to \(count) bytes") }
            _ = decoded(cut)
        }
        var hugeCount = whole
        hugeCount.replaceSubrange(1..<5, with: u32(Int(UInt32.max)))
        #expect(problem(hugeCount) != nil)
        #expect(decoded(hugeCount) == .null)
        var extra = whole
        extra.append(0)
        #expect(problem(extra) != nil, "bytes after the last entry")
    }

    @Test func randomDamageIsNamedOrReadsWithoutCrashing() {
        let seed = TestSeed.make("nested codec damage")
        var random = TestRandom(seed: seed)
        let whole = encoded(.list([sample, nested(20, around: sample), .string(String(repeating: "x", count: 300))]))
        for _ in 0..<500 {
            var bytes = whole
            for _ in 0..<random.int(1...4) { bytes[random.int(0..<bytes.count)] ^= UInt8(random.int(1...255)) }
            let named = problem(bytes)
            let value = decoded(bytes)
            // Sound or not, reading it gives a value, and a payload named sound reads back the
            // same after encoding again.
            if named == nil, value.isNestedCollection { #expect(decoded(encoded(value)) == value) }
        }
    }

    @Test func aCollectionIsNestedAndHasNoPlainValueOrType() {
        for value: StoreValue in [.list([.int(1)]), .dictionary(["a": .null])] {
            #expect(value.isNestedCollection)
            #expect(value.plainValue == nil)
            #expect(value.valueType == nil)
        }
        #expect(nested(100, around: .null).nestingDepth(exceeding: 100) == 100)
        #expect(nested(150, around: .null).nestingDepth(exceeding: 100) == 101)
        #expect(StoreValue.int(1).nestingDepth(exceeding: 100) == 0)
    }
}
