import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Synchronization
import Testing

@testable import BurrowStorage
@testable import SharedFileWorker

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ChildProcess {
    /// The `SharedFileWorker` executable (`BURROW_SHARED_WORKER` overrides where it is).
    static func sharedFileWorker() throws -> String {
        try executable("SharedFileWorker", overriddenBy: "BURROW_SHARED_WORKER")
    }

    /// A worker's last acknowledged commit: (version, counter) from its last "acked" line.
    var lastAcked: (version: UInt64, counter: UInt64)? {
        poll()
        for line in lines.reversed() where line.hasPrefix("acked ") {
            let fields = line.split(separator: " ")
            if fields.count == 3, let version = UInt64(fields[1]), let counter = UInt64(fields[2]) { return (version, counter) }
        }
        return nil
    }

    /// Every counter value a worker acknowledged ("acked" lines), in the order printed.
    var ackedCounters: [UInt64] {
        poll()
        return lines.compactMap { line in
            let fields = line.split(separator: " ")
            return fields.count == 3 && fields[0] == "acked" ? UInt64(fields[2]) : nil
        }
    }
}

/// The `SharedFileWorker` processes a test started, in a scratch directory of the test's own:
/// `finish` (or the group going away) kills and reaps every worker, however the test ends, and
/// the directory is removed with the group.
final class SharedWorkerGroup {
    private let scratch: TemporaryDirectory
    private(set) var workers: [ChildProcess] = []
    private var started = 0

    /// A group working in a new scratch directory named after `name`.
    init(scratch name: String) throws {
        scratch = try TemporaryDirectory(name)
    }

    /// The scratch directory's path.
    var directory: String { scratch.path }

    /// The path of `name` in the scratch directory.
    func file(_ name: String) -> String { scratch.file(name) }

    /// Kills every worker: the end of a test.
    func finish() { killAll() }

    func start(_ label: String, _ arguments: [String]) throws -> ChildProcess {
        started += 1
        let worker = try ChildProcess(ChildProcess.sharedFileWorker(), arguments: arguments, directory: directory, label: "\(label)-\(started)")
        workers.append(worker)
        return worker
    }

    func killAll() {
        for worker in workers { worker.kill() }
        workers = []
    }

    deinit { killAll() }
}

/// The set-up most shared-file tests start from: a scratch directory with workers
/// (`group`), and a bank file in it (`path`) that this process opened (`storage`, shared unless
/// asked otherwise) and set up with `accounts` accounts. `finish` closes the handle and kills
/// the workers.
final class SharedBankFixture {
    let group: SharedWorkerGroup
    let path: String
    let storage: Storage
    /// The version the set-up committed.
    let setUpVersion: UInt64
    private var isClosed = false

    init(_ name: String, accounts: Int, sharing: FileSharing = .shared) throws {
        group = try SharedWorkerGroup(scratch: name)
        path = group.file("bank.burrow")
        storage = try sharing == .shared ? SharedFileTests.openShared(path) : SharedFileTests.openExclusive(path)
        setUpVersion = try SharedBank.setUp(storage, accounts: accounts)
    }

    /// The same, with `commits` commits of churn after the set-up (`SharedFileTests.churn`, so
    /// that there are free pages to reuse), drawn from `rng`.
    convenience init(_ name: String, accounts: Int, churn commits: Int, rng: inout TestRandom) throws {
        try self.init(name, accounts: accounts)
        try SharedFileTests.churn(storage, commits: commits, rng: &rng)
    }

    /// Closes this process's handle, for a test that goes on with the file left to the workers.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        storage.close()
    }

    /// Closes the handle and kills the workers: the end of a test.
    func finish() {
        close()
        group.finish()
    }
}

/// The lock file beside a shared database (`<path>.lock`), read and written as FileFormat.md
/// ("The lock file") lays it out: a 128-byte header starting with the magic "BURROWLK", whose
/// word at offset 64 counts the slots in use (one more than the highest ever claimed; writers
/// scan those), then 32-byte slots of words: the owner's pid (0: free), its start time, and the
/// oldest version its snapshots pin plus one (0: none).
struct SharedLockFile {
    static let magic: UInt64 = 0x4B4C_574F_5252_5542
    static let headerSize = 128
    static let slotsUsedOffset = 64
    static let slotSize = 32

    struct Slot: Equatable {
        var index: Int
        var pid: UInt64
        var startTime: UInt64
        var pinWord: UInt64
    }

    let path: String

    init(databasePath: String) { path = databasePath + ".lock" }

    private func bytes() throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else { throw FailureTestError("no lock file at \(path)") }
        let bytes = [UInt8](data)
        guard bytes.count >= Self.headerSize, SharedBank.decode(bytes[0..<8]) == Self.magic else {
            throw FailureTestError(
                "\(path) (\(bytes.count) bytes) does not start with the lock file's magic as this test reads it; update SharedLockFile from FileFormat.md"
            )
        }
        return bytes
    }

    /// The header's count of slots in use.
    func slotsUsed() throws -> Int {
        Int(SharedBank.decode(try bytes()[Self.slotsUsedOffset..<(Self.slotsUsedOffset + 8)])!)
    }

    func slots() throws -> [Slot] {
        let bytes = try bytes()
        return (0..<(bytes.count - Self.headerSize) / Self.slotSize).map { index in
            let at = Self.headerSize + index * Self.slotSize
            return Slot(
                index: index, pid: SharedBank.decode(bytes[at..<(at + 8)])!, startTime: SharedBank.decode(bytes[(at + 8)..<(at + 16)])!,
                pinWord: SharedBank.decode(bytes[(at + 16)..<(at + 24)])!)
        }
    }

    private func pwriteAll(_ words: [UInt8], at offset: Int) throws {
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { throw FailureTestError("cannot open \(path) (errno \(errno))") }
        defer { closeDescriptor(fd) }
        guard words.withUnsafeBytes({ pwrite(fd, $0.baseAddress, $0.count, off_t(offset)) }) == words.count else {
            throw FailureTestError("cannot write \(path) (errno \(errno))")
        }
    }

    /// Writes `slot` in place, as a process claiming it would (the file is mapped shared by
    /// every process that has it open, so they see the write at once): the start time and pin
    /// first, then the owner, then the count of slots in use raised to cover it.
    func write(_ slot: Slot) throws {
        let at = Self.headerSize + slot.index * Self.slotSize
        try pwriteAll(SharedBank.encode(slot.startTime) + SharedBank.encode(slot.pinWord), at: at + 8)
        try pwriteAll(SharedBank.encode(slot.pid), at: at)
        if try slotsUsed() < slot.index + 1 { try pwriteAll(SharedBank.encode(UInt64(slot.index + 1)), at: Self.slotsUsedOffset) }
    }
}

