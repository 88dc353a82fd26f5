import Burrow
import BurrowTestSupport
import Foundation
import Testing

@testable import BurrowSync

/// Sync clients killed at the worst moments: no change lost, none applied twice.
@MainActor
@Suite(.enabled(if: TestPostgres.isAvailable, TestPostgres.skipNote))
struct SyncKillTests {
    typealias KillTodo = SyncModels.KillTodo

    /// A database whose `KillTodo` table counts, per row, how many statements wrote it.
    private func countingDatabase(_ directory: TemporaryDirectory) async throws -> String {
        let database = try TestPostgres.newDatabase()
        let setup = try await SyncClient(
            configuration: Realm.Configuration(fileURL: directory.fileURL("setup.burrow"), objectTypes: [KillTodo.self]),
            server: PostgresServer(database), classes: [KillTodo.self])
        try await setup.start()
        await setup.stop()
        let sql = try PostgresConnection(database)
        try sql.execute("CREATE TABLE writes (id bigint PRIMARY KEY, n int NOT NULL)")
        try sql.execute(
            """
            CREATE FUNCTION count_write() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                INSERT INTO writes VALUES (NEW.id, 1) ON CONFLICT (id) DO UPDATE SET n = writes.n + 1;
                RETURN NULL;
            END $$
            """)
        try sql.execute("CREATE TRIGGER count_write AFTER INSERT OR UPDATE ON \"KillTodo\" FOR EACH ROW EXECUTE FUNCTION count_write()")
        return database
    }

