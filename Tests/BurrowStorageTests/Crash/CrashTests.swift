import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

@testable import BurrowStorage
@testable import StorageCrashWorker

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ChildProcess {
    /// Starts the `StorageCrashWorker` executable (`BURROW_CRASH_WORKER` overrides where it is)
    /// with `arguments`, its output in `directory`.
    static func crashWorker(_ arguments: [String], directory: String, label: String) throws -> ChildProcess {
        try ChildProcess(
            executable("StorageCrashWorker", overriddenBy: "BURROW_CRASH_WORKER"), arguments: arguments, directory: directory, label: label)
    }
}

/// Crash safety with real processes: a worker commits a seeded sequence of transactions on a
/// real file and is killed with SIGKILL at a random moment; the file must then open, pass
/// `verify()`, and hold exactly the state after the last acknowledged commit or after the one in
/// flight. Files are reused for a few kills in a row, so later workers also run on files that a
/// killed commit left behind (a longer file, half-written pages past the page count).
@Suite("Crash (killed worker process)", .serialized, .ownThread)
struct CrashTests {
    struct Tally {
        var kills = 0
        var inFlightLanded = 0
        var killedMidCommitRolledBack = 0
        var killedBetweenCommits = 0
        var killedBeforeReady = 0
        /// Kills aimed at a large transaction spilling its pages before its commit.
        var killedWhileSpilling = 0
        /// Reopenings that reported what they dropped (the commit in flight, or a torn meta page).
        var reported = 0
        var shortFiles = 0
        var firstShortFile: String?
        var byMode: [String: Int] = [:]
        var maxVersion: UInt64 = 0
    }

    /// A file the worker runs on for a few kills in a row, and the model of what it must hold.
    struct WorkerFile {
        var path: String
        var seed: UInt64
        var replay: CrashReplay
        var checker = CrashChecker()
        var roundsLeft: Int
        var pageSize: Int
        var isNew = true
    }

    @Test("SIGKILL leaves the last acknowledged commit or the one in flight")
    func killedWorkerLeavesLastOrInFlightCommit() throws {
        let seed = TestSeed.make("Crash")
        let iterations = TestEnvironment.count("BURROW_CRASH_ITERATIONS", default: 30)
        var rng = TestRandom(seed: seed)
        // Every file and the workers' output stay in it across kills; it goes when the test ends.
        let scratch = try TemporaryDirectory("crash")
        let directory = scratch.path
        _ = try ChildProcess.executable("StorageCrashWorker", overriddenBy: "BURROW_CRASH_WORKER")
        var tally = Tally()
        var failures: [String] = []
        var file: WorkerFile?
        let started = Date()

        for iteration in 0..<iterations {
            if file == nil || file!.roundsLeft == 0 {
                let fileSeed = rng.next()
                file = WorkerFile(
                    path: directory + "/file\(iteration).burrow", seed: fileSeed, replay: CrashReplay(seed: fileSeed),
                    roundsLeft: rng.int(1...4), pageSize: rng.chance(70) ? 4096 : [8192, 16384, 32768][rng.int(0..<3)])
            }
            file!.roundsLeft -= 1
            let mode = ["full", "normal", "mixed", "group"][rng.int(0..<4)]
            let strategy = rng.int(0..<100)
            let context =
                "iteration \(iteration) (seed \(seed), file seed \(file!.seed), page size \(file!.pageSize), mode \(mode), strategy \(strategy))"
            do {
                try Self.killOnce(
                    &file!, mode: mode, strategy: strategy, rng: &rng, directory: directory, label: "worker\(iteration)",
                    context: context, tally: &tally)
            } catch {
                failures.append("\(context): \(error)")
                file = nil
            }
            if iteration % 100 == 99 {
                print("Crash: \(iteration + 1) of \(iterations) kills done, \(failures.count) failed, \(tally.shortFiles) short files")
            }
        }
        print(
            "Crash: \(tally.kills) kills checked in \(String(format: "%.1f", Date().timeIntervalSince(started))) s: "
                + "\(tally.inFlightLanded) with the commit in flight landed, \(tally.killedMidCommitRolledBack) killed mid-commit and rolled back, "
                + "\(tally.killedBetweenCommits) between commits, \(tally.killedBeforeReady) during startup, "
                + "\(tally.killedWhileSpilling) while a transaction spilled; modes \(tally.byMode); "
                + "highest version \(tally.maxVersion); \(tally.reported) reported what they dropped; \(tally.shortFiles) reopenings hit the short-file bug; \(failures.count) failed"
        )
        if !failures.isEmpty {
            Issue.record("\(failures.count) of \(iterations) kills failed; examples:\n\(failures.prefix(3).joined(separator: "\n"))")
        }
        if let first = tally.firstShortFile {
            Issue.record("ENGINE BUG (file shorter than its page count): \(tally.shortFiles) reopenings failed with .truncated; first: \(first)")
        }
    }

