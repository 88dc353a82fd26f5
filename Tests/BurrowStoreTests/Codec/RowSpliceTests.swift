import BurrowStore
import BurrowTestSupport
import Foundation
import Testing

/// `RowCodec.appendReplacing` (which splices rows in `Builder`'s form and rebuilds any other)
/// against `RowCodec.replacing`, byte for byte, over random rows.
struct RowSpliceTests {
    @Test func appendReplacingWritesWhatReplacingReturns() {
        let seed = TestSeed.make("RowSpliceTests.appendReplacingWritesWhatReplacingReturns")
        var random = TestRandom(seed: seed)
        for round in 0..<5_000 {
            let count = random.int(0...7)
            var payloads: [[UInt8]?] = (0..<count).map { _ in random.chance(30) ? nil : random.bytes(random.int(1...12)) }
            var row = RowCodec.assemble(payloads)
            switch random.int(0..<10) {
            case 0:
                // Not in Builder's form: a gap before the first payload, or an offset out of order.
                if count > 0, let first = payloads.firstIndex(where: { $0 != nil }) {
                    row.insert(0xEE, at: 4 + 4 * count)
                    for field in first..<count where payloads[field] != nil {
                        let offset = Int(row[4 + 4 * field]) | Int(row[5 + 4 * field]) << 8
                        row[4 + 4 * field] = UInt8((offset + 1) & 0xFF)
                        row[5 + 4 * field] = UInt8((offset + 1) >> 8)
                    }
                }
            case 1:
                // Cut short (the field count stays: `replacing` reads it unchecked).
                if row.count > 4 { row.removeLast(random.int(1...min(3, row.count - 4))) }
            default: break
            }
            let fields = random.int(max(count, 1)...count + 2)
            let index = random.int(0..<fields)
            let payload: [UInt8]? = random.chance(25) ? nil : random.bytes(random.int(1...15))
            payloads = []
            let expected = row.withUnsafeBytes { RowCodec.replacing(index, with: payload, in: $0, fields: fields) }
            var spliced: [UInt8] = [9, 9]
            row.withUnsafeBytes { old in
                if let payload {
                    payload.withUnsafeBytes { RowCodec.appendReplacing(index, with: $0, in: old, fields: fields, to: &spliced) }
                } else {
                    RowCodec.appendReplacing(index, with: nil, in: old, fields: fields, to: &spliced)
                }
            }
            #expect(Array(spliced.dropFirst(2)) == expected, "seed \(seed) round \(round): row \(row), field \(index) of \(fields)")
            #expect(spliced.prefix(2) == [9, 9])
            if Array(spliced.dropFirst(2)) != expected { return }
        }
    }
}
