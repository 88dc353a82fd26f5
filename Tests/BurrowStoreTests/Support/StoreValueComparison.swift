import BurrowStore
import Foundation

/// Whether two store values are the same stored value: floating-point values and dates by
/// their bits (a NaN equals itself, -0.0 differs from 0.0), a `Decimal128` by its encoding,
/// links by class id and object key.
func sameStoredValue(_ a: StoreValue, _ b: StoreValue) -> Bool {
    switch (a, b) {
    case (.null, .null): true
    case (.bool(let x), .bool(let y)): x == y
    case (.int(let x), .int(let y)): x == y
    case (.float(let x), .float(let y)): x.bitPattern == y.bitPattern
    case (.double(let x), .double(let y)): x.bitPattern == y.bitPattern
    case (.string(let x), .string(let y)): x.utf8.elementsEqual(y.utf8)
    case (.data(let x), .data(let y)): x == y
    case (.date(let x), .date(let y)): x.timeIntervalSinceReferenceDate.bitPattern == y.timeIntervalSinceReferenceDate.bitPattern
    case (.objectId(let x), .objectId(let y)): x == y
    case (.uuid(let x), .uuid(let y)): x == y
    case (.decimal128(let x), .decimal128(let y)): x.bidBits.high == y.bidBits.high && x.bidBits.low == y.bidBits.low
    case (.object(let x), .object(let y)): x == y
    default: false
    }
}

/// Whether two lists of store values hold the same values in the same order.
func sameStoredValues(_ a: [StoreValue], _ b: [StoreValue]) -> Bool {
    a.count == b.count && zip(a, b).allSatisfy { sameStoredValue($0, $1) }
}

/// A store value as a failure message shows it: short, with long strings and data cut.
func describeStoredValue(_ value: StoreValue) -> String {
    switch value {
    case .string(let s) where s.count > 24: "string(\(s.prefix(12))… \(s.utf8.count) bytes)"
    case .data(let d): "data(\(d.count) bytes)"
    default: "\(value)"
    }
}
