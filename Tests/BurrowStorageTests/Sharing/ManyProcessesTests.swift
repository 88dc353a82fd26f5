import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

@testable import BurrowStorage
@testable import SharedFileWorker

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// More processes on one shared file than the lock file's own 124 slots, with real child
/// processes (`SharedFileWorker`): each opens, and a writer and a reader that come after them
/// still work together. The count is `BURROW_LOCK_PROCESSES` (default 140).
@Suite("Many processes on one file", .serialized, .ownThread)
struct ManyProcessesTests {
    static var processes: Int { TestEnvironment.count("BURROW_LOCK_PROCESSES", default: 140) }

    /// Raises this process's limit of open files to `count` if it is lower (as it is by default
    /// on Darwin): each child takes three descriptors here, and a wake-up of it one more.
    static func allowOpenFiles(_ count: Int) {
        var limit = rlimit()
        #if os(Linux)
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
        let resource = RLIMIT_NOFILE
        #endif
        guard getrlimit(resource, &limit) == 0, limit.rlim_cur < rlim_t(count) else { return }
        limit.rlim_cur = min(limit.rlim_max, rlim_t(count))
        _ = setrlimit(resource, &limit)
    }

    @Test("More processes than the lock file's 124 slots all open one file; a writer and a reader past them commit and see the commits")
    func moreProcessesThanTheLockFilesSlots() throws {
        Self.allowOpenFiles(4 * Self.processes + 256)
        let seed = TestSeed.make("Many processes")
        var rng = TestRandom(seed: seed)
        let bank = try SharedBankFixture("many-processes", accounts: 50)
        defer { bank.finish() }
        let (group, path, storage) = (bank.group, bank.path, bank.storage)

        // Each holder pins the version it opened at until its input ends.
        var holders: [ChildProcess] = []
        for _ in 0..<Self.processes { holders.append(try group.start("hold", ["hold", path, "shared", "pin"])) }
        for holder in holders {
            let line = try holder.expectLine("", timeout: 120)
            #expect(line.hasPrefix("holding "), "\(holder.label) did not open the file: \(holder.summary)")
        }
        let slotsInFile = try LockFileSlotsTests.readWords(path + ".lock", at: LockFileSlotsTests.extensionSlotsOffset, count: 1)[0]
        #expect(Int(slotsInFile) + LockFileSlots.mainSlotCount > Self.processes, "the slots do not cover every process")

        // A reader and a writer, both in slots of the slots file.
        let reader = try group.start("check", ["check", path, "300", "\(rng.next() >> 1)"])
        try reader.expectLine("ready")
        let writer = try group.start("transfer", ["transfer", path, "\(rng.next() >> 1)", "50", "60"])
        try writer.expectSuccess()
        guard let last = writer.lastAcked else { throw FailureTestError("the writer acknowledged nothing: \(writer.summary)") }
        reader.closeInput()
        try reader.expectSuccess(timeout: 60)
        let line = try reader.expectLine("checked ", timeout: 1)
        let fields = line.split(separator: " ").compactMap { UInt64($0) }
        guard fields.count == 5 else { throw FailureTestError("the reader printed \"\(line)\"") }
        #expect(fields[3] >= 2, "the reader saw \(fields[3]) distinct versions while the writer committed up to \(last.version)")

        // This process reads the writer's commits and still commits itself.
        let reading = try SharedFileTests.checkedReading(storage, "after the writer")
        #expect(reading.version == last.version)
        #expect(reading.counter == 60)
        try SharedFileTests.churn(storage, commits: 3, rng: &rng)
        _ = try SharedFileTests.checkedReading(storage, "after this process's commits")

        for holder in holders { holder.closeInput() }
        for holder in holders { try holder.expectSuccess(timeout: 60) }
    }
}