    /// Found by the crash test: a transaction whose highest pages end up free (allocated at the
    /// end of the file, then released within the transaction, e.g. an overflow run replaced by a
    /// small value) commits a page count that covers pages it never writes. The file stays shorter
    /// than `pageCount * pageSize`, and the next open of it throws `.truncated`: no crash needed.
    @Test("A committed file reopens: its length covers its page count")
    func committedFileCoversItsPageCount() throws {
        let directory = try TemporaryDirectory("shortfile")
        let path = directory.file("short.burrow")
        func commitVersions() throws {
            let storage = try Storage.open(path: path)
            defer { storage.close() }
            let first = try storage.beginWriteBlocking()
            try first.put([1], [2], in: try first.openTree(named: "t"))
            try first.commit()
            for i in 0..<3 {
                let txn = try storage.beginWriteBlocking()
                let tree = try txn.openTree(named: "t")
                try txn.put([1], [UInt8](repeating: 7, count: 20_000 + i), in: tree)  // a 5-page overflow run at the end
                try txn.put([1], [2, UInt8(i)], in: tree)  // and back to the pool with it
                try txn.commit()
                let statistics = try storage.statistics()
                #expect(
                    statistics.fileSize >= statistics.pageCount * statistics.pageSize,
                    "version \(statistics.version): \(statistics.pageCount) pages but \(statistics.fileSize) bytes")
            }
        }
        try commitVersions()
        do {
            let storage = try Storage.open(path: path)
            #expect(storage.version == 4)
            _ = try storage.snapshot().verify()
            #expect(try storage.snapshot().tree(named: "t")?.value(forKey: [1]) == [2, 2])
            storage.close()
        } catch {
            Issue.record("ENGINE BUG: a cleanly committed file does not reopen: \(error)")
        }
    }

    /// Starts the worker on `file`, kills it at a moment chosen by `strategy`, reopens the file
    /// and checks it. Throws a description of what went wrong.
    static func killOnce(
        _ file: inout WorkerFile, mode: String, strategy: Int, rng: inout TestRandom, directory: String, label: String,
        context: String, tally: inout Tally
    ) throws {
        let path = file.path
        let worker = try ChildProcess.crashWorker(
            ["run", path, String(file.seed), mode, String(file.pageSize)], directory: directory, label: label)
        // The sleeps below are random jitter: the moment of the kill is what the test varies.
        if strategy < 6 && file.isNew {
            // While the worker may still be starting up or creating the file.
            usleep(UInt32(rng.int(0...40_000)))
        } else {
            guard worker.wait(timeout: 60, until: { $0.hasPrefix("ready") }) != nil else {
                worker.kill()
                throw FailureTestError("the worker did not get ready: \(worker.errorOutput)")
            }
            if strategy < 45 {
                // A random moment.
                usleep(UInt32(rng.int(0...400_000)))
            } else if strategy < 60 {
                // While a large transaction kept to a few pages of memory spills to the file.
                let line = worker.wait(timeout: 20) { line in
                    line.hasPrefix("limited") && (Int(line.split(separator: " ")[1]) ?? 0) >= 500
                }
                if line != nil {
                    tally.killedWhileSpilling += 1
                    usleep(UInt32(rng.int(0...20_000)))
                }
            } else if strategy < 75 {
                // Inside the commit of a large transaction, as far as timing allows.
                let line = worker.wait(timeout: 20) { line in
                    line.hasPrefix("begin") && (Int(line.split(separator: " ").last ?? "") ?? 0) >= 500
                }
                if line != nil { usleep(UInt32(rng.int(0...8_000))) }
            } else {
                // Shortly after the n-th commit starts.
                let n = rng.int(1...6)
                var begun = 0
                _ = worker.wait(timeout: 20) { line in
                    if line.hasPrefix("begin") { begun += 1 }
                    return begun >= n
                }
                usleep(UInt32(rng.int(0...1_500)))
            }
        }
        let exitedEarly = !worker.isRunning
        worker.kill()
        if exitedEarly {
            throw FailureTestError("the worker exited on its own (status \(worker.exitStatus)): \(worker.errorOutput)")
        }

        let lines = worker.lines
        let ready = lines.first { $0.hasPrefix("ready") }.flatMap { UInt64($0.split(separator: " ")[1]) }
        // The highest: in group mode threads print their lines out of order.
        func highest(_ prefix: String) -> UInt64? {
            lines.filter { $0.hasPrefix(prefix) }.compactMap { UInt64($0.split(separator: " ")[1]) }.max()
        }
        let acked = highest("acked") ?? ready
        let begun = highest("begin")
        let inFlight = begun.map { $0 > (acked ?? 0) } ?? false
        let lowest = acked ?? file.replay.version
        let outcome = "last acknowledged \(acked.map(String.init) ?? "none"), last begun \(begun.map(String.init) ?? "none")"

        // Reopen in this process, as an application restarting after the crash would.
        let storage: Storage
        do {
            storage = try Storage.open(path: path, options: StorageOptions(pageSize: file.pageSize))
        } catch .truncated(_, let expected, let actual) where ready != nil {
            // The short-file bug (see committedFileCoversItsPageCount): a commit left the file
            // shorter than its page count. Record it, extend the file as the engine should have,
            // and check everything else, so one bug does not hide others.
            tally.shortFiles += 1
            if tally.firstShortFile == nil { tally.firstShortFile = "\(context): needs \(expected) bytes, has \(actual) (\(outcome))" }
            guard truncate(path, off_t(expected)) == 0 else { throw FailureTestError("truncate failed") }
            storage = try Storage.open(path: path, options: StorageOptions(pageSize: file.pageSize))
        } catch {
            throw FailureTestError("reopening failed: \(error) (\(outcome))")
        }
        defer { storage.close() }
        let version = storage.version
        file.isNew = false
        guard storage.pageSize == file.pageSize else { throw FailureTestError("page size \(storage.pageSize), created with \(file.pageSize)") }
        // In group mode every version begun after the last acknowledged one may have landed (a
        // commit's meta may reach the file before anyone waits for it).
        let highestAllowed = mode == "group" ? max(lowest, begun ?? lowest) : lowest + (inFlight ? 1 : 0)
        guard version >= lowest && version <= highestAllowed else {
            throw FailureTestError("reopened at version \(version) (\(outcome))")
        }
        guard version >= file.replay.version else {
            throw FailureTestError("reopened at version \(version), older than the \(file.replay.version) seen before")
        }
        // The file opens whole, or reports dropping a commit that was never acknowledged (its
        // meta reached the file, its pages did not), or a meta page torn as the process died. A
        // meta pair that only a change after writing leaves is never reported.
        if let recovery = storage.recovery {
            let droppedOnlyInFlight = recovery.droppedVersion.map { $0 > lowest } ?? true
            guard recovery.openedVersion == version, droppedOnlyInFlight, !recovery.reportsChangedMeta else {
                throw FailureTestError("reopened at version \(version) reporting \(recovery) (\(outcome))")
            }
            tally.reported += 1
        }
        do {
            let snapshot = try storage.snapshot()
            let report = try snapshot.verify()
            guard report.version == version else { throw FailureTestError("verify reports version \(report.version)") }
            file.replay.advance(to: version)
            if let difference = try file.checker.difference(snapshot, file.replay.model) {
                throw FailureTestError("version \(version) does not hold the expected contents: \(difference) (\(outcome))")
            }
        } catch let error as StorageError {
            throw FailureTestError("version \(version) fails verification or reading: \(error) (\(outcome))")
        }

        tally.kills += 1
        tally.byMode[mode, default: 0] += 1
        tally.maxVersion = max(tally.maxVersion, version)
        if ready == nil {
            tally.killedBeforeReady += 1
        } else if version == lowest + 1 {
            tally.inFlightLanded += 1
        } else if inFlight {
            tally.killedMidCommitRolledBack += 1
        } else {
            tally.killedBetweenCommits += 1
        }
    }
}
