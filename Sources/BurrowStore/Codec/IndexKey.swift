/// Keys of primary-key and secondary index trees: a value in an order-preserving encoding
/// (`KeyEncoding`), led by one byte for its type (0 for null), so that nulls sort first, values
/// of one type sort by value, and an `AnyRealmValue` index keeps types apart. Strings and data
/// longer than `KeyEncoding.boundedLength` are cut and hashed, so a key always fits in a page. A secondary index
/// appends the object key, so equal values stay distinct entries in object-key order.
@usableFromInline
package enum IndexKey {
    @inlinable
    package static func encode<Link: StoredLink>(_ value: StoredValue<Link>) -> [UInt8] {
        var key: [UInt8] = []
        key.reserveCapacity(24)
        append(value, to: &key)
        return key
    }

    /// Calls `body` with `encode(value)`, which for a string short enough to be kept whole is
    /// written on the stack rather than in an array.
    @inlinable
    package static func withEncoded<Link: StoredLink, R>(_ value: StoredValue<Link>, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        guard case .string(var string) = value else { return encode(value).withUnsafeBytes(body) }
        return string.withUTF8 { utf8 in
            guard utf8.count <= KeyEncoding.boundedLength else { return encode(value).withUnsafeBytes(body) }
            // The tag, each byte (a zero byte as 0x00 0xFF), the terminator 0x00 0x00: as
            // `KeyEncoding.appendBounded` writes it.
            return withUnsafeTemporaryAllocation(byteCount: 1 + 2 * utf8.count + 2, alignment: 1) { buffer in
                var count = 0
                buffer[count] = ValueCodec.Tag.string.rawValue
                count += 1
                for byte in utf8 {
                    buffer[count] = byte
                    count += 1
                    if byte == 0 {
                        buffer[count] = 0xFF
                        count += 1
                    }
                }
                buffer[count] = 0
                buffer[count + 1] = 0
                return body(UnsafeRawBufferPointer(rebasing: buffer[..<(count + 2)]))
            }
        }
    }

    @inlinable
    package static func append<Link: StoredLink>(_ value: StoredValue<Link>, to key: inout [UInt8]) {
        switch value {
        case .null: key.append(ValueCodec.Tag.null.rawValue)
        case .bool(let b):
            key.append(ValueCodec.Tag.bool.rawValue)
            KeyEncoding.append(b, to: &key)
        case .int(let i):
            key.append(ValueCodec.Tag.int.rawValue)
            KeyEncoding.append(i, to: &key)
        case .float(let f):
            key.append(ValueCodec.Tag.float.rawValue)
            KeyEncoding.append(f, to: &key)
        case .double(let d):
            key.append(ValueCodec.Tag.double.rawValue)
            KeyEncoding.append(d, to: &key)
        case .string(let s):
            key.append(ValueCodec.Tag.string.rawValue)
            KeyEncoding.appendBounded(string: s, to: &key)
        case .data(let d):
            key.append(ValueCodec.Tag.data.rawValue)
            KeyEncoding.appendBounded(data: d, to: &key)
        case .date(let d):
            key.append(ValueCodec.Tag.date.rawValue)
            KeyEncoding.append(d, to: &key)
        case .objectId(let o):
            key.append(ValueCodec.Tag.objectId.rawValue)
            KeyEncoding.append(o, to: &key)
        case .uuid(let u):
            key.append(ValueCodec.Tag.uuid.rawValue)
            KeyEncoding.append(u, to: &key)
        case .decimal128(let d):
            key.append(ValueCodec.Tag.decimal128.rawValue)
            KeyEncoding.appendDecimal128(d, to: &key)
        case .object(let object):
            if let link = object.objectLink {
                appendLink(table: link.table, link.key, to: &key)
            } else {
                key.append(ValueCodec.Tag.link.rawValue)
            }
        // An `AnyRealmValue`'s list or dictionary is indexed by its kind alone: no query
        // compares a value with one.
        case .list: key.append(ValueCodec.Tag.list.rawValue)
        case .dictionary: key.append(ValueCodec.Tag.dictionary.rawValue)
        }
    }

    /// Appends the key of a link to object `objectKey` of the class stored with `table`.
    @inlinable
    package static func appendLink(table: UInt32, _ objectKey: ObjectKey, to key: inout [UInt8]) {
        key.append(ValueCodec.Tag.link.rawValue)
        KeyEncoding.append(UInt64(table), to: &key)
        KeyEncoding.append(objectKey.rawValue, to: &key)
    }

    /// The key of `objectKey`'s entry for `value` in a secondary index.
    @inlinable
    package static func entry<Link: StoredLink>(_ value: StoredValue<Link>, _ objectKey: ObjectKey) -> [UInt8] {
        var key: [UInt8] = []
        appendEntry(value, objectKey, to: &key)
        return key
    }

    /// Appends the key of `objectKey`'s entry for `value` in a secondary index to `key`.
    @inlinable
    package static func appendEntry<Link: StoredLink>(_ value: StoredValue<Link>, _ objectKey: ObjectKey, to key: inout [UInt8]) {
        append(value, to: &key)
        objectKey.append(to: &key)
    }
}
