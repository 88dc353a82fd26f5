#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The logical contents of a `.realm` file, whole, in memory: the file's bytes, or for an
/// encrypted file its decrypted pages. Every ref in the file is an offset into these bytes.
///
/// The file is read, not mapped: a file another process shortens while it is being read
/// makes a read fail, where a mapping would kill the process when it touched the lost pages.
package struct FileImage: Sendable {
    package let bytes: [UInt8]

    package init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Reads the file at `path` whole.
    package init(contentsOf path: String) throws(RealmFileError) {
        bytes = try Self.read(path)
    }

    package var count: Int { bytes.count }

    /// The little-endian unsigned integer of `width` bytes at `offset`; the caller has checked
    /// that the bytes are in the image.
    @inline(__always)
    func littleEndian(at offset: Int, width: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in (0..<width).reversed() { value = value << 8 | UInt64(bytes[offset + index]) }
        return value
    }

    /// The 8-byte little-endian integer at `offset`, or an error if it is not in the image.
    func uint64(at offset: Int) throws(RealmFileError) -> UInt64 {
        guard offset >= 0, offset <= count - 8 else { throw .damaged("a field lies past the end of the file", at: offset) }
        return littleEndian(at: offset, width: 8)
    }

    /// The whole file at `path`, read with `pread` until its end.
    static func read(_ path: String) throws(RealmFileError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else {
            throw RealmFileError(.unavailable, "The .realm file at \(path) cannot be opened: \(String(cString: strerror(errno))).")
        }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let got = chunk.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(bytes.count)) }
            if got < 0 {
                if errno == EINTR { continue }
                throw RealmFileError(.unavailable, "The .realm file at \(path) cannot be read: \(String(cString: strerror(errno))).")
            }
            if got == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<got])
        }
    }
}
