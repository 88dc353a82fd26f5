import BurrowStorage

/// The backlinks of a class: the tree `links/<class id>`, one entry for each field that links
/// to one of its objects, keyed by the linked object's key (8 bytes), the linking class's id
/// (4), the linking field (2) and the linking object's key (8), and holding how many times
/// that field links to the object. Deletes, `LinkingObjects`, queries through backlinks and
/// the object verifier read it; every link change keeps it in step.
package enum Backlinks {
    /// An object that links point to: its class's id and its object key.
    package struct Target: Hashable {
        package let table: UInt32
        package let key: ObjectKey
    }

    /// The backlinks tree of the class stored with id `table`.
    package static func treeName(_ table: UInt32) -> TreeName { TreeName(.backlinks, table) }

    /// The key of the entry for links from field `field` of object `source` (of the class with
    /// id `table`) to object `target`.
    package static func key(_ target: ObjectKey, from table: UInt32, field: Int, source: ObjectKey) -> [UInt8] {
        var key = target.bytes
        withUnsafeBytes(of: table.bigEndian) { key.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt16(field).bigEndian) { key.append(contentsOf: $0) }
        source.append(to: &key)
        return key
    }

    /// The linking class and field an entry's key records.
    package static func source(_ key: UnsafeRawBufferPointer) -> (table: UInt32, field: Int)? {
        guard key.count == 22 else { return nil }
        let table = key[8..<12].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return (table, Int(UInt16(key[12]) << 8 | UInt16(key[13])))
    }

    /// An entry's key with another linking field.
    package static func key(_ key: UnsafeRawBufferPointer, field: Int) -> [UInt8] {
        var bytes = Array(key)
        withUnsafeBytes(of: UInt16(field).bigEndian) { bytes.replaceSubrange(12..<14, with: $0) }
        return bytes
    }
}
