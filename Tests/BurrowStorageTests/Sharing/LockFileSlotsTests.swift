import BurrowTestSupport
import Foundation
import Synchronization
import Testing

@testable import BurrowStorage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The lock file's slots past its own 124, in this process: each `LockFile` opened here claims a
/// slot as a process of its own would (with this process's pid, so every slot taken is a live
/// process's), and the files are read and written as FileFormat.md ("The lock file") lays them
/// out. The processes sharing a file in earnest are in `ManyProcessesTests`.
@Suite("Lock file slots", .serialized)
struct LockFileSlotsTests {
    /// Words of the lock file's header, by byte offset (FileFormat.md).
    static let versionOffset = 8
    static let extensionSlotsOffset = 72
    static let growLockOffset = 80
    static let slotsFileSlotSize = 32

    static func readWords(_ path: String, at offset: Int, count: Int) throws -> [UInt64] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FailureTestError("cannot open \(path) (errno \(errno))") }
        defer { closeDescriptor(fd) }
        var words = [UInt64](repeating: 0, count: count)
        let read = words.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(offset)) }
        guard read == count * 8 else { throw FailureTestError("\(path) has no \(count) words at \(offset)") }
        return words.map { UInt64(littleEndian: $0) }
    }

    static func writeWords(_ path: String, _ words: [UInt64], at offset: Int) throws {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw FailureTestError("cannot open \(path) (errno \(errno))") }
        defer { closeDescriptor(fd) }
        let bytes = words.map(\.littleEndian)
        guard bytes.withUnsafeBytes({ pwrite(fd, $0.baseAddress, $0.count, off_t(offset)) }) == bytes.count * 8 else {
            throw FailureTestError("cannot write \(path) (errno \(errno))")
        }
    }

    static func size(_ path: String) -> Int? {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : nil
    }

    static func names(in directory: TemporaryDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    /// The pid of a process that has ended and been reaped.
    static func deadPid() throws -> UInt64 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "exit 0"]
        try process.run()
        process.waitUntilExit()
        return UInt64(process.processIdentifier)
    }

    /// Counts the wake-ups an opener's listener gets.
    final class WakeCount: Sendable {
        let count = Atomic<Int>(0)
    }

    @Test("The slots file starts with 128 slots and doubles, up to 32,768 slots in all")
    func growthDoublesUpToTheCeiling() {
        #expect(LockFileSlots.mainSlotCount == 124)
        var extra = 0
        var steps: [Int] = []
        while extra < LockFileSlots.maxExtensionSlots {
            extra = LockFileSlots.grownExtensionSlots(from: extra)
            steps.append(extra)
        }
        #expect(Array(steps.prefix(4)) == [128, 256, 512, 1024])
        #expect(steps.last == 32_768 - 124)
        #expect(steps.count == 9)
        #expect(LockFileSlots.grownExtensionSlots(from: LockFileSlots.maxExtensionSlots) == LockFileSlots.maxExtensionSlots)
        // The limit as messages write it.
        #expect([0, 124, 1000, 32_768, 1_234_567].map(StorageError.grouped) == ["0", "124", "1,000", "32,768", "1,234,567"])
    }

    @Test("More openers than the lock file's 124 slots each get a slot; pins and waits in the slots file count, and freed slots are reused")
    func openersPastTheLockFilesSlotsGetSlotsOfTheirOwn() throws {
        let directory = try TemporaryDirectory("lockslots-grow")
        let path = directory.file("db.burrow")
        var openers: [LockFile] = []
        for _ in 0..<300 { openers.append(try LockFile(databasePath: path)) }
        #expect(Set(openers.map(\.slot)).count == 300, "two openers share a slot")
        #expect(openers.map(\.slot).max() == 299)
        #expect(Self.size(path + ".lock") == 4096, "the lock file changed its size")
        // 124 in the lock file, then 128, then 256 in the slots file.
        #expect(try Self.readWords(path + ".lock", at: Self.extensionSlotsOffset, count: 1) == [256])
        #expect(Self.size(path + ".lock-slots") == 256 * Self.slotsFileSlotSize)

        openers[299].publishOldestPin(7)
        #expect(openers[0].oldestPinOfOtherProcesses() == 7, "a pin in the slots file does not count")
        openers[200].publishOldestPin(3)
        #expect(openers[0].oldestPinOfOtherProcesses() == 3)
        openers[200].publishOldestPin(nil)
        openers[299].publishOldestPin(nil)
        #expect(openers[0].oldestPinOfOtherProcesses() == nil)
        #expect(!openers[0].writersWaiting)
        openers[299].beginWaiting()
        #expect(openers[0].writersWaiting, "a wait in the slots file does not count")
        openers[299].endWaiting()
        #expect(!openers[0].writersWaiting)

        // A wake-up reaches an opener in the slots file.
        let woken = WakeCount()
        openers[299].listen { woken.count.add(1, ordering: .sequentiallyConsistent) }
        openers[0].wakeOtherProcesses()
        #expect(TestWait.until(timeout: 30) { woken.count.load(ordering: .sequentiallyConsistent) > 0 }, "no wake-up reached slot 299")

        // Slots freed by openers that went are taken again: the slots file does not grow.
        openers.removeLast(150)
        // A slot in the slots file left by a process that died, pinning version 0, is freed
        // by the next scan.
        let deadSlot = (299 - LockFileSlots.mainSlotCount) * Self.slotsFileSlotSize
        try Self.writeWords(path + ".lock-slots", [try Self.deadPid(), 1, 1, 0], at: deadSlot)
        #expect(openers[0].oldestPinOfOtherProcesses() == nil, "a dead process's slot in the slots file pins")
        #expect(try Self.readWords(path + ".lock-slots", at: deadSlot, count: 1) == [0], "a dead process's slot was not freed")
        for _ in 0..<150 { openers.append(try LockFile(databasePath: path)) }
        #expect(Set(openers.map(\.slot)) == Set(0..<300))
        #expect(try Self.readWords(path + ".lock", at: Self.extensionSlotsOffset, count: 1) == [256])

        openers.removeAll()
        LockFile.removeFiles(databasePath: path)
        #expect(try Self.names(in: directory) == [], "files left once the database's files are removed")
    }

    @Test("An opener that died while it added slots holds up nobody: its grow lock is taken over and what it wrote is cleared")
    func growthAfterAGrowerDied() throws {
        let directory = try TemporaryDirectory("lockslots-crash")
        let path = directory.file("db.burrow")
        var openers: [LockFile] = []
        for _ in 0..<LockFileSlots.mainSlotCount { openers.append(try LockFile(databasePath: path)) }
        // It took the grow lock, lengthened the slots file and died before it cleared or counted
        // the new slots.
        try Self.writeWords(path + ".lock", [try Self.deadPid()], at: Self.growLockOffset)
        try Self.writeWords(path + ".lock-slots", [UInt64](repeating: UInt64(getpid()), count: 3 * 128 * 4), at: 0)

        for _ in 0..<5 { openers.append(try LockFile(databasePath: path)) }
        #expect(openers.suffix(5).map(\.slot) == Array(124..<129))
        #expect(try Self.readWords(path + ".lock", at: Self.growLockOffset, count: 1) == [0], "the grow lock is still held")
        #expect(try Self.readWords(path + ".lock", at: Self.extensionSlotsOffset, count: 1) == [128])
        let words = try Self.readWords(path + ".lock-slots", at: 0, count: 128 * 4)
        let owners = stride(from: 0, to: words.count, by: 4).map { words[$0] }
        #expect(owners.prefix(5).allSatisfy { $0 == UInt64(getpid()) })
        #expect(owners.dropFirst(5).allSatisfy { $0 == 0 }, "slots the dead opener wrote were not cleared")
    }

    @Test("An open that fails leaves a slots file made beside a lock file that was there before, which counts its slots")
    func failedOpenKeepsTheSlotsFileALockFileCounts() throws {
        let directory = try TemporaryDirectory("lockslots-failed-open")
        let path = directory.file("db.burrow")
        #expect(FileManager.default.createFile(atPath: path, contents: Data("not a database".utf8)))
        var openers: [LockFile] = [try LockFile(databasePath: path)]
        let before = Storage.FilesBeforeOpen(path: path, sharing: .shared)
        // Meanwhile other openers fill the lock file's slots, and one adds the slots file; then
        // all of them close, and the failed open cleans up.
        for _ in 0..<LockFileSlots.mainSlotCount { openers.append(try LockFile(databasePath: path)) }
        openers.removeAll()
        #expect(try Self.readWords(path + ".lock", at: Self.extensionSlotsOffset, count: 1) == [128])
        before.removeWhatFailedOpenMade()
        #expect(try Self.names(in: directory) == ["db.burrow", "db.burrow.lock", "db.burrow.lock-slots"])

        // Every slot it counts can be read: the lock file pins nothing, and it starts over.
        let opener = try LockFile(databasePath: path)
        #expect(opener.oldestPinOfOtherProcesses() == nil, "a slot of the slots file cannot be read")
    }

    @Test("A slot another process is freeing is neither freed again nor claimed, however full the slots are")
    func aSlotBeingFreedIsLeftToItsFreer() throws {
        let directory = try TemporaryDirectory("lockslots-reclaiming")
        let path = directory.file("db.burrow")
        var openers: [LockFile] = [try LockFile(databasePath: path)]
        // Slot 1 as a freer leaves it between marking it and clearing its pin (version 4).
        let slotOne = LockFileSlots.headerSize + LockFileSlots.slotSize
        try Self.writeWords(path + ".lock", [LockFileSlots.reclaiming, 0, 5, 0], at: slotOne)
        for _ in 2..<LockFileSlots.mainSlotCount { openers.append(try LockFile(databasePath: path)) }
        #expect(openers[0].oldestPinOfOtherProcesses() == nil, "a slot being freed pins")
        #expect(!openers[0].writersWaiting)
        #expect(try Self.readWords(path + ".lock", at: slotOne, count: 1) == [LockFileSlots.reclaiming], "a slot being freed was freed again")
        // Its freer's last store would free it under a process that took it over.
        let next = try LockFile(databasePath: path)
        #expect(next.slot == LockFileSlots.mainSlotCount, "a slot being freed was claimed")
    }

    @Test("With 32,768 processes in the slots, the next opener gets an error naming the limit and the file, and makes nothing")
    func openerPastTheCeilingIsRefusedWithTheLimit() throws {
        let directory = try TemporaryDirectory("lockslots-ceiling")
        let path = directory.file("db.burrow")
        let opener = try LockFile(databasePath: path)
        // Every slot a live process's (this one's), as 32,768 processes would leave them.
        let pid = UInt64(getpid())
        let startTime = try #require(LockFile.processStatus(pid: pid)).startTime
        let slot: [UInt64] = [pid, startTime, 0, 0]
        try Self.writeWords(
            path + ".lock", Array([[UInt64]](repeating: slot, count: LockFileSlots.mainSlotCount).joined()), at: LockFileSlots.headerSize)
        try Self.writeWords(
            path + ".lock-slots", Array([[UInt64]](repeating: slot, count: LockFileSlots.maxExtensionSlots).joined()), at: 0)
        try Self.writeWords(path + ".lock", [UInt64(LockFileSlots.maxExtensionSlots)], at: Self.extensionSlotsOffset)
        let before = try Self.names(in: directory)

        #expect(throws: StorageError.tooManyProcesses(path: path, limit: 32_768)) { try LockFile(databasePath: path) }
        #expect(try Self.names(in: directory) == before)
        let message = StorageError.tooManyProcesses(path: path, limit: 32_768).description
        #expect(message.contains(path) && message.contains("32,768 processes") && !message.contains("exclusive"), "\(message)")
        _ = opener
    }

    @Test("A lock file of format 1 is made anew once no live process has a slot in it, and refused while one does")
    func lockFileOfThePreviousFormat() throws {
        let directory = try TemporaryDirectory("lockslots-v1")
        let path = directory.file("db.burrow")
        let pid = UInt64(getpid())
        let startTime = try #require(LockFile.processStatus(pid: pid)).startTime
        var words = [UInt64](repeating: 0, count: 512)
        words[0] = LockFileSlots.magic
        words[1] = 1
        words[8] = 1
        words[16] = pid
        words[17] = startTime
        try Self.writeWords(path + ".lock", words, at: 0)
        // That process holds the writer lock, idle, as a writer keeps it while nobody asks: the
        // open is refused without waiting for it.
        let holder = open(path + ".lock", O_RDONLY | O_CLOEXEC)
        #expect(holder >= 0 && flock(holder, LOCK_EX) == 0)
        defer { closeDescriptor(holder) }

        #expect(
            throws: StorageError.incompatibleLockFile(path: path + ".lock", database: path, version: 1, supported: 2, inUse: true)
        ) { try LockFile(databasePath: path) }
        #expect(try Self.readWords(path + ".lock", at: 0, count: 512) == words, "a lock file in use was changed")

        // Its only process is gone.
        try Self.writeWords(path + ".lock", [try Self.deadPid()], at: LockFileSlots.headerSize)
        _ = flock(holder, LOCK_UN)
        let opener = try LockFile(databasePath: path)
        #expect(try Self.readWords(path + ".lock", at: Self.versionOffset, count: 1) == [2])
        #expect(opener.slot == 0)
    }

    @Test("A lock file of a newer format is refused and left as it is, whatever its size")
    func lockFileOfANewerFormat() throws {
        let directory = try TemporaryDirectory("lockslots-v3")
        let path = directory.file("db.burrow")
        for size in [4096, 8192] {
            var words = [UInt64](repeating: 5, count: size / 8)
            words[0] = LockFileSlots.magic
            words[1] = 3
            try Self.writeWords(path + ".lock", words, at: 0)
            #expect(
                throws: StorageError.incompatibleLockFile(path: path + ".lock", database: path, version: 3, supported: 2, inUse: false)
            ) { try LockFile(databasePath: path) }
            #expect(try Self.readWords(path + ".lock", at: 0, count: size / 8) == words, "a lock file of a newer format was changed")
            #expect(try Self.names(in: directory) == ["db.burrow.lock"])
        }
        let message = StorageError.incompatibleLockFile(path: path + ".lock", database: path, version: 3, supported: 2, inUse: false)
            .description
        #expect(message.contains("format 3") && message.contains("delete the lock file"), "\(message)")
    }
}
