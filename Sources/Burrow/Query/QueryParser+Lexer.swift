import BurrowStore
import Foundation

/// Splitting a query string into tokens, each with the position (in characters from the
/// start) where it begins, for error messages.
extension QueryParser {
    enum TokenKind: Equatable {
        case identifier(String)
        case int(Int64)
        case double(Double)
        case string(String)
        /// `2024-01-31@13:45:00[:nanoseconds]` (UTC) or `T<seconds>:<nanoseconds>` (since 1970).
        case date(Date)
        /// `%@`: the next argument.
        case argument
        /// `%K`: the next argument, as a key path.
        case keyPathArgument
        /// `$n`: argument n.
        case indexedArgument(Int)
        /// `@count`, `@sum`…: the name without the `@`.
        case at(String)
        case symbol(String)
        case end
    }

    struct Token {
        let kind: TokenKind
        let position: Int
        let text: String
    }

    static func tokenize(_ text: String) throws(RealmError) -> [Token] {
        let chars = Array(text)
        var tokens: [Token] = []
        var i = 0
        func error(_ message: String) -> RealmError {
            RealmError(.invalidArgument, "Syntax error in query at position \(i): \(message). Query: \(text)")
        }
        while i < chars.count {
            let c = chars[i]
            let start = i
            if c.isWhitespace {
                i += 1
                continue
            }
            if let (date, end) = dateLiteral(chars, at: i) {
                tokens.append(Token(kind: .date(date), position: start, text: String(chars[start..<end])))
                i = end
                continue
            }
            if c.isLetter || c == "_" {
                while i < chars.count, chars[i].isLetter || chars[i].isNumber || chars[i] == "_" { i += 1 }
                tokens.append(Token(kind: .identifier(String(chars[start..<i])), position: start, text: String(chars[start..<i])))
                continue
            }
            let signed = c == "-" && i + 1 < chars.count && chars[i + 1].isASCII && chars[i + 1].isNumber
            if signed || (c.isASCII && c.isNumber) || (c == "." && i + 1 < chars.count && chars[i + 1].isASCII && chars[i + 1].isNumber) {
                var isDouble = false
                if signed { i += 1 }
                while i < chars.count, chars[i].isASCII, chars[i].isNumber { i += 1 }
                if i < chars.count, chars[i] == ".", i + 1 < chars.count, chars[i + 1].isASCII, chars[i + 1].isNumber {
                    isDouble = true
                    i += 1
                    while i < chars.count, chars[i].isASCII, chars[i].isNumber { i += 1 }
                }
                if i < chars.count, chars[i] == "e" || chars[i] == "E" {
                    var j = i + 1
                    if j < chars.count, chars[j] == "+" || chars[j] == "-" { j += 1 }
                    if j < chars.count, chars[j].isASCII, chars[j].isNumber {
                        isDouble = true
                        i = j
                        while i < chars.count, chars[i].isASCII, chars[i].isNumber { i += 1 }
                    }
                }
                let literal = String(chars[start..<i])
                if !isDouble, let value = Int64(literal) {
                    tokens.append(Token(kind: .int(value), position: start, text: literal))
                } else if let value = Double(literal) {
                    tokens.append(Token(kind: .double(value), position: start, text: literal))
                } else {
                    throw error("'\(literal)' is not a number")
                }
                continue
            }
            if c == "'" || c == "\"" {
                i += 1
                var value = ""
                var closed = false
                while i < chars.count {
                    let d = chars[i]
                    if d == c {
                        closed = true
                        i += 1
                        break
                    }
                    if d == "\\", i + 1 < chars.count {
                        let e = chars[i + 1]
                        switch e {
                        case "n": value.append("\n")
                        case "t": value.append("\t")
                        case "r": value.append("\r")
                        case "0": value.append("\0")
                        default: value.append(e)
                        }
                        i += 2
                        continue
                    }
                    value.append(d)
                    i += 1
                }
                guard closed else {
                    i = start
                    throw error("the string starting here has no closing \(c)")
                }
                tokens.append(Token(kind: .string(value), position: start, text: String(chars[start..<i])))
                continue
            }
            if c == "%" {
                guard i + 1 < chars.count, chars[i + 1] == "@" || chars[i + 1] == "K" else {
                    throw error("expected %@ or %K")
                }
                tokens.append(Token(kind: chars[i + 1] == "@" ? .argument : .keyPathArgument, position: start, text: String(chars[i...i + 1])))
                i += 2
                continue
            }
            if c == "$", i + 1 < chars.count, chars[i + 1].isLetter {
                // A SUBQUERY variable (`$d`): an identifier that only SUBQUERY could use.
                i += 1
                while i < chars.count, chars[i].isLetter || chars[i].isNumber || chars[i] == "_" { i += 1 }
                tokens.append(Token(kind: .identifier(String(chars[start..<i])), position: start, text: String(chars[start..<i])))
                continue
            }
            if c == "$" {
                i += 1
                while i < chars.count, chars[i].isASCII, chars[i].isNumber { i += 1 }
                guard i > start + 1, let index = Int(String(chars[(start + 1)..<i])) else {
                    i = start
                    throw error("expected an argument number after $ ($0, $1, …)")
                }
                tokens.append(Token(kind: .indexedArgument(index), position: start, text: String(chars[start..<i])))
                continue
            }
            if c == "@" {
                i += 1
                while i < chars.count, chars[i].isLetter { i += 1 }
                guard i > start + 1 else {
                    i = start
                    throw error("expected an aggregate after @ (@count, @size, @sum, @avg, @min, @max, @keys, @values)")
                }
                tokens.append(Token(kind: .at(String(chars[(start + 1)..<i]).lowercased()), position: start, text: String(chars[start..<i])))
                continue
            }
            let two = i + 1 < chars.count ? String(chars[i...i + 1]) : ""
            if ["==", "!=", "<>", "<=", ">=", "=<", "=>", "&&", "||"].contains(two) {
                tokens.append(Token(kind: .symbol(two), position: start, text: two))
                i += 2
                continue
            }
            if "=<>!(){}[],.".contains(c) {
                tokens.append(Token(kind: .symbol(String(c)), position: start, text: String(c)))
                i += 1
                continue
            }
            throw error("unexpected character '\(c)'")
        }
        tokens.append(Token(kind: .end, position: chars.count, text: "end of query"))
        return tokens
    }

