import BurrowStorage
import Foundation

/// Order-preserving byte encodings of the values a tree can be keyed by: primary keys, indexed
/// properties and object keys. For two values `a < b` of one type, the encoding of `a` sorts
/// before the encoding of `b` bytewise, which is the order the storage engine keeps keys in.
/// So an index answers `==`, `IN` and ranges with seeks and scans, never by decoding.
///
/// Strings and data are self-delimiting (a zero byte is escaped and a terminator appended), so
/// an encoded value may be followed by more key parts, such as the object key that makes an
/// index entry unique, without changing the order.
@usableFromInline
package enum KeyEncoding {
    /// Integers: big-endian two's complement with the sign bit flipped.
    @usableFromInline
    package static func append(_ value: Int64, to key: inout [UInt8]) {
        appendBigEndian(UInt64(bitPattern: value) ^ (1 << 63), to: &key)
    }

    /// Object keys and other unsigned numbers: big-endian.
    @usableFromInline
    package static func append(_ value: UInt64, to key: inout [UInt8]) {
        appendBigEndian(value, to: &key)
    }

    @usableFromInline
    package static func append(_ value: Bool, to key: inout [UInt8]) {
        key.append(value ? 1 : 0)
    }

    /// Doubles in numeric order: negative numbers have every bit inverted, others just the sign
    /// bit flipped. Both zeros encode as +0 (they are equal), and every NaN as one NaN that sorts
    /// before all numbers, so that equal values have equal keys.
    @usableFromInline
    package static func append(_ value: Double, to key: inout [UInt8]) {
        if value.isNaN {
            appendBigEndian(0, to: &key)
            return
        }
        let bits = (value == 0 ? 0.0 : value).bitPattern
        appendBigEndian(bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63), to: &key)
    }

    @usableFromInline
    package static func append(_ value: Float, to key: inout [UInt8]) {
        append(Double(value), to: &key)
    }

    /// Dates by their instant, to the precision of `Double` seconds since 1970.
    @usableFromInline
    package static func append(_ value: Date, to key: inout [UInt8]) {
        append(value.timeIntervalSince1970, to: &key)
    }

    /// Strings by their UTF-8 bytes (the order of Unicode scalars), self-delimiting.
    @usableFromInline
    package static func append(_ value: String, to key: inout [UInt8]) {
        appendDelimited(value.utf8, to: &key)
    }

    /// Data by its bytes, self-delimiting.
    @usableFromInline
    package static func append(_ value: Data, to key: inout [UInt8]) {
        appendDelimited(value, to: &key)
    }

    /// ObjectIds by their 12 bytes.
    @usableFromInline
    package static func append(_ value: ObjectId, to key: inout [UInt8]) {
        value.appendBytes(to: &key)
    }

    /// `appendBounded` of a string's UTF-8, compiled here: inlined codecs in other modules
    /// call it rather than the generic form, which they would run unspecialized.
    @usableFromInline
    package static func appendBounded(string: String, to key: inout [UInt8]) {
        appendBounded(string.utf8, to: &key)
    }

    /// `appendBounded` of data's bytes, compiled here (see `appendBounded(string:to:)`).
    @usableFromInline
    package static func appendBounded(data: Data, to key: inout [UInt8]) {
        appendBounded(data, to: &key)
    }

    /// The longest string or data value index keys hold whole; longer ones are cut (see
    /// `appendBounded`), so that every index key fits in a page whatever the value's length.
    @usableFromInline
    package static let boundedLength = 256

    /// A string's or data's bytes as `appendDelimited` writes them if there are at most
    /// `boundedLength`; otherwise the first `boundedLength` bytes escaped, then 0x00 0x01, then
    /// a 16-byte hash of all the bytes. Equal values still encode equally, and a cut value sorts
    /// after every value that is its prefix; only cut values sharing their first
    /// `boundedLength` bytes sort among themselves by hash rather than by value, which a range
    /// scan must check against the values themselves.
    package static func appendBounded(_ bytes: some Collection<UInt8>, to key: inout [UInt8]) {
        guard bytes.count > boundedLength else {
            appendDelimited(bytes, to: &key)
            return
        }
        for byte in bytes.prefix(boundedLength) {
            key.append(byte)
            if byte == 0 { key.append(0xFF) }
        }
        key.append(0)
        key.append(1)
        let all = Array(bytes)
        all.withUnsafeBytes { raw in
            appendBigEndian(Checksum.xxh64(raw, seed: 0), to: &key)
            appendBigEndian(Checksum.xxh64(raw, seed: 0x9E37_79B9_7F4A_7C15), to: &key)
        }
    }

    /// UUIDs by their 16 bytes.
    @usableFromInline
    package static func append(_ value: UUID, to key: inout [UInt8]) {
        withUnsafeBytes(of: value.uuid) { key.append(contentsOf: $0) }
    }

    /// The big-endian integer at the start of `bytes`, as `append(_: UInt64, to:)` wrote it.
    @usableFromInline
    package static func readUInt64(_ bytes: some Collection<UInt8>) -> UInt64? {
        guard bytes.count >= 8 else { return nil }
        return bytes.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }

    private static func appendBigEndian(_ value: UInt64, to key: inout [UInt8]) {
        for shift in stride(from: 56, through: 0, by: -8) { key.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    /// Each 0x00 becomes 0x00 0xFF, and 0x00 0x00 ends the value: a value then sorts before
    /// every longer value it is a prefix of, whatever follows it in the key.
    private static func appendDelimited(_ bytes: some Sequence<UInt8>, to key: inout [UInt8]) {
        // Contiguous bytes (a native string's, a Data's) are copied a run at a time between
        // zero bytes, rather than one append per byte.
        let copied: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            var start = 0
            while let zero = buffer[start...].firstIndex(of: 0) {
                key.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[start...zero]))
                key.append(0xFF)
                start = zero + 1
            }
            key.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[start...]))
        }
        if copied == nil {
            for byte in bytes {
                key.append(byte)
                if byte == 0 { key.append(0xFF) }
            }
        }
        key.append(0)
        key.append(0)
    }
}
