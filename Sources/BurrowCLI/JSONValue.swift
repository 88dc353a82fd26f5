import BurrowStore

/// A JSON document as `burrow import` reads it: objects keep their members in the order the
/// text gives them, and numbers keep the difference between integers (`12`) and decimals
/// (`12.0`, `1e3`), which tells an `any` property's `int` from its `double`.
enum JSONValue: Equatable {
    case null
    case bool(Bool)
    /// A number written without a fraction or an exponent that fits 64 bits.
    case integer(Int64)
    /// Any other number, with the text it was written as (so that it converts to `Float`,
    /// `Double` or `Decimal128` without a detour through another type).
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case (.bool(let x), .bool(let y)): x == y
        case (.integer(let x), .integer(let y)): x == y
        case (.number(let x), .number(let y)): x == y
        case (.string(let x), .string(let y)): x == y
        case (.array(let x), .array(let y)): x == y
        case (.object(let x), .object(let y)): x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    /// The member named `name` of an object, or nil.
    subscript(name: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == name }?.1
    }

    /// What kind of value this is, for error messages.
    var kind: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .integer, .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// A JSON text that cannot be read: where, and why.
struct JSONSyntaxError: Error, CustomStringConvertible {
    let line: Int
    let column: Int
    let reason: String
    var description: String { "line \(line), column \(column): \(reason)" }
}

/// Reads JSON text (RFC 8259) into a `JSONValue`. Nesting is limited to `maximumDepth`
/// arrays and objects, with an error that says so, so that hostile input cannot exhaust the
/// stack of the recursive descent. An object may not name a member twice.
struct JSONParser {
    /// How deeply arrays and objects may nest: far more than an export's objects need (an
    /// embedded object nests two levels per level of embedding).
    static let maximumDepth = 512

    private let bytes: [UInt8]
    private var position = 0

    /// Parses `text` as one JSON value. Throws `JSONSyntaxError`.
    static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        parser.skipWhitespace()
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.position == bytes.count else { throw parser.error("unexpected text after the end of the document") }
        return value
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private func error(_ reason: String) -> JSONSyntaxError {
        var line = 1
        var column = 1
        for byte in bytes[..<min(position, bytes.count)] {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return JSONSyntaxError(line: line, column: column, reason: reason)
    }

    private mutating func skipWhitespace() {
        while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
    }

    private mutating func expect(_ literal: String, _ value: JSONValue) throws(JSONSyntaxError) -> JSONValue {
        let text = Array(literal.utf8)
        guard bytes.count - position >= text.count, Array(bytes[position..<position + text.count]) == text else {
            throw error("expected a value")
        }
        position += text.count
        return value
    }

    private mutating func value(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard position < bytes.count else { throw error("the document ends where a value should be") }
        switch bytes[position] {
        case UInt8(ascii: "n"): return try expect("null", .null)
        case UInt8(ascii: "t"): return try expect("true", .bool(true))
        case UInt8(ascii: "f"): return try expect("false", .bool(false))
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        case UInt8(ascii: "["):
            guard depth < Self.maximumDepth else { throw error("arrays and objects nest more than \(Self.maximumDepth) levels deep") }
            position += 1
            var elements: [JSONValue] = []
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
                position += 1
                return .array(elements)
            }
            while true {
                skipWhitespace()
                elements.append(try value(depth: depth + 1))
                skipWhitespace()
                guard position < bytes.count else { throw error("the document ends inside an array") }
                if bytes[position] == UInt8(ascii: "]") {
                    position += 1
                    return .array(elements)
                }
                guard bytes[position] == UInt8(ascii: ",") else { throw error("expected ',' or ']' in an array") }
                position += 1
            }
        case UInt8(ascii: "{"):
            guard depth < Self.maximumDepth else { throw error("arrays and objects nest more than \(Self.maximumDepth) levels deep") }
            position += 1
            var members: [(String, JSONValue)] = []
            // A name given twice is an error: which member counts would be a guess (RFC 8259
            // leaves it open), and the other one would be dropped without a word.
            var names: Set<String> = []
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
                position += 1
                return .object(members)
            }
            while true {
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw error("expected a member name in quotes") }
                let start = position
                let name = try string()
                guard names.insert(name).inserted else {
                    position = start
                    throw error("a second member named \(JSONValue.quoted(name)) in one object; give each member its own name")
                }
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw error("expected ':' after a member name") }
                position += 1
                skipWhitespace()
                members.append((name, try value(depth: depth + 1)))
                skipWhitespace()
                guard position < bytes.count else { throw error("the document ends inside an object") }
                if bytes[position] == UInt8(ascii: "}") {
                    position += 1
                    return .object(members)
                }
                guard bytes[position] == UInt8(ascii: ",") else { throw error("expected ',' or '}' in an object") }
                position += 1
            }
        default:
            throw error("expected a value")
        }
    }

    private mutating func number() throws(JSONSyntaxError) -> JSONValue {
        let start = position
        var isInteger = true
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        func digits(_ parser: inout JSONParser) -> Int {
            let from = parser.position
            while parser.position < parser.bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(parser.bytes[parser.position]) {
                parser.position += 1
            }
            return parser.position - from
        }
        guard digits(&self) > 0 else { throw error("expected digits in a number") }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            isInteger = false
            guard digits(&self) > 0 else { throw error("expected digits after a decimal point") }
        }
        if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            position += 1
            isInteger = false
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard digits(&self) > 0 else { throw error("expected digits in an exponent") }
        }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        if isInteger, let integer = Int64(text) { return .integer(integer) }
        return .number(text)
    }

    private mutating func string() throws(JSONSyntaxError) -> String {
        position += 1  // the opening quote
        var utf8: [UInt8] = []
        while true {
            guard position < bytes.count else { throw error("the document ends inside a string") }
            let byte = bytes[position]
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: utf8, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard position < bytes.count else { throw error("the document ends inside a string") }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard bytes.count - position >= 6, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                            throw error("a high surrogate escape without its low surrogate")
                        }
                        position += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw error("a high surrogate escape without its low surrogate") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw error("an escape of a lone surrogate") }
                    utf8.append(contentsOf: Array(String(Character(unicode)).utf8))
                default:
                    throw error("an unknown escape in a string")
                }
            case 0..<0x20:
                throw error("a control character in a string (write it as an escape)")
            default:
                utf8.append(byte)
            }
        }
    }

    private mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        guard bytes.count - position >= 4 else { throw error("expected four hex digits after \\u") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("expected four hex digits after \\u")
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }
}

extension JSONValue {
    /// `text` as a JSON string literal, quotes included.
    static func quoted(_ text: String) -> String {
        var out = "\""
        out.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case "\u{00}"..."\u{1F}", "\u{7F}":
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
