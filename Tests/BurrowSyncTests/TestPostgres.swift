import Foundation
import Synchronization
import Testing

@testable import BurrowSync

/// A PostgreSQL server of the tests' own: a new cluster (`initdb`) in a temporary directory,
/// started with `pg_ctl`, reachable on a Unix socket in that directory only (no TCP port), and
/// removed by `stop()`. PostgreSQL refuses to run as root, so under root its programs run as
/// the `postgres` user, who owns the directory.
final class TestPostgres {
    /// Where Debian's `postgresql` package keeps `initdb` and `pg_ctl` (the newest version's),
    /// or the directory of an `initdb` on the `PATH`; nil if there is none.
    static let binDirectory: String? = {
        let fileManager = FileManager.default
        let versions = (try? fileManager.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        for version in versions.sorted(by: { (Int($0) ?? 0) > (Int($1) ?? 0) }) {
            let directory = "/usr/lib/postgresql/\(version)/bin"
            if fileManager.isExecutableFile(atPath: directory + "/initdb") { return directory }
        }
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        where fileManager.isExecutableFile(atPath: directory + "/initdb") {
            return directory
        }
        return nil
    }()

    /// Whether the sync tests can run here.
    static var isAvailable: Bool { binDirectory != nil }

    /// The one line a skipped sync test prints; `.ci/run` fails when it sees it.
    static let skipNote: Comment =
        "PostgreSQL's server is not installed: the sync tests need Debian's postgresql package (apt-get install postgresql)."

    let directory: String
    private var isRunning = false
    private var keepsDirectory = false

    /// The libpq connection string of the server's `postgres` database, as its superuser.
    var connectionString: String { "host=\(directory) dbname=postgres user=postgres" }

    /// Makes and starts a new cluster. Throws, with what the tools printed, if either fails.
    init() throws {
        guard let bin = Self.binDirectory else { throw TestPostgresError(Self.skipNote.rawValue) }
        // Under /tmp: a Unix socket's path may not be longer than 107 bytes.
        var template = Array("/tmp/burrow-pg.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestPostgresError("mkdtemp failed: errno \(errno)") }
        directory = String(cString: made)
        if geteuid() == 0 {
            try run("/bin/chown", ["postgres:postgres", directory], asPostgres: false)
        }
        try run(bin + "/initdb", ["-D", directory + "/data", "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"])
        try start()
    }

    deinit { stop() }

    /// One server for the whole test run, started on first use and stopped when the process
    /// exits; tests that share it each take a database of their own (`newDatabase()`). Its
    /// directory, or why it could not start.
    static let shared: Result<String, TestPostgresError> = {
        do {
            let server = try TestPostgres()
            let directory = server.detach()
            atexit {
                if let bin = TestPostgres.binDirectory, case .success(let directory) = TestPostgres.shared {
                    TestPostgres.stopServer(bin: bin, directory: directory)
                }
            }
            return .success(directory)
        } catch let error as TestPostgresError {
            return .failure(error)
        } catch {
            return .failure(TestPostgresError("\(error)"))
        }
    }()

    /// Leaves the server running and its directory in place when this instance goes; returns
    /// the directory.
    private func detach() -> String {
        isRunning = false
        keepsDirectory = true
        return directory
    }

    private static let databaseCount = LockedCounter()

    /// A new, empty database on the shared server; returns its connection string (as the
    /// superuser).
    static func newDatabase() throws -> String {
        let directory = try shared.get()
        let name = "test_\(databaseCount.next())"
        let connection = try PostgresConnection("host=\(directory) dbname=postgres user=postgres")
        try connection.execute("CREATE DATABASE \(name)")
        return "host=\(directory) dbname=\(name) user=postgres"
    }

    /// Stops the server in `directory` at once (from the exit handler: no instance there).
    private static func stopServer(bin: String, directory: String) {
        var pid: pid_t = 0
        let arguments =
            geteuid() == 0
            ? ["/usr/sbin/runuser", "-u", "postgres", "--", bin + "/pg_ctl", "-D", directory + "/data", "-m", "immediate", "-w", "stop"]
            : [bin + "/pg_ctl", "-D", directory + "/data", "-m", "immediate", "-w", "stop"]
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        if posix_spawn(&pid, arguments[0], nil, nil, argv, environ) == 0 {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Starts the cluster's server (again, after `kill()`).
    func start() throws {
        guard let bin = Self.binDirectory else { throw TestPostgresError(Self.skipNote.rawValue) }
        try run(
            bin + "/pg_ctl",
            [
                "-D", directory + "/data", "-l", directory + "/server.log", "-w", "-t", "60", "-o",
                "-k \(directory) -c listen_addresses='' -c fsync=off", "start",
            ])
        isRunning = true
    }

    /// Stops the server at once, as a crash would, keeping its cluster for `start()`.
    func kill() throws {
        guard isRunning, let bin = Self.binDirectory else { return }
        try run(bin + "/pg_ctl", ["-D", directory + "/data", "-m", "immediate", "-w", "stop"])
        isRunning = false
    }

    /// Stops the server at once and removes its directory.
    func stop() {
        if isRunning, let bin = Self.binDirectory {
            try? run(bin + "/pg_ctl", ["-D", directory + "/data", "-m", "immediate", "-w", "stop"])
            isRunning = false
        }
        if !keepsDirectory { try? FileManager.default.removeItem(atPath: directory) }
    }

    /// Runs `executable` with `arguments` (as `postgres` under root, if `asPostgres`) and
    /// throws with its output if it fails. The output goes to a file, not a pipe, and the
    /// process is spawned and reaped here: the server `pg_ctl` starts keeps the descriptors it
    /// was given, so a pipe would never reach its end.
    private func run(_ executable: String, _ arguments: [String], asPostgres: Bool = true) throws {
        let command = asPostgres && geteuid() == 0 ? ["/usr/sbin/runuser", "-u", "postgres", "--", executable] + arguments : [executable] + arguments
        let outputPath = directory + "/commands.log"
        let start = (try? FileManager.default.attributesOfItem(atPath: outputPath)[.size] as? Int) ?? 0
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        let argv = command.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, command[0], &actions, nil, argv, environ)
        guard spawned == 0 else { throw TestPostgresError("could not start \(command[0]): errno \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        guard status == 0 else {
            let all = (try? Data(contentsOf: URL(fileURLWithPath: outputPath))) ?? Data()
            let text = String(decoding: all.dropFirst(start), as: UTF8.self)
            throw TestPostgresError("\(command.joined(separator: " ")) failed (wait status \(status)): \(text)")
        }
    }
}

/// Numbers 1, 2, 3, … to callers on any thread.
final class LockedCounter: Sendable {
    private let value = Mutex(0)

    func next() -> Int {
        value.withLock { value in
            value += 1
            return value
        }
    }
}

struct TestPostgresError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
