import BurrowStorage

/// String and data fields in a row (file formats 6 and 7). The row's offsets bound each payload, so a
/// string's or data's bytes need no length of their own: the payload is the bytes themselves,
/// except where their first byte could not tell them apart from two markers:
///
///     0xFE               the value lives in the class's blob tree (`externalMarker`); the
///                        payload is this one byte
///     0xFF, bytes…       the bytes that follow, verbatim: an empty value (a non-null payload is
///                        never empty), or one whose first byte is 0xFE or 0xFF
///     bytes…             the bytes, verbatim, when they are not empty and start below 0xFE
///
/// UTF-8 never holds the bytes 0xFE and 0xFF, so a string needs the escape only when it is
/// empty; data whose first byte is 0xFE or 0xFF pays one byte for it. The blob tree keeps a
/// long value in `ValueCodec`'s form (its length, then its bytes), as every format has.
extension RowCodec {
    /// The first byte of a string or data field that the blob tree holds.
    @usableFromInline static let externalMarker: UInt8 = 0xFE
    /// The first byte of a string or data field whose bytes follow it verbatim.
    @usableFromInline static let textEscape: UInt8 = 0xFF

    /// Appends the row payload of a string's or data's `bytes`.
    @inlinable @inline(__always)
    package static func appendText(_ content: UnsafeRawBufferPointer, to bytes: inout [UInt8]) {
        if content.isEmpty || content[0] >= externalMarker { bytes.append(textEscape) }
        bytes.append(contentsOf: content)
    }

    /// The bytes of a string or data field's row `payload`, or nil if it holds none: null
    /// (empty), or a reference to the blob tree.
    @inlinable @inline(__always)
    package static func text(_ payload: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        guard let first = payload.first else { return nil }
        if first < externalMarker { return payload }
        return first == textEscape ? UnsafeRawBufferPointer(rebasing: payload[1...]) : nil
    }

    /// The string of a string field's row `payload`, or nil if it holds none (`text`).
    @inlinable @inline(__always)
    package static func string(_ payload: UnsafeRawBufferPointer) -> String? {
        text(payload).map(ValueCodec.string)
    }

    /// What is wrong with a string or data field's row `payload`, or nil if nothing is: a
    /// reference to the blob tree is its marker alone.
    @inlinable
    package static func textProblem(_ payload: UnsafeRawBufferPointer) -> String? {
        guard payload.first == externalMarker, payload.count != 1 else { return nil }
        return "starts with the blob marker 0xFE but holds \(counted(payload.count, "byte"))"
    }

    /// Whether a row payload of `type` is a reference to a payload stored in the blob tree.
    @inlinable @inline(__always)
    package static func isExternal(_ payload: UnsafeRawBufferPointer, as type: PropertyType) -> Bool {
        switch type {
        case .string, .data: return payload.count == 1 && payload[0] == externalMarker
        case .any: return ValueCodec.isExternal(payload, as: .any)
        default: return false
        }
    }

    /// The reference a row keeps for a payload of `type` that the blob tree holds, and what the
    /// blob tree keeps for `payload`, the row payload of a long value.
    package static func externalize(_ payload: [UInt8], as type: PropertyType) -> (reference: [UInt8], blob: [UInt8]) {
        guard type == .string || type == .data else { return (ValueCodec.externalReference(for: payload, as: type), payload) }
        var blob: [UInt8] = []
        payload.withUnsafeBytes { payload in
            let content = text(payload) ?? UnsafeRawBufferPointer(rebasing: payload[0..<0])
            ValueCodec.appendLengthPrefixed(content, count: content.count, to: &blob)
        }
        return ([externalMarker], blob)
    }

    /// The row payload of a long value of `type`, from what the blob tree keeps for it
    /// (`externalize`); nil if the blob does not hold a sound value.
    package static func payload(fromBlob blob: UnsafeRawBufferPointer, as type: PropertyType) -> [UInt8]? {
        guard type == .string || type == .data else { return Array(blob) }
        guard ValueCodec.lengthProblem(blob, as: type) == nil else { return nil }
        var payload: [UInt8] = []
        appendText(UnsafeRawBufferPointer(rebasing: blob[4...]), to: &payload)
        return payload
    }
}