    @Test func aBatchWhoseAcknowledgementWasKilledIsAppliedOnce() async throws {
        let directory = try TemporaryDirectory()
        let database = try await countingDatabase(directory)
        let file = directory.file("killed.burrow")
        let configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: file), objectTypes: [KillTodo.self])
        let worker = try ChildProcess(
            try ChildProcess.executable("SyncWorker"), arguments: ["written", file, database, "1", "50"], directory: directory.path,
            label: "worker")
        _ = try worker.expectLine("written")
        // Hold the file's write lock, so that the worker's acknowledgement (a write) waits after
        // PostgreSQL committed its batch; kill it there.
        let blocker = try Realm(configuration: configuration)
        try blocker.beginWrite()
        worker.closeInput()
        let sql = try PostgresConnection(database)
        let deadline = Date().addingTimeInterval(60)
        while try sql.execute("SELECT count(*) FROM \"KillTodo\"").rows != [["50"]] {
            guard Date() < deadline else { throw TestPostgresError("the worker's batch did not reach PostgreSQL within 60 s") }
            try await Task.sleep(for: .milliseconds(10))
        }
        worker.kill()
        try blocker.cancelWrite()
        #expect(try blocker.pendingUploadCount() == 50)

        // A change by plain SQL after the lost acknowledgement: sending the batch again must not
        // overwrite it.
        try sql.execute("UPDATE \"KillTodo\" SET title = 'changed by SQL' WHERE id = 1")
        let client = try await SyncClient(configuration: configuration, server: PostgresServer(database), classes: [KillTodo.self])
        defer { stopLater(client) }
        try await client.start()
        try await client.waitForUpload()
        #expect(await client.pendingUploads == 0)
        #expect(try sql.execute("SELECT count(*), max(n) FROM writes WHERE id <> 1").rows == [["49", "1"]])
        #expect(try sql.execute("SELECT title FROM \"KillTodo\" WHERE id = 1").rows == [["changed by SQL"]])
        _ = blocker.refresh()
        #expect(blocker.object(ofType: KillTodo.self, forPrimaryKey: 1)?.title == "changed by SQL")
    }

    @Test func aClientStartedRightAfterAKilledOneStarts() async throws {
        let directory = try TemporaryDirectory()
        let database = try await countingDatabase(directory)
        let file = directory.file("restart.burrow")
        let configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: file), objectTypes: [KillTodo.self])
        for round in 0..<3 {
            let worker = try ChildProcess(
                try ChildProcess.executable("SyncWorker"), arguments: ["stream", file, database, String(1 + 100 * round), "40"],
                directory: directory.path, label: "restarted-\(round)")
            _ = try worker.expectLine("wrote \(1 + 100 * round)")
            // Killed while its connection holds the file's client lock; PostgreSQL sees the
            // connection close a moment later.
            worker.kill()
            let client = try await SyncClient(configuration: configuration, server: PostgresServer(database), classes: [KillTodo.self])
            try await client.start()
            try await client.waitForUpload()
            await client.stop()
        }
    }

    /// A file whose sync client has run once, and another PostgreSQL connection holding that
    /// client's lock for `seconds` or until `release` is signalled, as a killed client's
    /// connection holds it until PostgreSQL sees it close. `released` is signalled once that
    /// connection is done.
    private func fileWithItsClientLockHeld(_ directory: TemporaryDirectory, for seconds: Double) async throws -> (
        configuration: Realm.Configuration, database: String, release: DispatchSemaphore, released: DispatchSemaphore
    ) {
        let database = try TestPostgres.newDatabase()
        let configuration = Realm.Configuration(fileURL: directory.fileURL("locked.burrow"), objectTypes: [KillTodo.self])
        let first = try await SyncClient(configuration: configuration, server: PostgresServer(database), classes: [KillTodo.self])
        try await first.start()
        await first.stop()
        let clientID = try #require(try Realm(configuration: configuration).syncClientID())
        let locked = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let released = DispatchSemaphore(value: 0)
        let took = LockedBox(false)
        Thread {
            defer { released.signal() }
            let sql = try? PostgresConnection(database)
            let lock = try? sql?.execute("SELECT pg_advisory_lock(hashtextextended($1, 0))", [clientID.uuidString])
            took.withLock { $0 = lock != nil }
            locked.signal()
            guard lock != nil else { return }
            _ = release.wait(timeout: .now() + seconds)
            _ = try? sql?.execute("SELECT pg_advisory_unlock(hashtextextended($1, 0))", [clientID.uuidString])
        }.start()
        locked.wait()
        try #require(took.withLock { $0 }, "the other connection did not take the lock")
        return (configuration, database, release, released)
    }

    @Test func aClientWaitsForTheLockOfAClientWhoseConnectionIsEnding() async throws {
        let directory = try TemporaryDirectory()
        let (configuration, database, _, released) = try await fileWithItsClientLockHeld(directory, for: 0.4)
        let started = Date()
        let client = try await SyncClient(configuration: configuration, server: PostgresServer(database), classes: [KillTodo.self])
        defer { stopLater(client) }
        try await client.start()
        #expect(Date().timeIntervalSince(started) >= 0.3, "the client started while the lock was held")
        released.wait()
        withExtendedLifetime(directory) {}
    }

    @Test func aClientGivesUpOnALockHeldPastItsTwoSeconds() async throws {
        let directory = try TemporaryDirectory()
        let (configuration, database, release, released) = try await fileWithItsClientLockHeld(directory, for: 60)
        let client = try await SyncClient(configuration: configuration, server: PostgresServer(database), classes: [KillTodo.self])
        defer { stopLater(client) }
        let started = ContinuousClock.now
        do {
            try await client.start()
            Issue.record("the client started while another connection held its lock")
        } catch let error as RealmError {
            #expect(error.code == .fileLocked, "\(error)")
            #expect(error.localizedDescription.contains("run one client per file"), "\(error)")
        }
        // Two seconds by the clock, however busy the machine, not the minute the lock is held.
        let waited = ContinuousClock.now - started
        #expect(waited >= .seconds(2) && waited < .seconds(30), "\(waited)")
        release.signal()
        released.wait()
        withExtendedLifetime(directory) {}
    }

    @Test func aClientWaitingForTheLockStopsAtOnce() async throws {
        let directory = try TemporaryDirectory()
        // Held until the test is done with it: however late this task runs on a busy machine,
        // the client cannot take the lock before `stop()`.
        let (configuration, database, release, released) = try await fileWithItsClientLockHeld(directory, for: 60)
        let client = try await SyncClient(configuration: configuration, server: PostgresServer(database), classes: [KillTodo.self])
        let starting = Task { try await client.start() }
        try await Task.sleep(for: .milliseconds(300))
        let stopping = Date()
        await client.stop()
        // The client's actor is free while it waits, so stopping it takes no wait for the lock.
        #expect(Date().timeIntervalSince(stopping) < 1, "stop() waited for the lock")
        await #expect(throws: RealmError.self) { try await starting.value }
        release.signal()
        released.wait()
        withExtendedLifetime(directory) {}
    }

    @Test func aClientKilledAtRandomPointsLosesAndDuplicatesNothing() async throws {
        let directory = try TemporaryDirectory()
        let database = try await countingDatabase(directory)
        let file = directory.file("random.burrow")
        let configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: file), objectTypes: [KillTodo.self])
        var random = TestRandom(seed: TestSeed.make("SyncKillTests random kills"))
        let rounds = TestEnvironment.count("BURROW_SYNC_KILL_ROUNDS", default: 4)
        var next = 1
        for round in 0..<rounds {
            let worker = try ChildProcess(
                try ChildProcess.executable("SyncWorker"), arguments: ["stream", file, database, String(next), "40"],
                directory: directory.path, label: "worker-\(round)")
            let killAfter = Int(random.next() % 40)
            _ = try worker.expectLine("wrote \(next + killAfter)")
            worker.kill()
            let realm = try Realm(configuration: configuration)
            next = (realm.objects(KillTodo.self).max(ofProperty: "id") as Int? ?? 0) + 1
        }
        let client = try await SyncClient(configuration: configuration, server: PostgresServer(database), classes: [KillTodo.self])
        defer { stopLater(client) }
        try await client.start()
        try await client.waitForUpload()
        let realm = try Realm(configuration: configuration)
        let local = realm.objects(KillTodo.self).count
        let sql = try PostgresConnection(database)
        #expect(try sql.execute("SELECT count(*) FROM \"KillTodo\"").rows == [[String(local)]])
        #expect(try sql.execute("SELECT count(*) FROM writes WHERE n <> 1").rows == [["0"]])
        #expect(local == next - 1)
    }
}

/// The Sync article's walk-through, as a newcomer runs it.
@Suite(.enabled(if: TestPostgres.isAvailable, TestPostgres.skipNote))
struct SyncDemoTests {
    @Test func twoClientsOfTheDemoConverge() throws {
        let directory = try TemporaryDirectory()
        let database = try TestPostgres.newDatabase()
        let demo = try ChildProcess(
            try ChildProcess.executable("burrow-sync-demo"), arguments: [database, directory.path], directory: directory.path, label: "demo")
        try demo.expectSuccess(timeout: 120)
        let output = demo.lines.joined(separator: "\n")
        #expect(output.contains("The phone has: [\"Walk Rex\"]"), "\(output)")
        #expect(output.contains("The laptop sees it done: [true]"), "\(output)")
    }
}
