import Foundation

/// A 128-bit IEEE 754-2008 decimal floating-point number, as in RealmSwift and MongoDB: up to 34
/// significant decimal digits and an exponent from -6176 to 6111 (values from about 1E-6176 to
/// 9.99…E+6144), plus NaN, positive and negative infinity and a signed zero.
///
/// The value is stored in the BID (binary integer decimal) encoding that realm-core and MongoDB
/// use: a sign bit, a 14-bit biased exponent and a 113-bit binary coefficient, so `bidBits` is
/// byte-for-byte the 16 bytes those systems store.
///
/// A decimal number keeps the exponent it was written with: `1.5`, `1.50` and `15E-1` are equal
/// (`==`, and they hash alike) but print as written. Arithmetic is exact whenever the exact result
/// fits in 34 digits; otherwise it is rounded to 34 digits, half to even. Results too large become
/// infinity, results too small lose digits down to zero.
///
/// NaN: every NaN equals every other NaN and sorts before all numbers, including negative
/// infinity, so that `Decimal128` has a total order for sorting, sets and indexes (unlike `Double`,
/// where NaN is unordered). Negative and positive zero are equal.
///
/// `Sendable`, `Hashable`, `Comparable`, `SignedNumeric`, and `Codable` (as its string).
public struct Decimal128: Sendable {
    /// The low 64 bits of the BID encoding (the low bits of the coefficient).
    private var low: UInt64
    /// The high 64 bits of the BID encoding: sign, combination field and exponent, the coefficient's top bits.
    private var high: UInt64

    /// Zero (`0`, exponent 0), as RealmSwift's `Decimal128()`.
    public init() {
        low = 0
        high = UInt64(Self.exponentBias) << 49
    }

    /// The value with the given BID encoding, as `bidBits` returns it. Every bit pattern is a
    /// value: non-canonical encodings (a coefficient above 10³⁴ − 1) read as zero, as IEEE 754
    /// specifies.
    @usableFromInline
    package init(bidBits: (low: UInt64, high: UInt64)) {
        low = bidBits.low
        high = bidBits.high
    }

    /// The BID encoding: `high` holds the sign, exponent and top coefficient bits, `low` the rest
    /// of the coefficient. BSON and realm-core store `low` then `high`, each little-endian.
    @usableFromInline
    package var bidBits: (low: UInt64, high: UInt64) { (low, high) }

    // MARK: - Constants

    /// Significant digits a value holds.
    package static let maxDigits = 34
    /// The smallest exponent: the least non-zero magnitude is 1E-6176.
    package static let minExponent = -6176
    /// The largest exponent of a (34-digit) coefficient: the largest value is 9.99…9E+6144.
    package static let maxExponent = 6111
    private static let exponentBias = 6176
    private static let signBit: UInt64 = 1 << 63
    private static let infinityBits: UInt64 = 0x7800_0000_0000_0000
    private static let nanBits: UInt64 = 0x7C00_0000_0000_0000
    private static let signalingBits: UInt64 = 0x7E00_0000_0000_0000

    /// 10⁰ through 10³⁸, every power of ten a `UInt128` holds.
    package static let powersOfTen: [UInt128] = {
        var powers: [UInt128] = [1]
        for _ in 1...38 { powers.append(powers[powers.count - 1] * 10) }
        return powers
    }()

    /// The number of decimal digits of `value`; 0 for 0.
    package static func digitCount(_ value: UInt128) -> Int {
        let guess = ((128 - value.leadingZeroBitCount) * 1233) >> 12
        return value >= powersOfTen[guess] ? guess + 1 : guess
    }

    /// Quiet NaN.
    public static let nan = Decimal128(bidBits: (0, nanBits))
    /// Signaling NaN. Arithmetic on it gives a quiet NaN.
    public static let signalingNaN = Decimal128(bidBits: (0, signalingBits))
    /// Positive infinity.
    public static let infinity = Decimal128(bidBits: (0, infinityBits))

