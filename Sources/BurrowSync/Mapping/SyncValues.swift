import Burrow
import BurrowStore
import Foundation

/// Values between Burrow and PostgreSQL's text forms: what an upload passes as a statement's
/// parameters, and what a download reads from the columns `SyncedTable.Column.selected` makes.
enum SyncValues {
    /// The text PostgreSQL reads `value` from, as a parameter of `type`'s column (nil: NULL).
    /// A link is passed as its target's primary key, by the caller.
    static func parameter(_ value: StoreValue) -> String? {
        switch value {
        // Links are passed by the caller; lists and dictionaries are only in `jsonb` columns.
        case .null, .object, .list, .dictionary: nil
        case .bool(let value): value ? "true" : "false"
        case .int(let value): String(value)
        case .float(let value): floatingText(Double(value), description: value.description)
        case .double(let value): floatingText(value, description: value.description)
        case .string(let value): value
        case .data(let value): "\\x" + value.map { hexDigits[Int($0)] }.joined()
        case .date(let value): floatingText(value.timeIntervalSince1970, description: value.timeIntervalSince1970.description)
        case .objectId(let value): value.stringValue
        case .uuid(let value): value.uuidString.lowercased()
        case .decimal128(let value): value.isNaN ? "NaN" : value.stringValue
        }
    }

    private static let hexDigits: [String] = (0..<256).map { String(format: "%02x", $0) }

    /// PostgreSQL's spelling of the special values; Swift's shortest exact text otherwise.
    private static func floatingText(_ value: Double, description: String) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
        return description
    }

    /// The value of `type` that `text`, a column's text form, spells; nil if it spells none
    /// (the caller reports the row).
    static func value(_ text: String, as type: PropertyType) -> StoreValue? {
        switch type {
        case .bool:
            switch text {
            case "t", "true": return .bool(true)
            case "f", "false": return .bool(false)
            default: return nil
            }
        case .int: return Int64(text).map { .int($0) }
        case .float: return floating(text).map { .float(Float($0)) }
        case .double: return floating(text).map { .double($0) }
        case .string: return .string(text)
        case .data: return data(hex: text).map { .data($0) }
        case .date: return Double(text).map { .date(Date(timeIntervalSince1970: $0)) }
        case .objectId: return (try? ObjectId(string: text)).map { .objectId($0) }
        case .uuid: return UUID(uuidString: text).map { .uuid($0) }
        case .decimal128: return (try? Decimal128(string: text)).map { .decimal128($0) }
        case .object, .any, .linkingObjects: return nil
        }
    }

    /// A Swift value for the dynamic API: what `Realm.dynamicCreate` takes for a property of
    /// the value's type.
    static func swiftValue(_ value: StoreValue) -> Any? {
        switch value {
        case .null, .object, .list, .dictionary: nil
        case .bool(let value): value
        case .int(let value): Int(value)
        case .float(let value): value
        case .double(let value): value
        case .string(let value): value
        case .data(let value): value
        case .date(let value): value
        case .objectId(let value): value
        case .uuid(let value): value
        case .decimal128(let value): value
        }
    }

    private static func floating(_ text: String) -> Double? {
        switch text {
        case "NaN": .nan
        case "Infinity": .infinity
        case "-Infinity": -.infinity
        default: Double(text)
        }
    }

    /// The bytes of PostgreSQL's hex form of `bytea` (`\x0a1b…`).
    private static func data(hex text: String) -> Data? {
        let digits = Array(text.utf8)
        guard digits.count >= 2, digits[0] == UInt8(ascii: "\\"), digits[1] == UInt8(ascii: "x"), digits.count % 2 == 0 else { return nil }
        var bytes = Data(capacity: digits.count / 2 - 1)
        var index = 2
        while index < digits.count {
            guard let high = ObjectId.nibble(digits[index]), let low = ObjectId.nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }
}