/// Several processes on one file opened with `FileSharing.shared`, with real child
/// processes (`SharedFileWorker`): no update lost between writers of different processes,
/// readers in other processes see consistent snapshots that advance and are never reused under
/// them, a dead reader's pin is reclaimed, a writer killed at any point loses no acknowledged
/// commit, exclusive and shared openers keep each other out, and stale lock-file slots (dead
/// owner, or a pid now used by a later process) do not pin.
///
/// Counts scale with `BURROW_SHARED_ITERATIONS` (default 100); random choices print their seed
/// (`BURROW_SEED` replays them).
@Suite("Shared file (several processes)", .serialized, .ownThread)
struct SharedFileTests {
    static var iterations: Int { TestEnvironment.count("BURROW_SHARED_ITERATIONS", default: 100) }

    static func openShared(_ path: String, readOnly: Bool = false) throws -> Storage {
        try Storage.open(path: path, options: StorageOptions(pageSize: 4096, readOnly: readOnly, create: !readOnly, sharing: .shared))
    }

    static func openExclusive(_ path: String) throws -> Storage {
        try Storage.open(path: path, options: StorageOptions(pageSize: 4096, readOnly: false, create: true, sharing: .exclusive))
    }

    /// The bank as the latest version holds it; records an issue for anything wrong with it (a
    /// file that holds only a counter, `bank: false`, only has to verify).
    static func checkedReading(_ storage: Storage, _ context: String, bank: Bool = true) throws -> SharedBankReading {
        let snapshot = try storage.snapshot()
        let reading = try SharedBankReading(snapshot)
        if bank, let problem = reading.problem { Issue.record("\(context): \(problem)") }
        do {
            _ = try snapshot.verify()
        } catch {
            Issue.record("\(context): version \(snapshot.version) does not verify: \(error)")
        }
        return reading
    }

    // MARK: 1. Writers of several processes

    @Test("Two writer processes and this one incrementing one counter lose no update")
    func writersOfSeveralProcessesLoseNoUpdate() throws {
        let n = Self.iterations
        let group = try SharedWorkerGroup(scratch: "shared-counter")
        defer { group.finish() }
        let path = group.file("counter.burrow")
        let storage = try Self.openShared(path)
        defer { storage.close() }
        let start = storage.version

        // One child commits `.full` one at a time, the other from four threads with group commit.
        let full = try group.start("counter-full", ["counter", path, "\(n)", "full"])
        let grouped = try group.start("counter-group", ["counter", path, "\(n)", "group", "4"])
        var mine: [UInt64] = []
        var lastSeen: UInt64 = 0
        for i in 0..<n {
            let (version, counter) = try SharedBank.increment(storage, durability: .normal)
            mine.append(counter)
            #expect(version > start, "commit \(i) returned version \(version)")
            if i % 10 == 0 {
                let seen = try SharedBankReading(try storage.snapshot()).counter ?? 0
                #expect(seen >= lastSeen, "the counter went back from \(lastSeen) to \(seen)")
                #expect(seen >= counter, "a snapshot after committing \(counter) reads \(seen)")
                lastSeen = seen
            }
        }
        try full.expectSuccess()
        try grouped.expectSuccess()

        let reading = try Self.checkedReading(storage, "after the writers", bank: false)
        #expect(reading.counter == UInt64(3 * n), "3 × \(n) increments left the counter at \(reading.counter.map(String.init) ?? "nothing")")
        #expect(reading.version == start + UInt64(3 * n), "3 × \(n) commits from version \(start) reached version \(reading.version)")
        // Each increment read a value no other one read: together they are 1 … 3n.
        let committed = [("this process", mine), ("the .full process", full.ackedCounters), ("the group-commit process", grouped.ackedCounters)]
        let all = committed.flatMap(\.1).sorted()
        if all != Array(1...UInt64(3 * n)) {
            Issue.record(
                "the values committed are not 1…\(3 * n) once each (an increment read a version without another process's commit): \(Self.duplicates(committed))"
            )
        }
        print("SharedFile counter: 3 × \(n) increments from 3 processes (.normal, .full, group commit of 4 threads) -> \(reading.counter ?? 0)")
    }

    /// The values committed more than once, and by whom.
    static func duplicates(_ committed: [(String, [UInt64])]) -> String {
        var by: [UInt64: [String]] = [:]
        for (who, values) in committed { for value in values { by[value, default: []].append(who) } }
        let repeated = by.filter { $0.value.count > 1 }.sorted { $0.key < $1.key }
        let missing = (1...UInt64(max(1, committed.map(\.1.count).reduce(0, +)))).filter { by[$0] == nil }
        return "\(repeated.count) committed twice ("
            + repeated.prefix(5).map { "\($0.key) by \($0.value.joined(separator: " and "))" }.joined(separator: ", ")
            + "), \(missing.count) missing \(missing.prefix(5))"
    }

