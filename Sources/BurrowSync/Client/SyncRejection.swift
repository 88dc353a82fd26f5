import Burrow

/// A local change PostgreSQL refused (a grant or a row-level security policy that does not
/// allow it, a value the column cannot hold): it is taken out of the upload queue, the object
/// is downloaded again so the file shows what the server holds, and the refusal is kept in
/// `SyncClient.rejectedUploads` and reported in the state stream.
public struct SyncRejection: Sendable, CustomStringConvertible {
    /// The class of the object whose change was refused.
    public let className: String
    /// The object's primary key, in PostgreSQL's text form.
    public let primaryKey: String
    /// PostgreSQL's error.
    public let error: RealmError

    public var description: String { "\(className) \(primaryKey): \(error.localizedDescription)" }
}
