import BurrowStorage

/// Long values outside their rows. A row is rewritten whole when any of its fields changes, so a
/// string or data payload longer than `inlinePayloadLimit` is kept in the class's blob tree
/// instead, and changing a short field of an object that also holds megabytes copies only the
/// short row. The blob tree keeps each value in `ValueCodec`'s form (`RowCodec.externalize`).
extension ObjectStore {
    @usableFromInline
    package static let inlinePayloadLimit = 1024

    package static func blobKey(_ key: ObjectKey, _ field: Int) -> [UInt8] {
        var bytes = key.bytes
        withUnsafeBytes(of: UInt16(field).bigEndian) { bytes.append(contentsOf: $0) }
        return bytes
    }

    /// What the row keeps for `payload`, the full payload of field `field` of object `key`:
    /// the payload itself, or (when long) a reference, after storing it in the blob tree. An
    /// earlier blob of the field is replaced or removed.
    @usableFromInline
    package func rowPayload(_ payload: [UInt8]?, _ table: Table, _ key: ObjectKey, _ field: Int, replacing old: [UInt8]?, in write: WriteState)
        throws(StorageError) -> [UInt8]?
    {
        let type = table.fieldTypes[field]
        let wasExternal = old.map { o in o.withUnsafeBytes { RowCodec.isExternal($0, as: type) } } ?? false
        guard let payload, payload.count > Self.inlinePayloadLimit, type == .string || type == .data || type == .any else {
            if wasExternal { try write.trees.delete(table.blobsTree, Self.blobKey(key, field)) }
            return payload
        }
        let (reference, blob) = RowCodec.externalize(payload, as: type)
        try write.trees.put(table.blobsTree, Self.blobKey(key, field), blob)
        return reference
    }
}
