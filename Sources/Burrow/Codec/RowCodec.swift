/// The encoding of one object's row in its table tree (object key → row):
///
///     0        fieldCount  UInt32
///     4 + 4i   offset of field i's payload from the row's start, UInt32; 0 means null
///     …        payloads (`ValueCodec`), in field order
///
/// The offset table lets a read of one property find its payload directly and decode nothing
/// else. A row with fewer fields than the schema (written before properties were added) reads
/// the missing ones as null. Collections keep only their element count here; their elements
/// live in trees of their own. A string or data value longer than `Realm.inlinePayloadLimit`
/// lives in the class's blob tree, and its field holds a reference (`ValueCodec.externalMarker`),
/// so that changing another field never copies it.
enum RowCodec {
    /// A row of already encoded payloads, one per field (nil for null).
    static func assemble(_ payloads: [[UInt8]?]) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 4 + 4 * payloads.count)
        store(UInt32(payloads.count), at: 0, in: &bytes)
        for (index, payload) in payloads.enumerated() {
            guard let payload else { continue }
            store(UInt32(bytes.count), at: 4 + 4 * index, in: &bytes)
            bytes.append(contentsOf: payload)
        }
        return bytes
    }

    /// The payload of field `index`, or nil if the field is null. Payloads lie in field order,
    /// so one ends where the next non-null field's begins (or the row ends).
    @inline(__always)
    static func field(_ row: UnsafeRawBufferPointer, _ index: Int) -> UnsafeRawBufferPointer? {
        let count = fieldCount(row)
        guard index < count else { return nil }
        let offset = Int(ValueCodec.u32(row, 4 + 4 * index))
        guard offset != 0 else { return nil }
        var end = row.count
        for next in (index + 1)..<max(count, index + 1) {
            let nextOffset = Int(ValueCodec.u32(row, 4 + 4 * next))
            if nextOffset != 0 {
                end = nextOffset
                break
            }
        }
        return UnsafeRawBufferPointer(rebasing: row[offset..<end])
    }

    @inline(__always)
    static func fieldCount(_ row: UnsafeRawBufferPointer) -> Int {
        Int(ValueCodec.u32(row, 0))
    }

    /// `row` with field `index` replaced by `payload` (nil for null), widened to `fields`
    /// fields if it had fewer.
    static func replacing(_ index: Int, with payload: [UInt8]?, in row: UnsafeRawBufferPointer, fields: Int) -> [UInt8] {
        let count = max(fields, fieldCount(row))
        var bytes = [UInt8](repeating: 0, count: 4 + 4 * count)
        bytes.reserveCapacity(row.count + (payload?.count ?? 0) + 4 * count)
        store(UInt32(count), at: 0, in: &bytes)
        for field in 0..<count {
            if field == index {
                guard let payload else { continue }
                store(UInt32(bytes.count), at: 4 + 4 * field, in: &bytes)
                bytes.append(contentsOf: payload)
            } else if let old = self.field(row, field) {
                store(UInt32(bytes.count), at: 4 + 4 * field, in: &bytes)
                bytes.append(contentsOf: old)
            }
        }
        return bytes
    }

    private static func store(_ value: UInt32, at offset: Int, in bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { raw in
            for i in 0..<4 { bytes[offset + i] = raw[i] }
        }
    }
}
