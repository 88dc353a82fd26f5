import BurrowStore
import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

/// Reading one field of a row: the row's bytes are read only inside the row, and a payload too
/// short for its type reads as null.
@Suite(.temporaryDirectory) struct RowReadTests {
    private func bytes(_ words: [UInt32], _ tail: [UInt8] = []) -> [UInt8] {
        words.flatMap { word in withUnsafeBytes(of: word.littleEndian) { Array($0) } } + tail
    }

    @Test func aPayloadTooShortForItsTypeReadsAsNull() {
        let noLinks: ValueCodec.LinkResolver<ObjectLink> = { _, _ in .null }
        func decoded(_ bytes: [UInt8], _ type: PropertyType) -> StoreValue {
            bytes.withUnsafeBytes { ValueCodec.decode($0, as: type, linkTarget: 1, resolve: noLinks) }
        }
        // (An `Int` takes 1 to 8 bytes: see `RowFormTests`.)
        let full: [(PropertyType, Int)] = [
            (.bool, 1), (.float, 4), (.double, 8), (.date, 8), (.objectId, 12), (.uuid, 16), (.decimal128, 16),
        ]
        for (type, size) in full {
            for short in 1..<size {
                guard case .null = decoded([UInt8](repeating: 0xAB, count: short), type) else {
                    Issue.record("\(short) bytes of \(type) did not read as null")
                    continue
                }
            }
            if case .null = decoded([UInt8](repeating: 1, count: size), type) { Issue.record("a full \(type) read as null") }
        }
        // A length running past the payload, for strings and data.
        for type in [PropertyType.string, .data] {
            guard case .null = decoded(bytes([40], [1, 2, 3]), type) else {
                Issue.record("\(type): a long length read")
                continue
            }
        }
        if case .data(let data) = decoded(bytes([2], [7, 8, 9]), .data) { #expect(data == Data([7, 8])) } else { Issue.record("data") }
        // Links: a typed one needs its 8 bytes; an AnyRealmValue link its tag, table and key.
        [UInt8]([1, 2, 3]).withUnsafeBytes { #expect(ValueCodec.linkKey($0, as: .object) == nil) }
        var anyInt: [UInt8] = []
        ValueCodec.append(StoreValue.int(5), as: .any, to: &anyInt)
        #expect(anyInt.withUnsafeBytes { ValueCodec.linkKey($0, as: .any) } == nil, "an integer is no link")
        let anyLink = [ValueCodec.Tag.link.rawValue] + bytes([3]) + [5, 0, 0, 0, 0, 0, 0, 0]
        let found = anyLink.withUnsafeBytes { ValueCodec.linkKey($0, as: .any) }
        #expect(found?.table == 3 && found?.key == ObjectKey(5))
        for short in 1..<anyLink.count {
            #expect(Array(anyLink.prefix(short)).withUnsafeBytes { ValueCodec.linkKey($0, as: .any) } == nil)
            guard case .null = decoded(Array(anyLink.prefix(short)), .any) else {
                Issue.record("\(short) bytes of a link read")
                continue
            }
        }
    }

    @Test func aFormat4RowFieldIsReadOnlyInsideTheRow() {
        // Three fields: an 8-byte payload at 16, a null, then a 2-byte payload at 24.
        let good = bytes([3, 16, 0, 24], [1, 0, 0, 0, 0, 0, 0, 0, 7, 9])
        good.withUnsafeBytes { row in
            #expect(LegacyRowCodec.field(row, 0, format: 4).map(Array.init) == [1, 0, 0, 0, 0, 0, 0, 0])
            #expect(LegacyRowCodec.field(row, 1, format: 4) == nil)
            #expect(LegacyRowCodec.field(row, 2, format: 4).map(Array.init) == [7, 9])
            #expect(LegacyRowCodec.field(row, 3, format: 4) == nil, "past the row's fields: null")
        }
        // A field count whose offset table does not fit: only the offsets inside are read.
        bytes([1_000, 8], [5]).withUnsafeBytes { row in
            #expect(LegacyRowCodec.field(row, 0, format: 4).map(Array.init) == [5])
            #expect(LegacyRowCodec.field(row, 1, format: 4) == nil)
            #expect(LegacyRowCodec.field(row, 500, format: 4) == nil)
        }
        // Offsets past the row's end, or out of order.
        bytes([2, 40, 0], [1, 2]).withUnsafeBytes { row in #expect(LegacyRowCodec.field(row, 0, format: 4) == nil) }
        bytes([2, 12, 200], [1, 2]).withUnsafeBytes { row in #expect(LegacyRowCodec.field(row, 0, format: 4) == nil) }
        bytes([2, 13, 12], [1, 2]).withUnsafeBytes { row in #expect(LegacyRowCodec.field(row, 0, format: 4) == nil) }
        [UInt8]([5, 0]).withUnsafeBytes { row in #expect(LegacyRowCodec.field(row, 0, format: 4) == nil, "shorter than its count") }
    }

    @Test func aStringPayloadIsDecodedWithinItsLength() {
        func payload(_ text: [UInt8], length: UInt32? = nil) -> [UInt8] {
            bytes([length ?? UInt32(text.count)], text)
        }
        for text in ["", "Buster 48213", "exactly15bytes!", "sixteen bytes ok", "Zürich–Genève über alles", "🐕🐕🐕🐕"] {
            payload(Array(text.utf8)).withUnsafeBytes { #expect(ValueCodec.inlineString($0) == text) }
        }
        // Invalid UTF-8 is repaired as `String(decoding:as:)` repairs it, short or long.
        for invalid: [UInt8] in [[0x41, 0xFF, 0x42], [0xC3] + Array(repeating: 0x41, count: 20)] {
            payload(invalid).withUnsafeBytes { #expect(ValueCodec.inlineString($0) == String(decoding: invalid, as: UTF8.self)) }
        }
        payload([0x41, 0x42], length: 3).withUnsafeBytes { #expect(ValueCodec.inlineString($0) == nil, "length past the end") }
        payload([], length: ValueCodec.externalMarker).withUnsafeBytes { #expect(ValueCodec.inlineString($0) == nil, "kept outside the row") }
        [UInt8]([1, 0]).withUnsafeBytes { #expect(ValueCodec.inlineString($0) == nil) }
        [UInt8]([]).withUnsafeBytes { #expect(ValueCodec.int($0) == nil) }
    }
}
