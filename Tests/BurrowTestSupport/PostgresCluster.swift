import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A PostgreSQL server of its own, for the sync tests and the sync benchmark: a new cluster
/// (`initdb`) in a temporary directory, started with `pg_ctl`, reachable on a Unix socket in
/// that directory only (no TCP port), and removed by `stop()`. PostgreSQL refuses to run as
/// root, so under root its programs run as the `postgres` user, who owns the directory.
///
/// The processes are spawned and reaped here, with their output in a file, not a pipe: the
/// server `pg_ctl` starts keeps the descriptors it was given, so a pipe would never reach its
/// end.
public final class PostgresCluster {
    /// Where Debian's `postgresql` package keeps `initdb` and `pg_ctl` (the newest version's),
    /// or the directory of an `initdb` on the `PATH`; nil if there is none.
    public static let binDirectory: String? = {
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

    /// Whether PostgreSQL's server programs are installed here.
    public static var isAvailable: Bool { binDirectory != nil }

    /// What a machine without them is told.
    public static let missingServer =
        "PostgreSQL's server is not installed: the sync tests need Debian's postgresql package (apt-get install postgresql)."

    /// The cluster's directory; the server's socket is in it.
    public let directory: String
    private var isRunning = false
    private var keepsDirectory = false

    /// The libpq connection string of the server's `postgres` database, as its superuser.
    public var connectionString: String { connectionString(database: "postgres") }

    /// The libpq connection string of `database` on this server, as its superuser.
    public func connectionString(database: String) -> String { "host=\(directory) dbname=\(database) user=postgres" }

    /// Makes and starts a new cluster. Throws, with what the tools printed, if either fails.
    public init() throws {
        guard let bin = Self.binDirectory else { throw PostgresClusterError(Self.missingServer) }
        // Under /tmp: a Unix socket's path may not be longer than 107 bytes.
        var template = Array("/tmp/burrow-pg.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw PostgresClusterError("mkdtemp failed: errno \(errno)") }
        directory = String(cString: made)
        if geteuid() == 0 {
            try run("/bin/chown", ["postgres:postgres", directory], asPostgres: false)
        }
        try run(bin + "/initdb", ["-D", directory + "/data", "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"])
        try start()
    }

    deinit { stop() }

    /// Starts the cluster's server (again, after `kill()`).
    public func start() throws {
        guard let bin = Self.binDirectory else { throw PostgresClusterError(Self.missingServer) }
        try run(
            bin + "/pg_ctl",
            [
                "-D", directory + "/data", "-l", directory + "/server.log", "-w", "-t", "60", "-o",
                "-k \(directory) -c listen_addresses='' -c fsync=off", "start",
            ])
        isRunning = true
    }

    /// Stops the server at once, as a crash would, keeping its cluster for `start()`.
    public func kill() throws {
        guard isRunning, let bin = Self.binDirectory else { return }
        try run(bin + "/pg_ctl", ["-D", directory + "/data", "-m", "immediate", "-w", "stop"])
        isRunning = false
    }

    /// Stops the server at once and removes its directory.
    public func stop() {
        try? kill()
        if !keepsDirectory { try? FileManager.default.removeItem(atPath: directory) }
    }

    /// Leaves the server running and its directory in place when this instance goes (for a
    /// server shared by a whole run, stopped by `stop(directory:)` at exit); returns the
    /// directory.
    public func detach() -> String {
        isRunning = false
        keepsDirectory = true
        return directory
    }

    /// Stops the server of the cluster in `directory` at once and removes the directory: for
    /// an exit handler, which has no instance.
    public static func stop(directory: String) {
        guard let bin = binDirectory else { return }
        let command = [bin + "/pg_ctl", "-D", directory + "/data", "-m", "immediate", "-w", "stop"]
        _ = try? spawn(geteuid() == 0 ? ["/usr/sbin/runuser", "-u", "postgres", "--"] + command : command, output: "/dev/null")
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Runs `executable` with `arguments` (as `postgres` under root, if `asPostgres`) and
    /// throws with its output if it fails.
    private func run(_ executable: String, _ arguments: [String], asPostgres: Bool = true) throws {
        let command =
            asPostgres && geteuid() == 0 ? ["/usr/sbin/runuser", "-u", "postgres", "--", executable] + arguments : [executable] + arguments
        let outputPath = directory + "/commands.log"
        let start = (try? FileManager.default.attributesOfItem(atPath: outputPath)[.size] as? Int) ?? 0
        let status = try Self.spawn(command, output: outputPath)
        guard status == 0 else {
            let all = (try? Data(contentsOf: URL(fileURLWithPath: outputPath))) ?? Data()
            let text = String(decoding: all.dropFirst(start), as: UTF8.self)
            throw PostgresClusterError("\(command.joined(separator: " ")) failed (wait status \(status)): \(text)")
        }
    }

    #if !canImport(Darwin)
    /// glibc's `posix_spawn_file_actions_addclosefrom_np`, which its module map does not show
    /// Swift: looked up at run time.
    private static let closeFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()
    #endif

    /// Runs `command`, its output appended to `output`, and returns its wait status.
    private static func spawn(_ command: [String], output: String) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        // Nothing else of this process goes to the child: the server `pg_ctl` starts lives on,
        // and a descriptor it inherited (the write end of another child's input pipe, say)
        // would stay open as long as it runs.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        #if canImport(Darwin)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_CLOEXEC_DEFAULT))
        #else
        guard let closeFrom = Self.closeFrom else {
            throw PostgresClusterError("the C library has no posix_spawn_file_actions_addclosefrom_np (glibc 2.34 or later has it)")
        }
        _ = closeFrom(&actions, 3)
        #endif
        let argv = command.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, command[0], &actions, &attributes, argv, environ)
        guard spawned == 0 else { throw PostgresClusterError("could not start \(command[0]): errno \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return status
    }
}

public struct PostgresClusterError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
