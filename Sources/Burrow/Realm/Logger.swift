import BurrowStorage
import BurrowStore
import Foundation
import Synchronization

/// How much a `Logger` reports, from nothing (`off`) to everything (`all`), as RealmSwift's
/// `LogLevel`. A logger at one level reports the messages of that level and of every level
/// before it in this list.
public enum LogLevel: Int, Sendable, Hashable, Comparable, CaseIterable, CustomStringConvertible {
    /// Nothing.
    case off
    /// Failures the process cannot go on after.
    case fatal
    /// Failures of an operation.
    case error
    /// What a person should know: a file opened at an older version than its newest commit
    /// (recovery), a file deleted because its schema changed (`deleteRealmIfMigrationNeeded`).
    case warn
    /// Changes to a file's schema that migrate it; compacting on launch.
    case info
    /// Each realm opened: the file, its version and schema version; classes added.
    case detail
    /// Each commit: the file and the version it made.
    case debug
    /// More of what `debug` reports.
    case trace
    /// Everything.
    case all

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The word the default logger starts a line with, as RealmSwift's: `Warning`, `Info`….
    var prefix: String {
        switch self {
        case .off, .all: ""
        case .fatal: "Fatal"
        case .error: "Error"
        case .warn: "Warning"
        case .info: "Info"
        case .detail: "Detail"
        case .debug: "Debug"
        case .trace: "Trace"
        }
    }

    /// The level's name, as `"warn"`.
    public var description: String {
        switch self {
        case .off: "off"
        case .fatal: "fatal"
        case .error: "error"
        case .warn: "warn"
        case .info: "info"
        case .detail: "detail"
        case .debug: "debug"
        case .trace: "trace"
        case .all: "all"
        }
    }
}

/// Where Burrow reports what it does, as RealmSwift's `Logger`: a level and a function that
/// receives each message at or below that level. `Logger.shared` is the logger Burrow uses; by
/// default, as RealmSwift's, it writes the messages at `.info` and below to standard error, one
/// a line with the level first (`Warning: …`), and a program that opens realms as usual sees
/// none.
///
/// ```swift
/// Logger.shared = Logger(level: .info) { level, message in
///     print("Burrow \(level): \(message)")
/// }
/// ```
///
/// Burrow logs at `.error` when a quick write or a sectioning fails, at `.warn` when a file
/// opens at an older version than its newest commit (see `Realm.recovery`) or is deleted by
/// `deleteRealmIfMigrationNeeded`, at `.info` when a schema is migrated or a file compacted on
/// launch, at `.detail` for each realm opened and class added, and at `.debug` for each
/// commit. Nothing is logged per object or per read. Any isolation: `logFunction`
/// runs on the thread that logs, so it must be thread-safe (it is `@Sendable`).
public final class Logger: Sendable {
    /// The level, read with one atomic load before any message is made.
    private let threshold: Atomic<Int>
    private let logFunction: @Sendable (LogLevel, String) -> Void

    /// A logger that passes each message at `level` or below to `logFunction`, with its level.
    public init(level: LogLevel, logFunction: @escaping @Sendable (LogLevel, String) -> Void) {
        threshold = Atomic(level.rawValue)
        self.logFunction = logFunction
    }

    /// The most detailed level this logger reports. Settable from any thread; a change applies
    /// to the next message.
    public var level: LogLevel {
        get { LogLevel(rawValue: threshold.load(ordering: .relaxed)) ?? .off }
        set {
            Self.current.withLock { shared in
                threshold.store(newValue.rawValue, ordering: .relaxed)
                if shared === self { Self.sharedThreshold.store(newValue.rawValue, ordering: .relaxed) }
            }
        }
    }

    /// Passes `message` to the log function if `level` is at or below this logger's level (and
    /// is not `.off`).
    public func log(level: LogLevel, message: String) {
        guard isEnabled(level) else { return }
        logFunction(level, message)
    }

    /// Whether a message at `level` would be passed on.
    func isEnabled(_ level: LogLevel) -> Bool {
        level != .off && level.rawValue <= threshold.load(ordering: .relaxed)
    }

    /// The logger Burrow reports to. By default one at `.info` that writes to standard error
    /// (`Logger.standardError`). Settable from any thread.
    public static var shared: Logger {
        get { current.withLock { $0 } }
        set {
            current.withLock {
                $0 = newValue
                sharedThreshold.store(newValue.threshold.load(ordering: .relaxed), ordering: .relaxed)
            }
        }
    }

    /// A new logger at `level` that writes each message to standard error as RealmSwift's
    /// default logger does to the system log: `Warning: <message>`, one a line. What
    /// `Logger.shared` is by default, at `.info`.
    public static func standardError(level: LogLevel = .info) -> Logger {
        Logger(level: level) { level, message in
            FileHandle.standardError.write(Data("\(level.prefix): \(message)\n".utf8))
        }
    }

    private static let current = Locked(Logger.standardError())
    /// The level of `shared`, so that a message it would not log costs one atomic load (no
    /// lock). Changed with `shared`, and with the shared logger's `level`, under `current`'s
    /// lock.
    private static let sharedThreshold = Atomic(LogLevel.info.rawValue)

    /// Logs a message at `level` to `Logger.shared`, making the message only if it is logged.
    static func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
        guard level != .off, level.rawValue <= sharedThreshold.load(ordering: .relaxed) else { return }
        let logger = shared
        guard logger.isEnabled(level) else { return }
        logger.logFunction(level, message())
    }
}

extension Realm {
    /// Logs a commit of this realm that made `version` (`.debug`). Called once per commit, after
    /// it is published.
    func logCommit(version: UInt64) {
        Logger.log(.debug, "Committed version \(version) of \(displayName).")
    }
}
