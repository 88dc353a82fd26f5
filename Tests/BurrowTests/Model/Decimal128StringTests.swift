import Foundation
import Testing

@testable import Burrow

/// The API's forms of a `Decimal128`: `init(string:)`, which throws `RealmError`, string
/// literals, and `Codable` as its string. (The value itself, its arithmetic and its parsing
/// are tested with the store, in BurrowStoreTests.)
@Suite("Decimal128 strings")
struct Decimal128StringTests {
    @Test("init(string:) throws an invalidArgument error that says why a string is not a number")
    func stringInitializerThrows() {
        for (text, reason) in [("", "empty"), ("1.2.3", "second decimal point"), ("1e", "exponent has no digits")] {
            #expect {
                _ = try Decimal128(string: text)
            } throws: { error in
                guard let error = error as? RealmError else { return false }
                return error.code == .invalidArgument && error.description.contains("\"\(text)\" is not a Decimal128")
                    && error.description.contains(reason)
            }
        }
    }

    @Test("a string literal keeps every digit")
    func stringLiteral() {
        let string: Decimal128 = "12345678901234567890.123456789"
        #expect(string.stringValue == "12345678901234567890.123456789")
    }

    func decimal(_ text: String) -> Decimal128 {
        do {
            return try Decimal128(string: text)
        } catch {
            Issue.record("\"\(text)\" did not parse: \(error)")
            return .nan
        }
    }

    @Test("Codable as the string, keeping the exponent; numbers decode too")
    func codable() throws {
        let values = ["1.50", "-0", "1E+40", "NaN", "-Inf", "0.1"].map { decimal($0) }
        let data = try JSONEncoder().encode(values)
        #expect(String(decoding: data, as: UTF8.self) == #"["1.50","-0","1E+40","NaN","-Inf","0.1"]"#)
        let decoded = try JSONDecoder().decode([Decimal128].self, from: data)
        #expect(decoded.map(\.stringValue) == values.map(\.stringValue))
        let numbers = try JSONDecoder().decode([Decimal128].self, from: Data("[5, -12, 2.5, 0.1]".utf8))
        #expect(numbers.map(\.stringValue) == ["5", "-12", "2.5", "0.1"])
        #expect(throws: RealmError.self) { try JSONDecoder().decode([Decimal128].self, from: Data(#"["1.2.3"]"#.utf8)) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([Decimal128].self, from: Data("[true]".utf8)) }
    }
}