    /// The largest finite value, 9.999999999999999999999999999999999E+6144.
    public static var max: Decimal128 {
        Decimal128(negative: false, coefficient: powersOfTen[34] - 1, exponent: maxExponent)
    }

    /// The smallest (most negative) finite value, -9.999999999999999999999999999999999E+6144.
    public static var min: Decimal128 {
        Decimal128(negative: true, coefficient: powersOfTen[34] - 1, exponent: maxExponent)
    }

    // MARK: - Unpacking and packing

    /// What an encoding holds, with non-canonical coefficients read as zero.
    package enum Parts {
        case nan(signaling: Bool)
        case infinity(negative: Bool)
        /// `(-1)^negative × coefficient × 10^exponent`, `coefficient < 10³⁴`.
        case finite(negative: Bool, coefficient: UInt128, exponent: Int)
    }

    /// The value's sign, coefficient and exponent, or which special value it is.
    package var parts: Parts {
        let negative = high & Self.signBit != 0
        if high & Self.nanBits == Self.nanBits { return .nan(signaling: high & Self.signalingBits == Self.signalingBits) }
        if high & Self.nanBits == Self.infinityBits { return .infinity(negative: negative) }
        if high & 0x6000_0000_0000_0000 == 0x6000_0000_0000_0000 {
            // The "11" form: the coefficient is at least 2¹¹³ > 10³⁴ − 1, so non-canonical: zero.
            return .finite(negative: negative, coefficient: 0, exponent: Int((high >> 47) & 0x3FFF) - Self.exponentBias)
        }
        var coefficient = UInt128(high & 0x1_FFFF_FFFF_FFFF) << 64 | UInt128(low)
        if coefficient >= Self.powersOfTen[34] { coefficient = 0 }
        return .finite(negative: negative, coefficient: coefficient, exponent: Int((high >> 49) & 0x3FFF) - Self.exponentBias)
    }

    /// A finite value from parts already in range.
    private init(negative: Bool, coefficient: UInt128, exponent: Int) {
        high =
            (negative ? Self.signBit : 0) | UInt64(exponent + Self.exponentBias) << 49
            | UInt64(truncatingIfNeeded: coefficient >> 64)
        low = UInt64(truncatingIfNeeded: coefficient)
    }

    /// `(-1)^negative × (coefficient + fraction) × 10^exponent` rounded half to even to 34 digits
    /// and the exponent range, where the fraction (below one unit of the coefficient) is described
    /// by its first digit `roundDigit` and whether any later digit is non-zero (`sticky`). Too large
    /// becomes infinity; `inexact` is set if the result differs from the exact value.
    private static func rounded(
        negative: Bool, coefficient: UInt128, exponent: Int, roundDigit: UInt128 = 0, sticky: Bool = false,
        inexact: inout Bool
    ) -> Decimal128 {
        var coefficient = coefficient
        var exponent = exponent
        var roundDigit = roundDigit
        var sticky = sticky
        // Moves `count` digits from the coefficient into the fraction.
        func drop(_ count: Int) {
            guard count > 0 else { return }
            exponent += count
            if count > 39 {
                sticky = sticky || roundDigit != 0 || coefficient != 0
                roundDigit = 0
                coefficient = 0
                return
            }
            let (kept, rest) = coefficient.quotientAndRemainder(dividingBy: powersOfTen[count - 1])
            sticky = sticky || roundDigit != 0 || rest != 0
            (coefficient, roundDigit) = kept.quotientAndRemainder(dividingBy: 10)
        }
        drop(digitCount(coefficient) - maxDigits)
        if exponent < minExponent { drop(minExponent - exponent) }
        if roundDigit != 0 || sticky { inexact = true }
        if roundDigit > 5 || (roundDigit == 5 && (sticky || coefficient & 1 == 1)) {
            coefficient += 1
            if coefficient == powersOfTen[34] {
                coefficient = powersOfTen[33]
                exponent += 1
            }
        }
        if exponent > maxExponent {
            if coefficient == 0 {
                exponent = maxExponent
            } else if exponent - maxExponent <= maxDigits - digitCount(coefficient) {
                // Exact: pad the coefficient with zeros to bring the exponent into range.
                coefficient *= powersOfTen[exponent - maxExponent]
                exponent = maxExponent
            } else {
                inexact = true
                return negative ? -infinity : infinity
            }
        }
        return Decimal128(negative: negative, coefficient: coefficient, exponent: exponent)
    }

