import BurrowStorage

/// The identity of an object within its class's table: a 64-bit integer assigned when the
/// object is added. Links store it. In a class without a primary key, keys come in insertion
/// order and are never reused, even after the object is deleted; in a class with one, the key
/// is derived from the primary key (see `ObjectKey(derivedFrom:)`), so an object added again
/// with a deleted object's primary key gets its key back.
@usableFromInline
package struct ObjectKey: Hashable, Sendable, Comparable, CustomStringConvertible {
    @usableFromInline package let rawValue: UInt64

    @inlinable package init(_ rawValue: UInt64) { self.rawValue = rawValue }

    /// The 8-byte big-endian form that table, list and backlink trees are keyed by, so that
    /// keys sort numerically.
    package var bytes: [UInt8] {
        withUnsafeBytes(of: rawValue.bigEndian) { Array($0) }
    }

    /// Calls `body` with the 8-byte big-endian form, kept on the stack.
    package func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws(StorageError) -> R) throws(StorageError) -> R {
        try withUnsafeBytes(of: rawValue.bigEndian) { bytes in Result { () throws(StorageError) in try body(bytes) } }.get()
    }

    @inlinable
    package func append(to key: inout [UInt8]) {
        withUnsafeBytes(of: rawValue.bigEndian) { key.append(contentsOf: $0) }
    }

    /// Reads the big-endian key at `offset` of `bytes`.
    @inlinable
    package static func read(_ bytes: UnsafeRawBufferPointer, at offset: Int = 0) -> ObjectKey {
        ObjectKey(UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
    }

    @inlinable package static func < (a: ObjectKey, b: ObjectKey) -> Bool { a.rawValue < b.rawValue }

    @usableFromInline package var description: String { "#\(rawValue)" }
}
