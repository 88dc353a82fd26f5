/// The rows of file formats 4 and 5, which Burrow reads and upgrades.
///
/// Format 4:
///
///     0        fieldCount  UInt32
///     4 + 4i   offset of field i's payload from the row's start, UInt32; 0 means null
///     …        payloads (`ValueCodec`), in field order
///
/// with every `Int` field and collection count in 8 bytes. Format 5 has `RowCodec`'s header
/// with an offset for every field (the last's too) and its narrow `Int`s, and keeps strings and
/// data as `ValueCodec` does: a 4-byte length, then the bytes, or the length 0xFFFFFFFF alone
/// for a value in the blob tree.
///
/// Readers of a version of either format see each row converted to `RowCodec`'s form as they
/// read it (`withConverted`), so the rest of the store knows one form; the first write
/// transaction rewrites every row (`converted`).
package enum LegacyRowCodec {
    /// What converting a field's payload to `RowCodec`'s form takes.
    package enum FieldKind: Sendable, Equatable {
        /// An `Int` field or a collection field's element count: 8 bytes in format 4, the bytes
        /// the value needs from format 5 on.
        case integer
        /// A string or data field: its length before the bytes until format 6.
        case text
        /// Any other field: the same payload in every format.
        case other
    }

    /// The kind of each field of a class with `properties`.
    package static func fieldKinds(_ properties: [StoredProperty]) -> [FieldKind] {
        properties.map { property in
            if property.collection != .single || property.type == .int { return .integer }
            return property.type == .string || property.type == .data ? .text : .other
        }
    }

    /// The number of fields `row`, a row of `format`, has offsets for (only offsets inside the
    /// row count).
    package static func fieldCount(_ row: UnsafeRawBufferPointer, format: UInt32) -> Int {
        if format < 5 {
            guard row.count >= 4 else { return 0 }
            return min(Int(ValueCodec.u32(row, 0)), (row.count &- 4) &>> 2)
        }
        return Format5Header(row).map { min($0.count, (row.count &- $0.offsetsStart) &>> $0.widthCode) } ?? 0
    }

    /// The payload of field `index` of `row`, a row of `format`, or nil if the field is null;
    /// reads stay inside `row`, as `RowCodec.field`'s do.
    package static func field(_ row: UnsafeRawBufferPointer, _ index: Int, format: UInt32) -> UnsafeRawBufferPointer? {
        guard let (start, end) = format < 5 ? wideSpan(row, index) : format5Span(row, index) else { return nil }
        return UnsafeRawBufferPointer(rebasing: row[start..<end])
    }

    /// Where field `index`'s payload lies in a format-4 row.
    private static func wideSpan(_ row: UnsafeRawBufferPointer, _ index: Int) -> (Int, Int)? {
        let count = fieldCount(row, format: 4)
        guard index < count else { return nil }
        let offset = Int(ValueCodec.u32(row, 4 &+ 4 &* index))
        guard offset != 0 else { return nil }
        var end = row.count
        for next in (index &+ 1)..<max(count, index &+ 1) {
            let nextOffset = Int(ValueCodec.u32(row, 4 &+ 4 &* next))
            if nextOffset != 0 {
                end = nextOffset
                break
            }
        }
        guard offset <= end, end <= row.count else { return nil }
        return (offset, end)
    }

    /// A format-5 row's header: the header byte (as `RowCodec`'s) and one offset per field.
    package struct Format5Header {
        package let count: Int
        package let widthCode: Int
        package let offsetsStart: Int

        package init?(_ row: UnsafeRawBufferPointer) {
            guard let (count, widthCode, offsetsStart) = RowCodec.headerStart(row) else { return nil }
            self.count = count
            self.widthCode = widthCode
            self.offsetsStart = offsetsStart
        }

        /// Where the payloads start: after every offset the header states.
        package var payloadsStart: Int { offsetsStart + (count << widthCode) }

        /// Where field `index`'s payload ends (its offset must lie inside `row`).
        package func end(_ row: UnsafeRawBufferPointer, _ index: Int) -> Int {
            RowCodec.offset(row, at: offsetsStart + (index << widthCode), widthCode: widthCode)
        }
    }

    /// Where field `index`'s payload lies in a format-5 row.
    private static func format5Span(_ row: UnsafeRawBufferPointer, _ index: Int) -> (Int, Int)? {
        guard let header = Format5Header(row), index < fieldCount(row, format: 5) else { return nil }
        let end = header.end(row, index)
        let start = index == 0 ? header.payloadsStart : header.end(row, index - 1)
        guard start < end, end <= row.count else { return nil }
        return (start, end)
    }

    /// `row`, a row of `format`, in `RowCodec`'s form: the same values, the integers `fields`
    /// marks in the bytes they need and strings and data without their lengths.
    package static func converted(_ row: UnsafeRawBufferPointer, from format: UInt32, fields: [FieldKind]) -> [UInt8] {
        let count = fieldCount(row, format: format)
        var builder = RowCodec.Builder(fieldCount: count, capacity: row.count)
        for index in 0..<count {
            guard let payload = field(row, index, format: format) else { continue }
            builder.beginField(index)
            switch index < fields.count ? fields[index] : .other {
            case .integer where format < 5:
                if payload.count == 8 {
                    ValueCodec.appendNarrowInt(ValueCodec.int(payload)!, to: &builder.bytes)
                } else {
                    // Not a sound integer: nine bytes or more, which no current row holds for one,
                    // so that reads and the object check report it as they did.
                    builder.bytes.append(contentsOf: payload)
                    builder.bytes.append(contentsOf: repeatElement(0, count: max(0, 9 - payload.count)))
                }
            case .text:
                let length = payload.count >= 4 ? ValueCodec.u32(payload, 0) : 0
                if payload.count == 4, length == ValueCodec.externalMarker {
                    builder.bytes.append(RowCodec.externalMarker)
                } else if payload.count >= 4, Int(length) == payload.count - 4 {
                    RowCodec.appendText(UnsafeRawBufferPointer(rebasing: payload[4...]), to: &builder.bytes)
                } else {
                    // Not a sound value: kept after the blob marker, which a sound payload
                    // never has bytes after, so that reads and the object check report it.
                    builder.bytes.append(RowCodec.externalMarker)
                    builder.bytes.append(contentsOf: payload)
                }
            default:
                builder.bytes.append(contentsOf: payload)
            }
            builder.endField()
        }
        return builder.finish()
    }

    /// Calls `body` with `row` converted by `converted`, and returns its result.
    @inline(never)
    package static func withConverted<R>(
        _ row: UnsafeRawBufferPointer, from format: UInt32, fields: [FieldKind], _ body: (UnsafeRawBufferPointer) throws -> R
    ) rethrows -> R {
        try converted(row, from: format, fields: fields).withUnsafeBytes { try body($0) }
    }
}
