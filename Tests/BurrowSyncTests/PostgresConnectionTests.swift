import Burrow
import BurrowTestSupport
import Testing

@testable import BurrowSync

/// libpq loaded at run time, and one connection to a real PostgreSQL.
@Suite(.enabled(if: TestPostgres.isAvailable, TestPostgres.skipNote))
struct PostgresConnectionTests {
    @Test func parametersAndNullsRoundTrip() throws {
        let server = try PostgresCluster()
        defer { server.stop() }
        let connection = try PostgresConnection(server.connectionString)
        try connection.execute("CREATE TABLE dogs (id bigint PRIMARY KEY, name text)")
        try connection.execute("INSERT INTO dogs VALUES ($1, $2), ($3, $4)", ["1", "Rex 'the' \"dog\"; DROP TABLE dogs", "2", nil])
        let result = try connection.execute("SELECT id, name FROM dogs ORDER BY id")
        #expect(result.columns == ["id", "name"])
        #expect(result.rows == [["1", "Rex 'the' \"dog\"; DROP TABLE dogs"], ["2", nil]])
    }

    @Test func aFailedStatementCarriesPostgreSQLsMessageAndState() throws {
        let server = try PostgresCluster()
        defer { server.stop() }
        let connection = try PostgresConnection(server.connectionString)
        try connection.execute("CREATE TABLE dogs (id bigint PRIMARY KEY)")
        try connection.execute("INSERT INTO dogs VALUES (1)")
        let error = #expect(throws: PostgresError.self) { try connection.execute("INSERT INTO dogs VALUES ($1)", ["1"]) }
        #expect(error?.description.contains("duplicate key") == true)
        #expect(error?.sqlState == "23505")
        #expect(error?.description.contains("SQLSTATE 23505") == true)
        // The connection stays usable after the error.
        #expect(try connection.execute("SELECT count(*) FROM dogs").rows == [["1"]])
    }

    @Test func aRefusedConnectionSaysWhy() throws {
        let server = try PostgresCluster()
        defer { server.stop() }
        let error = #expect(throws: RealmError.self) {
            _ = try PostgresConnection("host=\(server.directory) dbname=no_such_database user=postgres")
        }
        #expect(error?.description.contains("no_such_database") == true)
    }
}

/// What a machine without libpq is told.
@Test func aMissingLibpqNamesThePackageToInstall() {
    guard case .failure(let error) = LibPQ.load(path: "/nonexistent/libpq.so.5") else {
        Issue.record("loading libpq from a path that does not exist succeeded")
        return
    }
    #expect(error.description.contains("libpq5"))
    #expect(error.description.contains("BURROW_LIBPQ"))
}
