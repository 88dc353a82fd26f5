import BurrowStorage
import Foundation

/// The byte form of one value: a row field, a list or map element, or a set member's value.
///
/// Every non-null payload is at least one byte, so an empty payload can stand for null in
/// collections. Fixed-size values are little-endian; strings and data are a UInt32 length and
/// the bytes; a link is the target's 8-byte object key (its class is the property's); an
/// `AnyRealmValue` is a tag byte and the payload of the tagged type, a link adding the target
/// table's 4-byte id before the key, a list or dictionary its elements (`ValueCodec+Nested`).
@usableFromInline
package enum ValueCodec {
    /// Tags of `AnyRealmValue` payloads. Stored in files: never renumber.
    @usableFromInline
    package enum Tag: UInt8 {
        case null = 0
        case bool = 1
        case int = 2
        case float = 3
        case double = 4
        case string = 5
        case data = 6
        case date = 7
        case objectId = 8
        case uuid = 9
        case decimal128 = 10
        case link = 11
        case list = 12
        case dictionary = 13
    }

    /// Resolves a link: the target table's id and the object key, to the value a layer holds
    /// for it (the store keeps the link; the API makes the object, or `.null` if it no longer
    /// exists).
    @usableFromInline
    package typealias LinkResolver<Link> = (_ table: UInt32, _ key: ObjectKey) -> StoredValue<Link>

    // MARK: Encoding

    /// Appends the payload of `value`, a value of `type`. Linked objects must be managed (the
    /// realm adds or checks them before encoding). `.null` appends nothing.
    @inlinable
    package static func append<Link: StoredLink>(_ value: StoredValue<Link>, as type: PropertyType, to bytes: inout [UInt8]) {
        if type == .any {
            appendAny(value, to: &bytes)
            return
        }
        switch value {
        case .null: break
        case .bool(let b): bytes.append(b ? 1 : 0)
        case .int(let i): appendLE(UInt64(bitPattern: i), to: &bytes)
        case .float(let f): appendLE(f.bitPattern, to: &bytes)
        case .double(let d): appendLE(d.bitPattern, to: &bytes)
        case .string(let s): appendLengthPrefixed(s.utf8, count: s.utf8.count, to: &bytes)
        case .data(let d): appendLengthPrefixed(d, count: d.count, to: &bytes)
        case .date(let d): appendLE(d.timeIntervalSinceReferenceDate.bitPattern, to: &bytes)
        case .objectId(let o): o.appendBytes(to: &bytes)
        case .uuid(let u): withUnsafeBytes(of: u.uuid) { bytes.append(contentsOf: $0) }
        case .decimal128(let d):
            let bits = d.bidBits
            appendLE(bits.low, to: &bytes)
            appendLE(bits.high, to: &bytes)
        case .object(let object):
            guard let link = object.objectLink else { preconditionFailure("internal error: encoding a link to an unmanaged object") }
            appendLE(link.key.rawValue, to: &bytes)
        case .list, .dictionary: preconditionFailure("internal error: a list or dictionary stored as a value of a property of type \(type)")
        }
    }

    @inlinable
    package static func appendAny<Link: StoredLink>(_ value: StoredValue<Link>, to bytes: inout [UInt8]) {
        let tag: Tag
        switch value {
        case .null:
            bytes.append(Tag.null.rawValue)
            return
        case .bool: tag = .bool
        case .int: tag = .int
        case .float: tag = .float
        case .double: tag = .double
        case .string: tag = .string
        case .data: tag = .data
        case .date: tag = .date
        case .objectId: tag = .objectId
        case .uuid: tag = .uuid
        case .decimal128: tag = .decimal128
        case .object(let object):
            guard let link = object.objectLink else { preconditionFailure("internal error: encoding a link to an unmanaged object") }
            bytes.append(Tag.link.rawValue)
            appendLE(link.table, to: &bytes)
            appendLE(link.key.rawValue, to: &bytes)
            return
        case .list, .dictionary:
            appendNested(value, to: &bytes)
            return
        }
        bytes.append(tag.rawValue)
        append(value, as: tag.propertyType, to: &bytes)
    }

    @inlinable @inline(__always)
    package static func appendLE<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// Appends `value` in the fewest little-endian bytes (1 to 8) that hold it with its sign:
    /// the form of an `Int` row field (`RowCodec`). `int(_:)` reads it back.
    @inlinable @inline(__always)
    package static func appendNarrowInt(_ value: Int64, to bytes: inout [UInt8]) {
        let size = narrowIntSize(value)
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: $0[0..<size])) }
    }

    /// The bytes `appendNarrowInt` writes for `value`.
    @inlinable @inline(__always)
    package static func narrowIntSize(_ value: Int64) -> Int {
        // The bits that differ from the sign, plus the sign bit.
        let significant = 64 &- (value < 0 ? ~value : value).leadingZeroBitCount &+ 1
        return (significant &+ 7) &>> 3
    }

    @inlinable
    package static func appendLengthPrefixed<S: Sequence<UInt8>>(_ content: S, count: Int, to bytes: inout [UInt8]) {
        appendLE(UInt32(count), to: &bytes)
        bytes.append(contentsOf: content)
    }

    // MARK: Decoding

    /// The value whose payload starts `payload`, a value of `type`. `linkTarget` is the table
    /// a typed link points into. Reads only inside `payload`: one too short for its type (which
    /// a sound file never holds) reads as null.
    @inlinable
    package static func decode<Link>(
        _ payload: UnsafeRawBufferPointer, as type: PropertyType, linkTarget: UInt32, resolve: LinkResolver<Link>
    ) -> StoredValue<Link> {
        guard !payload.isEmpty, payload.count >= fixedSize(of: type) else { return .null }
        switch type {
        case .bool: return .bool(payload[0] != 0)
        case .int: return int(payload).map { .int($0) } ?? .null
        case .float: return .float(Float(bitPattern: u32(payload, 0)))
        case .double: return .double(Double(bitPattern: u64(payload, 0)))
        case .string: return inlineString(payload).map { .string($0) } ?? .null
        case .data:
            let count = Int(u32(payload, 0))
            guard count <= payload.count &- 4 else { return .null }
            return .data(Data(UnsafeRawBufferPointer(rebasing: payload[4..<4 + count])))
        case .date: return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: u64(payload, 0))))
        case .objectId: return .objectId(ObjectId(rawBytes: payload))
        case .uuid:
            var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &raw) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: payload[0..<16])) }
            return .uuid(UUID(uuid: raw))
        case .decimal128: return .decimal128(Decimal128(bidBits: (low: u64(payload, 0), high: u64(payload, 8))))
        case .object, .linkingObjects: return resolve(linkTarget, ObjectKey(u64(payload, 0)))
        case .any:
            guard let tag = Tag(rawValue: payload[0]), tag != .null else { return .null }
            let rest = UnsafeRawBufferPointer(rebasing: payload[1...])
            if tag == .link { return rest.count >= 12 ? resolve(u32(rest, 0), ObjectKey(u64(rest, 4))) : .null }
            if tag.isCollection { return decodeNested(payload, resolve: resolve) }
            return decode(rest, as: tag.propertyType, linkTarget: 0, resolve: resolve)
        }
    }

    /// What is wrong with the length of `payload` as a value of `type`, or nil if it has one
    /// such a value has: exactly as many bytes as a fixed-size type takes, a string's or data's
    /// length field matching the bytes after it, a known `AnyRealmValue` tag. Lengths only, no
    /// pass over the bytes: reads check it before decoding (`ObjectVerification.payloadProblem`
    /// checks the rest).
    @inlinable @inline(__always)
    package static func lengthProblem(_ payload: UnsafeRawBufferPointer, as type: PropertyType) -> String? {
        switch type {
        case .string, .data:
            guard payload.count >= 4 else { return "holds \(counted(payload.count, "byte")), too few for a length" }
            let length = Int(u32(payload, 0))
            return payload.count - 4 == length ? nil : "says its value is \(counted(length, "byte")) long, but holds \(payload.count - 4)"
        case .any:
            guard let first = payload.first else { return "holds no type tag" }
            guard let tag = Tag(rawValue: first) else { return "holds the unknown AnyRealmValue type tag \(first)" }
            let rest = payload.count - 1
            switch tag {
            case .null: return rest == 0 ? nil : "holds \(counted(rest, "byte")) after its nil tag"
            case .link: return rest == 12 ? nil : "holds \(counted(rest, "byte")) where a link takes 12"
            case .list, .dictionary: return nestedProblem(payload)
            // One level: a scalar tag's type is never `.any`.
            default: return lengthProblem(UnsafeRawBufferPointer(rebasing: payload[1...]), as: tag.propertyType)
            }
        case .linkingObjects: return "holds a value, but LinkingObjects are never stored"
        default:
            let size = type == .int ? 8 : fixedSize(of: type)
            return payload.count == size ? nil : "holds \(counted(payload.count, "byte")) where \(valueName(of: type)) takes \(size)"
        }
    }

    /// How messages name a value of fixed-size `type`.
    @usableFromInline
    package static func valueName(of type: PropertyType) -> String {
        switch type {
        case .bool: "a Bool"
        case .int: "an Int"
        case .float: "a Float"
        case .double: "a Double"
        case .date: "a Date"
        case .objectId: "an ObjectId"
        case .uuid: "a UUID"
        case .decimal128: "a Decimal128"
        case .object, .linkingObjects: "a link"
        case .string, .data, .any: withArticle("\(type)")
        }
    }

    /// The bytes a payload of `type` holds at least: its fixed size, 1 for an `Int` (which a
    /// row keeps in the bytes it needs, `RowCodec.lengthProblem`), or the 4 bytes of a length
    /// (strings, data) or 1 of a tag (`AnyRealmValue`).
    @inlinable
    package static func fixedSize(of type: PropertyType) -> Int {
        switch type {
        case .bool, .any, .int: 1
        case .float, .string, .data: 4
        case .double, .date, .object, .linkingObjects: 8
        case .objectId: 12
        case .uuid, .decimal128: 16
        }
    }

    /// The value of an integer payload, or nil if `payload` holds none: 8 bytes (a collection
    /// element, an `AnyRealmValue`, a row of format 4), or fewer, sign-extended (a row field,
    /// `appendNarrowInt`). A payload longer than 8 bytes reads its first 8.
    @inlinable @inline(__always)
    package static func int(_ payload: UnsafeRawBufferPointer) -> Int64? {
        let count = payload.count
        if count >= 8 { return Int64(bitPattern: u64(payload, 0)) }
        guard count > 0, let base = payload.baseAddress else { return nil }
        if count == 1 { return Int64(base.load(as: Int8.self)) }
        var raw: UInt64 = 0
        withUnsafeMutableBytes(of: &raw) { $0.baseAddress!.copyMemory(from: base, byteCount: count) }
        let unused = 64 &- 8 &* count
        return Int64(bitPattern: UInt64(littleEndian: raw) &<< UInt64(unused)) &>> Int64(unused)
    }

    /// The string of a string payload that holds its bytes, or nil if it does not: a
    /// reference to a payload kept outside the row (whose length field, `externalMarker`,
    /// exceeds any payload), or a length running past the payload's end.
    @inlinable @inline(__always)
    package static func inlineString(_ payload: UnsafeRawBufferPointer) -> String? {
        guard payload.count >= 4 else { return nil }
        let count = Int(u32(payload, 0))
        guard count <= payload.count &- 4 else { return nil }
        return string(UnsafeRawBufferPointer(rebasing: payload[4..<4 &+ count]))
    }

    /// The string of UTF-8 `bytes`, invalid sequences repaired.
    @inlinable @inline(__always)
    package static func string(_ bytes: UnsafeRawBufferPointer) -> String {
        let count = bytes.count
        guard count > 0, let base = bytes.baseAddress else { return "" }
        // Not `String(decoding:as:)`: this initializer builds a short ASCII string (a name, a
        // city) in place, checking its bytes as a whole, where `decoding` validates and copies
        // them one by one. Invalid UTF-8 is repaired by both.
        return String(unsafeUninitializedCapacity: count) { buffer in
            UnsafeMutableRawBufferPointer(buffer).copyMemory(from: UnsafeRawBufferPointer(start: base, count: count))
            return count
        }
    }

    /// A string or data payload too long to keep in its row is stored in the class's blob tree,
    /// and the row keeps a reference: the length field holding this marker (no real value is
    /// that long). An `AnyRealmValue` keeps its tag byte before it.
    @usableFromInline
    package static let externalMarker = UInt32.max

    /// The reference a row keeps for `payload`, a payload of `type` stored outside the row.
    package static func externalReference(for payload: [UInt8], as type: PropertyType) -> [UInt8] {
        var reference: [UInt8] = type == .any ? [payload[0]] : []
        appendLE(externalMarker, to: &reference)
        return reference
    }

    /// Whether a row payload of `type` is a reference to a payload stored outside the row.
    @inlinable
    package static func isExternal(_ payload: UnsafeRawBufferPointer, as type: PropertyType) -> Bool {
        switch type {
        case .string, .data: return payload.count == 4 && u32(payload, 0) == externalMarker
        case .any:
            guard payload.count == 5, let tag = Tag(rawValue: payload[0]) else { return false }
            return (tag == .string || tag == .data || tag.isCollection) && u32(payload, 1) == externalMarker
        default: return false
        }
    }

    /// The key of the link in a payload of `type` (`.object` or `.any`), if it holds one.
    package static func linkKey(_ payload: UnsafeRawBufferPointer, as type: PropertyType) -> (table: UInt32?, key: ObjectKey)? {
        if type == .object { return payload.count >= 8 ? (nil, ObjectKey(u64(payload, 0))) : nil }
        if type == .any, payload.count >= 13, payload[0] == Tag.link.rawValue { return (u32(payload, 1), ObjectKey(u64(payload, 5))) }
        return nil
    }

    @inlinable @inline(__always)
    package static func u64(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt64 {
        UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    @inlinable @inline(__always)
    package static func u32(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt32 {
        UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }
}

extension ValueCodec.Tag {
    @inlinable
    package var propertyType: PropertyType {
        switch self {
        case .null, .link: .object
        case .bool: .bool
        case .int: .int
        case .float: .float
        case .double: .double
        case .string: .string
        case .data: .data
        case .date: .date
        case .objectId: .objectId
        case .uuid: .uuid
        case .decimal128: .decimal128
        case .list, .dictionary: .any
        }
    }

    /// Whether this tags a list or a dictionary.
    @inlinable
    package var isCollection: Bool { self == .list || self == .dictionary }
}
