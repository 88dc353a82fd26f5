/// The encoding of rows in files of format 4, which Burrow reads and upgrades:
///
///     0        fieldCount  UInt32
///     4 + 4i   offset of field i's payload from the row's start, UInt32; 0 means null
///     …        payloads (`ValueCodec`), in field order
///
/// with every `Int` field and collection count in 8 bytes. Readers of a format-4 version see
/// each row converted to `RowCodec`'s form as they read it (`withNarrowed`), so the rest of the
/// store knows one form; the first write transaction rewrites every row (`narrowed`).
package enum WideRowCodec {
    /// The payload of field `index`, or nil if the field is null; reads stay inside `row`, as
    /// `RowCodec.field`'s do.
    package static func field(_ row: UnsafeRawBufferPointer, _ index: Int) -> UnsafeRawBufferPointer? {
        guard row.count >= 4 else { return nil }
        let count = fieldCount(row)
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
        return UnsafeRawBufferPointer(rebasing: row[offset..<end])
    }

    /// The number of fields `row` has offsets for (only offsets inside the row count).
    package static func fieldCount(_ row: UnsafeRawBufferPointer) -> Int {
        guard row.count >= 4 else { return 0 }
        return min(Int(ValueCodec.u32(row, 0)), (row.count &- 4) &>> 2)
    }

    /// `row` in `RowCodec`'s form: the same payloads, except that the fields `narrowInts`
    /// marks (`Int` fields and collection counts, whose payloads are 8 bytes here) take the
    /// bytes their values need.
    package static func narrowed(_ row: UnsafeRawBufferPointer, narrowInts: [Bool]) -> [UInt8] {
        let count = fieldCount(row)
        var builder = RowCodec.Builder(fieldCount: count, capacity: row.count)
        for index in 0..<count {
            guard let payload = field(row, index) else { continue }
            builder.beginField(index)
            if index < narrowInts.count, narrowInts[index], payload.count == 8, let value = ValueCodec.int(payload) {
                ValueCodec.appendNarrowInt(value, to: &builder.bytes)
            } else {
                builder.bytes.append(contentsOf: payload)
            }
            builder.endField()
        }
        return builder.finish()
    }

    /// Calls `body` with `row` converted by `narrowed`, and returns its result.
    @inline(never)
    package static func withNarrowed<R>(_ row: UnsafeRawBufferPointer, narrowInts: [Bool], _ body: (UnsafeRawBufferPointer) throws -> R) rethrows
        -> R
    {
        try narrowed(row, narrowInts: narrowInts).withUnsafeBytes { try body($0) }
    }
}
