import BurrowStore
import Foundation

// Reading a `Decimal128` from text throws `RealmError`, the API's error, so these members live
// here, above the store that defines the type.

extension Decimal128 {
    /// Parses a decimal number in the form `stringValue` writes and in the usual variations.
    ///
    /// Accepted: an optional sign (`+` or `-`), then digits with at most one decimal point (`1`,
    /// `1.50`, `.5`, `5.`) and an optional exponent (`E` or `e`, an optional sign, digits: `1E+40`,
    /// `2.5e-3`); or, in any case, `NaN`, `sNaN`, `Inf` or `Infinity`. No spaces or digit
    /// separators. The exponent written is kept: `1.50` prints as `1.50`.
    ///
    /// More than 34 significant digits are rounded half to even; a number too large for the
    /// exponent range becomes infinity and one too small rounds toward zero, as IEEE 754 converts.
    ///
    /// Throws `RealmError` (`.invalidArgument`) naming what is wrong if `string` is not a number.
    public init(string: String) throws {
        switch Self.parseOrExplain(string) {
        case .success(let value): self = value
        case .failure(let problem): throw RealmError(.invalidArgument, problem.message)
        }
    }
}

extension Decimal128: ExpressibleByStringLiteral {
    /// The number a string literal spells, as `init(string:)` reads it, with every digit kept:
    /// `let price: Decimal128 = "19.99"`. An invalid literal is a programming error and stops the
    /// program.
    public init(stringLiteral value: String) {
        do {
            try self.init(string: value)
        } catch {
            fatalError("Invalid Decimal128 literal: \(error)")
        }
    }
}

extension Decimal128: Codable {
    /// Decodes a string as `init(string:)` reads it, or, as RealmSwift does, an integer or a
    /// floating-point number. Throws `RealmError` (`.invalidArgument`) for a string that is not
    /// a number.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let string = try? container.decode(String.self) {
            try self.init(string: string)
        } else if let integer = try? container.decode(Int64.self) {
            self.init(integer)
        } else if let double = try? container.decode(Double.self) {
            self.init(double)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "Expected a Decimal128 as a string or a number.")
        }
    }

    /// Encodes `stringValue`, which keeps every digit and the exponent.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(stringValue)
    }
}
