/// An `ObjectId` written in code, as RealmSwift's `ObjectId("…")`:
///
///     let id: ObjectId = "6154e59c5e31b1a2c3d4e5f6"
///     let same = ObjectId("6154e59c5e31b1a2c3d4e5f6")
///
/// A literal is program text, so one that is not 24 hexadecimal digits is a programming error:
/// it traps with the reason, as RealmSwift's initializer does. For a string read at run time,
/// use `init(string:)`, which throws instead.
extension ObjectId: ExpressibleByStringLiteral {
    /// The id `value` spells (24 hexadecimal digits). Traps if it is not an ObjectId.
    public init(stringLiteral value: String) {
        self.init(literal: value)
    }

    /// The id `string` spells (24 hexadecimal digits). Traps if it is not an ObjectId; use
    /// `init(string:)` for a string read at run time.
    public init(_ string: StaticString) {
        self.init(literal: string.withUTF8Buffer { String(decoding: $0, as: UTF8.self) })
    }

    private init(literal: String) {
        do {
            try self.init(string: literal)
        } catch {
            preconditionFailure("Invalid ObjectId literal: \(error)")
        }
    }
}
