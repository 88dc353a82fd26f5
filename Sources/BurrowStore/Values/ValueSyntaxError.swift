/// Why a string is not a value of the type it was read as (an `ObjectId`, a `Decimal128`): a
/// sentence a person can act on, which the API throws as its own error.
package struct ValueSyntaxError: Error, Sendable {
    package let message: String

    package init(_ message: String) { self.message = message }
}