    // MARK: 2. One writer, four readers

    @Test("Four reader processes check every snapshot while a writer process transfers between accounts")
    func readersOfOtherProcessesSeeConsistentAdvancingSnapshots() throws {
        let seed = TestSeed.make("SharedFile readers")
        var rng = TestRandom(seed: seed)
        let commits = 3 * Self.iterations
        let bank = try SharedBankFixture("shared-readers", accounts: 300)
        defer { bank.finish() }
        let (group, path, storage) = (bank.group, bank.path, bank.storage)
        // This process pins the first version through the whole run as well.
        let pinned = try storage.snapshot()
        let pinnedReading = try SharedBankReading(pinned)

        var readers: [ChildProcess] = []
        for i in 0..<4 {
            // Two of the readers open the file read-only.
            var arguments = ["check", path, "300", "\(rng.next() >> 1)"]
            if i >= 2 { arguments.append("ro") }
            readers.append(try group.start("check\(i)", arguments))
        }
        for reader in readers { try reader.expectLine("ready") }
        let writer = try group.start("transfer", ["transfer", path, "\(rng.next() >> 1)", "300", "\(commits)"])
        try writer.expectSuccess()
        guard let last = writer.lastAcked else { throw FailureTestError("the writer acknowledged nothing: \(writer.summary)") }
        // Let the readers see the last version too, then stop them.
        for reader in readers { reader.closeInput() }
        var totalChecks = 0
        var totalRereads = 0
        for reader in readers {
            try reader.expectSuccess(timeout: 60)
            let line = try reader.expectLine("checked ", timeout: 1)
            let fields = line.split(separator: " ").compactMap { UInt64($0) }
            guard fields.count == 5 else { throw FailureTestError("\(reader.label) printed \"\(line)\"") }
            let (checks, first, lastSeen, distinct, rereads) = (fields[0], fields[1], fields[2], fields[3], fields[4])
            #expect(lastSeen > first, "\(reader.label) saw no version after \(first) while the writer committed up to \(last.version)")
            #expect(distinct >= 2, "\(reader.label) saw \(distinct) distinct versions")
            #expect(lastSeen <= last.version)
            totalChecks += Int(checks)
            totalRereads += Int(rereads)
        }
        #expect(totalRereads > 0, "no reader kept a snapshot to read it again")

        let reading = try Self.checkedReading(storage, "after the run")
        #expect(reading.version == last.version, "this process reads version \(reading.version), the writer last committed \(last.version)")
        #expect(reading.counter == UInt64(commits))
        #expect(try SharedBankReading(pinned) == pinnedReading, "this process's snapshot of version \(pinned.version) changed under it")
        _ = try pinned.verify()
        print(
            "SharedFile readers: \(commits) commits by a writer process; 4 readers made \(totalChecks) checks and \(totalRereads) re-reads of kept snapshots"
        )
    }

    // MARK: 3. A dead reader's pin

    /// Commits that each rewrite the blob (a 3-page overflow run) and the counter, `.full` so
    /// that the durable version follows and only pins hold pages back.
    static func churn(_ storage: Storage, commits: Int, rng: inout TestRandom) throws {
        for _ in 0..<commits {
            let txn = try storage.beginWriteBlocking()
            let tree = try txn.openTree(named: SharedBank.treeName)
            try txn.put(SharedBank.blobKey, SharedBank.blob(seed: rng.next(), length: 10_000), in: tree)
            let counter = (SharedBank.decode(try txn.value(forKey: SharedBank.counterKey, in: tree) ?? []) ?? 0) + 1
            try txn.put(SharedBank.counterKey, SharedBank.encode(counter), in: tree)
            try txn.commit(durability: .full)
        }
    }

    /// How many pages `commits` churn commits add to the file.
    static func growth(_ storage: Storage, commits: Int, rng: inout TestRandom) throws -> Int {
        let before = try storage.statistics().pageCount
        try churn(storage, commits: commits, rng: &rng)
        return try storage.statistics().pageCount - before
    }

