import BurrowStorage

/// An error of the object store: an engine error met while reading or writing rows, or a rule
/// of the store broken by what it was asked to do (a value that does not fit its property, a
/// primary key another object has). The API turns it into its public error once, where it
/// calls the store, keeping the engine error's file, `errno` and damaged page.
@usableFromInline
package struct StoreError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    package enum Kind: Sendable, Equatable {
        /// The engine failed (`storage` says how).
        case storage
        /// The file holds something the store cannot read.
        case corruptFile
        /// What the store was given does not fit (a value of the wrong type, a missing class).
        case invalidArgument
        /// Another object has the primary key.
        case primaryKeyExists
        /// The object was deleted or is not in this file.
        case invalidObject
    }

    package let kind: Kind
    /// What went wrong and what to do about it, in a sentence a person can act on.
    package let message: String
    /// The engine error, for `.storage`.
    package let storage: StorageError?

    package init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
        storage = nil
    }

    /// The store's form of an engine error.
    @usableFromInline
    package init(_ error: StorageError) {
        kind = .storage
        message = error.description
        storage = error
    }

    @usableFromInline package var description: String { message }

    /// Any error met inside the store as a `StoreError`: an engine error wrapped, a store error
    /// as it is.
    package init(wrapping error: any Error) {
        switch error {
        case let error as StoreError: self = error
        case let error as StorageError: self.init(error)
        default: self.init(.corruptFile, "\(error)")
        }
    }
}
