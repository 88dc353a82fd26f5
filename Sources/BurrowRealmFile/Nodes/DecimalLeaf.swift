import BurrowStore

/// realm-core's leaves of `Decimal128`s. Up to format 23 every value takes 16 bytes (the BID128
/// encoding, its low half first). Format 24 stores a leaf in the narrowest of BID32 (4 bytes),
/// BID64 (8) and BID128 (16) that holds all its values exactly, or in no bytes at all when every
/// value is zero (context flag set) or null (not set). Null is a NaN with the payload 0xAA.
enum DecimalLeaf {
    static func values(_ node: Node, in image: FileImage) throws(RealmFileError) -> [RealmValue] {
        guard node.scheme == .multiply else { throw .damaged("a leaf of decimals is not stored as bytes", at: node.ref) }
        switch node.width {
        case 0:
            return Array(repeating: node.contextFlag ? .decimal(Decimal128()) : .null, count: node.count)
        case 4:
            return (0..<node.count).map { index in
                let bits = UInt32(image.littleEndian(at: node.payload + index * 4, width: 4))
                return bits == 0x7C00_00AA ? .null : .decimal(Decimal128(bidBits: widened(UInt64(bits), width: 32)))
            }
        case 8:
            return (0..<node.count).map { index in
                let bits = image.littleEndian(at: node.payload + index * 8, width: 8)
                return bits == 0x7C00_0000_0000_00AA ? .null : .decimal(Decimal128(bidBits: widened(bits, width: 64)))
            }
        case 16:
            return (0..<node.count).map { index in
                decimal(
                    low: image.littleEndian(at: node.payload + index * 16, width: 8),
                    high: image.littleEndian(at: node.payload + index * 16 + 8, width: 8))
            }
        default:
            throw .damaged("a leaf of decimals has values of \(node.width) bytes", at: node.ref)
        }
    }

    /// The BID128 value `low`, `high`: null for realm-core's null pattern.
    static func decimal(low: UInt64, high: UInt64) -> RealmValue {
        low == 0xAA && high == 0x7C00_0000_0000_0000 ? .null : .decimal(Decimal128(bidBits: (low, high)))
    }

    /// The BID128 encoding of the BID32 or BID64 value `bits` (`width` 32 or 64): the same sign,
    /// coefficient and exponent.
    static func widened(_ bits: UInt64, width: Int) -> (low: UInt64, high: UInt64) {
        let (exponentBits, bias, coefficientBits): (UInt64, Int, UInt64) = width == 32 ? (8, 101, 23) : (10, 398, 53)
        let sign = (bits >> UInt64(width - 1)) & 1
        let signBit = sign << 63
        // Infinity and NaN: the bits after the sign begin with 1111, then 0 or 1.
        if (bits >> UInt64(width - 5)) & 0xF == 0xF {
            let isNaN = (bits >> UInt64(width - 6)) & 1 == 1
            return (0, isNaN ? 0x7C00_0000_0000_0000 : signBit | 0x7800_0000_0000_0000)
        }
        var exponent: UInt64
        var coefficient: UInt64
        if (bits >> UInt64(width - 3)) & 3 == 3 {
            // The long-exponent form: the coefficient's top bits are the implied 100.
            exponent = (bits >> (coefficientBits - 2)) & ((1 << exponentBits) - 1)
            coefficient = (bits & ((1 << (coefficientBits - 2)) - 1)) | (1 << coefficientBits)
            if coefficient >= (width == 32 ? 10_000_000 : 10_000_000_000_000_000) { coefficient = 0 }
        } else {
            exponent = (bits >> coefficientBits) & ((1 << exponentBits) - 1)
            coefficient = bits & ((1 << coefficientBits) - 1)
        }
        exponent = UInt64(Int(exponent) - bias + 6176)
        return (coefficient, signBit | exponent << 49)
    }
}
