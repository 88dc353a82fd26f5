import BurrowStore
import BurrowTestSupport
import Foundation
import Testing

/// The row form of file format 6 (`RowCodec`) against a model, the list of payloads a row
/// holds: every way of writing a row reads back that list, in the narrowest header, and a row
/// of format 4 or 5 (`LegacyRowCodec`) converts to exactly the row its payloads make.
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

    /// A format-5 row of `payloads`, as format 5's writer laid it out: an offset for every
    /// field, as narrow as the row allows.
    static func format5Row(_ payloads: [[UInt8]?]) -> [UInt8] {
        let count = payloads.count
        let payloadBytes = payloads.reduce(0) { $0 + ($1?.count ?? 0) }
        let countBytes = count < 63 ? 1 : 1 + varintSize(count - 63)
        let code = countBytes + count + payloadBytes <= 0xFF ? 0 : countBytes + 2 * count + payloadBytes <= 0xFFFF ? 1 : 2
        var row: [UInt8] = [UInt8(min(count, 63) << 2 | code)]
        if count >= 63 {
            var rest = count - 63
            repeat {
                row.append(UInt8(rest & 0x7F) | (rest > 0x7F ? 0x80 : 0))
                rest >>= 7
            } while rest > 0
        }
        var end = countBytes + (count << code)
        for payload in payloads {
            end += payload?.count ?? 0
            withUnsafeBytes(of: UInt32(end).littleEndian) { row += $0.prefix(1 << code) }
        }
        for payload in payloads { row += payload ?? [] }
        return row
    }

    static func varintSize(_ value: Int) -> Int { value < 0x80 ? 1 : 1 + varintSize(value >> 7) }

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
            // Format 4's and format 5's rows of the same payloads convert to the same bytes.
            let wide = Self.wideRow(payloads)
            let converted = wide.withUnsafeBytes { LegacyRowCodec.converted($0, from: 4, fields: []) }
            #expect(converted == row, "seed \(seed) round \(round): conversion from format 4")
            let five = Self.format5Row(payloads)
            let convertedFive = five.withUnsafeBytes { LegacyRowCodec.converted($0, from: 5, fields: []) }
            #expect(convertedFive == row, "seed \(seed) round \(round): conversion from format 5")
            if read != payloads + [nil, nil] || converted != row || convertedFive != row { return }
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
        let narrow = wide.withUnsafeBytes { LegacyRowCodec.converted($0, from: 4, fields: [.integer, .integer, .other, .integer, .integer]) }
        #expect(Self.read(narrow, fields: 5) == [[5], [0xD4, 0xFE], [1, 2, 3, 4, 5, 6, 7, 8], nil, eight(Int64.min)])
        // Five bytes of header for five fields in a short row: the header byte and four offsets.
        #expect(narrow.withUnsafeBytes { RowCodec.headerSize($0) } == 5)
        // Format 5 kept integers narrow already: the same payloads come through.
        let five = Self.format5Row([[5], [0xD4, 0xFE], nil])
        #expect(
            Self.read(five.withUnsafeBytes { LegacyRowCodec.converted($0, from: 5, fields: [.integer, .integer, .integer]) }, fields: 3) == [
                [5], [0xD4, 0xFE], nil,
            ])
    }

    @Test func conversionDropsTheLengthsOfStringsAndData() {
        func prefixed(_ bytes: [UInt8]) -> [UInt8] { withUnsafeBytes(of: UInt32(bytes.count).littleEndian) { Array($0) } + bytes }
        let external: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF]
        let old: [[UInt8]?] = [prefixed(Array("Rex".utf8)), prefixed([]), external, prefixed([0xFE, 1]), nil, prefixed([9, 9]), [7]]
        let kinds: [LegacyRowCodec.FieldKind] = [.text, .text, .text, .text, .text, .other, .integer]
        let expected: [[UInt8]?] = [Array("Rex".utf8), [0xFF], [0xFE], [0xFF, 0xFE, 1], nil, prefixed([9, 9]), [7]]
        for (format, row) in [
            (UInt32(4), Self.wideRow(old.enumerated().map { $0 == 6 ? [7, 0, 0, 0, 0, 0, 0, 0] : $1 })), (5, Self.format5Row(old)),
        ] {
            let converted = row.withUnsafeBytes { LegacyRowCodec.converted($0, from: format, fields: kinds) }
            #expect(Self.read(converted, fields: old.count) == expected, "format \(format)")
            #expect(converted.withUnsafeBytes { RowCodec.string(RowCodec.field($0, 0)!) } == "Rex")
            #expect(converted.withUnsafeBytes { RowCodec.string(RowCodec.field($0, 1)!) } == "")
            #expect(converted.withUnsafeBytes { RowCodec.isExternal(RowCodec.field($0, 2)!, as: .string) })
        }
        // A length that does not match the bytes, or no room for one (a damaged row), is kept
        // after the blob marker, and a format-4 integer not of 8 bytes padded to 9: payloads no
        // current row holds, so that reads report the damage instead of returning other values.
        let damaged = Self.format5Row([[9, 0, 0, 0, 1], [0xFF, 0x41]])
        let converted = damaged.withUnsafeBytes { LegacyRowCodec.converted($0, from: 5, fields: [.text, .text]) }
        #expect(Self.read(converted, fields: 2) == [[0xFE, 9, 0, 0, 0, 1], [0xFE, 0xFF, 0x41]])
        converted.withUnsafeBytes { row in
            for field in 0..<2 { #expect(RowCodec.lengthProblem(RowCodec.field(row, field)!, as: .string) != nil) }
        }
        let shortInt = Self.wideRow([[5, 0, 0]]).withUnsafeBytes { LegacyRowCodec.converted($0, from: 4, fields: [.integer]) }
        #expect(Self.read(shortInt, fields: 1) == [[5, 0, 0, 0, 0, 0, 0, 0, 0]])
        #expect(shortInt.withUnsafeBytes { RowCodec.lengthProblem(RowCodec.field($0, 0)!, as: .int) } != nil)
    }

    @Test func stringsAndDataKeepTheirBytesAlone() {
        func payload(_ bytes: [UInt8]) -> [UInt8] {
            var out: [UInt8] = []
            bytes.withUnsafeBytes { RowCodec.appendText($0, to: &out) }
            return out
        }
        // Verbatim unless empty or starting with a marker byte, which the escape byte precedes.
        #expect(payload(Array("Buster".utf8)) == Array("Buster".utf8))
        #expect(payload([]) == [0xFF])
        #expect(payload([0xFE]) == [0xFF, 0xFE])
        #expect(payload([0xFF, 0]) == [0xFF, 0xFF, 0])
        #expect(payload([0xFD, 0xFE]) == [0xFD, 0xFE])
        var random = TestRandom(seed: TestSeed.make("RowFormTests.stringsAndDataKeepTheirBytesAlone"))
        for _ in 0..<5_000 {
            var bytes = random.bytes(random.int(0...40))
            if !bytes.isEmpty, random.chance(4) { bytes[0] = random.chance(2) ? 0xFE : 0xFF }
            let encoded = payload(bytes)
            #expect(encoded.count == bytes.count + (bytes.first.map { $0 >= 0xFE } ?? true ? 1 : 0))
            #expect(encoded.withUnsafeBytes { RowCodec.text($0).map(Array.init) } == bytes)
            #expect(!encoded.withUnsafeBytes { RowCodec.isExternal($0, as: .data) })
            #expect(encoded.withUnsafeBytes { RowCodec.textProblem($0) } == nil)
            // The blob tree's form and back.
            let (reference, blob) = RowCodec.externalize(encoded, as: .data)
            #expect(reference == [0xFE] && blob.count == bytes.count + 4)
            #expect(blob.withUnsafeBytes { RowCodec.payload(fromBlob: $0, as: .data) } == encoded)
            // In a row among other fields, decoded as data and (when UTF-8) as a string.
            let row = RowCodec.assemble([[1], encoded, random.chance(2) ? nil : [2, 3]])
            let decoded: StoreValue = row.withUnsafeBytes { RowCodec.decode(RowCodec.field($0, 1)!, as: .data, linkTarget: 0) { _, _ in .null } }
            guard case .data(let data) = decoded, Array(data) == bytes else {
                Issue.record("data \(bytes) decoded as \(decoded)")
                return
            }
        }
        for text in ["", "Buster 48213", "Zürich–Genève", "🐕"] {
            var row: [UInt8] = []
            RowCodec.appendField(StoreValue.string(text), as: .string, to: &row)
            #expect(row.withUnsafeBytes { RowCodec.string($0) } == text)
            #expect(row.count == max(text.utf8.count, 1))
        }
        // The blob marker alone is a reference; with bytes after it, a damaged payload.
        [UInt8]([0xFE]).withUnsafeBytes { payload in
            #expect(RowCodec.isExternal(payload, as: .string))
            #expect(RowCodec.text(payload) == nil)
            #expect(RowCodec.textProblem(payload) == nil)
        }
        [UInt8]([0xFE, 0x41]).withUnsafeBytes { payload in
            #expect(!RowCodec.isExternal(payload, as: .string))
            #expect(RowCodec.textProblem(payload) != nil)
            #expect(RowCodec.lengthProblem(payload, as: .string) != nil)
        }
        // A blob whose length does not match its bytes gives no payload.
        [UInt8]([9, 0, 0, 0, 1]).withUnsafeBytes { #expect(RowCodec.payload(fromBlob: $0, as: .string) == nil) }
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
        [UInt8]([2 << 2, 9, 7]).withUnsafeBytes { #expect(RowCodec.field($0, 0) == nil) }
        [UInt8]([3 << 2, 4, 3, 1, 2]).withUnsafeBytes { row in
            #expect(RowCodec.field(row, 0).map(Array.init) == [1])
            #expect(RowCodec.field(row, 1) == nil)
        }
        // The last field has no offset: it ends where the row ends.
        [UInt8]([2 << 2, 3, 1, 2, 3]).withUnsafeBytes { row in
            #expect(RowCodec.field(row, 0).map(Array.init) == [1])
            #expect(RowCodec.field(row, 1).map(Array.init) == [2, 3])
            #expect(RowCodec.fieldCount(row) == 2)
        }
        // One field: the header byte alone, then the payload.
        [UInt8]([1 << 2, 9, 7]).withUnsafeBytes { #expect(RowCodec.field($0, 0).map(Array.init) == [9, 7]) }
        // A header longer than the row (three fields, two offsets, one byte of row after the
        // header byte): the last field is not read from before the header's end.
        [UInt8]([3 << 2, 2]).withUnsafeBytes { row in
            #expect(RowCodec.fieldCount(row) == 1)
            #expect(RowCodec.field(row, 2) == nil)
        }
    }
}
