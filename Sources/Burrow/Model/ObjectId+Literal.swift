import BurrowStore

/// An `ObjectId` written in code, as RealmSwift's `ObjectId("…")`:
///
///     let id = ObjectId("6154e59c5e31b1a2c3d4e5f6")
///
/// The argument is a `StaticString`, program text, so one that is not 24 hexadecimal digits is
/// a programming error: it traps with the reason, as RealmSwift's initializer does. For a
/// string read at run time, use `init(string:)`, which throws instead.
///
/// `ObjectId` is deliberately not `ExpressibleByStringLiteral` (nor is RealmSwift's): string
/// literals in queries such as `$0.name == "Fido"` could then be taken as ids.
extension ObjectId {
    /// The id `string` spells (24 hexadecimal digits, either case). Traps if it is not an
    /// ObjectId; use `init(string:)` for a string read at run time.
    public init(_ string: StaticString) {
        let text = string.withUTF8Buffer { String(decoding: $0, as: UTF8.self) }
        do {
            try self.init(string: text)
        } catch {
            preconditionFailure("Invalid ObjectId literal: \(error)")
        }
    }
}
