import BurrowStorage

/// One change of a synced object waiting for upload: what a commit queued in the `outbox` tree,
/// under its sequence number, in the commit's own transaction.
///
/// An entry names the object and what happened to it, not the values: an upload reads the
/// values the object holds then, so a property changed twice before its upload goes up once,
/// with its newest value, and the file always shows what the server will hold once the
/// outbox is empty.
package struct OutboxEntry: Sendable, Equatable {
    package enum Kind: UInt8, Sendable {
        /// The object was made (or deleted and made again) and every property is new.
        case insert = 1
        /// Some properties changed (`properties`).
        case update = 2
        /// The object was deleted.
        case delete = 3
    }

    /// The entry's place in upload order: commit order, then class id and object key.
    package var sequence: UInt64
    package var className: String
    /// The object's primary key (never a link).
    package var primaryKey: StoreValue
    package var kind: Kind
    /// For an update, the names of the properties that changed; empty otherwise.
    package var properties: [String]

    package init(sequence: UInt64, className: String, primaryKey: StoreValue, kind: Kind, properties: [String] = []) {
        self.sequence = sequence
        self.className = className
        self.primaryKey = primaryKey
        self.kind = kind
        self.properties = properties
    }

    /// The key of the entry in the `outbox` tree: its sequence number, big-endian, so that the
    /// tree's order is upload order.
    package static func key(_ sequence: UInt64) -> [UInt8] { withUnsafeBytes(of: sequence.bigEndian) { Array($0) } }

    /// The entry's value in the tree: the kind, the class name, the primary key as an
    /// `AnyRealmValue` payload, then the property names; strings and the key length-prefixed.
    package var encoded: [UInt8] {
        var bytes: [UInt8] = [kind.rawValue]
        Self.appendString(className, to: &bytes)
        var key: [UInt8] = []
        ValueCodec.appendAny(primaryKey, to: &key)
        ValueCodec.appendLengthPrefixed(key, count: key.count, to: &bytes)
        ValueCodec.appendLE(UInt32(properties.count), to: &bytes)
        for property in properties { Self.appendString(property, to: &bytes) }
        return bytes
    }

    /// Reads back the entry stored under `key` as `value`; nil for bytes no entry has (a
    /// damaged file), which the caller reports with the tree's name.
    package init?(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        guard key.count == 8, let first = value.first, let kind = Kind(rawValue: first) else { return nil }
        var reader = ByteReader(UnsafeRawBufferPointer(rebasing: value[1...]))
        guard let className = reader.string(), let keyBytes = reader.prefixed(), let count = reader.u32() else { return nil }
        let primaryKey = ValueCodec.decode(keyBytes, as: .any, linkTarget: 0) { _, _ -> StoreValue in .null }
        guard ValueCodec.lengthProblem(keyBytes, as: .any) == nil, !keyBytes.isEmpty, keyBytes[0] != ValueCodec.Tag.link.rawValue else {
            return nil
        }
        var properties: [String] = []
        for _ in 0..<count {
            guard let name = reader.string() else { return nil }
            properties.append(name)
        }
        guard reader.isAtEnd else { return nil }
        self.init(
            sequence: UInt64(bigEndian: key.loadUnaligned(as: UInt64.self)), className: className, primaryKey: primaryKey, kind: kind,
            properties: properties)
    }

    private static func appendString(_ string: String, to bytes: inout [UInt8]) {
        ValueCodec.appendLengthPrefixed(string.utf8, count: string.utf8.count, to: &bytes)
    }
}

/// Reads length-prefixed parts of an entry in order, never past its end.
private struct ByteReader {
    private let bytes: UnsafeRawBufferPointer
    private var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    var isAtEnd: Bool { offset == bytes.count }

    mutating func u32() -> UInt32? {
        guard bytes.count - offset >= 4 else { return nil }
        defer { offset += 4 }
        return ValueCodec.u32(bytes, offset)
    }

    mutating func prefixed() -> UnsafeRawBufferPointer? {
        guard let count = u32().map(Int.init), count <= bytes.count - offset else { return nil }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
    }

    mutating func string() -> String? {
        guard let content = prefixed() else { return nil }
        return String(validating: content, as: UTF8.self)
    }
}
