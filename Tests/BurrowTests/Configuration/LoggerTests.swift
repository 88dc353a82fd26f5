import BurrowStorage
import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// The models of `LoggerTests`.
enum LoggerModels {
    final class BirdV1: Object {
        override class func _realmObjectName() -> String? { "LGBird" }
        @Persisted var name = ""
    }

    final class BirdV2: Object {
        override class func _realmObjectName() -> String? { "LGBird" }
        @Persisted var name = ""
        @Persisted var wingspan = 0.0
    }
}

/// What a logger collects: every message, with its level.
private final class LogRecorder: Sendable {
    let entries = LockedBox<[(LogLevel, String)]>([])

    func logger(level: LogLevel) -> Logger {
        Logger(level: level) { [entries] level, message in entries.withLock { $0.append((level, message)) } }
    }

    /// The messages that mention `path` (other tests may open realms at the same time).
    func messages(about path: String) -> [(LogLevel, String)] {
        entries.withLock { $0 }.filter { $0.1.contains(path) }
    }
}

/// `Logger` and `LogLevel` as in RealmSwift: the default logger writes `.info` and below to
/// standard error, and opening realms writes nothing there; a logger receives the
/// messages at its level and below; opening, schema changes and recovery are logged at the
/// levels RealmSwift uses. Serialized, because `Logger.shared` is one for the process.
@Suite(.serialized, .temporaryDirectory) struct LoggerTests {
    /// Runs `body` with `logger` as `Logger.shared`, then puts the previous one back.
    private func with(_ logger: Logger, _ body: () throws -> Void) rethrows {
        let previous = Logger.shared
        Logger.shared = logger
        defer { Logger.shared = previous }
        try body()
    }

