import BurrowStore
import Foundation

/// realm-core's leaves of mixed values (`AnyRealmValue`): a has-refs array of up to six refs.
///
/// Slot 0 is an integer per value: 0 for null, otherwise `type + 1` in its low five bits (a
/// realm-core data type), which payload array holds the value in the next three bits (0: none,
/// the value is inline), and from bit 8 on the inline value or an index into that payload.
/// Payloads: 1, integers (large integers, floats' and doubles' bits, link keys); 2, pairs
/// (dates' seconds and nanoseconds, decimals' halves, typed links' table and key); 3, a string
/// leaf (strings, binaries, ObjectIds' and UUIDs' bytes); 4 (format 24), refs of nested lists and
/// dictionaries; 5 (format 24), keys naming the nested collections, which reading ignores.
enum MixedLeaf {
    /// Nested collections deeper than this are refused: realm-core nests at most 100 deep, and
    /// a deeper chain is a loop of refs in a damaged file.
    static let maximumDepth = 100

    /// realm-core's data types a mixed value has.
    enum DataType: Int64 {
        case int = 0
        case bool = 1
        case string = 2
        case binary = 4
        case timestamp = 8
        case float = 9
        case double = 10
        case decimal = 11
        case link = 12
        case objectId = 15
        case typedLink = 16
        case uuid = 17
        case list = 19
        case dictionary = 21
    }

    static func values(_ node: Node, in image: FileImage, depth: Int) throws(RealmFileError) -> [RealmValue] {
        guard node.hasRefs, node.count >= 1, let typesRef = try node.ref(0, in: image) else {
            throw .damaged("a leaf of mixed values lacks its types", at: node.ref)
        }
        let types = try Node(image, at: typesRef)
        try ValueLeaf.requireBits(types)
        func payload(_ slot: Int) throws(RealmFileError) -> Node? {
            guard slot < node.count, let ref = try node.ref(slot, in: image) else { return nil }
            return try Node(image, at: ref)
        }
        let ints = try payload(1)
        let pairs = try payload(2)
        let strings = try payload(3).map { (node) throws(RealmFileError) in try StringLeaf.bytes(node, in: image) }
        let refs = try payload(4)
        var values: [RealmValue] = []
        values.reserveCapacity(types.count)
        for index in 0..<types.count {
            let composite = types.integer(index, in: image)
            guard composite != 0 else {
                values.append(.null)
                continue
            }
            guard let type = DataType(rawValue: (composite & 0x1F) - 1) else {
                throw .damaged("a mixed value has a type (\((composite & 0x1F) - 1)) realm-core never stores", at: types.ref)
            }
            let data = composite >> 8
            let inline = (composite & 0xE0) >> 5 == 0
            func int() throws(RealmFileError) -> Int64 {
                guard let ints, data >= 0, data < ints.count, ints.scheme == .bits else {
                    throw .damaged("a mixed value's number is missing", at: types.ref)
                }
                return ints.integer(Int(data), in: image)
            }
            func pair() throws(RealmFileError) -> (Int64, Int64) {
                guard let pairs, data >= 0, 2 * data + 1 < pairs.count, pairs.scheme == .bits else {
                    throw .damaged("a mixed value's pair of numbers is missing", at: types.ref)
                }
                return (pairs.integer(Int(2 * data), in: image), pairs.integer(Int(2 * data + 1), in: image))
            }
            func bytes() throws(RealmFileError) -> [UInt8] {
                guard let strings, data >= 0, data < strings.count, let bytes = strings[Int(data)] else {
                    throw .damaged("a mixed value's bytes are missing", at: types.ref)
                }
                return bytes
            }
            switch type {
            case .int: values.append(.int(inline ? data : try int()))
            case .bool: values.append(.bool(data != 0))
            case .float: values.append(.float(Float(bitPattern: UInt32(truncatingIfNeeded: try int()))))
            case .double: values.append(.double(Double(bitPattern: UInt64(bitPattern: try int()))))
            case .string:
                guard let string = String(validating: try bytes(), as: UTF8.self) else {
                    throw .damaged("a mixed string is not UTF-8", at: types.ref)
                }
                values.append(.string(string))
            case .binary: values.append(.binary(try bytes()))
            case .timestamp:
                let (seconds, nanoseconds) = try pair()
                values.append(.timestamp(seconds: seconds, nanoseconds: Int32(truncatingIfNeeded: nanoseconds)))
            case .decimal:
                let (low, high) = try pair()
                values.append(DecimalLeaf.decimal(low: UInt64(bitPattern: low), high: UInt64(bitPattern: high)))
            case .objectId:
                let raw = try bytes()
                guard raw.count == 12 else { throw .damaged("a mixed ObjectId is not 12 bytes", at: types.ref) }
                values.append(.objectId(raw.withUnsafeBytes { ObjectId(rawBytes: $0) }))
            case .uuid:
                let raw = try bytes()
                guard raw.count == 16 else { throw .damaged("a mixed UUID is not 16 bytes", at: types.ref) }
                values.append(.uuid(UUID(bytes: raw)))
            case .link:
                // A link without its table: realm-core never stores one in a property.
                throw .damaged("a mixed value links without naming a table", at: types.ref)
            case .typedLink:
                let (table, key) = try pair()
                values.append(.link(table: Int(UInt32(truncatingIfNeeded: table) & 0x7FFF_FFFF), key: key))
            case .list, .dictionary:
                guard depth < maximumDepth else { throw .damaged("collections nest deeper than realm-core allows", at: types.ref) }
                guard let refs, refs.hasRefs, data >= 0, data < refs.count, let ref = try refs.ref(Int(data), in: image) else {
                    // A nested collection never written to is empty.
                    values.append(type == .list ? .list([]) : .dictionary([]))
                    continue
                }
                values.append(
                    type == .list
                        ? .list(try Collections.list(ref, .mixed, in: image, depth: depth + 1))
                        : .dictionary(try Collections.dictionary(ref, in: image, depth: depth + 1)))
            }
        }
        return values
    }
}