    /// A date literal starting at `start`, and where it ends; nil if there is none there.
    static func dateLiteral(_ chars: [Character], at start: Int) -> (Date, Int)? {
        var i = start
        func digits(_ min: Int, _ max: Int) -> Int? {
            var value = 0
            var count = 0
            while i < chars.count, count < max, let digit = chars[i].wholeNumberValue, chars[i].isASCII {
                value = value * 10 + digit
                count += 1
                i += 1
            }
            return count >= min ? value : nil
        }
        func expect(_ c: Character) -> Bool {
            guard i < chars.count, chars[i] == c else { return false }
            i += 1
            return true
        }
        // Only where a literal can stand: not inside an identifier.
        if start > 0, chars[start - 1].isLetter || chars[start - 1].isNumber || chars[start - 1] == "_" { return nil }
        if chars[start] == "T" {
            i += 1
            let negative = expect("-")
            guard let seconds = digits(1, 12), expect(":"), let nanos = digits(1, 9) else { return nil }
            if i < chars.count, chars[i].isLetter || chars[i].isNumber { return nil }
            let value = (Double(seconds) + Double(nanos) / 1e9) * (negative ? -1 : 1)
            return (Date(timeIntervalSince1970: value), i)
        }
        guard let year = digits(4, 4), expect("-"), let month = digits(1, 2), expect("-"), let day = digits(1, 2),
            expect("@") || expect("T"), let hour = digits(1, 2), expect(":"), let minute = digits(2, 2), expect(":"),
            let second = digits(2, 2)
        else { return nil }
        var nanos = 0
        if expect(":") {
            guard let n = digits(1, 9) else { return nil }
            nanos = n
        }
        guard (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        var components = DateComponents()
        components.year = year
        components.month = month
        components.day = day
        components.hour = hour
        components.minute = minute
        components.second = second
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        guard let date = calendar.date(from: components) else { return nil }
        return (date.addingTimeInterval(Double(nanos) / 1e9), i)
    }
}
