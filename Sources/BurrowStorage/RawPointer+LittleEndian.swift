// Fixed-width integers on pages are little-endian and may sit at any offset. These accessors are
// the only way the engine reads or writes them, so the byte order is decided in one place.

extension UnsafeRawPointer {
    @inline(__always) func u8(_ offset: Int) -> UInt8 {
        load(fromByteOffset: offset, as: UInt8.self)
    }
    @inline(__always) func u16(_ offset: Int) -> UInt16 {
        UInt16(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt16.self))
    }
    @inline(__always) func u32(_ offset: Int) -> UInt32 {
        UInt32(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }
    @inline(__always) func u64(_ offset: Int) -> UInt64 {
        UInt64(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }
}

extension UnsafeMutableRawPointer {
    @inline(__always) func setU8(_ offset: Int, _ value: UInt8) {
        storeBytes(of: value, toByteOffset: offset, as: UInt8.self)
    }
    @inline(__always) func setU16(_ offset: Int, _ value: UInt16) {
        storeBytes(of: value.littleEndian, toByteOffset: offset, as: UInt16.self)
    }
    @inline(__always) func setU32(_ offset: Int, _ value: UInt32) {
        storeBytes(of: value.littleEndian, toByteOffset: offset, as: UInt32.self)
    }
    @inline(__always) func setU64(_ offset: Int, _ value: UInt64) {
        storeBytes(of: value.littleEndian, toByteOffset: offset, as: UInt64.self)
    }
}

/// Compares two byte strings the way keys are ordered: bytewise, a prefix before any longer key.
/// Negative, zero or positive. Eight bytes at a time as big-endian words: keys are mostly short
/// (encoded integers, object keys), and a call into libc per comparison cost more than the work.
@inline(__always)
func compareKeys(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
    let common = min(a.count, b.count)
    if common > 0, let pa = a.baseAddress, let pb = b.baseAddress {
        var offset = 0
        while offset &+ 8 <= common {
            let x = UInt64(bigEndian: pa.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            let y = UInt64(bigEndian: pb.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            if x != y { return x < y ? -1 : 1 }
            offset &+= 8
        }
        while offset < common {
            let x = pa.load(fromByteOffset: offset, as: UInt8.self)
            let y = pb.load(fromByteOffset: offset, as: UInt8.self)
            if x != y { return x < y ? -1 : 1 }
            offset &+= 1
        }
    }
    return a.count &- b.count
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `Array.withUnsafeBytes` keeping the typed error (the standard library's version rethrows `any Error`).
@inline(__always)
package func withBytes<R>(_ array: [UInt8], _ body: (UnsafeRawBufferPointer) throws(StorageError) -> R) throws(StorageError) -> R {
    try array.withUnsafeBytes { bytes in Result { () throws(StorageError) in try body(bytes) } }.get()
}

/// A string's UTF-8 bytes, keeping the typed error.
@inline(__always)
func withUTF8Bytes<R>(_ string: String, _ body: (UnsafeRawBufferPointer) throws(StorageError) -> R) throws(StorageError) -> R {
    var string = string
    return try string.withUTF8 { utf8 in Result { () throws(StorageError) in try body(UnsafeRawBufferPointer(utf8)) } }.get()
}
