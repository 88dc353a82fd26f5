import BurrowStore
import Foundation

/// The leaves that hold values, one kind per element type, decoded: a column's leaf in a
/// cluster, or a leaf of a list's, set's or dictionary's B+tree.
enum ValueLeaf {
    /// What a leaf holds, which the column or collection it belongs to says (the leaf itself
    /// does not).
    enum Kind: Equatable {
        /// Integers; `nullable`: the first element is the null value, the rest the values.
        case int(nullable: Bool)
        /// 0 false, 3 null, anything else true.
        case bool
        case float
        case double
        case string
        case binary
        case timestamp
        case decimal
        case objectId
        case uuid
        case mixed
        /// A link column's leaf: each value is the target's key plus one, 0 for none.
        case link(table: Int)
        /// A list's or set's leaf of links: the targets' keys as they are.
        case linkKeys(table: Int)
        /// Pairs of (table key + 1, object key + 1), 0 for none.
        case typedLink
    }

    /// The null patterns of realm-core's floats and doubles (quiet NaNs with a payload).
    static let nullFloat: UInt32 = 0x7FC0_00AA
    static let nullDouble: UInt64 = 0x7FF8_0000_0000_00AA

    /// The values of `node`, a leaf of `kind`; `enumKeys` for an enumerated string column;
    /// `depth`: how many collections in `AnyRealmValue`s hold this leaf.
    static func values(
        _ node: Node, _ kind: Kind, in image: FileImage, enumKeys: [String?]? = nil, depth: Int = 0
    ) throws(RealmFileError) -> [RealmValue] {
        switch kind {
        case .int(let nullable):
            try requireBits(node)
            guard nullable else { return (0..<node.count).map { .int(node.integer($0, in: image)) } }
            guard node.count >= 1 else { throw .damaged("a leaf of optional integers lacks its null value", at: node.ref) }
            let null = node.integer(0, in: image)
            return (1..<node.count).map { index in
                let value = node.integer(index, in: image)
                return value == null ? .null : .int(value)
            }
        case .bool:
            try requireBits(node)
            return (0..<node.count).map { index in
                let value = node.integer(index, in: image)
                return value == 3 ? .null : .bool(value != 0)
            }
        case .float:
            try requireMultiple(node, width: 4)
            return (0..<node.count).map { index in
                let bits = UInt32(image.littleEndian(at: node.payload + index * 4, width: 4))
                return bits == nullFloat ? .null : .float(Float(bitPattern: bits))
            }
        case .double:
            try requireMultiple(node, width: 8)
            return (0..<node.count).map { index in
                let bits = image.littleEndian(at: node.payload + index * 8, width: 8)
                return bits == nullDouble ? .null : .double(Double(bitPattern: bits))
            }
        case .string:
            return try StringLeaf.values(node, in: image, enumKeys: enumKeys).map { $0.map(RealmValue.string) ?? .null }
        case .binary:
            return try BlobLeaf.binaries(node, in: image).map { $0.map(RealmValue.binary) ?? .null }
        case .timestamp:
            return try timestamps(node, in: image)
        case .decimal:
            return try DecimalLeaf.values(node, in: image)
        case .objectId:
            return try FixedBytesLeaf.values(node, size: 12, in: image).map { bytes in
                bytes.map { bytes in .objectId(bytes.withUnsafeBytes { ObjectId(rawBytes: $0) }) } ?? .null
            }
        case .uuid:
            return try FixedBytesLeaf.values(node, size: 16, in: image).map { bytes in
                bytes.map { .uuid(UUID(bytes: $0)) } ?? .null
            }
        case .mixed:
            return try MixedLeaf.values(node, in: image, depth: depth)
        case .link(let table):
            try requireBits(node)
            return (0..<node.count).map { index in
                let stored = node.integer(index, in: image)
                return stored == 0 ? .null : .link(table: table, key: stored &- 1)
            }
        case .linkKeys(let table):
            try requireBits(node)
            return (0..<node.count).map { .link(table: table, key: node.integer($0, in: image)) }
        case .typedLink:
            try requireBits(node)
            guard node.count % 2 == 0 else { throw .damaged("a leaf of typed links holds an odd number of halves", at: node.ref) }
            return (0..<(node.count / 2)).map { index in
                let table = node.integer(2 * index, in: image)
                guard table != 0 else { return .null }
                return .link(table: Int((table &- 1) & 0x7FFF_FFFF), key: node.integer(2 * index + 1, in: image) &- 1)
            }
        }
    }

    /// A timestamp leaf: refs to optional seconds and to nanoseconds.
    static func timestamps(_ node: Node, in image: FileImage) throws(RealmFileError) -> [RealmValue] {
        guard node.hasRefs, node.count >= 2, let secondsRef = try node.ref(0, in: image), let nanosecondsRef = try node.ref(1, in: image)
        else { throw .damaged("a leaf of dates lacks its seconds or its nanoseconds", at: node.ref) }
        let seconds = try values(Node(image, at: secondsRef), .int(nullable: true), in: image)
        let nanoseconds = try Node(image, at: nanosecondsRef)
        guard nanoseconds.scheme == .bits, nanoseconds.count >= seconds.count else {
            throw .damaged("a leaf of dates has fewer nanoseconds than seconds", at: node.ref)
        }
        return seconds.enumerated().map { index, value in
            guard case .int(let seconds) = value else { return .null }
            return .timestamp(seconds: seconds, nanoseconds: Int32(truncatingIfNeeded: nanoseconds.integer(index, in: image)))
        }
    }

    static func requireBits(_ node: Node) throws(RealmFileError) {
        guard node.scheme == .bits else { throw .damaged("a leaf of numbers is not stored as numbers", at: node.ref) }
    }

    static func requireMultiple(_ node: Node, width: Int) throws(RealmFileError) {
        guard node.scheme == .multiply, node.width == width || node.count == 0 else {
            throw .damaged("a leaf of \(width * 8)-bit floating-point numbers has elements of \(node.width) bytes", at: node.ref)
        }
    }
}

extension UUID {
    /// The UUID whose 16 bytes, in order, are `bytes`.
    init(bytes: [UInt8]) {
        self.init(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9], bytes[10], bytes[11],
                bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }
}
