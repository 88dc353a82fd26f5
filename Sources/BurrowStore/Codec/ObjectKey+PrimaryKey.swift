import BurrowStorage
import Foundation

/// The object keys of classes with a primary key are derived from the primary key, so that a
/// lookup by primary key is one descent of the rows tree: compute the key, read the row, and
/// check that the row holds that primary key.
///
/// - An `Int` key maps to itself with the sign bit flipped, so rows sort by primary key.
/// - An `ObjectId` maps to its creation second, its counter and a byte folded from its random
///   middle: ids made in one process map in creation order, so inserting them appends to the
///   rows tree.
/// - A `UUID` maps to its first eight bytes; a `String` to a 64-bit hash of its UTF-8 bytes.
///
/// Two primary keys may derive the same key (hash collisions; rows kept by a file from before
/// this scheme). The second object then gets another free key, and the `pk/<id>` tree maps its
/// primary key to that key: `pk/<id>` holds only the objects whose key is not the derived one,
/// and is empty in the common case.
extension ObjectKey {
    @inlinable
    package init<Link>(derivedFrom primaryKey: StoredValue<Link>) {
        switch primaryKey {
        case .int(let value):
            self.init(UInt64(bitPattern: value) ^ (1 << 63))
        case .objectId(let id):
            self.init(id.orderedKeyBits)
        case .uuid(let uuid):
            self.init(withUnsafeBytes(of: uuid.uuid) { UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)) })
        case .string(let string):
            var string = string
            self.init(string.withUTF8 { Checksum.xxh64(UnsafeRawBufferPointer($0), seed: 0x5052_494D_4152_594B) })
        default:
            // nil (an optional primary key) and types that cannot be primary keys.
            self.init(0)
        }
    }

    /// The next key to try when `self`, derived from a primary key, belongs to another object.
    /// The step is odd, so probing visits every key before repeating.
    package var nextProbe: ObjectKey { ObjectKey(rawValue &+ 0x9E37_79B9_7F4A_7C15) }
}

/// Comparing primary keys, as a lookup by primary key checks that the row at the key derived
/// from it holds it.
package enum PrimaryKey {
    /// Whether `payload`, a row payload of `type`, holds primary key `value`, compared without
    /// decoding it; nil where only the decoded value can tell (strings, UUIDs, nil).
    @inline(__always)
    package static func payload<Link>(_ payload: UnsafeRawBufferPointer, of type: PropertyType, holds value: StoredValue<Link>) -> Bool? {
        switch value {
        case .objectId(let id): type == .objectId && payload.count >= 12 && ObjectId(rawBytes: payload) == id
        case .int(let value): type == .int && ValueCodec.int(payload) == value
        default: nil
        }
    }

    /// Whether two primary-key values are the same key (types that can be primary keys only).
    package static func same<A, B>(_ a: StoredValue<A>, _ b: StoredValue<B>) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case (.int(let a), .int(let b)): a == b
        case (.string(let a), .string(let b)): a.utf8.elementsEqual(b.utf8)
        case (.objectId(let a), .objectId(let b)): a == b
        case (.uuid(let a), .uuid(let b)): a == b
        default: false
        }
    }

    /// A primary key as messages show it: a string quoted, nil as `nil`.
    package static func describe<Link>(_ value: StoredValue<Link>) -> String {
        switch value {
        case .null: "nil"
        case .string(let s): "\"\(s)\""
        case .int(let i): "\(i)"
        case .objectId(let o): "\(o)"
        case .uuid(let u): "\(u)"
        default: "\(value)"
        }
    }
}