    @Test("A reader process killed with SIGKILL stops pinning: the writer reuses free pages again")
    func deadReaderStopsPinning() throws {
        var rng = TestRandom(seed: TestSeed.make("SharedFile dead reader"))
        let bank = try SharedBankFixture("shared-deadreader", accounts: 20, churn: 30, rng: &rng)
        defer { bank.finish() }
        let (group, path, storage) = (bank.group, bank.path, bank.storage)
        let unpinned = try Self.growth(storage, commits: 40, rng: &rng)

        let holder = try group.start("hold", ["hold", path, "shared", "pin"])
        let held = try holder.expectLine("holding ")
        let whilePinned = try Self.growth(storage, commits: 40, rng: &rng)
        #expect(whilePinned >= 40, "with \(held) in another process, 40 commits of a 3-page value grew the file by \(whilePinned) pages")

        holder.kill()
        try Self.churn(storage, commits: 20, rng: &rng)
        let afterKill = try Self.growth(storage, commits: 40, rng: &rng)
        #expect(
            afterKill <= 8,
            "after the reader process died, 40 commits still grew the file by \(afterKill) pages (\(whilePinned) while it pinned, \(unpinned) before)"
        )
        _ = try Self.checkedReading(storage, "after the churn")
        print(
            "SharedFile dead reader: 40 commits grew the file by \(unpinned) pages unpinned, \(whilePinned) pinned by another process, \(afterKill) once it was killed"
        )
    }

    // MARK: 4. A writer killed at random points

    @Test("A writer process killed with SIGKILL at random points loses no acknowledged commit")
    func killedWriterLosesNoAcknowledgedCommit() throws {
        let seed = TestSeed.make("SharedFile killed writer")
        var rng = TestRandom(seed: seed)
        let rounds = max(3, Self.iterations / 10)
        let group = try SharedWorkerGroup(scratch: "shared-killedwriter")
        defer { group.finish() }
        let path = group.file("bank.burrow")
        var lastCounter: UInt64 = 0
        var tally = (survivor: 0, reader: 0, acks: 0)

        for round in 0..<rounds {
            let context = "round \(round) (seed \(seed))"
            // Half the rounds this process keeps the file open (with a pinned snapshot) while the
            // writer dies; the others open it afresh afterwards.
            let survivor = rng.chance(50) ? try Self.openShared(path) : nil
            let survivorSnapshot = try survivor.map { try $0.snapshot() }
            let writer = try group.start("writer\(round)", ["transfer", path, "\(rng.next() >> 1)", "50", "0"])
            let readerProcess = rng.chance(50) ? try group.start("reader\(round)", ["check", path, "60", "\(rng.next() >> 1)"]) : nil
            try writer.expectLine("ready ")
            // Kill after a random number of acknowledged commits and a random delay.
            let acks = rng.int(0...60)
            var seen = 0
            if acks > 0 {
                _ = writer.wait(timeout: 30) { line in
                    if line.hasPrefix("acked ") { seen += 1 }
                    return seen >= acks
                }
            }
            usleep(UInt32(rng.int(0...3_000)))  // random jitter: the moment of the kill is what the test varies
            if let readerProcess, rng.chance(50) { readerProcess.kill() }
            writer.kill()
            if let readerProcess {
                readerProcess.kill()
                if readerProcess.lines.contains(where: { $0.hasPrefix("violation") || $0.hasPrefix("failed") }) {
                    Issue.record("\(context): the reader process reported \(readerProcess.summary)")
                }
                tally.reader += 1
            }
            if writer.lines.contains(where: { $0.hasPrefix("violation") || $0.hasPrefix("failed") }) {
                Issue.record("\(context): the writer reported \(writer.summary)")
            }
            let acked = writer.lastAcked
            tally.acks += writer.ackedCounters.count

            let storage = try survivor ?? Self.openShared(path)
            let reading = try Self.checkedReading(storage, context)
            if let acked {
                #expect(reading.version >= acked.version, "\(context): version \(reading.version) after the writer acknowledged \(acked.version)")
                #expect(
                    (reading.counter ?? 0) >= acked.counter,
                    "\(context): counter \(reading.counter ?? 0) after the writer acknowledged \(acked.counter)")
            }
            #expect((reading.counter ?? 0) >= lastCounter, "\(context): counter \(reading.counter ?? 0), down from \(lastCounter)")
            // This process writes after the dead writer (the writer lock is free again).
            // (It may build on a version the snapshot above did not read: one whose meta the
            // killed writer wrote but had not announced in the lock file.)
            let (version, counter) = try SharedBank.transfer(storage, rng: &rng, durability: .full)
            #expect(
                version > reading.version && counter > (reading.counter ?? 0),
                "\(context): this process committed version \(version), counter \(counter)")
            let after = try SharedBankReading(try storage.snapshot())
            #expect(
                after.version == version && after.counter == counter,
                "\(context): after committing version \(version), counter \(counter), this process reads version \(after.version), counter \(after.counter ?? 0)"
            )
            lastCounter = counter
            _ = try Self.checkedReading(storage, "\(context), after this process's commit")
            if let survivorSnapshot {
                _ = try survivorSnapshot.verify()
                tally.survivor += 1
            }
            storage.close()
        }
        print(
            "SharedFile killed writer: \(rounds) writers killed after \(tally.acks) acknowledged commits in all; "
                + "\(tally.survivor) with this process holding the file, \(tally.reader) with a reader process killed too")
    }

    // MARK: 5. Exclusive and shared openers

    /// Starts `hold <sharing>` and returns what it printed first: "open …" or "locked".
    static func holdOutcome(_ group: SharedWorkerGroup, _ path: String, _ sharing: String, readOnly: Bool = false) throws -> (
        ChildProcess, String
    ) {
        let worker = try group.start("hold-\(sharing)", ["hold", path, sharing, "nopin"] + (readOnly ? ["ro"] : []))
        guard let line = worker.wait(timeout: 30, until: { $0.hasPrefix("open ") || $0 == "locked" || $0.hasPrefix("failed") }) else {
            throw FailureTestError("hold \(sharing) said nothing: \(worker.summary)")
        }
        return (worker, line)
    }

    /// What opening here gives: "open", "locked", or the error.
    static func openOutcome(_ path: String, _ sharing: FileSharing) -> String {
        do {
            let storage = try Storage.open(path: path, options: StorageOptions(pageSize: 4096, readOnly: false, create: true, sharing: sharing))
            storage.close()
            return "open"
        } catch .fileLocked {
            return "locked"
        } catch {
            return "\(error)"
        }
    }

    @Test("Exclusive and shared openers of different processes keep each other out with fileLocked, in both orders")
    func exclusiveAndSharedExcludeEachOther() throws {
        let bank = try SharedBankFixture("shared-modes", accounts: 2, sharing: .exclusive)
        defer { bank.finish() }
        bank.close()
        let (group, path) = (bank.group, bank.path)

        // This process first.
        do {
            let storage = try Self.openShared(path)
            let (exclusive, said) = try Self.holdOutcome(group, path, "exclusive")
            #expect(said == "locked", "an exclusive open while another process shares the file: \(said)")
            _ = exclusive.waitForExit(timeout: 10)
            let (shared, sharedSaid) = try Self.holdOutcome(group, path, "shared")
            #expect(sharedSaid.hasPrefix("open "), "a second shared opener: \(sharedSaid)")
            let (reader, readerSaid) = try Self.holdOutcome(group, path, "shared", readOnly: true)
            #expect(readerSaid.hasPrefix("open "), "a read-only shared opener: \(readerSaid)")
            shared.closeInput()
            reader.closeInput()
            try shared.expectSuccess(timeout: 30)
            try reader.expectSuccess(timeout: 30)
            storage.close()
        }
        do {
            let storage = try Self.openExclusive(path)
            let (shared, said) = try Self.holdOutcome(group, path, "shared")
            #expect(said == "locked", "a shared open while another process has the file exclusively: \(said)")
            _ = shared.waitForExit(timeout: 10)
            let (reader, readerSaid) = try Self.holdOutcome(group, path, "shared", readOnly: true)
            #expect(readerSaid == "locked", "a read-only shared open while another process has the file exclusively: \(readerSaid)")
            _ = reader.waitForExit(timeout: 10)
            let (exclusive, exclusiveSaid) = try Self.holdOutcome(group, path, "exclusive")
            #expect(exclusiveSaid == "locked", "a second exclusive open: \(exclusiveSaid)")
            _ = exclusive.waitForExit(timeout: 10)
            storage.close()
        }

        // The other process first: an exclusive open here never gets in; a shared one only
        // beside another shared one.
        for (mode, sharedHere) in [("exclusive", "locked"), ("shared", "open")] {
            let (holder, said) = try Self.holdOutcome(group, path, mode)
            #expect(said.hasPrefix("open "), "a \(mode) open of a file nobody has open: \(said)")
            #expect(Self.openOutcome(path, .shared) == sharedHere, "shared open while another process has the file \(mode)")
            #expect(Self.openOutcome(path, .exclusive) == "locked", "exclusive open while another process has the file \(mode)")
            try holder.expectSuccess(timeout: 30)
        }
        // Once everyone let go, either mode opens.
        #expect(Self.openOutcome(path, .exclusive) == "open")
        #expect(Self.openOutcome(path, .shared) == "open")
    }

    // MARK: 6. Stale slots

    @Test("Lock-file slots of dead processes, or of a pid now used by a later process, do not pin")
    func staleSlotsAreReclaimed() throws {
        var rng = TestRandom(seed: TestSeed.make("SharedFile stale slots"))
        let bank = try SharedBankFixture("shared-slots", accounts: 20, churn: 30, rng: &rng)
        defer { bank.finish() }
        let (group, path, storage) = (bank.group, bank.path, bank.storage)
        let lockFile = SharedLockFile(databasePath: path)

        let holder = try group.start("hold", ["hold", path, "shared", "pin"])
        try holder.expectLine("holding ")
        let holderPid = UInt64(holder.pid)
        let slots = try lockFile.slots()
        guard let real = slots.first(where: { $0.pid == holderPid }) else {
            throw FailureTestError("no lock-file slot names the holder's pid \(holderPid): \(slots.filter { $0.pid != 0 })")
        }
        #expect(real.pinWord != 0, "the holder's slot pins nothing: \(real)")
        #expect(slots.contains { $0.pid == UInt64(getpid()) }, "no slot names this process")
        // Two stale slots pinning version 0: the holder's pid with another start time (a pid
        // reused by a later process), and a pid no process has.
        let free = slots.filter { $0.pid == 0 }.map(\.index)
        guard free.count >= 2 else { throw FailureTestError("only \(free.count) free slots") }
        let reused = SharedLockFile.Slot(index: free[0], pid: holderPid, startTime: real.startTime &+ 1, pinWord: 1)
        let dead = SharedLockFile.Slot(index: free[1], pid: 0x7FFF_FFF0, startTime: 12345, pinWord: 1)
        try lockFile.write(reused)
        try lockFile.write(dead)

        // While the holder lives, its slot stays and the stale ones go.
        try Self.churn(storage, commits: 5, rng: &rng)
        var now = try lockFile.slots()
        #expect(now[real.index] == real, "the live holder's slot changed: \(now[real.index])")
        #expect(now[reused.index].pid == 0, "a slot with the holder's pid but another start time was kept: \(now[reused.index])")
        #expect(now[dead.index].pid == 0, "a slot of a pid no process has was kept: \(now[dead.index])")

        // Once the holder is killed, its slot goes too, and pages are reused again.
        holder.kill()
        try Self.churn(storage, commits: 20, rng: &rng)
        now = try lockFile.slots()
        #expect(now[real.index].pid != holderPid, "the killed holder's slot was kept: \(now[real.index])")
        let afterKill = try Self.growth(storage, commits: 40, rng: &rng)
        #expect(afterKill <= 8, "with every other slot stale, 40 commits grew the file by \(afterKill) pages")
        _ = try Self.checkedReading(storage, "after the stale slots")
    }

    @Test("A lock file whose every slot a dead process left still takes a new process, whose commits reuse pages")
    func fullTableOfDeadSlotsTakesNewOpeners() throws {
        var rng = TestRandom(seed: TestSeed.make("SharedFile full slot table"))
        let bank = try SharedBankFixture("shared-fullslots", accounts: 20, churn: 30, rng: &rng)
        defer { bank.finish() }
        bank.close()
        let (group, path) = (bank.group, bank.path)
        let lockFile = SharedLockFile(databasePath: path)
        // A process keeps the lock file in use while every free slot gets a dead owner that pins
        // version 0.
        let keeper = try group.start("keeper", ["hold", path, "shared", "nopin"])
        try keeper.expectLine("open ")
        var filled = 0
        for slot in try lockFile.slots() where slot.pid == 0 {
            try lockFile.write(SharedLockFile.Slot(index: slot.index, pid: 0x7FFF_0000 + UInt64(slot.index), startTime: 1, pinWord: 1))
            filled += 1
        }
        #expect(try lockFile.slots().allSatisfy { $0.pid != 0 }, "a slot is still free")

        let storage = try Self.openShared(path)
        defer { storage.close() }
        try Self.churn(storage, commits: 20, rng: &rng)
        let growth = try Self.growth(storage, commits: 40, rng: &rng)
        #expect(growth <= 8, "with \(filled) dead slots, 40 commits grew the file by \(growth) pages")
        // And another process opens and writes as well.
        let counter = try group.start("counter", ["counter", path, "5", "normal"])
        try counter.expectSuccess(timeout: 60)
        let reading = try Self.checkedReading(storage, "after the dead slots")
        #expect(reading.counter == 30 + 20 + 40 + 5)
        keeper.closeInput()
        try keeper.expectSuccess(timeout: 30)
    }

    // MARK: 7. One writer at a time across processes

    /// Set by a waiting writer once it has the write lock.
    final class SharedWaiterState: Sendable {
        let started = Atomic<UInt64>(0)
    }

    /// Adds one to the bank's counter in `txn`, noting in `state` (if given) the version the
    /// transaction started from, plus one; returns the counter's new value.
    static func addOne(in txn: WriteTransaction, noting state: SharedWaiterState? = nil) throws -> UInt64 {
        state?.started.store(txn.baseVersion + 1, ordering: .sequentiallyConsistent)
        let tree = try txn.openTree(named: SharedBank.treeName)
        let counter = (SharedBank.decode(try txn.value(forKey: SharedBank.counterKey, in: tree) ?? []) ?? 0) + 1
        try txn.put(SharedBank.counterKey, SharedBank.encode(counter), in: tree)
        return counter
    }

    /// Waits until a writer of this process waits for the lock file's writer lock (another
    /// process holds it); throws if none does within 30 s.
    static func waitForWriterOfThisProcess(_ storage: Storage) async throws {
        let lockFile = try #require(storage.lockFile)
        let waiting = try await TestWait.untilAsync(timeout: 30) { lockFile.writersWaitingInThisProcess > 0 }
        try #require(waiting, "no writer of this process waited for the other process's writer lock")
    }

    @Test("A writer waits for another process's transaction and starts from its commit; readers meanwhile do not wait")
    func writerWaitsForAnotherProcessesTransaction() async throws {
        let bank = try SharedBankFixture("shared-writelock", accounts: 2)
        defer { bank.finish() }
        let (group, path, storage) = (bank.group, bank.path, bank.storage)

        for (round, blocking) in [false, true].enumerated() {
            let what = blocking ? "beginWriteBlocking" : "beginWrite"
            let before = storage.version
            let other = try group.start("writehold", ["writehold", path])
            let writing = try other.expectLine("writing ")
            #expect(writing == "writing \(before)", "the other process's transaction starts from \(writing.dropFirst(8)), not \(before)")
            let state = SharedWaiterState()
            // This process's writer, started while the other process writes: its base version
            // (plus one, so that 0 means "still waiting").
            let waiter: Task<UInt64, any Error>
            if blocking {
                waiter = Task {
                    try await onThreadOfItsOwn {
                        let txn = try storage.beginWriteBlocking()
                        let counter = try Self.addOne(in: txn, noting: state)
                        try txn.commit(durability: .normal)
                        return counter
                    }
                }
            } else {
                waiter = Task {
                    let txn = try await storage.beginWrite()
                    let counter = try Self.addOne(in: txn, noting: state)
                    try txn.commit(durability: .normal)
                    return counter
                }
            }
            try await Self.waitForWriterOfThisProcess(storage)
            let early = state.started.load(ordering: .sequentiallyConsistent)
            #expect(early == 0, "\(what) returned (from version \(early &- 1)) while another process held its write transaction open")
            // Readers do not wait for the other process's writer.
            #expect(try storage.snapshot().version == before)

            other.closeInput()
            let acked = try other.expectLine("acked ")
            let fields = acked.split(separator: " ").compactMap { UInt64($0) }
            guard fields.count == 2 else { throw FailureTestError("the other process printed \"\(acked)\"") }
            // Its commit is what the next snapshot here reads.
            let seen = try storage.snapshot().version
            #expect(seen >= fields[0], "a snapshot taken after the other process acknowledged version \(fields[0]) reads version \(seen)")
            let counter = try await withTimeout(seconds: 60, "the waiting writer") { try await waiter.value }
            let base = state.started.load(ordering: .sequentiallyConsistent) &- 1
            #expect(base == fields[0], "\(what) started from version \(base), not from the other process's commit \(fields[0])")
            #expect(counter == UInt64(2 * round + 2), "\(what) wrote counter \(counter.map(String.init) ?? "nothing")")
            try other.expectSuccess(timeout: 30)
        }
        let reading = try Self.checkedReading(storage, "after the writers")
        #expect(reading.counter == 4)
    }

    @Test(
        "A process lets another process write only once its commits are durable, so a durable wait begun after the handover needs no sync",
        arguments: [Durability.full, .normal])
    func handoverWaitsForDurability(durability: Durability) throws {
        let bank = try SharedBankFixture("shared-handover", accounts: 2)
        defer { bank.finish() }
        let (group, path) = (bank.group, bank.path)
        var reopenedVersion: UInt64 = 0
        do {
            let storage = bank.storage
            defer { bank.close() }
            for _ in 0..<3 {
                // A commit whose durable wait comes later: its meta is in the file, not synced.
                let txn = try storage.beginWriteBlocking()
                _ = try Self.addOne(in: txn)
                let receipt = try txn.commitPendingSync(durability: durability)
                let roundsBefore = storage.syncRoundCounts.rounds

                // Another process asks for the writer lock; it gets it once this version is durable.
                let other = try group.start("writehold", ["writehold", path])
                let writing = try other.expectLine("writing ", timeout: 30)
                #expect(writing == "writing \(receipt.version)")
                #expect(storage.syncRoundCounts.rounds == roundsBefore + 1, "the handover after version \(receipt.version) ran no sync")
                if durability == .full {
                    try storage.waitUntilDurableBlocking(receipt)
                    #expect(storage.syncRoundCounts.rounds == roundsBefore + 1, "the durable wait after the handover ran a round of its own")
                }
                other.closeInput()
                _ = try other.expectLine("acked ", timeout: 30)
                try other.expectSuccess(timeout: 30)
                // This process writes again from the other's commit.
                let (next, _) = try SharedBank.increment(storage, durability: durability)
                #expect(next == receipt.version + 2)
                reopenedVersion = next
            }
            _ = try Self.checkedReading(storage, "after the handovers")
        }
        let reopened = try Self.openShared(path)
        defer { reopened.close() }
        #expect(reopened.recovery == nil, "\(reopened.recovery.map { "\($0)" } ?? "")")
        #expect(reopened.version == reopenedVersion)
        #expect(try Self.checkedReading(reopened, "reopened").counter == 9)
    }

    @Test("An async writer waiting for another process's transaction starts once that process is killed")
    func asyncWriterStartsWhenTheHolderIsKilled() async throws {
        let bank = try SharedBankFixture("shared-killedholder", accounts: 2)
        defer { bank.finish() }
        let (group, path, storage) = (bank.group, bank.path, bank.storage)
        let before = bank.setUpVersion
        let holder = try group.start("writehold", ["writehold", path])
        _ = try holder.expectLine("writing ")
        let state = SharedWaiterState()
        let waiter = Task {
            let txn = try await storage.beginWrite()
            state.started.store(txn.baseVersion + 1, ordering: .sequentiallyConsistent)
            txn.abort()
        }
        try await Self.waitForWriterOfThisProcess(storage)
        #expect(
            state.started.load(ordering: .sequentiallyConsistent) == 0, "beginWrite returned while another process held its write transaction open")
        // A process that dies wakes nobody; the waiting writer finds the lock free on its own.
        holder.kill()
        try await withTimeout(seconds: 30, "the waiting writer") { try await waiter.value }
        #expect(state.started.load(ordering: .sequentiallyConsistent) == before + 1, "the writer started from another version than the last commit")
    }

    @Test("A writer process killed while it waits for the writer lock does not make the holder let go after every commit")
    func killedWaiterStopsAskingForTheWriterLock() throws {
        let bank = try SharedBankFixture("shared-killedwaiter", accounts: 2)
        defer { bank.finish() }
        let (group, path, storage) = (bank.group, bank.path, bank.storage)
        let lockFile = try #require(storage.lockFile)

        // The other process waits for the writer lock while this one has a transaction open.
        let txn = try storage.beginWriteBlocking()
        let waiter = try group.start("writehold", ["writehold", path])
        #expect(TestWait.until(timeout: 30) { lockFile.writersWaiting }, "the other process never waited for the writer lock")
        waiter.kill()
        #expect(!lockFile.writersWaiting, "a writer that was killed while it waited still counts as waiting")
        txn.abort()

        // Alone again, this process keeps the writer lock: its `.normal` commits need no sync.
        let rounds = storage.syncRoundCounts.rounds
        for _ in 0..<5 { _ = try SharedBank.increment(storage, durability: .normal) }
        #expect(storage.syncRoundCounts.rounds == rounds, "5 `.normal` commits ran \(storage.syncRoundCounts.rounds - rounds) sync rounds")
        #expect(try Self.checkedReading(storage, "after the commits").counter == 5)
    }

    // MARK: 8. Opening while another process writes

    /// Starts `hold <path> shared pin` and returns the line it printed first, or nil if it
    /// printed nothing within `timeout` seconds (then it is killed).
    static func openAndPin(_ group: SharedWorkerGroup, _ path: String, timeout: Double = 10) throws -> (ChildProcess, String?) {
        let reader = try group.start("hold", ["hold", path, "shared", "pin"])
        let line = reader.wait(timeout: timeout) { $0.hasPrefix("holding ") || $0 == "locked" || $0.hasPrefix("failed") }
        if line == nil { reader.kill() }
        return (reader, line)
    }

    @Test("A process opens the file while another process holds the writer lock after its commit")
    func openingDoesNotWaitForAnIdleWriter() throws {
        // This process has just committed (the set-up), and no other process has asked it for
        // the writer lock since.
        let bank = try SharedBankFixture("shared-openafterwrite", accounts: 2)
        defer { bank.finish() }
        let (group, path, storage) = (bank.group, bank.path, bank.storage)
        let version = bank.setUpVersion
        let (reader, holding) = try Self.openAndPin(group, path)
        #expect(holding == "holding \(version)", "a process opening the file after this one committed: \(holding ?? "nothing within 10 s")")
        reader.closeInput()
        _ = reader.waitForExit(timeout: 10)
        // And this process writes again afterwards.
        let (next, _) = try SharedBank.increment(storage, durability: .normal)
        #expect(next == version + 1)
    }

    @Test("A process opens the file and reads while another process has a write transaction open")
    func openingDoesNotWaitForAnOpenTransaction() throws {
        let bank = try SharedBankFixture("shared-openwhilewriting", accounts: 2)
        defer { bank.finish() }
        bank.close()
        let (group, path, version) = (bank.group, bank.path, bank.setUpVersion)
        let writer = try group.start("writehold", ["writehold", path])
        try writer.expectLine("writing ", timeout: 10)
        let (reader, holding) = try Self.openAndPin(group, path)
        #expect(
            holding == "holding \(version)",
            "a process opening the file while another has a write transaction open: \(holding ?? "nothing within 10 s")")
        writer.closeInput()
        try writer.expectSuccess(timeout: 30)
        reader.closeInput()
        _ = reader.waitForExit(timeout: 10)
    }

    @Test("A reader opening the file while another process creates it finds no file or a whole one, never an empty one")
    func openingWhileAnotherProcessCreatesTheFile() throws {
        let group = try SharedWorkerGroup(scratch: "shared-creating")
        defer { group.finish() }
        for attempt in 0..<20 {
            let path = group.file("new\(attempt).burrow")
            let creator = try group.start("hold", ["hold", path, "shared", "nopin"])
            let deadline = Date().addingTimeInterval(30)
            var opened: Storage?
            while opened == nil, Date() < deadline {
                do {
                    opened = try Storage.open(path: path, options: StorageOptions(readOnly: true, sharing: .shared))
                } catch .io(_, "open", ENOENT) {
                    continue
                } catch {
                    Issue.record("attempt \(attempt): opening while another process creates the file: \(error)")
                    break
                }
            }
            #expect(opened?.version == 0)
            opened?.close()
            _ = try creator.expectLine("open ", timeout: 30)
            creator.closeInput()
            try creator.expectSuccess(timeout: 30)
        }
    }

    // MARK: 9. A process that died but is not reaped yet

    /// A worker started with `posix_spawn` rather than `Process`, so that nothing reaps it
    /// before the test does: once killed it stays a zombie (its pid still exists) until `reap`.
    final class UnreapedWorker {
        let pid: pid_t
        let outputPath: String
        private let inputWrite: Int32
        private var reaped = false

        init(_ arguments: [String], outputPath: String) throws {
            self.outputPath = outputPath
            var pipeEnds: [Int32] = [0, 0]
            guard pipe(&pipeEnds) == 0 else { throw FailureTestError("pipe failed (errno \(errno))") }
            inputWrite = pipeEnds[1]
            _ = fcntl(inputWrite, F_SETFD, FD_CLOEXEC)
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_adddup2(&actions, pipeEnds[0], 0)
            posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            let executable = try ChildProcess.sharedFileWorker()
            let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
            defer { for pointer in argv { free(pointer) } }
            var child: pid_t = 0
            let status = posix_spawn(&child, executable, &actions, nil, argv, environ)
            closeDescriptor(pipeEnds[0])
            guard status == 0 else {
                closeDescriptor(inputWrite)
                throw FailureTestError("posix_spawn failed (\(status))")
            }
            pid = child
        }

        var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }

        func waitForLine(_ prefix: String, timeout: Double) -> Bool {
            TestWait.until(timeout: timeout) { output.split(separator: "\n").contains { $0.hasPrefix(prefix) } }
        }

        func reap() {
            guard !reaped else { return }
            reaped = true
            _ = kill(pid, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
            closeDescriptor(inputWrite)
        }

        deinit { reap() }
    }

    @Test("A writer process goes on committing after a reader process it wakes is killed and not yet reaped (a zombie)")
    func unreapedDeadReaderDoesNotStopWriters() throws {
        let bank = try SharedBankFixture("shared-zombie", accounts: 2)
        defer { bank.finish() }
        bank.close()
        let (group, path) = (bank.group, bank.path)
        let reader = try UnreapedWorker(["hold", path, "shared", "nopin"], outputPath: group.file("zombie.out"))
        defer { reader.reap() }
        guard reader.waitForLine("open ", timeout: 30) else { throw FailureTestError("the reader did not open the file: \(reader.output)") }
        // A writer process commits (and so wakes the reader) while the reader lives, and goes on
        // once the reader was killed and lingers as a zombie.
        let writer = try group.start("counter", ["counter", path, "\(5 * Self.iterations)", "normal"])
        try writer.expectLine("acked ", timeout: 30)
        _ = kill(reader.pid, SIGKILL)
        try writer.expectSuccess(timeout: 120)
        #expect(writer.ackedCounters.count == 5 * Self.iterations)
        reader.reap()
    }

    @Test("A reader process killed and not yet reaped (a zombie) stops pinning: the writer reuses free pages again")
    func unreapedDeadReaderStopsPinning() throws {
        var rng = TestRandom(seed: TestSeed.make("SharedFile zombie reader"))
        let bank = try SharedBankFixture("shared-zombiepin", accounts: 20, churn: 30, rng: &rng)
        defer { bank.finish() }
        let (group, path, storage) = (bank.group, bank.path, bank.storage)

        let reader = try UnreapedWorker(["hold", path, "shared", "pin"], outputPath: group.file("zombie.out"))
        defer { reader.reap() }
        guard reader.waitForLine("holding ", timeout: 30) else { throw FailureTestError("the reader did not open the file: \(reader.output)") }
        let whilePinned = try Self.growth(storage, commits: 40, rng: &rng)
        #expect(whilePinned >= 40, "with a version pinned in another process, 40 commits of a 3-page value grew the file by \(whilePinned) pages")

        _ = kill(reader.pid, SIGKILL)
        // Until the kernel has ended it, the process is alive; then it is a zombie.
        TestWait.until(timeout: 10) { LockFile.processStatus(pid: UInt64(reader.pid))?.ended != false }
        #expect(LockFile.processStatus(pid: UInt64(reader.pid))?.ended == true, "the killed reader is not a zombie")
        try Self.churn(storage, commits: 20, rng: &rng)
        let afterKill = try Self.growth(storage, commits: 40, rng: &rng)
        #expect(afterKill <= 8, "with the reader a zombie, 40 commits still grew the file by \(afterKill) pages (\(whilePinned) while it pinned)")
        _ = try Self.checkedReading(storage, "after the churn")
    }
}