    private static func rounded(
        negative: Bool, coefficient: UInt128, exponent: Int, roundDigit: UInt128 = 0, sticky: Bool = false
    ) -> Decimal128 {
        var inexact = false
        return rounded(
            negative: negative, coefficient: coefficient, exponent: exponent, roundDigit: roundDigit,
            sticky: sticky, inexact: &inexact)
    }

    /// This NaN made quiet, for the result of arithmetic on it.
    private var quieted: Decimal128 { Decimal128(bidBits: (low, high & ~(Self.signalingBits ^ Self.nanBits))) }

    // MARK: - Creating

    /// The integer `value`, exactly.
    public init(_ value: Int) {
        self.init(Int64(value))
    }

    /// The integer `value`, exactly.
    public init(_ value: Int64) {
        self.init(negative: value < 0, coefficient: UInt128(value.magnitude), exponent: 0)
    }

    /// The integer `value`, rounded half to even to 34 significant digits if it has more.
    public init<T: BinaryInteger>(_ value: T) {
        if let magnitude = UInt128(exactly: value.magnitude) {
            self = Self.rounded(negative: value < 0, coefficient: magnitude, exponent: 0)
        } else {
            self = Self.parse(String(value)) ?? .nan
        }
    }

    /// The integer `source` if it is exactly representable (at most 34 significant digits, not
    /// counting trailing zeros), otherwise `nil`.
    public init?<T: BinaryInteger>(exactly source: T) {
        guard let magnitude = UInt128(exactly: source.magnitude) else {
            // Wider than 128 bits: exact only if the digits past the 34th are zeros.
            let value = Self.parse(String(source)) ?? .nan
            guard value.integerDigits == String(source.magnitude) else { return nil }
            self = value
            return
        }
        var inexact = false
        let value = Self.rounded(negative: source < 0, coefficient: magnitude, exponent: 0, inexact: &inexact)
        guard !inexact else { return nil }
        self = value
    }

    /// The shortest decimal that reads back as `value` (the digits of `value.description`), so
    /// `Decimal128(0.1)` is exactly 0.1 and `Decimal128(2.0)` is 2. NaN gives NaN, the infinities
    /// infinity.
    public init(_ value: Double) {
        if value.isNaN {
            self = .nan
        } else if value.isInfinite {
            self = value < 0 ? -.infinity : .infinity
        } else {
            self = Self.shortest(value.description)
        }
    }

    /// The shortest decimal that reads back as `value` (the digits of `value.description`), so
    /// `Decimal128(Float(0.1))` is exactly 0.1.
    public init(_ value: Float) {
        if value.isNaN {
            self = .nan
        } else if value.isInfinite {
            self = value < 0 ? -.infinity : .infinity
        } else {
            self = Self.shortest(value.description)
        }
    }

    /// Foundation's `Decimal` (38 digits, exponent -128…127) converted by its digits, rounded to
    /// 34 significant digits if it has more. `Decimal.nan` gives NaN.
    public init(_ value: Decimal) {
        self = value.isNaN ? .nan : Self.parse(value.description) ?? .nan
    }

    /// A number from a float's `description`, without the ".0" that marks whole numbers.
    private static func shortest(_ description: String) -> Decimal128 {
        guard case .finite(let negative, let coefficient, let exponent) = (parse(description) ?? .nan).parts else { return .nan }
        var (c, e) = (coefficient, exponent)
        while e < 0, c % 10 == 0 {
            c /= 10
            e += 1
        }
        return Decimal128(negative: negative, coefficient: c, exponent: e)
    }

    private static func parse(_ string: String) -> Decimal128? {
        try? parseOrExplain(string).get()
    }

