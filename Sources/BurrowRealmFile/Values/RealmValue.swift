import BurrowStore
import Foundation

/// A value read from a `.realm` file, as realm-core stores it: the scalar types of RealmSwift's
/// properties, links as the target's table and object keys, and the collections a property or an
/// `AnyRealmValue` holds.
package enum RealmValue: Sendable, Hashable {
    case null
    case int(Int64)
    case bool(Bool)
    case float(Float)
    case double(Double)
    case string(String)
    case binary([UInt8])
    /// Seconds since 1970 and nanoseconds, as realm-core's `Timestamp`.
    case timestamp(seconds: Int64, nanoseconds: Int32)
    case decimal(Decimal128)
    case objectId(ObjectId)
    case uuid(UUID)
    /// A link to object `key` of the table whose key is `table`; a key of -2 or below is a
    /// link to an object deleted while linked (a tombstone), as realm-core keeps it.
    case link(table: Int, key: Int64)
    case list([RealmValue])
    case set([RealmValue])
    /// A dictionary's entries, in the order the file keeps them.
    case dictionary([DictionaryEntry])

    package struct DictionaryEntry: Sendable, Hashable {
        package let key: String
        package let value: RealmValue

        package init(key: String, value: RealmValue) {
            self.key = key
            self.value = value
        }
    }
}
