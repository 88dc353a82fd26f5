import Foundation
import Synchronization

/// A 12-byte identifier that is unique without coordination, as in RealmSwift and MongoDB:
/// a 4-byte creation time in seconds, 5 random bytes chosen once per process, and a 3-byte
/// counter that starts at a random value. Ids generated in one process sort by creation order
/// (to the second, then by counter); `Comparable` orders them by their bytes.
///
/// `Sendable`, `Hashable` and `Codable` (as its 24-character hex string).
public struct ObjectId: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Bytes 0–7 and 8–11, big-endian, so that comparing the integers compares the bytes.
    @usableFromInline let high: UInt64
    @usableFromInline let low: UInt32

    /// The zero id (all bytes 0), as RealmSwift's `ObjectId()` gives. Use `generate()` for a new id.
    public init() {
        high = 0
        low = 0
    }

    /// A new id, unique in this process and, with overwhelming likelihood, everywhere.
    public static func generate() -> ObjectId {
        let seconds = UInt32(truncatingIfNeeded: Int64(Date().timeIntervalSince1970))
        let count = ObjectIdSource.counter.add(1, ordering: .relaxed).newValue & 0xFF_FFFF
        return ObjectId(seconds: seconds, random: ObjectIdSource.processRandom, counter: count)
    }

    /// The id `string` spells (24 hexadecimal digits, either case), or why it spells none.
    /// The API's `init(string:)` throws the reason as the API's own error.
    package static func parse(_ string: String) -> Result<ObjectId, ValueSyntaxError> {
        let digits = Array(string.utf8)
        guard digits.count == 24 else {
            return .failure(
                ValueSyntaxError(
                    "\"\(string)\" is not an ObjectId: an ObjectId is 24 hexadecimal digits, this has \(digits.count) characters."))
        }
        var value: (UInt64, UInt32) = (0, 0)
        for (index, digit) in digits.enumerated() {
            guard let nibble = Self.nibble(digit) else {
                return .failure(ValueSyntaxError("\"\(string)\" is not an ObjectId: character \(index + 1) is not a hexadecimal digit."))
            }
            if index < 16 { value.0 = value.0 << 4 | UInt64(nibble) } else { value.1 = value.1 << 4 | UInt32(nibble) }
        }
        return .success(ObjectId(high: value.0, low: value.1))
    }

    /// An id for a given time, with the 5 middle bytes taken from `machineId` (3 bytes) and
    /// `processId` (2 bytes), and a counter from this process, as RealmSwift's initializer of
    /// the same shape.
    public init(timestamp: Date, machineId: Int, processId: Int) {
        let seconds = UInt32(truncatingIfNeeded: Int64(timestamp.timeIntervalSince1970))
        let random = (UInt64(truncatingIfNeeded: machineId) & 0xFF_FFFF) << 16 | (UInt64(truncatingIfNeeded: processId) & 0xFFFF)
        let count = ObjectIdSource.counter.add(1, ordering: .relaxed).newValue & 0xFF_FFFF
        self.init(seconds: seconds, random: random, counter: count)
    }

    private init(high: UInt64, low: UInt32) {
        self.high = high
        self.low = low
    }

    private init(seconds: UInt32, random: UInt64, counter: UInt32) {
        // seconds (4 bytes) | random (5 bytes) | counter (3 bytes)
        high = UInt64(seconds) << 32 | (random >> 8) & 0xFFFF_FFFF
        low = UInt32(truncatingIfNeeded: random & 0xFF) << 24 | counter & 0xFF_FFFF
    }

    /// 64 bits that keep the order of ids made in one process: the creation second, the
    /// counter, and the five random bytes folded into one (see `ObjectKey(derivedFrom:)`).
    @inlinable
    package var orderedKeyBits: UInt64 {
        let random = (high & 0xFFFF_FFFF) << 8 | UInt64(low >> 24)
        var folded = random
        folded ^= folded >> 32
        folded ^= folded >> 16
        folded ^= folded >> 8
        return high & 0xFFFF_FFFF_0000_0000 | UInt64(low & 0xFF_FFFF) << 8 | folded & 0xFF
    }

    /// The 12 bytes, in order.
    public var bytes: [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: high >> (56 - 8 * UInt64($0))) }
            + (0..<4).map { UInt8(truncatingIfNeeded: low >> (24 - 8 * UInt32($0))) }
    }

    /// The id whose 12 bytes are all zero.
    package static let zero = ObjectId(high: 0, low: 0)

    /// The id whose 12 bytes start at `raw`, as `appendBytes(to:)` wrote them.
    @inlinable
    package init(rawBytes raw: UnsafeRawBufferPointer) {
        high = UInt64(bigEndian: raw.loadUnaligned(as: UInt64.self))
        low = UInt32(bigEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
    }

    /// Appends the 12 bytes, in order, without building an intermediate array.
    @inlinable
    package func appendBytes(to bytes: inout [UInt8]) {
        withUnsafeBytes(of: high.bigEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: low.bigEndian) { bytes.append(contentsOf: $0) }
    }

    /// The id as 24 lowercase hexadecimal digits.
    public var stringValue: String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(24)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// When the id was generated, to the second.
    public var timestamp: Date {
        Date(timeIntervalSince1970: TimeInterval(UInt32(truncatingIfNeeded: high >> 32)))
    }

    public var description: String { stringValue }

    public static func < (lhs: ObjectId, rhs: ObjectId) -> Bool {
        (lhs.high, lhs.low) < (rhs.high, rhs.low)
    }

    /// The value of the hexadecimal digit `digit` (either case), or nil if it is not one.
    package static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// The per-process parts of generated ids.
private enum ObjectIdSource {
    /// Five random bytes, chosen once per process.
    package static let processRandom = UInt64.random(in: 0...0xFF_FFFF_FFFF)
    /// Incremented for every id; its low 24 bits are the id's counter. Starts at a random value.
    package static let counter = Atomic<UInt32>(UInt32.random(in: 0...0xFF_FFFF))
}