    /// The number `string` spells, as the API's `init(string:)` reads it, or why it spells
    /// none; that initializer throws the reason as the API's own error.
    package static func parseOrExplain(_ string: String) -> Result<Decimal128, ValueSyntaxError> {
        func failure(_ reason: String) -> Result<Decimal128, ValueSyntaxError> {
            .failure(ValueSyntaxError("\"\(string)\" is not a Decimal128: \(reason)."))
        }
        let characters = Array(string.unicodeScalars)
        guard !characters.isEmpty else { return failure("the string is empty") }
        var index = 0
        var negative = false
        if characters[0] == "-" || characters[0] == "+" {
            negative = characters[0] == "-"
            index = 1
        }
        switch String(String.UnicodeScalarView(characters[index...])).lowercased() {
        case "inf", "infinity": return .success(negative ? -infinity : infinity)
        case "nan": return .success(Decimal128(bidBits: (0, nanBits | (negative ? signBit : 0))))
        case "snan": return .success(Decimal128(bidBits: (0, signalingBits | (negative ? signBit : 0))))
        default: break
        }

        var coefficient: UInt128 = 0
        var kept = 0
        var dropped = 0
        var fractionDigits = 0
        var roundDigit: UInt128 = 0
        var sticky = false
        var sawDigit = false
        var sawPoint = false
        func character(_ at: Int) -> String {
            "character \(at + 1) (\"\(characters[at])\")"
        }
        while index < characters.count {
            let scalar = characters[index]
            if scalar == "." {
                if sawPoint { return failure("\(character(index)) is a second decimal point") }
                sawPoint = true
            } else if let digit = Self.digit(scalar) {
                sawDigit = true
                if sawPoint { fractionDigits += 1 }
                if kept == 0 && digit == 0 {
                    // A leading zero: only its place counts.
                } else if kept < maxDigits {
                    coefficient = coefficient * 10 + UInt128(digit)
                    kept += 1
                } else {
                    if dropped == 0 { roundDigit = UInt128(digit) } else if digit != 0 { sticky = true }
                    dropped += 1
                }
            } else {
                break
            }
            index += 1
        }
        guard sawDigit else {
            if index < characters.count { return failure("\(character(index)) is not a digit, sign or decimal point") }
            return failure("it has no digits")
        }
        var exponent = 0
        if index < characters.count {
            guard characters[index] == "e" || characters[index] == "E" else {
                return failure("\(character(index)) is not a digit, decimal point or exponent")
            }
            index += 1
            var exponentNegative = false
            if index < characters.count, characters[index] == "-" || characters[index] == "+" {
                exponentNegative = characters[index] == "-"
                index += 1
            }
            guard index < characters.count else { return failure("the exponent has no digits") }
            while index < characters.count {
                guard let digit = Self.digit(characters[index]) else {
                    return failure("\(character(index)) is not a digit of the exponent")
                }
                // Beyond ±10⁹ every value is infinity or zero; stop growing there.
                if exponent < 1_000_000_000 { exponent = exponent * 10 + Int(digit) }
                index += 1
            }
            if exponentNegative { exponent = -exponent }
        }
        return .success(
            rounded(
                negative: negative, coefficient: coefficient, exponent: exponent - fractionDigits + dropped,
                roundDigit: roundDigit, sticky: sticky))
    }

    private static func digit(_ character: Unicode.Scalar) -> UInt8? {
        character >= "0" && character <= "9" ? UInt8(character.value - 48) : nil
    }

    // MARK: - Reading

