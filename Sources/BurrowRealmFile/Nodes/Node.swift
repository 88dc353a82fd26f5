/// One node of a `.realm` file (realm-core calls them arrays): an 8-byte header, then its
/// elements.
///
/// The header: bytes 0–3 are ignored (realm-core writes `AAAA` there), byte 4 holds the flags
/// (0x80 inner B+tree node, 0x40 has refs, 0x20 context flag, bits 3–4 the width scheme, bits
/// 0–2 the width's index: width = (1 << index) >> 1, so 0, 1, 2, 4, … 64), bytes 5–7 the
/// element count, most significant byte first.
///
/// Width schemes: `bits` (integers of `width` bits; below 8 unsigned and packed from the lowest
/// bit, from 8 on signed little-endian), `multiply` (elements of `width` bytes: strings of a
/// short-string leaf, floats, ObjectIds, decimals) and `ignore` (one byte per element: a blob).
/// The node takes 8 bytes plus its payload rounded up to a multiple of 8.
struct Node {
    enum WidthScheme: UInt8 {
        case bits = 0
        case multiply = 1
        case ignore = 2
    }

    /// The most elements a node without payload may have: realm-core's nodes hold at most
    /// 1,000 elements (a leaf of optional integers one more).
    static let maximumEmptyCount = 1 << 16

    let ref: Int
    let isInnerBPlusTreeNode: Bool
    let hasRefs: Bool
    let contextFlag: Bool
    let scheme: WidthScheme
    /// Bits per element for `bits`, bytes per element for `multiply`.
    let width: Int
    /// The header's count: elements, or bytes for `multiply` nodes that count bytes.
    let count: Int
    /// Where the elements begin.
    var payload: Int { ref + 8 }

    /// The node at `ref` of `image`; throws if its header or its payload lies outside the image,
    /// or its width scheme is not one formats 20 to 24 use.
    init(_ image: FileImage, at ref: Int) throws(RealmFileError) {
        guard ref > 0, ref % 8 == 0, ref <= image.count - 8 else {
            throw .damaged("a reference (\(ref)) points \(ref % 8 == 0 ? "outside the file" : "between nodes")", at: ref)
        }
        let flags = image.bytes[ref + 4]
        guard let scheme = WidthScheme(rawValue: (flags >> 3) & 3) else {
            throw .damaged("a node has a width scheme (3) that realm-core's formats 20 to 24 never write", at: ref)
        }
        self.ref = ref
        isInnerBPlusTreeNode = flags & 0x80 != 0
        hasRefs = flags & 0x40 != 0
        contextFlag = flags & 0x20 != 0
        self.scheme = scheme
        width = (1 << Int(flags & 7)) >> 1
        count = Int(image.bytes[ref + 5]) << 16 | Int(image.bytes[ref + 6]) << 8 | Int(image.bytes[ref + 7])
        let payloadBytes: Int
        switch scheme {
        case .bits: payloadBytes = (count * width + 7) / 8
        case .multiply: payloadBytes = count * width
        case .ignore: payloadBytes = count
        }
        guard payloadBytes <= image.count - payload else {
            throw .damaged("a node of \(count) elements runs past the end of the file", at: ref)
        }
        // Elements of no bytes (all zero, or all null) come in leaves of at most about 1,000;
        // a node claiming millions in none would only make the reader's memory explode.
        guard payloadBytes > 0 || count <= Self.maximumEmptyCount else {
            throw .damaged("a node claims \(count) elements in no bytes", at: ref)
        }
    }

    /// Integer element `index` of a `bits` node. The caller has checked `index < count`.
    func integer(_ index: Int, in image: FileImage) -> Int64 {
        switch width {
        case 0: return 0
        case 1: return Int64((image.bytes[payload + index >> 3] >> UInt8(index & 7)) & 1)
        case 2: return Int64((image.bytes[payload + index >> 2] >> UInt8((index & 3) * 2)) & 3)
        case 4: return Int64((image.bytes[payload + index >> 1] >> UInt8((index & 1) * 4)) & 15)
        case 8: return Int64(Int8(bitPattern: image.bytes[payload + index]))
        case 16: return Int64(Int16(truncatingIfNeeded: image.littleEndian(at: payload + index * 2, width: 2)))
        case 32: return Int64(Int32(truncatingIfNeeded: image.littleEndian(at: payload + index * 4, width: 4)))
        default: return Int64(bitPattern: image.littleEndian(at: payload + index * 8, width: 8))
        }
    }

    /// Integer element `index`, read as unsigned (B+tree offsets, cluster keys).
    func unsigned(_ index: Int, in image: FileImage) -> UInt64 {
        width >= 8 && width < 64
            ? image.littleEndian(at: payload + index * width / 8, width: width / 8) : UInt64(bitPattern: integer(index, in: image))
    }

    /// Element `index`, which must exist, or an error naming what was expected of it.
    func element(_ index: Int, in image: FileImage) throws(RealmFileError) -> Int64 {
        guard index < count, scheme == .bits else {
            throw .damaged("a node has \(count) elements, not the \(index + 1) or more its place needs", at: ref)
        }
        return integer(index, in: image)
    }

    /// Element `index` of a has-refs node as a ref: nil for 0 (no node), an error for a tagged
    /// integer where a ref belongs.
    func ref(_ index: Int, in image: FileImage) throws(RealmFileError) -> Int? {
        let value = try element(index, in: image)
        if value == 0 { return nil }
        guard value & 1 == 0, value > 0 else { throw .damaged("a number stands where a reference belongs", at: ref) }
        return Int(value)
    }

    /// Element `index` of a has-refs node as a tagged integer (stored as `n << 1 | 1`).
    func tagged(_ index: Int, in image: FileImage) throws(RealmFileError) -> Int64 {
        let value = try element(index, in: image)
        guard value & 1 == 1 else { throw .damaged("a reference stands where a number belongs", at: ref) }
        return Int64(bitPattern: UInt64(bitPattern: value) >> 1)
    }

    /// Element `index` of a has-refs node: a ref, a tagged integer, or nothing (0).
    enum RefOrTagged: Equatable {
        case none
        case ref(Int)
        case tagged(Int64)
    }

    func refOrTagged(_ index: Int, in image: FileImage) throws(RealmFileError) -> RefOrTagged {
        let value = try element(index, in: image)
        if value == 0 { return .none }
        if value & 1 == 1 { return .tagged(Int64(bitPattern: UInt64(bitPattern: value) >> 1)) }
        guard value > 0 else { throw .damaged("a reference is negative", at: ref) }
        return .ref(Int(value))
    }
}
