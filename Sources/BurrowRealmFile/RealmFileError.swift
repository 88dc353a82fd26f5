/// Why a `.realm` file could not be read: what kind of failure, and a message that names the
/// file's problem in words a person can act on. The importer turns it into a `RealmError`.
package struct RealmFileError: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Kind: Sendable, Equatable {
        /// Not a realm-core file at all (no `T-DB` mnemonic, too small, …), or an encrypted one
        /// read without a key.
        case notARealmFile
        /// A realm-core file of a format this reader does not read (older than 20, or newer
        /// than 24).
        case unsupportedFormat
        /// An encrypted file whose key does not verify, or a key given for a file that is not
        /// encrypted.
        case wrongKey
        /// The file's structure is damaged or cut short: a reference outside the file, a node
        /// of an impossible shape, a count that disagrees with another.
        case damaged
        /// The file could not be read from the disk, or libcrypto could not be loaded.
        case unavailable
    }

    package let kind: Kind
    package let message: String

    package init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    package var description: String { message }

    /// A damaged file: `what` went wrong at byte `offset` of its (decrypted) contents.
    package static func damaged(_ what: String, at offset: Int) -> RealmFileError {
        RealmFileError(.damaged, "The .realm file is damaged: \(what) (at byte \(offset)).")
    }
}