    /// The value as a string that `init(string:)` reads back to the identical value, exponent
    /// included: the "to-scientific-string" form of IEEE 754 and the General Decimal Arithmetic
    /// specification (also MongoDB's), with infinity written `Inf` as realm-core does.
    ///
    /// Plain notation when the exponent is at most 0 and the number is not smaller than 1E-6
    /// (`1.5`, `-0`, `0.00`, `100`, `0.000123`); otherwise one digit before the point and an
    /// exponent (`1E+40`, `1.50E+3`, `1E-7`, `0E+2`). `NaN` (every NaN), `Inf`, `-Inf`.
    public var stringValue: String {
        switch parts {
        case .nan: return "NaN"
        case .infinity(let negative): return negative ? "-Inf" : "Inf"
        case .finite(let negative, let coefficient, let exponent):
            let digits = String(coefficient)
            let adjusted = exponent + digits.count - 1
            var text = negative ? "-" : ""
            if exponent <= 0 && adjusted >= -6 {
                let beforePoint = digits.count + exponent
                if exponent == 0 {
                    text += digits
                } else if beforePoint > 0 {
                    text += digits.prefix(beforePoint) + "." + digits.dropFirst(beforePoint)
                } else {
                    text += "0." + String(repeating: "0", count: -beforePoint) + digits
                }
            } else {
                text += digits.prefix(1)
                if digits.count > 1 { text += "." + digits.dropFirst() }
                text += "E" + (adjusted >= 0 ? "+" : "-") + String(adjusted.magnitude)
            }
            return text
        }
    }

    /// The nearest `Double` (correctly rounded): infinity beyond `Double`'s range, zero below it.
    public var doubleValue: Double {
        switch parts {
        case .nan: return .nan
        case .infinity(let negative): return negative ? -.infinity : .infinity
        case .finite: return Double(stringValue) ?? .nan
        }
    }

    /// The value as Foundation's `Decimal`, truncated to its 38 digits; `Decimal.nan` for NaN,
    /// infinity, and numbers outside `Decimal`'s exponent range.
    public var decimalValue: Decimal {
        guard case .finite = parts else { return .nan }
        return Decimal(string: stringValue, locale: Locale(identifier: "en_US_POSIX")) ?? .nan
    }

    /// Whether this is a NaN (quiet or signaling).
    public var isNaN: Bool { high & Self.nanBits == Self.nanBits }

    /// Whether this is a signaling NaN. (RealmSwift reports every NaN here; Burrow follows IEEE 754.)
    public var isSignaling: Bool { high & Self.signalingBits == Self.signalingBits }

    /// Whether this is a signaling NaN; the same as `isSignaling`.
    public var isSignalingNaN: Bool { isSignaling }

    /// Whether this is positive or negative infinity.
    public var isInfinite: Bool { high & Self.nanBits == Self.infinityBits }

    /// Whether this is a number: neither infinite nor NaN.
    public var isFinite: Bool { high & Self.infinityBits != Self.infinityBits }

    /// Whether this is zero, of either sign and any exponent.
    public var isZero: Bool {
        if case .finite(_, 0, _) = parts { return true }
        return false
    }

    /// Whether the sign bit is set: negative numbers, -0, -Inf, and NaNs written with a minus.
    public var isSignMinus: Bool { high & Self.signBit != 0 }

    /// The digits of a finite integer-valued number's magnitude (for `init?(exactly:)`), else nil.
    private var integerDigits: String? {
        guard case .finite(_, let coefficient, let exponent) = parts, exponent >= 0 else { return nil }
        return String(coefficient) + String(repeating: "0", count: coefficient == 0 ? 0 : exponent)
    }

    // MARK: - Sign

    /// The absolute value: this value with the sign cleared, exponent kept (also for NaN).
    public var magnitude: Decimal128 { Decimal128(bidBits: (low, high & ~Self.signBit)) }

    /// Flips the sign (0 becomes -0), keeping the exponent.
    public mutating func negate() {
        high ^= Self.signBit
    }

    /// The value with the opposite sign.
    public static prefix func - (operand: Decimal128) -> Decimal128 {
        var result = operand
        result.negate()
        return result
    }

    // MARK: - Arithmetic

    /// The sum, exact when it fits in 34 digits (with the smaller exponent of the two), otherwise
    /// rounded half to even. Inf + -Inf and anything with NaN are NaN; x + -x is +0.
    public static func + (lhs: Decimal128, rhs: Decimal128) -> Decimal128 {
        add(lhs, rhs, negatingRight: false)
    }

