/// The payload of a `List`, `MutableSet` or `Map` field, stored in its object's row:
///
///     count       UInt32
///     elements    UInt32 length + element payload (`ValueCodec`; length 0 is null), in order
///
/// A map's entries are its key (UInt32 length + UTF-8) followed by the element, in key order.
enum CollectionCodec {
    static func encode(_ elements: [_StoredValue], as type: PropertyType) -> [UInt8] {
        var bytes: [UInt8] = []
        ValueCodec.appendLE(UInt32(elements.count), to: &bytes)
        for element in elements { appendElement(element, as: type, to: &bytes) }
        return bytes
    }

    static func encode(_ entries: [(key: String, value: _StoredValue)], as type: PropertyType) -> [UInt8] {
        var bytes: [UInt8] = []
        ValueCodec.appendLE(UInt32(entries.count), to: &bytes)
        for (key, value) in entries {
            ValueCodec.appendLE(UInt32(key.utf8.count), to: &bytes)
            bytes.append(contentsOf: key.utf8)
            appendElement(value, as: type, to: &bytes)
        }
        return bytes
    }

    private static func appendElement(_ element: _StoredValue, as type: PropertyType, to bytes: inout [UInt8]) {
        let start = bytes.count
        ValueCodec.appendLE(UInt32(0), to: &bytes)
        ValueCodec.append(element, as: type, to: &bytes)
        let length = UInt32(bytes.count - start - 4)
        withUnsafeBytes(of: length.littleEndian) { raw in
            for i in 0..<4 { bytes[start + i] = raw[i] }
        }
    }

    /// Calls `body` with each element payload (empty for null), in order.
    static func forEachElement(_ payload: UnsafeRawBufferPointer?, _ body: (UnsafeRawBufferPointer) -> Void) {
        guard let payload, payload.count >= 4 else { return }
        var offset = 4
        for _ in 0..<Int(ValueCodec.u32(payload, 0)) {
            let length = Int(ValueCodec.u32(payload, offset))
            body(UnsafeRawBufferPointer(rebasing: payload[offset + 4..<offset + 4 + length]))
            offset += 4 + length
        }
    }

    /// Calls `body` with each map entry's key and element payload, in order.
    static func forEachEntry(_ payload: UnsafeRawBufferPointer?, _ body: (String, UnsafeRawBufferPointer) -> Void) {
        guard let payload, payload.count >= 4 else { return }
        var offset = 4
        for _ in 0..<Int(ValueCodec.u32(payload, 0)) {
            let keyLength = Int(ValueCodec.u32(payload, offset))
            let key = String(decoding: UnsafeRawBufferPointer(rebasing: payload[offset + 4..<offset + 4 + keyLength]), as: UTF8.self)
            offset += 4 + keyLength
            let length = Int(ValueCodec.u32(payload, offset))
            body(key, UnsafeRawBufferPointer(rebasing: payload[offset + 4..<offset + 4 + length]))
            offset += 4 + length
        }
    }

    static func count(_ payload: UnsafeRawBufferPointer?) -> Int {
        guard let payload, payload.count >= 4 else { return 0 }
        return Int(ValueCodec.u32(payload, 0))
    }
}
