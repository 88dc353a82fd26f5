import Burrow

/// What a `SyncClient` is doing, as its `states` stream tells.
public enum SyncState: Sendable, CustomStringConvertible {
    /// Connecting to PostgreSQL, and setting up what sync needs there if it is missing.
    case connecting
    /// Uploading and downloading; `pendingUploads` changed objects were waiting for upload
    /// when the round began.
    case syncing(pendingUploads: Int)
    /// Connected, with nothing to upload and every server change downloaded; waiting for the
    /// next local commit or server change.
    case idle
    /// PostgreSQL cannot be reached, or refused the client: local writes go on and are queued;
    /// the client tries again, waiting longer after each failure, and resumes from its
    /// checkpoint. The error says why.
    case offline(RealmError)
    /// Paused or stopped: nothing is uploaded or downloaded until `resume()` (after `pause()`).
    case stopped

    public var description: String {
        switch self {
        case .connecting: "connecting"
        case .syncing(let pending): "syncing (\(pending) pending upload\(pending == 1 ? "" : "s"))"
        case .idle: "idle"
        case .offline(let error): "offline: \(error.description)"
        case .stopped: "stopped"
        }
    }
}

/// A PostgreSQL database a `SyncClient` replicates with, named by a libpq connection string
/// (`"host=/run/app dbname=app user=device_7"`, or a `postgresql://` URI). The client connects
/// with the role the string names; PostgreSQL's grants and row-level security decide what it
/// may read and write.
public struct PostgresServer: Sendable, Hashable, CustomStringConvertible {
    /// The libpq connection string.
    public let connectionString: String

    /// The server `connectionString` names.
    public init(_ connectionString: String) {
        self.connectionString = connectionString
    }

    public var description: String { "PostgreSQL (\(connectionString))" }
}

/// A download that changed the file: what `SyncClient.downloads` tells.
public struct SyncDownload: Sendable, Hashable {
    /// The version of the file the download's write made.
    public let versionNumber: UInt64
    /// The classes whose objects it inserted, changed or deleted.
    public let classNames: Set<String>
    /// How many objects it wrote or deleted.
    public let objectCount: Int
}
