extension KeyEncoding {
    /// Decimal128 values in numeric order, as 16 bytes: a big-endian 128-bit number `u` with
    /// NaN (every NaN) = 0, -Inf = 1, zero (either sign, any exponent) = 2¹²⁷, +Inf = 2¹²⁸ − 1,
    /// and a finite non-zero `x` = 2¹²⁷ ± `p`, where `p` orders magnitudes: the position of the
    /// leading digit (the adjusted exponent, biased to 0…12320) above 113 bits, then the
    /// coefficient scaled to exactly 34 digits. Equal numbers (`1.0`, `1.00`, `1`) have the same
    /// scaled form and so the same key; NaN sorts first, as `Decimal128`'s `<` orders it. Fixed
    /// length, so more key parts may follow.
    @usableFromInline
    package static func appendDecimal128(_ value: Decimal128, to key: inout [UInt8]) {
        let half: UInt128 = 1 << 127
        let encoded: UInt128
        switch value.parts {
        case .nan:
            encoded = 0
        case .infinity(let negative):
            encoded = negative ? 1 : .max
        case .finite(let negative, let coefficient, let exponent):
            if coefficient == 0 {
                encoded = half
            } else {
                let digits = Decimal128.digitCount(coefficient)
                // Adjusted exponent: -6176 (1E-6176) … 6144 (9.99…E+6144).
                let adjusted = exponent + digits - 1
                let scaled = coefficient * Decimal128.powersOfTen[Decimal128.maxDigits - digits]
                // < 12321 · 2¹¹³ + 10³⁴ < 2¹²⁷ − 1, so both sides stay clear of the infinities.
                let magnitude = UInt128(adjusted - Decimal128.minExponent) << 113 | scaled
                encoded = negative ? half - magnitude : half + magnitude
            }
        }
        append(UInt64(truncatingIfNeeded: encoded >> 64), to: &key)
        append(UInt64(truncatingIfNeeded: encoded), to: &key)
    }
}
