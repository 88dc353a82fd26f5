import BurrowStore
import BurrowTestSupport
import Foundation
import Testing

/// The row form of file format 5 (`RowCodec`) against a model, the list of payloads a row
/// holds: every way of writing a row reads back that list, in the narrowest header, and a row
/// of format 4 (`WideRowCodec`) converts to exactly the row its payloads make.
struct RowFormTests {
    /// A format-4 row of `payloads`, as format 4's writer laid it out.
    static func wideRow(_ payloads: [[UInt8]?]) -> [UInt8] {
        var row = [UInt8](repeating: 0, count: 4 + 4 * payloads.count)
        RowCodec.store(UInt32(payloads.count), at: 0, in: &row)
        for (field, payload) in payloads.enumerated() {
            guard let payload, !payload.isEmpty else { continue }
            RowCodec.store(UInt32(row.count), at: 4 + 4 * field, in: &row)
            row += payload
        }
        return row
    }

    /// Random payloads: mostly short, some long enough for 2- and 4-byte offsets.
    static func payloads(_ random: inout TestRandom, count: Int) -> [[UInt8]?] {
        (0..<count).map { _ in
            if random.chance(25) { return nil }
            let size = random.chance(3) ? random.int(200...70_000) : random.int(1...20)
            return random.bytes(size)
        }
    }

    static func read(_ row: [UInt8], fields: Int) -> [[UInt8]?] {
        row.withUnsafeBytes { bytes in (0..<fields).map { RowCodec.field(bytes, $0).map(Array.init) } }
    }

    @Test func rowsReadBackTheirPayloads() {
        let seed = TestSeed.make("RowFormTests.rowsReadBackTheirPayloads")
        var random = TestRandom(seed: seed)
        for round in 0..<TestEnvironment.count("BURROW_MODEL_OPS", default: 2_000) {
            let count = random.chance(10) ? random.int(60...300) : random.int(0...12)
            let payloads = Self.payloads(&random, count: count)
            let row = RowCodec.assemble(payloads)
            let read = Self.read(row, fields: count + 2)
            let mismatch = (read == payloads + [nil, nil]) ? nil : read.indices.first { read[$0] != (($0 < count) ? payloads[$0] : nil) }
            #expect(mismatch == nil, "seed \(seed) round \(round): field \(mismatch ?? -1) of \(count), row of \(row.count) bytes")
            #expect(row.withUnsafeBytes { RowCodec.fieldCount($0) } == count)
            // An integer read in place is the integer its payload holds.
            let ints = row.withUnsafeBytes { bytes in (0..<count).map { RowCodec.int(bytes, $0) } }
            let decoded = payloads.map { $0.flatMap { payload in payload.withUnsafeBytes { ValueCodec.int($0) } } }
            #expect(ints == decoded, "seed \(seed) round \(round): integers")
            // The narrowest offsets that fit: 1 byte up to 255 bytes of row, 2 up to 65,535.
            let total = row.count
            let code = Int(row[0] & 3)
            #expect(code == (total <= 0xFF ? 0 : total <= 0xFFFF ? 1 : 2), "seed \(seed) round \(round): \(total) bytes, width code \(code)")
            let layoutBytes = payloads.reduce(0) { $0 + ($1?.count ?? 0) }
            #expect(row.count == RowCodec.headerSize(row.withUnsafeBytes { $0 }) + layoutBytes)
            // Format 4's row of the same payloads converts to the same bytes.
            let wide = Self.wideRow(payloads)
            let converted = wide.withUnsafeBytes { WideRowCodec.narrowed($0, narrowInts: []) }
            #expect(converted == row, "seed \(seed) round \(round): conversion")
            if read != payloads + [nil, nil] || converted != row { return }
        }
    }

    @Test func replacingAFieldKeepsTheOthers() {
        let seed = TestSeed.make("RowFormTests.replacingAFieldKeepsTheOthers")
        var random = TestRandom(seed: seed)
        for round in 0..<TestEnvironment.count("BURROW_MODEL_OPS", default: 2_000) {
            let count = random.int(0...9)
            var model = Self.payloads(&random, count: count)
            var row = RowCodec.assemble(model)
            for _ in 0..<4 {
                let fields = random.int(max(count, 1)...count + 3)
                let index = random.int(0..<fields)
                let payload: [UInt8]? = random.chance(25) ? nil : random.bytes(random.chance(5) ? random.int(250...300) : random.int(1...15))
                row = row.withUnsafeBytes { RowCodec.replacing(index, with: payload, in: $0, fields: fields) }
                while model.count < max(fields, index + 1) { model.append(nil) }
                model[index] = payload
                var spliced: [UInt8] = [9]
                let before = RowCodec.assemble(model)
                before.withUnsafeBytes { old in
                    RowCodec.appendReplacing(0, with: nil, in: old, fields: model.count, to: &spliced)
                }
                #expect(Self.read(row, fields: model.count) == model, "seed \(seed) round \(round): \(model.count) fields")
                #expect(row == RowCodec.assemble(model), "seed \(seed) round \(round): the same bytes as a row written whole")
                #expect(spliced.first == 9)
                if Self.read(row, fields: model.count) != model { return }
            }
        }
    }

