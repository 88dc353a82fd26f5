import BurrowStorage
import Foundation

/// The encoding of one object's row in its table tree (object key → row), file formats 6 and 7:
///
///     0      header byte: bits 0–1 the offset width code c (offsets are 1 << c bytes: 1, 2
///            or 4); bits 2–7 the field count n, or 63 when a ULEB128 varint of n less 63
///            follows
///     …      n − 1 offsets, little-endian, of the width the header names: where the payloads
///            of fields 0 to n − 2 end, counted from the row's first byte
///     …      payloads, in field order, back to back; the last ends where the row ends
///
/// Field i's payload runs from the end of field i − 1's (for field 0, the end of the header)
/// to its own end; a field whose payload is empty is null (a non-null payload is never empty).
/// A read of one property so takes two offsets and decodes nothing else. The offsets are as wide
/// as the row needs: 1 byte while the row is at most 255 bytes long, 2 up to 65,535, else 4. An
/// `Int` field holds its value in the fewest bytes that keep its sign
/// (`ValueCodec.appendNarrowInt`), and so does a collection field, which holds the collection's
/// element count (its elements live in trees of their own). A `String` or `Data` field holds its
/// bytes alone, since the offsets bound them (`RowCodec+Text`). Every other payload is
/// `ValueCodec`'s. A row of five short fields thus pays five bytes of header, as SQLite's
/// record header does.
///
/// A row with fewer fields than the schema (written before properties were added) reads the
/// missing ones as null. A string or data value longer than the store's inline payload limit
/// lives in the class's blob tree, and its field holds a one-byte reference
/// (`RowCodec.externalMarker`), so that changing another field never copies it.
///
/// Files of formats 4 and 5 hold rows in the forms `LegacyRowCodec` reads; readers of such a
/// file see each row converted to this form (`LegacyRowCodec.withConverted`), and the first
/// write transaction rewrites every row in it.
@usableFromInline
package enum RowCodec {
    /// The first file format whose rows have this form.
    package static let firstFormat: UInt32 = 6

    /// The header's field-count bits that say a varint count follows.
    @usableFromInline static let countEscape = 63

    /// A row of already encoded payloads, one per field (nil for null).
    package static func assemble(_ payloads: [[UInt8]?]) -> [UInt8] {
        var builder = Builder(fieldCount: payloads.count, capacity: payloads.reduce(0) { $0 + ($1?.count ?? 0) })
        for (index, payload) in payloads.enumerated() {
            guard let payload else { continue }
            builder.beginField(index)
            builder.bytes.append(contentsOf: payload)
            builder.endField()
        }
        return builder.finish()
    }

    /// Appends the row payload of `value`, a value of field type `type`: an `Int` in the bytes
    /// it needs, a string's or data's bytes as `appendText` writes them, any other value as
    /// `ValueCodec` encodes it.
    @inlinable @inline(__always)
    package static func appendField<Link: StoredLink>(_ value: StoredValue<Link>, as type: PropertyType, to bytes: inout [UInt8]) {
        switch (type, value) {
        case (.int, .int(let int)): ValueCodec.appendNarrowInt(int, to: &bytes)
        case (.string, .string(let string)):
            var string = string
            string.withUTF8 { appendText(UnsafeRawBufferPointer($0), to: &bytes) }
        case (.data, .data(let data)): data.withUnsafeBytes { appendText($0, to: &bytes) }
        default: ValueCodec.append(value, as: type, to: &bytes)
        }
    }

    /// What is wrong with the length of `payload`, a row field's payload of `type`, or nil if
    /// it has one such a field has: an `Int` in 1 to 8 bytes, a string or data as `textProblem`
    /// has it, any other value as `ValueCodec.lengthProblem` has it.
    @inlinable @inline(__always)
    package static func lengthProblem(_ payload: UnsafeRawBufferPointer, as type: PropertyType) -> String? {
        switch type {
        case .int: return (1...8).contains(payload.count) ? nil : "holds \(counted(payload.count, "byte")) where an Int takes 1 to 8"
        case .string, .data: return textProblem(payload)
        default: return ValueCodec.lengthProblem(payload, as: type)
        }
    }

    /// The value of `payload`, a row field's payload of `type` held in the row (not a
    /// reference to the blob tree): `ValueCodec.decode`, except that an `Int` takes the bytes
    /// it needs and a string or data its bytes alone. Reads only inside `payload`.
    @inlinable
    package static func decode<Link>(
        _ payload: UnsafeRawBufferPointer, as type: PropertyType, linkTarget: UInt32, resolve: ValueCodec.LinkResolver<Link>
    ) -> StoredValue<Link> {
        switch type {
        case .string: return string(payload).map { .string($0) } ?? .null
        case .data: return text(payload).map { .data(Data($0)) } ?? .null
        default: return ValueCodec.decode(payload, as: type, linkTarget: linkTarget, resolve: resolve)
        }
    }

    /// The payload of a collection field: the collection's element count, nil when empty.
    package static func countPayload(_ count: Int) -> [UInt8]? {
        guard count > 0 else { return nil }
        var bytes: [UInt8] = []
        ValueCodec.appendNarrowInt(Int64(count), to: &bytes)
        return bytes
    }

    /// The element count a collection field's payload holds (0 for null).
    @inlinable
    package static func count(_ payload: UnsafeRawBufferPointer?) -> Int {
        payload.flatMap(ValueCodec.int).map { Int(truncatingIfNeeded: $0) } ?? 0
    }

    /// Writes a row in one buffer: each field's payload is encoded straight into it, in field
    /// order, between `beginField` and `endField`, and `finish` returns the row.
    ///
    /// Until `finish`, the buffer starts with room for the widest header, whose 4-byte offsets
    /// (at its end) hold each field's start, counted from the payloads' start; `finish` writes
    /// the header the row needs in its place and moves the payloads down to it.
    @usableFromInline
    package struct Builder {
        /// The row so far; a field's payload is appended here after `beginField`.
        @usableFromInline package var bytes: [UInt8]
        @usableFromInline package let fieldCount: Int
        @usableFromInline package var field = -1
        @usableFromInline package var fieldStart = 0

        /// The room kept for the header while payloads are written: the widest header, whose
        /// offsets hold the fields' starts meanwhile.
        @usableFromInline let reserved: Int

        @inlinable @inline(__always)
        package init(fieldCount: Int, capacity: Int = 64) {
            self.fieldCount = fieldCount
            let header = RowCodec.Shape.countBytes(fieldCount) &+ 4 &* fieldCount
            reserved = header
            // One allocation, the provisional offsets zeroed in place (null fields until written).
            bytes = [UInt8](unsafeUninitializedCapacity: header + capacity) { buffer, initialized in
                buffer.baseAddress!.initialize(repeating: 0, count: header)
                initialized = header
            }
        }

        /// Starts field `index`, which must come after every field started before.
        @inlinable
        package mutating func beginField(_ index: Int) {
            precondition(index > field && index < fieldCount, "internal error: row fields written out of order")
            field = index
            fieldStart = bytes.count
        }

        /// Ends the field begun last: an empty payload makes it null.
        @inlinable
        package mutating func endField() {
            // Stored plus one, so that 0 stays null.
            if bytes.count > fieldStart {
                RowCodec.store(UInt32(fieldStart &- reserved &+ 1), at: reserved &- 4 &* (fieldCount &- field), in: &bytes)
            }
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

        /// The row: the narrow header, then the payloads.
        @inlinable
        package consuming func finish() -> [UInt8] {
            let payloadBytes = bytes.count &- reserved
            let shape = RowCodec.Shape(fieldCount: fieldCount, payloadBytes: payloadBytes)
            let reserved = self.reserved
            let count = fieldCount
            bytes.withUnsafeMutableBytes { row in
                let base = row.baseAddress!
                // Read every provisional offset before the header overwrites them.
                withUnsafeTemporaryAllocation(of: UInt32.self, capacity: max(count, 1)) { starts in
                    let first = reserved &- 4 &* count
                    for i in 0..<count { starts[i] = UInt32(littleEndian: base.loadUnaligned(fromByteOffset: first &+ 4 &* i, as: UInt32.self)) }
                    // A field ends where the next non-null field starts, or the payloads end.
                    var next = payloadBytes
                    for i in stride(from: count &- 1, through: 0, by: -1) {
                        let start = starts[i]
                        starts[i] = UInt32(truncatingIfNeeded: next)
                        if start != 0 { next = Int(start) &- 1 }
                    }
                    shape.writeHeader(to: base) { i in Int(starts[i]) &+ shape.headerBytes }
                }
                if shape.headerBytes != reserved {
                    (base + shape.headerBytes).copyMemory(from: base + reserved, byteCount: payloadBytes)
                }
            }
            let length = shape.headerBytes &+ payloadBytes
            if bytes.count > length { bytes.removeLast(bytes.count &- length) }
            return bytes
        }
    }

    /// How a row's header is laid out: its field count, offset width and size.
    @usableFromInline
    struct Shape {
        @usableFromInline let fieldCount: Int
        /// The offset width code: offsets are `1 << widthCode` bytes.
        @usableFromInline let widthCode: Int
        /// The bytes before the offsets: the header byte and the count's varint, if any.
        @usableFromInline let countBytes: Int
        @usableFromInline var headerBytes: Int { countBytes &+ RowCodec.offsetCount(fieldCount) &<< widthCode }

        /// The shape of a row of `fieldCount` fields whose payloads take `payloadBytes`.
        @inlinable
        init(fieldCount: Int, payloadBytes: Int) {
            self.fieldCount = fieldCount
            countBytes = Self.countBytes(fieldCount)
            let offsets = RowCodec.offsetCount(fieldCount)
            // The widest offset is below the row's length.
            if countBytes &+ offsets &+ payloadBytes <= 0xFF {
                widthCode = 0
            } else if countBytes &+ 2 &* offsets &+ payloadBytes <= 0xFFFF {
                widthCode = 1
            } else {
                widthCode = 2
            }
        }

        /// The bytes of the header byte and the count's varint, for `fieldCount` fields.
        @inlinable
        static func countBytes(_ fieldCount: Int) -> Int {
            1 &+ (fieldCount < RowCodec.countEscape ? 0 : varintSize(fieldCount &- RowCodec.countEscape))
        }

        @inlinable
        static func varintSize(_ value: Int) -> Int {
            var size = 1
            var rest = value >> 7
            while rest > 0 {
                size &+= 1
                rest >>= 7
            }
            return size
        }

        /// Writes the header at `base`, field `i`'s offset (where its payload ends) being
        /// `end(i)`, for every field but the last.
        @inlinable
        func writeHeader(to base: UnsafeMutableRawPointer, end offset: (Int) -> Int) {
            let escaped = fieldCount >= RowCodec.countEscape
            base.storeBytes(of: UInt8((escaped ? RowCodec.countEscape : fieldCount) << 2 | widthCode), as: UInt8.self)
            if escaped {
                var rest = fieldCount &- RowCodec.countEscape
                var at = 1
                repeat {
                    let byte = UInt8(rest & 0x7F) | (rest > 0x7F ? 0x80 : 0)
                    base.storeBytes(of: byte, toByteOffset: at, as: UInt8.self)
                    at &+= 1
                    rest >>= 7
                } while rest > 0
            }
            for i in 0..<RowCodec.offsetCount(fieldCount) {
                let at = countBytes &+ (i &<< widthCode)
                let value = offset(i)
                switch widthCode {
                case 0: base.storeBytes(of: UInt8(truncatingIfNeeded: value), toByteOffset: at, as: UInt8.self)
                case 1: base.storeBytes(of: UInt16(truncatingIfNeeded: value).littleEndian, toByteOffset: at, as: UInt16.self)
                default: base.storeBytes(of: UInt32(truncatingIfNeeded: value).littleEndian, toByteOffset: at, as: UInt32.self)
                }
            }
        }
    }

    /// The offsets a row of `fieldCount` fields holds: one per field but the last, whose payload
    /// ends with the row.
    @inlinable @inline(__always)
    static func offsetCount(_ fieldCount: Int) -> Int { fieldCount > 0 ? fieldCount &- 1 : 0 }

    /// What a row's header byte and count varint say (the same in formats 5 and 6): the field
    /// count, the offset width code, and where the offsets start; nil if `row` is too short for
    /// them or names an unknown width.
    @inlinable @inline(__always)
    package static func headerStart(_ row: UnsafeRawBufferPointer) -> (count: Int, widthCode: Int, offsetsStart: Int)? {
        guard let first = row.first else { return nil }
        let code = Int(first & 3)
        guard code < 3 else { return nil }
        var count = Int(first >> 2)
        var start = 1
        if count == RowCodec.countEscape {
            var extra = 0
            var shift = 0
            while true {
                guard start < row.count, shift < 35 else { return nil }
                let byte = row[start]
                start &+= 1
                extra |= Int(byte & 0x7F) << shift
                shift &+= 7
                if byte & 0x80 == 0 { break }
            }
            count &+= extra
        }
        return (count, code, start)
    }

    /// The offset stored at byte `at` of `row`, `1 << widthCode` bytes wide (formats 5 and 6).
    @inlinable @inline(__always)
    package static func offset(_ row: UnsafeRawBufferPointer, at: Int, widthCode: Int) -> Int {
        switch widthCode {
        case 0: return Int(row[at])
        case 1: return Int(UInt16(littleEndian: row.loadUnaligned(fromByteOffset: at, as: UInt16.self)))
        default: return Int(ValueCodec.u32(row, at))
        }
    }

    /// A row's header as read: where its offsets start, their width code, and how many fields
    /// it has (only as many as the row holds offsets for).
    @usableFromInline
    struct Header {
        @usableFromInline let offsetsStart: Int
        @usableFromInline let widthCode: Int
        @usableFromInline let fieldCount: Int
        /// The field count the header states, which may exceed the offsets the row holds.
        @usableFromInline let declaredCount: Int

        /// The header of `row`, or nil if `row` is too short for one or names an unknown width.
        @inlinable @inline(__always)
        init?(_ row: UnsafeRawBufferPointer) {
            guard let (count, code, start) = RowCodec.headerStart(row) else { return nil }
            offsetsStart = start
            widthCode = code
            declaredCount = count
            // Only offsets that lie inside the row are read; the last field needs none.
            let offsets = RowCodec.offsetCount(count)
            let inside = min(offsets, max(row.count &- start, 0) &>> code)
            fieldCount = inside == offsets ? count : inside
        }

        /// Where field `index`'s payload ends (`index` below `fieldCount`): its offset, or the
        /// row's end for the last field.
        @inlinable @inline(__always)
        func offset(_ row: UnsafeRawBufferPointer, _ index: Int) -> Int {
            guard index < declaredCount &- 1 else { return row.count }
            return RowCodec.offset(row, at: offsetsStart &+ (index &<< widthCode), widthCode: widthCode)
        }

        /// The end of the offsets the header states: where the payloads start.
        @inlinable
        var declaredEnd: Int { offsetsStart &+ (RowCodec.offsetCount(declaredCount) &<< widthCode) }
    }

    /// The payload of field `index`, or nil if the field is null: from the end of the field
    /// before it (or of the header) to its own.
    ///
    /// Every read stays inside `row` (it may point into a mapped page): a row too short for
    /// its offset table, or whose offsets point outside it or out of order, reads as nulls
    /// where it does not hold a payload.
    @inlinable @inline(__always)
    package static func field(_ row: UnsafeRawBufferPointer, _ index: Int) -> UnsafeRawBufferPointer? {
        guard let (start, end) = span(row, index) else { return nil }
        return UnsafeRawBufferPointer(rebasing: row[start..<end])
    }

    /// The value of `Int` field `index` of `row` (or of a collection field's count), or nil if
    /// it is null or holds no integer: `ValueCodec.int` of its payload, read with one load
    /// where the row holds 8 bytes up to the payload's end.
    @inlinable @inline(__always)
    package static func int(_ row: UnsafeRawBufferPointer, _ index: Int) -> Int64? {
        guard let (start, end) = span(row, index) else { return nil }
        let count = end &- start
        guard count < 8, end >= 8 else { return ValueCodec.int(UnsafeRawBufferPointer(rebasing: row[start..<end])) }
        // The 8 bytes ending with the payload's last, shifted down with its sign.
        let word = Int64(bitPattern: UInt64(littleEndian: row.loadUnaligned(fromByteOffset: end &- 8, as: UInt64.self)))
        return word &>> Int64(64 &- 8 &* count)
    }

    /// Where field `index`'s payload lies in `row`, or nil if the field is null or the row
    /// does not hold it soundly. The common row (1-byte offsets, fewer than 63 fields) is read
    /// here; any other through `Header`.
    @inlinable @inline(__always)
    static func span(_ row: UnsafeRawBufferPointer, _ index: Int) -> (start: Int, end: Int)? {
        guard let base = row.baseAddress, row.count > 0 else { return nil }
        let first = base.load(as: UInt8.self)
        guard first & 3 == 0, first < UInt8(RowCodec.countEscape << 2) else { return wideSpan(row, index) }
        // The header is the header byte and `declared - 1` offsets: `declared` bytes.
        let declared = Int(first &>> 2)
        guard index < declared else { return nil }
        let last = index == declared &- 1
        // The offsets read lie inside the row: field `index`'s end (none for the last field),
        // and the one before it.
        guard (last ? index : index &+ 1) < row.count else { return nil }
        let end = last ? row.count : Int(base.load(fromByteOffset: 1 &+ index, as: UInt8.self))
        let start = index == 0 ? declared : Int(base.load(fromByteOffset: index, as: UInt8.self))
        guard start < end, end <= row.count else { return nil }
        return (start, end)
    }

    /// `span` for a row with 2- or 4-byte offsets or 63 fields and more.
    @usableFromInline
    static func wideSpan(_ row: UnsafeRawBufferPointer, _ index: Int) -> (start: Int, end: Int)? {
        guard let header = Header(row), index < header.fieldCount else { return nil }
        let end = header.offset(row, index)
        let start = index == 0 ? header.declaredEnd : header.offset(row, index &- 1)
        guard start < end, end <= row.count else { return nil }
        return (start, end)
    }

    /// Whether two fields (as `field` returns them, nil for null) hold the same payload.
    package static func sameField(_ a: UnsafeRawBufferPointer?, _ b: UnsafeRawBufferPointer?) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        return a.elementsEqual(b)
    }

    /// The number of fields `row` has offsets for.
    @inlinable @inline(__always)
    package static func fieldCount(_ row: UnsafeRawBufferPointer) -> Int {
        Header(row)?.fieldCount ?? 0
    }

    /// The field count `row`'s header states (nil if it has no readable header), which
    /// exceeds `fieldCount` when the row is too short for its offsets.
    package static func declaredFieldCount(_ row: UnsafeRawBufferPointer) -> Int? {
        Header(row)?.declaredCount
    }

    /// The bytes of `row`'s header as it states them: where its first payload starts (0 if it
    /// has no readable header).
    package static func headerSize(_ row: UnsafeRawBufferPointer) -> Int {
        Header(row)?.declaredEnd ?? 0
    }

    /// Where `row` says field `index`'s payload ends (`index` below `fieldCount(row)`).
    package static func end(_ row: UnsafeRawBufferPointer, _ index: Int) -> Int {
        Header(row)!.offset(row, index)
    }

    /// `row` with field `index` replaced by `payload` (nil for null), widened to `fields`
    /// fields if it had fewer.
    package static func replacing(_ index: Int, with payload: [UInt8]?, in row: UnsafeRawBufferPointer, fields: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        payload.withUnsafeBufferPointerIfPresent { appendReplacing(index, with: $0, in: row, fields: fields, to: &bytes) }
        return bytes
    }

    /// Appends to `bytes` what `replacing` returns, without building an array of its own: for
    /// a bulk update that writes many rows through one buffer.
    package static func appendReplacing(
        _ index: Int, with payload: UnsafeRawBufferPointer?, in row: UnsafeRawBufferPointer, fields: Int, to bytes: inout [UInt8]
    ) {
        let count = max(fields, fieldCount(row), index &+ 1)
        var payloadBytes = 0
        for field in 0..<count {
            let part = field == index ? payload : self.field(row, field)
            payloadBytes &+= part?.count ?? 0
        }
        let shape = Shape(fieldCount: count, payloadBytes: payloadBytes)
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: shape.headerBytes))
        var end = shape.headerBytes
        bytes.withUnsafeMutableBytes { out in
            shape.writeHeader(to: out.baseAddress! + start) { field in
                let part = field == index ? payload : self.field(row, field)
                end &+= part?.count ?? 0
                return end
            }
        }
        for field in 0..<count {
            let part = field == index ? payload : self.field(row, field)
            if let part, !part.isEmpty { bytes.append(contentsOf: part) }
        }
    }

    @inlinable
    package static func store(_ value: UInt32, at offset: Int, in bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { raw in
            for i in 0..<4 { bytes[offset + i] = raw[i] }
        }
    }
}

extension Optional where Wrapped == [UInt8] {
    /// Calls `body` with the array's bytes, or with nil when there is no array.
    fileprivate func withUnsafeBufferPointerIfPresent<R>(_ body: (UnsafeRawBufferPointer?) -> R) -> R {
        guard let self else { return body(nil) }
        return self.withUnsafeBytes { body($0) }
    }
}
