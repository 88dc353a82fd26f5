import BurrowStore
import Foundation

/// Dates as ISO 8601 text in UTC (`2024-05-01T12:30:00.25Z`) that reads back as exactly the
/// stored value: the fraction has the digits of the shortest decimal that is the stored
/// number of seconds since 2001, so no precision is lost and none is invented. Integer
/// calendar arithmetic (the proleptic Gregorian calendar, years with more than four digits
/// signed) keeps it exact for any year a date holds.
enum DateText {
    /// Seconds from 1970-01-01 to 2001-01-01, Foundation's reference date.
    private static let referenceOffset: Int64 = 978_307_200
    /// Beyond this many seconds from 2001 (about 3 million years), or for a date that is
    /// not finite, the text is the number of seconds since 2001 after an `@`.
    private static let limit = 1.0e14

    /// `date` as ISO 8601 text in UTC.
    static func string(_ date: Date) -> String {
        let seconds = date.timeIntervalSinceReferenceDate
        guard seconds.isFinite, abs(seconds) < limit, let exact = Decimal(string: seconds.description) else {
            return "@\(seconds.description)"
        }
        var whole = Decimal()
        var copy = exact
        NSDecimalRound(&whole, &copy, 0, .down)
        let fraction = exact - whole
        let unix = Int64(truncating: whole as NSDecimalNumber) + referenceOffset
        let days = unix >= 0 ? unix / 86_400 : -((-unix + 86_399) / 86_400)
        let secondOfDay = unix - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        var text = year < 0 ? "-" + pad(-year, 4) : year > 9999 ? "+" + String(year) : pad(year, 4)
        text += "-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2))"
        if fraction != 0 {
            let digits = fraction.description  // "0.25"
            if let point = digits.firstIndex(of: ".") { text += digits[point...] }
        }
        return text + "Z"
    }

    /// The date `text` names: ISO 8601 with a date, a time and `Z` or an offset
    /// (`2024-05-01T12:30:00Z`, `2024-05-01T14:30:00.5+02:00`), a date alone (midnight UTC),
    /// or `@` and seconds since 2001. Nil for other text.
    static func date(_ text: String) -> Date? {
        if text.hasPrefix("@") { return Double(text.dropFirst()).map { Date(timeIntervalSinceReferenceDate: $0) } }
        var scanner = Substring(text)
        var sign: Int64 = 1
        if scanner.first == "-" || scanner.first == "+" {
            sign = scanner.first == "-" ? -1 : 1
            scanner = scanner.dropFirst()
        }
        guard let year = number(&scanner, minimumDigits: 4), take("-", &scanner),
            let month = number(&scanner, digits: 2), take("-", &scanner), let day = number(&scanner, digits: 2),
            (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var seconds: Int64 = 0
        var fraction = ""
        if take("T", &scanner) || take(" ", &scanner) {
            guard let hour = number(&scanner, digits: 2), take(":", &scanner), let minute = number(&scanner, digits: 2),
                take(":", &scanner), let second = number(&scanner, digits: 2), hour < 24, minute < 60, second < 61
            else { return nil }
            seconds = hour * 3600 + minute * 60 + second
            if take(".", &scanner) {
                let digits = scanner.prefix { $0.isASCII && $0.isNumber }
                guard !digits.isEmpty else { return nil }
                fraction = "0." + digits
                scanner = scanner.dropFirst(digits.count)
            }
            if take("Z", &scanner) {
            } else if let offsetSign = scanner.first, offsetSign == "+" || offsetSign == "-" {
                scanner = scanner.dropFirst()
                guard let hours = number(&scanner, digits: 2), take(":", &scanner), let minutes = number(&scanner, digits: 2) else { return nil }
                seconds -= (offsetSign == "-" ? -1 : 1) * (hours * 3600 + minutes * 60)
            } else {
                return nil
            }
        }
        guard scanner.isEmpty else { return nil }
        let unix = days(fromCivil: sign * year, month, day) * 86_400 + seconds
        var exact = Decimal(unix - referenceOffset)
        if !fraction.isEmpty {
            guard let part = Decimal(string: fraction) else { return nil }
            exact += part
        }
        return Double(exact.description).map { Date(timeIntervalSinceReferenceDate: $0) }
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    private static func take(_ character: Character, _ scanner: inout Substring) -> Bool {
        guard scanner.first == character else { return false }
        scanner = scanner.dropFirst()
        return true
    }

    private static func number(_ scanner: inout Substring, digits: Int) -> Int64? {
        number(&scanner, minimumDigits: digits, maximumDigits: digits)
    }

    private static func number(_ scanner: inout Substring, minimumDigits: Int, maximumDigits: Int = 12) -> Int64? {
        let digits = scanner.prefix { $0.isASCII && $0.isNumber }.prefix(maximumDigits)
        guard digits.count >= minimumDigits, let value = Int64(digits) else { return nil }
        scanner = scanner.dropFirst(digits.count)
        return value
    }

    // Howard Hinnant's days-from-civil and civil-from-days: days since 1970-01-01 in the
    // proleptic Gregorian calendar, for any year.
    private static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