    @Test func integersTakeTheBytesTheyNeed() {
        let cases: [(Int64, Int)] = [
            (0, 1), (1, 1), (-1, 1), (127, 1), (-128, 1), (128, 2), (-129, 2), (32_767, 2), (32_768, 3), (-32_769, 3),
            (8_388_607, 3), (8_388_608, 4), (Int64(Int32.max), 4), (Int64(Int32.min), 4), (Int64(Int32.max) + 1, 5),
            (1 << 55 - 1, 7), (1 << 55, 8), (-(1 << 55), 7), (-(1 << 55) - 1, 8), (.max, 8), (.min, 8),
        ]
        for (value, size) in cases {
            var bytes: [UInt8] = []
            ValueCodec.appendNarrowInt(value, to: &bytes)
            #expect(bytes.count == size, "\(value)")
            #expect(bytes.withUnsafeBytes { ValueCodec.int($0) } == value, "\(value)")
        }
        var random = TestRandom(seed: TestSeed.make("RowFormTests.integersTakeTheBytesTheyNeed"))
        for _ in 0..<10_000 {
            let value = Int64(bitPattern: random.next()) >> random.int(0...63)
            var bytes: [UInt8] = []
            ValueCodec.appendNarrowInt(value, to: &bytes)
            #expect(bytes.withUnsafeBytes { ValueCodec.int($0) } == value)
            // In a row, after a short or a long field, and first.
            let before = random.int(0...9)
            let row = RowCodec.assemble([before == 0 ? nil : random.bytes(before), bytes])
            #expect(row.withUnsafeBytes { RowCodec.int($0, 1) } == value)
            // One byte fewer does not hold it.
            if bytes.count > 1 { #expect(Array(bytes.dropLast()).withUnsafeBytes { ValueCodec.int($0) } != value) }
        }
    }

    @Test func conversionNarrowsTheIntegersItIsToldOf() {
        let eight = { (value: Int64) in withUnsafeBytes(of: value.littleEndian) { [UInt8]($0) } }
        let wide = Self.wideRow([eight(5), eight(-300), [1, 2, 3, 4, 5, 6, 7, 8], nil, eight(Int64.min)])
        let narrow = wide.withUnsafeBytes { WideRowCodec.narrowed($0, narrowInts: [true, true, false, true, true]) }
        #expect(Self.read(narrow, fields: 5) == [[5], [0xD4, 0xFE], [1, 2, 3, 4, 5, 6, 7, 8], nil, eight(Int64.min)])
        // Six bytes of header for five fields in a short row.
        #expect(narrow.withUnsafeBytes { RowCodec.headerSize($0) } == 6)
    }

    @Test func aDamagedHeaderReadsAsNulls() {
        [UInt8]([]).withUnsafeBytes { #expect(RowCodec.field($0, 0) == nil) }
        // Width code 3 is unknown.
        [UInt8]([1 << 2 | 3, 2, 9]).withUnsafeBytes { #expect(RowCodec.field($0, 0) == nil) }
        // A count of 63 and more whose varint runs past the row.
        [UInt8]([63 << 2, 0x80]).withUnsafeBytes { #expect(RowCodec.fieldCount($0) == 0) }
        // Five fields declared, room for three offsets: only they are read, and the first
        // ends past the row.
        [UInt8]([5 << 2, 9, 9, 9]).withUnsafeBytes { row in
            #expect(RowCodec.fieldCount(row) == 3)
            #expect(RowCodec.declaredFieldCount(row) == 5)
            #expect(RowCodec.field(row, 0) == nil)
        }
        // A field ending past the row, or before the one before it.
        [UInt8]([1 << 2, 9, 7]).withUnsafeBytes { #expect(RowCodec.field($0, 0) == nil) }
        [UInt8]([2 << 2, 4, 3, 1, 2]).withUnsafeBytes { row in
            #expect(RowCodec.field(row, 0).map(Array.init) == [1])
            #expect(RowCodec.field(row, 1) == nil)
        }
    }
}
