import Burrow

/// A change sync could not carry, kept for the app to see: a local change PostgreSQL refused
/// (`SyncClient.rejectedUploads`: a grant or a row-level security policy that does not allow
/// it, a value the column cannot hold), which is taken out of the upload queue while the object
/// is downloaded again so the file shows what the server holds; or a server row that does not
/// read as an object of its class (`SyncClient.unreadableRows`), which is left out whole.
public struct SyncRejection: Sendable, CustomStringConvertible {
    /// The class of the object whose change was refused.
    public let className: String
    /// The object's primary key, in PostgreSQL's text form.
    public let primaryKey: String
    /// Why: PostgreSQL's error, or what in the row does not read.
    public let error: RealmError

    public var description: String { "\(className) \(primaryKey): \(error.description)" }
}
