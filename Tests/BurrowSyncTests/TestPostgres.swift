import BurrowTestSupport
import Foundation
import Synchronization
import Testing

@testable import BurrowSync

/// The PostgreSQL server the sync tests share: one cluster for the whole run
/// (`PostgresCluster`), started on first use and stopped when the process exits, in which each
/// test takes a database of its own.
enum TestPostgres {
    /// Whether the sync tests can run here.
    static var isAvailable: Bool { PostgresCluster.isAvailable }

    /// The one line a skipped sync test prints; `.ci/run` fails when it sees it.
    static let skipNote = Comment(rawValue: PostgresCluster.missingServer)

    /// The shared cluster's directory, or why it could not start.
    static let shared: Result<String, PostgresClusterError> = {
        do {
            let directory = try PostgresCluster().detach()
            atexit {
                if case .success(let directory) = TestPostgres.shared { PostgresCluster.stop(directory: directory) }
            }
            return .success(directory)
        } catch let error as PostgresClusterError {
            return .failure(error)
        } catch {
            return .failure(PostgresClusterError("\(error)"))
        }
    }()

    private static let databaseCount = Mutex(0)

    /// A new, empty database on the shared server; returns its connection string (as the
    /// superuser).
    static func newDatabase() throws -> String {
        let directory = try shared.get()
        let name = databaseCount.withLock { count in
            count += 1
            return "test_\(count)"
        }
        let connection = try PostgresConnection("host=\(directory) dbname=postgres user=postgres")
        try connection.execute("CREATE DATABASE \(name)")
        return "host=\(directory) dbname=\(name) user=postgres"
    }
}

/// An error of the sync tests' own.
struct TestPostgresError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Stops `clients` once the test is done with them (from a `defer`, which cannot await).
func stopLater(_ clients: SyncClient...) { stopLater(clients) }

func stopLater(_ clients: [SyncClient]) {
    Task { for client in clients { await client.stop() } }
}