    /// The difference, exact when it fits in 34 digits, otherwise rounded half to even.
    public static func - (lhs: Decimal128, rhs: Decimal128) -> Decimal128 {
        add(lhs, rhs, negatingRight: true)
    }

    /// The product, exact when it fits in 34 digits (its exponent is the sum of the exponents),
    /// otherwise rounded half to even. 0 × Inf and anything with NaN are NaN.
    public static func * (lhs: Decimal128, rhs: Decimal128) -> Decimal128 {
        switch (lhs.parts, rhs.parts) {
        case (.nan, _): return lhs.quieted
        case (_, .nan): return rhs.quieted
        case (.infinity(let left), .infinity(let right)):
            return left != right ? -infinity : infinity
        case (.infinity(let left), .finite(let right, let coefficient, _)), (.finite(let right, let coefficient, _), .infinity(let left)):
            if coefficient == 0 { return .nan }
            return left != right ? -infinity : infinity
        case (.finite(let leftNegative, let left, let leftExponent), .finite(let rightNegative, let right, let rightExponent)):
            let negative = leftNegative != rightNegative
            let exponent = leftExponent + rightExponent
            let product = left.multipliedFullWidth(by: right)
            if product.high == 0 {
                return rounded(negative: negative, coefficient: product.low, exponent: exponent)
            }
            // Over 128 bits: divide by 10^drop, leaving 34 or 35 digits, keeping the rest as the fraction.
            let bits = 256 - product.high.leadingZeroBitCount
            let drop = (((bits - 1) * 1233) >> 12) + 1 - maxDigits
            let (kept, rest) = powersOfTen[drop].dividingFullWidth((product.high, product.low))
            let (roundDigit, below) = rest.quotientAndRemainder(dividingBy: powersOfTen[drop - 1])
            return rounded(
                negative: negative, coefficient: kept, exponent: exponent + drop,
                roundDigit: roundDigit, sticky: below != 0)
        }
    }

    /// The quotient, exact when it fits in 34 digits (with the exponent nearest the difference of
    /// the exponents: `1.00 / 1` is `1.00`, `1 / 4` is `0.25`), otherwise rounded half to even.
    /// x / 0 is infinity with the sign of the quotient; 0 / 0, Inf / Inf and anything with NaN
    /// are NaN; x / Inf is 0.
    public static func / (lhs: Decimal128, rhs: Decimal128) -> Decimal128 {
        switch (lhs.parts, rhs.parts) {
        case (.nan, _): return lhs.quieted
        case (_, .nan): return rhs.quieted
        case (.infinity, .infinity): return .nan
        case (.infinity(let left), .finite(let right, _, _)):
            return left != right ? -infinity : infinity
        case (.finite(let left, _, _), .infinity(let right)):
            return Decimal128(negative: left != right, coefficient: 0, exponent: minExponent)
        case (.finite(let leftNegative, let dividend, let leftExponent), .finite(let rightNegative, let divisor, let rightExponent)):
            let negative = leftNegative != rightNegative
            if divisor == 0 {
                return dividend == 0 ? .nan : negative ? -infinity : infinity
            }
            // Long division, one decimal digit at a time, until exact or 35 digits.
            var (quotient, remainder) = dividend.quotientAndRemainder(dividingBy: divisor)
            var exponent = leftExponent - rightExponent
            while remainder != 0 && quotient < powersOfTen[34] {
                let (digit, rest) = (remainder * 10).quotientAndRemainder(dividingBy: divisor)
                quotient = quotient * 10 + digit
                remainder = rest
                exponent -= 1
            }
            return rounded(negative: negative, coefficient: quotient, exponent: exponent, sticky: remainder != 0)
        }
    }

    /// Adds `rhs` to this value.
    public static func += (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs + rhs }
    /// Subtracts `rhs` from this value.
    public static func -= (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs - rhs }
    /// Multiplies this value by `rhs`.
    public static func *= (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs * rhs }
    /// Divides this value by `rhs`.
    public static func /= (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs / rhs }

