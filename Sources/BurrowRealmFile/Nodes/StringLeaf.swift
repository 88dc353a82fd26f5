/// The string leaves of realm-core: which of its four forms a leaf is, and its values.
///
/// - Short strings (no refs, `multiply` scheme): fixed slots of `width` bytes; the string, then
///   padding, and in the slot's last byte the padding's length, so the string is
///   `width - 1 - lastByte` bytes long; a last byte equal to `width` marks null, and width 0
///   makes every element null.
/// - Enumerated strings (no refs, `bits` scheme): indexes into a list of strings the column
///   keeps apart (`enumKeys`).
/// - Medium strings (refs, no context flag): three refs: running end offsets, one blob of every
///   value followed by a NUL, and a null flag per value.
/// - Big strings (refs and the context flag): a ref per value to a blob of its bytes and a NUL
///   (0: null); a blob with the context flag is split into parts, concatenated in order.
enum StringLeaf {
    /// The values of the leaf `node`, nil for null; `enumKeys` are the strings an enumerated
    /// leaf's indexes select.
    static func values(_ node: Node, in image: FileImage, enumKeys: [String?]? = nil) throws(RealmFileError) -> [String?] {
        try bytes(node, in: image, enumKeys: enumKeys).map { (value) throws(RealmFileError) -> String? in
            guard let value else { return nil }
            guard let string = String(validating: value, as: UTF8.self) else {
                throw .damaged("a string is not UTF-8", at: node.ref)
            }
            return string
        }
    }

    /// The values of the leaf as bytes, nil for null.
    static func bytes(_ node: Node, in image: FileImage, enumKeys: [String?]? = nil) throws(RealmFileError) -> [[UInt8]?] {
        if !node.hasRefs {
            if node.scheme == .multiply { return try shortStrings(node, in: image) }
            guard let enumKeys else { throw .damaged("a string leaf indexes a list of strings its column lacks", at: node.ref) }
            return try (0..<node.count).map { (index) throws(RealmFileError) -> [UInt8]? in
                let key = node.integer(index, in: image)
                guard key >= 0, key < enumKeys.count else { throw .damaged("a string leaf indexes past its column's strings", at: node.ref) }
                return enumKeys[Int(key)].map { Array($0.utf8) }
            }
        }
        if node.contextFlag { return try BlobLeaf.bigBlobs(node, in: image, terminated: true) }
        return try BlobLeaf.smallBlobs(node, in: image, terminated: true)
    }

    /// The values of a short-string leaf.
    static func shortStrings(_ node: Node, in image: FileImage) throws(RealmFileError) -> [[UInt8]?] {
        let width = node.width
        guard width > 0 else { return Array(repeating: nil, count: node.count) }
        return try (0..<node.count).map { (index) throws(RealmFileError) -> [UInt8]? in
            let slot = node.payload + index * width
            let padding = Int(image.bytes[slot + width - 1])
            if padding == width { return nil }
            guard padding < width else { throw .damaged("a short string's length is impossible", at: slot) }
            return Array(image.bytes[slot..<(slot + width - 1 - padding)])
        }
    }
}
