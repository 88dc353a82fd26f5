import Burrow
import BurrowStorage
import Foundation

/// A connection of its own that listens on sync's channel, on a thread of its own (libpq's
/// wait is a blocking `poll`), and calls `onNotify` after each transaction that changed a
/// synced table commits, and `onFailure` if the connection breaks.
///
/// State: `isStopping` and `failed` are behind their locks; the connection belongs to the
/// thread.
final class NotificationListener: Sendable {
    private let isStopping = Locked(false)
    private let failed = Locked(false)

    /// Whether the connection broke: the listener no longer hears the server.
    var hasFailed: Bool { failed.withLock { $0 } }

    /// Connects with `connectionString`, listens, and calls back from its thread until
    /// `stop()`. Throws if the connection or the `LISTEN` fails.
    init(
        connectionString: String, onNotify: @escaping @Sendable () -> Void, onFailure: @escaping @Sendable (RealmError) -> Void
    ) throws {
        // Made here, so that a refused connection throws to the caller; then used by the
        // thread alone.
        let connection = try PostgresConnection(connectionString)
        try connection.execute("LISTEN \(ServerSchema.channel)")
        let handoff = ConnectionHandoff(connection)
        let thread = Thread { [isStopping, failed] in
            let connection = handoff.take()
            while !isStopping.withLock({ $0 }) {
                do throws(PostgresError) {
                    if try connection.waitForNotifications(timeout: 0.2) > 0 { onNotify() }
                } catch {
                    failed.withLock { $0 = true }
                    if !isStopping.withLock({ $0 }) { onFailure(error.realmError) }
                    return
                }
            }
        }
        thread.name = "BurrowSync listener"
        thread.start()
    }

    /// Makes the thread end within its poll interval, closing its connection.
    func stop() {
        isStopping.withLock { $0 = true }
    }
}

/// Hands a connection made on one thread to the listener's thread, once.
///
/// Unchecked: the connection is used by the thread that made it until `init` returns, then by
/// the listener's thread alone (`take()` is its first statement); libpq allows a connection to
/// move between threads when it is never used by two at once.
private final class ConnectionHandoff: @unchecked Sendable {
    private let connection: PostgresConnection

    init(_ connection: PostgresConnection) { self.connection = connection }

    func take() -> PostgresConnection { connection }
}