    /// `other - self`, as RealmSwift's `distance(to:)`.
    public func distance(to other: Decimal128) -> Decimal128 { other - self }

    /// `self + n`, as RealmSwift's `advanced(by:)`.
    public func advanced(by n: Decimal128) -> Decimal128 { self + n }

    private static func add(_ lhs: Decimal128, _ rhs: Decimal128, negatingRight: Bool) -> Decimal128 {
        switch (lhs.parts, rhs.parts) {
        case (.nan, _): return lhs.quieted
        case (_, .nan): return rhs.quieted
        case (.infinity(let left), .infinity(let right)):
            return left == (right != negatingRight) ? lhs : .nan
        case (.infinity, .finite): return lhs
        case (.finite, .infinity(let right)):
            return right != negatingRight ? -infinity : infinity
        case (.finite(let leftNegative, let leftCoefficient, let leftExponent), .finite(let rightNegative, let rightCoefficient, let rightExponent)):
            // `big` has the larger exponent, `small` the smaller.
            var big = (negative: leftNegative, coefficient: leftCoefficient, exponent: leftExponent)
            var small = (negative: rightNegative != negatingRight, coefficient: rightCoefficient, exponent: rightExponent)
            if big.exponent < small.exponent { swap(&big, &small) }
            if big.coefficient == 0 {
                if small.coefficient == 0 {
                    // Zeros: -0 only if both are -0; the smaller exponent.
                    return Decimal128(negative: big.negative && small.negative, coefficient: 0, exponent: small.exponent)
                }
                return Decimal128(negative: small.negative, coefficient: small.coefficient, exponent: small.exponent)
            }
            // Scale `big` up to at most 37 digits toward `small`'s exponent; what is left of the gap
            // moves digits of `small` into a fraction (first digit, whether any later one is non-zero).
            let gap = big.exponent - small.exponent
            let shift = Swift.min(gap, 37 - digitCount(big.coefficient))
            let scaled = big.coefficient * powersOfTen[shift]
            let exponent = big.exponent - shift
            let remainingGap = gap - shift
            var aligned = small.coefficient
            var roundDigit: UInt128 = 0
            var sticky = false
            if remainingGap > maxDigits {
                aligned = 0
                sticky = small.coefficient != 0
            } else if remainingGap > 0 {
                let (kept, rest) = small.coefficient.quotientAndRemainder(dividingBy: powersOfTen[remainingGap])
                aligned = kept
                (roundDigit, _) = rest.quotientAndRemainder(dividingBy: powersOfTen[remainingGap - 1])
                sticky = rest % powersOfTen[remainingGap - 1] != 0
            }
            if big.negative == small.negative {
                return rounded(
                    negative: big.negative, coefficient: scaled + aligned, exponent: exponent,
                    roundDigit: roundDigit, sticky: sticky)
            }
            if roundDigit == 0 && !sticky {
                if scaled == aligned { return Decimal128(negative: false, coefficient: 0, exponent: exponent) }
                return scaled > aligned
                    ? rounded(negative: big.negative, coefficient: scaled - aligned, exponent: exponent)
                    : rounded(negative: small.negative, coefficient: aligned - scaled, exponent: exponent)
            }
            // `small` had digits below the unit (so `scaled` has 37 digits and is the larger):
            // borrow one unit and take the complement of the fraction.
            return rounded(
                negative: big.negative, coefficient: scaled - aligned - 1, exponent: exponent,
                roundDigit: sticky ? 9 - roundDigit : 10 - roundDigit, sticky: sticky)
        }
    }

    // MARK: - Comparing

