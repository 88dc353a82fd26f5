import BurrowStorage
import BurrowTestSupport
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reports a broken invariant (on stdout as "violation …" and on stderr) and exits with 1.
func sharedWorkerViolation(_ message: String) -> Never {
    WorkerOutput.say("violation \(message)")
    WorkerOutput.complain("SharedFileWorker: violation: " + message + "\n")
    exit(1)
}

/// Reports a failure that is not a broken invariant (an error thrown, bad arguments) and exits
/// with 2.
func sharedWorkerFail(_ message: String) -> Never {
    WorkerOutput.say("failed \(message)")
    WorkerOutput.complain("SharedFileWorker: " + message + "\n")
    exit(2)
}

/// Opens `path` for sharing (or exclusively), creating it. A file another process holds
/// in a way that excludes this open prints "locked" and exits with 4.
func sharedWorkerOpen(_ path: String, sharing: FileSharing = .shared, readOnly: Bool = false) -> Storage {
    do {
        return try Storage.open(path: path, options: StorageOptions(pageSize: 4096, readOnly: readOnly, create: !readOnly, sharing: sharing))
    } catch .fileLocked {
        WorkerOutput.say("locked")
        exit(4)
    } catch {
        sharedWorkerFail("open failed: \(error)")
    }
}

/// Set once standard input reaches its end (the test closed it, or died).
final class SharedWorkerStop: Sendable {
    private let flag = Atomic(false)
    private let ended = DispatchSemaphore(value: 0)

    /// Starts a thread that reads standard input until its end.
    func watchStandardInput() {
        Thread.detachNewThread { [self] in
            var byte: UInt8 = 0
            while true {
                let n = read(0, &byte, 1)
                if n > 0 || (n < 0 && errno == EINTR) { continue }
                break
            }
            flag.store(true, ordering: .sequentiallyConsistent)
            ended.signal()
        }
    }

    var isRequested: Bool { flag.load(ordering: .sequentiallyConsistent) }

    /// Blocks until standard input ends (once: one caller per process).
    func wait() {
        ended.wait()
    }
}

// MARK: counter

/// `counter <path> <n> <full|normal|group> [threads]`: n commits, each reading "counter" and
/// writing it plus one. In group mode `threads` threads (4 if not given) share the n commits and
/// wait for durability together (`commitPendingSync`, then `waitUntilDurableBlocking`).
/// Prints "acked <version> <counter>" after each commit returns, and "done <n>" at the end.
func sharedWorkerCounter(path: String, count: Int, mode: String, threads: Int) {
    let storage = sharedWorkerOpen(path)
    WorkerOutput.say("ready \(storage.version)")
    if mode == "group" {
        let done = DispatchGroup()
        let left = Atomic(count)
        for _ in 0..<threads {
            done.enter()
            Thread.detachNewThread {
                defer { done.leave() }
                while left.subtract(1, ordering: .sequentiallyConsistent).newValue >= 0 {
                    do {
                        let txn = try storage.beginWriteBlocking()
                        let tree = try txn.openTree(named: SharedBank.treeName)
                        let counter = (SharedBank.decode(try txn.value(forKey: SharedBank.counterKey, in: tree) ?? []) ?? 0) + 1
                        try txn.put(SharedBank.counterKey, SharedBank.encode(counter), in: tree)
                        let receipt = try txn.commitPendingSync(durability: .full)
                        try storage.waitUntilDurableBlocking(receipt)
                        WorkerOutput.say("acked \(receipt.version) \(counter)")
                    } catch {
                        sharedWorkerFail("increment failed: \(error)")
                    }
                }
            }
        }
        done.wait()
    } else {
        let durability: Durability = mode == "full" ? .full : .normal
        for _ in 0..<count {
            do {
                let (version, counter) = try SharedBank.increment(storage, durability: durability)
                WorkerOutput.say("acked \(version) \(counter)")
            } catch {
                sharedWorkerFail("increment failed: \(error)")
            }
        }
    }
    storage.close()
    WorkerOutput.say("done \(count)")
}

// MARK: transfer

/// `transfer <path> <seed> <accounts> <n>`: sets the bank up if the file has none, prints
/// "ready <version> <counter>", then makes n transfer commits (until killed, or until standard
/// input ends, if n is 0), a fifth of them `.full`. Prints "acked <version> <counter>" after
/// each commit returns and "done <commits>" at the end.
func sharedWorkerTransfer(path: String, seed: UInt64, accounts: Int, count: Int) {
    let storage = sharedWorkerOpen(path)
    let stop = SharedWorkerStop()
    if count == 0 { stop.watchStandardInput() }
    var rng = TestRandom(seed: seed)
    do {
        try SharedBank.setUp(storage, accounts: accounts)
        let reading = try SharedBankReading(try storage.snapshot())
        if let problem = reading.problem { sharedWorkerViolation("at start: \(problem)") }
        WorkerOutput.say("ready \(reading.version) \(reading.counter ?? 0)")
    } catch {
        sharedWorkerFail("set-up failed: \(error)")
    }
    var commits = 0
    while count == 0 ? !stop.isRequested : commits < count {
        do {
            let (version, counter) = try SharedBank.transfer(storage, rng: &rng, durability: rng.chance(20) ? .full : .normal)
            WorkerOutput.say("acked \(version) \(counter)")
            commits += 1
        } catch {
            sharedWorkerFail("transfer failed: \(error)")
        }
    }
    storage.close()
    WorkerOutput.say("done \(commits)")
}

// MARK: check

/// A snapshot a checker keeps alive for a while, and what it read from it first.
private struct HeldSnapshot {
    var snapshot: Snapshot
    var reading: SharedBankReading
    var releaseAt: Double
}

