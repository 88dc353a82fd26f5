/// The encoding of one object's row in its table tree (object key → row):
///
///     0        fieldCount  UInt32
///     4 + 4i   offset of field i's payload from the row's start, UInt32; 0 means null
///     …        payloads (`ValueCodec`), in field order
///
/// The offset table lets a read of one property find its payload directly and decode nothing
/// else. A row with fewer fields than the schema (written before properties were added) reads
/// the missing ones as null. Collections keep only their element count here; their elements
/// live in trees of their own. A string or data value longer than `the store's inline payload limit`
/// lives in the class's blob tree, and its field holds a reference (`ValueCodec.externalMarker`),
/// so that changing another field never copies it.
@usableFromInline
package enum RowCodec {
    /// A row of already encoded payloads, one per field (nil for null).
    package static func assemble(_ payloads: [[UInt8]?]) -> [UInt8] {
        var builder = Builder(fieldCount: payloads.count, capacity: payloads.reduce(0) { $0 + ($1?.count ?? 0) })
        for (index, payload) in payloads.enumerated() {
            guard let payload else { continue }
            builder.beginField(index)
            builder.bytes.append(contentsOf: payload)
            builder.endField()
        }
        return builder.bytes
    }

    /// Writes a row in one buffer: each field's payload is encoded straight into it, in field
    /// order, between `beginField` and `endField`.
    @usableFromInline
    package struct Builder {
        /// The row so far; a field's payload is appended here after `beginField`.
        @usableFromInline package var bytes: [UInt8]
        @usableFromInline package var field = -1
        @usableFromInline package var fieldStart = 0

        @inlinable @inline(__always)
        package init(fieldCount: Int, capacity: Int = 64) {
            // One allocation, the offset table zeroed in place (null fields until written).
            let header = 4 + 4 * fieldCount
            bytes = [UInt8](unsafeUninitializedCapacity: header + capacity) { buffer, initialized in
                buffer.baseAddress!.initialize(repeating: 0, count: header)
                initialized = header
            }
            RowCodec.store(UInt32(fieldCount), at: 0, in: &bytes)
        }

        /// Starts field `index`, which must come after every field started before.
        @inlinable
        package mutating func beginField(_ index: Int) {
            precondition(index > field, "internal error: row fields written out of order")
            field = index
            fieldStart = bytes.count
        }

        /// Ends the field begun last: an empty payload makes it null.
        @inlinable
        package mutating func endField() {
            if bytes.count > fieldStart { RowCodec.store(UInt32(fieldStart), at: 4 + 4 * field, in: &bytes) }
        }

        /// The payload of the field being written.
        @inlinable
        package var currentPayload: ArraySlice<UInt8> { bytes[fieldStart...] }

        /// Replaces the payload of the field being written by `payload`.
        @usableFromInline
        package mutating func replaceCurrentPayload(with payload: [UInt8]) {
            bytes.removeSubrange(fieldStart...)
            bytes.append(contentsOf: payload)
        }
    }

    /// The payload of field `index`, or nil if the field is null. Payloads lie in field order,
    /// so one ends where the next non-null field's begins (or the row ends).
    ///
    /// Every read stays inside `row` (it may point into a mapped page): a row too short for
    /// its offset table, or whose offsets point outside it or out of order, reads as nulls
    /// where it does not hold a payload.
    @inlinable @inline(__always)
    package static func field(_ row: UnsafeRawBufferPointer, _ index: Int) -> UnsafeRawBufferPointer? {
        guard row.count >= 4 else { return nil }
        // Only offsets that lie inside the row are read.
        let count = min(fieldCount(row), (row.count &- 4) &>> 2)
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

    /// Whether two fields (as `field` returns them, nil for null) hold the same payload.
    package static func sameField(_ a: UnsafeRawBufferPointer?, _ b: UnsafeRawBufferPointer?) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        return a.elementsEqual(b)
    }

    @inlinable @inline(__always)
    package static func fieldCount(_ row: UnsafeRawBufferPointer) -> Int {
        Int(ValueCodec.u32(row, 0))
    }

    /// `row` with field `index` replaced by `payload` (nil for null), widened to `fields`
    /// fields if it had fewer.
    package static func replacing(_ index: Int, with payload: [UInt8]?, in row: UnsafeRawBufferPointer, fields: Int) -> [UInt8] {
        let count = max(fields, fieldCount(row))
        var builder = Builder(fieldCount: count, capacity: row.count + (payload?.count ?? 0))
        for field in 0..<count {
            builder.beginField(field)
            if field == index {
                if let payload { builder.bytes.append(contentsOf: payload) }
            } else if let old = self.field(row, field) {
                builder.bytes.append(contentsOf: old)
            }
            builder.endField()
        }
        return builder.bytes
    }

    /// Appends to `bytes` what `replacing` returns (the same bytes), without building an array
    /// of its own: for a bulk update that writes many rows through one buffer. A row in the
    /// form `Builder` writes (payloads back to back after the offset table, in field order,
    /// as wide as `fields`) is spliced: the bytes around the field copied as they are, the
    /// later offsets moved.
    package static func appendReplacing(
        _ index: Int, with payload: UnsafeRawBufferPointer?, in row: UnsafeRawBufferPointer, fields: Int, to bytes: inout [UInt8]
    ) {
        guard let (start, end) = canonicalSpan(of: index, in: row, fields: fields) else {
            appendRebuilding(index, with: payload, in: row, fields: fields, to: &bytes)
            return
        }
        let newCount = payload?.count ?? 0
        let delta = newCount &- (end &- start)
        let base = bytes.count
        bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: row[..<start]))
        if let payload { bytes.append(contentsOf: payload) }
        bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: row[end...]))
        let count = fieldCount(row)
        bytes.withUnsafeMutableBytes { out in
            let o = out.baseAddress! + base
            o.storeBytes(of: UInt32(newCount > 0 ? start : 0).littleEndian, toByteOffset: 4 &+ 4 &* index, as: UInt32.self)
            for field in (index &+ 1)..<count {
                let offset = Int(ValueCodec.u32(row, 4 &+ 4 &* field))
                if offset != 0 { o.storeBytes(of: UInt32(offset &+ delta).littleEndian, toByteOffset: 4 &+ 4 &* field, as: UInt32.self) }
            }
        }
    }

    /// Where field `index`'s payload lies in `row` (an empty range where the payload of a
    /// null field would go) if the row has exactly the form `Builder` writes and at least
    /// `fields` fields; nil otherwise.
    private static func canonicalSpan(of index: Int, in row: UnsafeRawBufferPointer, fields: Int) -> (start: Int, end: Int)? {
        guard row.count >= 4 else { return nil }
        let count = fieldCount(row)
        let header = 4 &+ 4 &* count
        guard count >= fields, index < count, row.count >= header else { return nil }
        // Where the next payload must start.
        var position = header
        var start = -1
        var end = -1
        for field in 0..<count {
            let offset = Int(ValueCodec.u32(row, 4 &+ 4 &* field))
            if field == index { start = position }
            if offset == 0 { continue }
            guard offset == position else { return nil }
            let next = nextPosition(after: field, in: row, count: count)
            guard next > offset else { return nil }
            if field == index { end = next }
            position = next
        }
        guard position == row.count else { return nil }
        // A null field's place is where the next payload starts.
        return (start, end < 0 ? start : end)
    }

    /// The end of field `field`'s payload: the next non-null field's offset, or the row's end.
    @inline(__always)
    private static func nextPosition(after field: Int, in row: UnsafeRawBufferPointer, count: Int) -> Int {
        var next = field &+ 1
        while next < count {
            let nextOffset = Int(ValueCodec.u32(row, 4 &+ 4 &* next))
            if nextOffset != 0 { return nextOffset }
            next &+= 1
        }
        return row.count
    }

    /// `appendReplacing` for any row: field by field, as `replacing` builds it.
    private static func appendRebuilding(
        _ index: Int, with payload: UnsafeRawBufferPointer?, in row: UnsafeRawBufferPointer, fields: Int, to bytes: inout [UInt8]
    ) {
        let count = max(fields, fieldCount(row))
        let start = bytes.count
        let header = 4 &+ 4 &* count
        bytes.append(contentsOf: repeatElement(0, count: header))
        store(UInt32(count), at: start, in: &bytes)
        for field in 0..<count {
            let fieldStart = bytes.count
            if field == index {
                if let payload { bytes.append(contentsOf: payload) }
            } else if let old = self.field(row, field) {
                bytes.append(contentsOf: old)
            }
            if bytes.count > fieldStart { store(UInt32(fieldStart &- start), at: start &+ 4 &+ 4 &* field, in: &bytes) }
        }
    }

    @inlinable
    package static func store(_ value: UInt32, at offset: Int, in bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { raw in
            for i in 0..<4 { bytes[offset + i] = raw[i] }
        }
    }
}