    /// -1, 0 or 1 as `lhs` is less than, equal to or greater than `rhs` in numeric order, with
    /// every NaN equal to every other and less than everything else.
    package static func order(_ lhs: Decimal128, _ rhs: Decimal128) -> Int {
        switch (lhs.parts, rhs.parts) {
        case (.nan, .nan): return 0
        case (.nan, _): return -1
        case (_, .nan): return 1
        case (.infinity(let left), .infinity(let right)): return left == right ? 0 : left ? -1 : 1
        case (.infinity(let left), .finite): return left ? -1 : 1
        case (.finite, .infinity(let right)): return right ? 1 : -1
        case (.finite(let leftNegative, let left, let leftExponent), .finite(let rightNegative, let right, let rightExponent)):
            if left == 0 && right == 0 { return 0 }
            if left == 0 { return rightNegative ? 1 : -1 }
            if right == 0 { return leftNegative ? -1 : 1 }
            if leftNegative != rightNegative { return leftNegative ? -1 : 1 }
            let magnitudeOrder = orderMagnitudes(left, leftExponent, right, rightExponent)
            return leftNegative ? -magnitudeOrder : magnitudeOrder
        }
    }

    /// The order of two non-zero magnitudes `left × 10^leftExponent` and `right × 10^rightExponent`.
    private static func orderMagnitudes(_ left: UInt128, _ leftExponent: Int, _ right: UInt128, _ rightExponent: Int) -> Int {
        let leftDigits = digitCount(left)
        let rightDigits = digitCount(right)
        let leftAdjusted = leftExponent + leftDigits - 1
        let rightAdjusted = rightExponent + rightDigits - 1
        if leftAdjusted != rightAdjusted { return leftAdjusted < rightAdjusted ? -1 : 1 }
        // Same leading-digit position: scale the shorter coefficient to the longer one's length.
        let (a, b) =
            leftDigits < rightDigits
            ? (left * powersOfTen[rightDigits - leftDigits], right)
            : (left, right * powersOfTen[leftDigits - rightDigits])
        return a == b ? 0 : a < b ? -1 : 1
    }

    /// The value with trailing zeros of the coefficient removed: the one representation of its
    /// number that equal values share. Zeros become +0E+0, NaNs the quiet NaN.
    package var canonical: Decimal128 {
        switch parts {
        case .nan: return .nan
        case .infinity: return self
        case .finite(let negative, let coefficient, let exponent):
            if coefficient == 0 { return Decimal128() }
            var (c, e) = (coefficient, exponent)
            while true {
                let (quotient, remainder) = c.quotientAndRemainder(dividingBy: 10)
                guard remainder == 0 else { break }
                (c, e) = (quotient, e + 1)
            }
            return Decimal128(negative: negative, coefficient: c, exponent: e)
        }
    }
}

// MARK: - Conformances

extension Decimal128: Hashable, Comparable {
    /// Numeric equality: `1.0 == 1.00`, `-0 == 0`, and (unlike `Double`) NaN == NaN.
    public static func == (lhs: Decimal128, rhs: Decimal128) -> Bool {
        order(lhs, rhs) == 0
    }

    /// Numeric order, with NaN before every number (also before `-Inf`).
    public static func < (lhs: Decimal128, rhs: Decimal128) -> Bool {
        order(lhs, rhs) < 0
    }

    /// Hashes the number, so equal values (`1.0` and `1.00`, `0` and `-0`, any NaNs) hash alike.
    public func hash(into hasher: inout Hasher) {
        let bits = canonical.bidBits
        hasher.combine(bits.low)
        hasher.combine(bits.high)
    }
}

extension Decimal128: SignedNumeric {
    /// `Decimal128` is its own magnitude type.
    public typealias Magnitude = Decimal128
}

extension Decimal128: ExpressibleByIntegerLiteral {
    /// The integer literal, exactly: `let price: Decimal128 = 5`.
    public init(integerLiteral value: Int64) {
        self.init(value)
    }
}

extension Decimal128: ExpressibleByFloatLiteral {
    /// The float literal through `Double`, as its shortest decimal: `let price: Decimal128 = 0.1`
    /// is exactly 0.1. For more than 17 digits, write a string literal.
    public init(floatLiteral value: Double) {
        self.init(value)
    }
}

extension Decimal128: CustomStringConvertible {
    /// The same as `stringValue`.
    public var description: String { stringValue }
}