/// `check <path> <seconds> [seed] [ro]`: until `seconds` pass or standard input ends, takes a
/// snapshot and checks the bank (balances adding up to the total, every account there, the blob
/// matching its seed), and that versions never go back. Keeps up to six snapshots alive for 20
/// to 600 ms each (many commits, when a writer runs), then reads them again: they must read
/// exactly as they did (no page under them was reused) and pass `verify()`. Prints
/// "ready <version>" after the first check and at the end
/// "checked <checks> <first version> <last version> <distinct versions> <re-reads>".
/// Any violation prints "violation …" and exits with 1.
func sharedWorkerCheck(path: String, seconds: Double, seed: UInt64, readOnly: Bool) {
    let storage = sharedWorkerOpen(path, readOnly: readOnly)
    let stop = SharedWorkerStop()
    stop.watchStandardInput()
    var rng = TestRandom(seed: seed)
    let start = Date()
    func now() -> Double { Date().timeIntervalSince(start) }
    var held: [HeldSnapshot] = []
    var checks = 0
    var rereads = 0
    var firstVersion: UInt64?
    var lastVersion: UInt64 = 0
    var distinct = 0

    func reread(_ entry: HeldSnapshot) {
        do {
            let again = try SharedBankReading(entry.snapshot)
            if again != entry.reading {
                sharedWorkerViolation(
                    "a snapshot of version \(entry.reading.version) kept \(String(format: "%.0f", (now() - entry.releaseAt) * 1000)) ms "
                        + "reads differently now that the latest version is \(storage.version) (its pages were reused): "
                        + (again.problem ?? "\(again.entries.count / 2) entries, counter \(again.counter.map(String.init) ?? "none"), "
                            + "first read \(entry.reading.entries.count / 2) entries, counter \(entry.reading.counter.map(String.init) ?? "none")"))
            }
            _ = try entry.snapshot.verify()
            rereads += 1
        } catch {
            sharedWorkerViolation("a snapshot of version \(entry.reading.version) kept alive fails when read again: \(error)")
        }
    }

    repeat {
        let snapshot: Snapshot
        let reading: SharedBankReading
        do {
            snapshot = try storage.snapshot()
            reading = try SharedBankReading(snapshot)
        } catch {
            sharedWorkerViolation("reading the latest version failed: \(error)")
        }
        if let problem = reading.problem { sharedWorkerViolation(problem) }
        if snapshot.version < lastVersion { sharedWorkerViolation("version \(snapshot.version) after version \(lastVersion)") }
        if snapshot.version != lastVersion || firstVersion == nil { distinct += 1 }
        if firstVersion == nil {
            firstVersion = snapshot.version
            WorkerOutput.say("ready \(snapshot.version)")
        }
        lastVersion = snapshot.version
        checks += 1
        if held.count < 6, rng.chance(20) {
            held.append(HeldSnapshot(snapshot: snapshot, reading: reading, releaseAt: now() + Double(rng.int(20...600)) / 1000))
        }
        let time = now()
        var kept: [HeldSnapshot] = []
        for entry in held {
            if entry.releaseAt <= time { reread(entry) } else { kept.append(entry) }
        }
        held = kept
        usleep(UInt32(rng.int(0...2_000)))  // random jitter between checks, so they fall on varied moments
    } while now() < seconds && !stop.isRequested
    for entry in held { reread(entry) }
    held = []
    storage.close()
    WorkerOutput.say("checked \(checks) \(firstVersion ?? 0) \(lastVersion) \(distinct) \(rereads)")
}

// MARK: hold

/// `hold <path> <shared|exclusive> <pin|nopin> [ro]`: opens the file (printing "locked" and
/// exiting with 4 if another process's open excludes this one), pins a snapshot if asked,
/// prints "holding <version>" (pinned) or "open <version>", and keeps all of it until killed
/// or until standard input ends; then lets go and prints "released".
func sharedWorkerHold(path: String, sharing: FileSharing, pin: Bool, readOnly: Bool) {
    let storage = sharedWorkerOpen(path, sharing: sharing, readOnly: readOnly)
    var snapshot: Snapshot?
    if pin {
        do {
            snapshot = try storage.snapshot()
        } catch {
            sharedWorkerFail("snapshot failed: \(error)")
        }
        WorkerOutput.say("holding \(snapshot!.version)")
    } else {
        WorkerOutput.say("open \(storage.version)")
    }
    let stop = SharedWorkerStop()
    stop.watchStandardInput()
    stop.wait()
    if let snapshot {
        // Still what it was: nobody reused its pages.
        do {
            _ = try snapshot.verify()
        } catch {
            sharedWorkerViolation("the held snapshot of version \(snapshot.version) no longer verifies: \(error)")
        }
    }
    snapshot = nil
    storage.close()
    WorkerOutput.say("released")
}

// MARK: write and wait

/// `writehold <path>`: begins a write transaction, adds one to "counter" in it, prints
/// "writing <base version>", and commits (`.normal`) only once standard input ends; then prints
/// "acked <version> <counter>".
func sharedWorkerWriteHold(path: String) {
    let storage = sharedWorkerOpen(path)
    let stop = SharedWorkerStop()
    stop.watchStandardInput()
    do {
        let txn = try storage.beginWriteBlocking()
        let tree = try txn.openTree(named: SharedBank.treeName)
        let counter = (SharedBank.decode(try txn.value(forKey: SharedBank.counterKey, in: tree) ?? []) ?? 0) + 1
        try txn.put(SharedBank.counterKey, SharedBank.encode(counter), in: tree)
        WorkerOutput.say("writing \(txn.baseVersion)")
        stop.wait()
        let version = try txn.commit(durability: .normal)
        WorkerOutput.say("acked \(version) \(counter)")
    } catch {
        sharedWorkerFail("write failed: \(error)")
    }
    storage.close()
}
