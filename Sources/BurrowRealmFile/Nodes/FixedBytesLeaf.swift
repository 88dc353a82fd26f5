/// realm-core's leaves of ObjectIds (12 bytes) and UUIDs (16): values in blocks of eight, each
/// block a byte of null flags (bit i for the block's value i) followed by its values. The
/// header counts bytes; a last block may hold fewer than eight values.
enum FixedBytesLeaf {
    static func values(_ node: Node, size: Int, in image: FileImage) throws(RealmFileError) -> [[UInt8]?] {
        guard node.scheme == .multiply, node.width <= 1 else { throw .damaged("a leaf of \(size)-byte values is not stored as bytes", at: node.ref) }
        let blockSize = 1 + 8 * size
        let rest = node.count % blockSize
        guard rest == 0 || (rest - 1) % size == 0 else { throw .damaged("a leaf of \(size)-byte values ends inside a value", at: node.ref) }
        let count = node.count / blockSize * 8 + (rest == 0 ? 0 : (rest - 1) / size)
        return (0..<count).map { index -> [UInt8]? in
            let block = node.payload + index / 8 * blockSize
            guard image.bytes[block] & (1 << UInt8(index % 8)) == 0 else { return nil }
            let start = block + 1 + index % 8 * size
            return Array(image.bytes[start..<(start + size)])
        }
    }
}
