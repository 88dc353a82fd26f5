import BurrowStore
import Foundation

// Reading an `ObjectId` from text throws `RealmError`, the API's error, so these members live
// here, above the store that defines the type.

extension ObjectId: Codable {
    /// The id written as `stringValue` (24 hexadecimal digits, either case).
    ///
    /// Throws `RealmError` (`.invalidArgument`) if `string` is not 24 hexadecimal digits.
    public init(string: String) throws {
        switch Self.parse(string) {
        case .success(let id): self = id
        case .failure(let problem): throw RealmError(.invalidArgument, problem.message)
        }
    }

    /// Decodes the 24-digit hexadecimal string `encode(to:)` writes. Throws `RealmError`
    /// (`.invalidArgument`) for a string that is not an id.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        try self.init(string: try container.decode(String.self))
    }

    /// Encodes the id as `stringValue`, its 24 hexadecimal digits.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(stringValue)
    }
}
