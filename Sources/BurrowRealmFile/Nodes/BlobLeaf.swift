/// realm-core's leaves of byte strings, used for binary data and for medium and big strings.
///
/// - Small blobs (has refs, no context flag): three refs: the running end offset of each value,
///   one blob of every value's bytes, and a null flag (1) per value.
/// - Big blobs (has refs, context flag): one ref per value to a blob of its bytes; 0 is null. A
///   blob that itself has the context flag holds refs to its parts, to be concatenated.
///
/// Strings are kept with a NUL after them (`terminated`), which is not part of the value.
enum BlobLeaf {
    /// The values of a binary leaf: small blobs without the context flag, big ones with it.
    static func binaries(_ node: Node, in image: FileImage) throws(RealmFileError) -> [[UInt8]?] {
        guard node.hasRefs else { throw .damaged("a binary leaf has no references", at: node.ref) }
        return node.contextFlag ? try bigBlobs(node, in: image, terminated: false) : try smallBlobs(node, in: image, terminated: false)
    }

    static func smallBlobs(_ node: Node, in image: FileImage, terminated: Bool) throws(RealmFileError) -> [[UInt8]?] {
        guard node.count >= 3, let offsetsRef = try node.ref(0, in: image), let blobRef = try node.ref(1, in: image) else {
            throw .damaged("a leaf of small values lacks its offsets or its bytes", at: node.ref)
        }
        let offsets = try Node(image, at: offsetsRef)
        let blob = try Node(image, at: blobRef)
        let nulls = try node.ref(2, in: image).map { (ref) throws(RealmFileError) in try Node(image, at: ref) }
        guard offsets.scheme == .bits, blob.scheme == .ignore, nulls.map({ $0.count >= offsets.count && $0.scheme == .bits }) ?? true else {
            throw .damaged("a leaf of small values has parts of the wrong shape", at: node.ref)
        }
        var values: [[UInt8]?] = []
        values.reserveCapacity(offsets.count)
        var start = 0
        for index in 0..<offsets.count {
            let end = Int(offsets.integer(index, in: image))
            guard end >= start, end <= blob.count else { throw .damaged("a value's bytes lie outside its leaf", at: offsets.ref) }
            defer { start = end }
            if let nulls, nulls.integer(index, in: image) != 0 {
                values.append(nil)
                continue
            }
            var bytes = Array(image.bytes[(blob.payload + start)..<(blob.payload + end)])
            if terminated {
                guard bytes.last == 0 else { throw .damaged("a string lacks the NUL that ends it", at: blob.ref) }
                bytes.removeLast()
            }
            values.append(bytes)
        }
        return values
    }

    static func bigBlobs(_ node: Node, in image: FileImage, terminated: Bool) throws(RealmFileError) -> [[UInt8]?] {
        try (0..<node.count).map { (index) throws(RealmFileError) -> [UInt8]? in
            guard let ref = try node.ref(index, in: image) else { return nil }
            var bytes = try blob(at: ref, in: image)
            if terminated {
                guard bytes.last == 0 else { throw .damaged("a string lacks the NUL that ends it", at: ref) }
                bytes.removeLast()
            }
            return bytes
        }
    }

    /// The bytes of the blob at `ref`, its parts concatenated if it is split.
    static func blob(at ref: Int, in image: FileImage) throws(RealmFileError) -> [UInt8] {
        let node = try Node(image, at: ref)
        if node.scheme == .ignore && !node.hasRefs { return Array(image.bytes[node.payload..<(node.payload + node.count)]) }
        guard node.contextFlag, node.hasRefs else { throw .damaged("a blob is neither bytes nor a list of parts", at: ref) }
        var bytes: [UInt8] = []
        for part in 0..<node.count {
            guard let partRef = try node.ref(part, in: image) else { continue }
            let piece = try Node(image, at: partRef)
            guard piece.scheme == .ignore, !piece.hasRefs else { throw .damaged("a part of a blob is not bytes", at: partRef) }
            bytes += image.bytes[piece.payload..<(piece.payload + piece.count)]
        }
        return bytes
    }
}