    /// A file holding one `LGBirdV1`, and its path.
    private func fileOfOneBird(_ name: String = #function) throws -> (Realm.Configuration, String) {
        var configuration = temporaryConfiguration(name)
        configuration.objectTypes = [LoggerModels.BirdV1.self]
        let realm = try Realm(configuration: configuration)
        try realm.write { _ = try realm.create(LoggerModels.BirdV1.self, value: ["name": "Robin"]) }
        return (configuration, try #require(configuration.fileURL).path)
    }

    @Test func eachCommitIsLoggedAtDebugAndAnEmptyOneIsNot() throws {
        let recorder = LogRecorder()
        let (configuration, path) = try fileOfOneBird()
        try with(recorder.logger(level: .debug)) {
            try onAnotherThread {
                let realm = try Realm(configuration: configuration)
                try realm.write { _ = try realm.create(LoggerModels.BirdV1.self, value: ["name": "Wren"]) }
                try realm.write {}
            }
        }
        let commits = recorder.messages(about: path).filter { $0.1.hasPrefix("Committed") }
        #expect(commits.map(\.0) == [.debug], "\(commits)")
        let stored = try onAnotherThread { try Realm(configuration: configuration).version }
        #expect(commits.first?.1 == "Committed version \(stored) of \(path).", "the commit that made the file's newest version")
    }

    @Test func theDefaultLoggerIsAtInfo() {
        // RealmSwift's default logger is at `.info`; a message for a level it does not log is
        // not even made.
        #expect(Logger.shared.level == .info)
        var made = false
        Logger.log(
            .detail,
            {
                made = true
                return "never made"
            }())
        #expect(!made, "a message above the logger's level is not made")
    }

    @Test func theDefaultLoggerWritesToStandardErrorAndOpeningARealmWritesNothing() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            var configuration = Realm.Configuration(inMemoryIdentifier: "default-logger")
            configuration.objectTypes = [LoggerModels.BirdV1.self]
            let realm = try! Realm(configuration: configuration)
            try! realm.write { _ = try realm.create(LoggerModels.BirdV1.self, value: ["name": "Robin"]) }
            Logger.shared.log(level: .warn, message: "a warning")
            Logger.shared.log(level: .info, message: "some news")
            Logger.shared.log(level: .detail, message: "a detail")
        }
        let output = standardError(of: result)
        #expect(output == "Warning: a warning\nInfo: some news\n", "\(output)")
    }

    @Test func addingClassesIsLoggedAtDetail() throws {
        var configuration = temporaryConfiguration()
        configuration.objectTypes = [LoggerModels.BirdV1.self]
        let path = try #require(configuration.fileURL).path
        let recorder = LogRecorder()
        try with(recorder.logger(level: .detail)) { _ = try Realm(configuration: configuration) }
        let added = recorder.messages(about: path).filter { $0.1.contains("added LGBird") }
        #expect(added.map(\.0) == [.detail], "\(recorder.messages(about: path))")
    }

    @Test func aLoggerPassesItsLevelAndTheLevelsBefore() {
        let recorder = LogRecorder()
        let logger = recorder.logger(level: .warn)
        for level in LogLevel.allCases { logger.log(level: level, message: "\(level)") }
        #expect(recorder.entries.withLock { $0 }.map(\.1) == ["fatal", "error", "warn"])
        #expect(recorder.entries.withLock { $0 }.allSatisfy { $0.0.description == $0.1 })
        logger.level = .off
        logger.log(level: .fatal, message: "after off")
        #expect(recorder.entries.withLock { $0 }.count == 3)
        logger.level = .all
        logger.log(level: .trace, message: "after all")
        #expect(recorder.entries.withLock { $0 }.last?.1 == "after all")
        #expect(logger.level == .all)
    }

    @Test func openingARealmIsLoggedAtDetail() throws {
        var configuration = temporaryConfiguration()
        configuration.objectTypes = [LoggerModels.BirdV1.self]
        let path = try #require(configuration.fileURL).path
        let quiet = LogRecorder()
        try with(quiet.logger(level: .info)) { _ = try Realm(configuration: configuration) }
        #expect(quiet.messages(about: path).allSatisfy { $0.0 <= .info }, "no open message at .info")
        let recorder = LogRecorder()
        try with(recorder.logger(level: .detail)) { _ = try Realm(configuration: configuration) }
        let opened = recorder.messages(about: path).filter { $0.1.hasPrefix("Opened") }
        #expect(opened.count == 1 && opened.first?.0 == .detail, "\(recorder.messages(about: path))")
        #expect(opened.first?.1.contains("schema version 0") == true)
    }

    @Test func aMigrationIsLoggedAtInfoNamingTheClass() throws {
        var (configuration, path) = try fileOfOneBird()
        configuration.objectTypes = [LoggerModels.BirdV2.self]
        configuration.schemaVersion = 1
        let recorder = LogRecorder()
        try with(recorder.logger(level: .info)) { _ = try Realm(configuration: configuration) }
        let infos = recorder.messages(about: path).filter { $0.0 == .info }
        #expect(infos.map(\.1) == ["Schema of \(path) went from version 0 to 1: migrated LGBird."])
    }

    @Test func deletingForAChangedSchemaIsLoggedAtWarn() throws {
        var (configuration, path) = try fileOfOneBird()
        configuration.objectTypes = [LoggerModels.BirdV2.self]
        configuration.deleteRealmIfMigrationNeeded = true
        let recorder = LogRecorder()
        try with(recorder.logger(level: .warn)) { _ = try Realm(configuration: configuration) }
        let warnings = recorder.messages(about: path)
        #expect(warnings.count == 1 && warnings.first?.0 == .warn)
        #expect(warnings.first?.1.contains("Deleted every object") == true && warnings.first?.1.contains("LGBird") == true)
    }

    @Test func openingAtAnOlderVersionThanTheNewestCommitIsLoggedAtWarn() throws {
        let (url, size, _) = try FileRecoveryTests.fileWithNewestCommitOf300People()
        let handle = try FileHandle(forWritingTo: url)
        try handle.truncate(atOffset: UInt64(size - 1))
        try handle.close()
        let recorder = LogRecorder()
        try with(recorder.logger(level: .warn)) {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: url))
            let recovery = try #require(realm.recovery)
            let warnings = recorder.messages(about: url.path)
            #expect(warnings.count == 1 && warnings.first?.0 == .warn)
            #expect(warnings.first?.1.contains(recovery.description) == true)
        }
    }

    @Test func loggingAndChangingTheLevelFromManyThreadsIsSafe() {
        let recorder = LogRecorder()
        let logger = recorder.logger(level: .all)
        let count = TestEnvironment.count("BURROW_LOGGER_THREADS", default: 8)
        DispatchQueue.concurrentPerform(iterations: count) { index in
            for round in 0..<200 {
                if index == 0, round == 100 { logger.level = .error }
                logger.log(level: .error, message: "t\(index)")
            }
        }
        #expect(recorder.entries.withLock { $0 }.count == count * 200, "every .error message passes at .all and at .error")
    }
}
