// Readers on other threads take snapshots in a loop while one writer commits continuously.
// Every commit keeps an invariant (the balances of N accounts sum to a constant, and a counter
// key equals the version), so a reader that saw a torn or mixed version, or a page reused under
// it, finds the invariant broken.
//
// Longer runs: BURROW_STRESS_ITERATIONS=<commits>. Replay: BURROW_SEED=<seed>.

import BurrowTestSupport
import Foundation
import Synchronization
import Testing

@testable import BurrowStorage
@testable import StorageCrashWorker

private let accountCount = 24
private let initialBalance: UInt64 = 1000
private let totalBalance = UInt64(accountCount) * initialBalance

private func accountKey(_ i: Int) -> [UInt8] { Array("account-\(i < 10 ? "0" : "")\(i)".utf8) }
private let counterKey: [UInt8] = Array("commit".utf8)
private let ballastSize = 150_000

private func encode(_ n: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: n >> (8 * $0)) } }
private func decode(_ bytes: UnsafeRawBufferPointer) -> UInt64? {
    guard bytes.count >= 8 else { return nil }
    return (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[$1]) << (8 * UInt64($1)) }
}
private func decode(_ bytes: [UInt8]) -> UInt64? { bytes.withUnsafeBytes { decode($0) } }

/// An account's value: its balance, then padding whose every byte is derived from the balance
/// (so a reader can tell a value that was half overwritten). Some are long enough to overflow.
private func accountValue(_ balance: UInt64, padding: Int) -> [UInt8] {
    encode(balance) + [UInt8](repeating: UInt8(truncatingIfNeeded: balance &* 31 &+ 7), count: padding)
}

/// Thread-safe collection of what readers found wrong.
private final class Findings: Sendable {
    private let problems = Mutex<[String]>([])
    private let snapshotsTaken = Atomic<Int>(0)
    private let writerFinished = Atomic<Bool>(false)

    func finishWriting() { writerFinished.store(true, ordering: .releasing) }
    var writerIsDone: Bool { writerFinished.load(ordering: .acquiring) }

    func record(_ problem: String) { problems.withLock { $0.append(problem) } }
    var all: [String] { problems.withLock { $0 } }
    var hasProblems: Bool { problems.withLock { !$0.isEmpty } }
    func countSnapshot() { snapshotsTaken.add(1, ordering: .relaxed) }
    var snapshots: Int { snapshotsTaken.load(ordering: .relaxed) }
}

/// Checks one snapshot's invariant; returns a description of what is wrong, or nil.
private func problem(in snapshot: Snapshot, baseVersion: UInt64) throws -> String? {
    let version = snapshot.version
    guard let accounts = try snapshot.tree(named: "accounts"), let meta = try snapshot.tree(named: "meta") else {
        return "v\(version): a tree is missing"
    }
    guard let counter = try counterKey.withUnsafeBytes({ k in try meta.withValue(forKey: k) { decode($0) } }) ?? nil else {
        return "v\(version): no commit counter"
    }
    if counter != version { return "v\(version): the commit counter says \(counter)" }
    if accounts.count != accountCount { return "v\(version): \(accounts.count) accounts" }
    var sum: UInt64 = 0
    var seen = 0
    var cursor = accounts.makeCursor()
    var more = try cursor.first()
    while more {
        let expectedKey = accountKey(seen)
        if Array(cursor.key) != expectedKey { return "v\(version): account \(seen) has key \(Array(cursor.key))" }
        let value = try cursor.value()
        guard let balance = decode(value) else { return "v\(version): account \(seen) has a \(value.count)-byte value" }
        let pad = UInt8(truncatingIfNeeded: balance &* 31 &+ 7)
        if value.dropFirst(8).contains(where: { $0 != pad }) { return "v\(version): account \(seen)'s padding is damaged" }
        sum &+= balance
        seen += 1
        more = try cursor.next()
    }
    if seen != accountCount { return "v\(version): scanned \(seen) accounts" }
    if sum != totalBalance { return "v\(version): balances sum to \(sum), not \(totalBalance)" }
    // Ballast: long values, each filled with one byte, that make the database grow (and an
    // in-memory one move to bigger buffers) while readers read.
    if let ballast = try snapshot.tree(named: "ballast") {
        var cursor = ballast.makeCursor()
        var more = try cursor.first()
        while more {
            let value = try cursor.value()
            if value.count != ballastSize || value[0] != value[ballastSize - 1] || value[ballastSize / 2] != value[0] {
                return "v\(version): ballast \(Array(cursor.key)) is damaged"
            }
            more = try cursor.next()
        }
    }
    // One log entry per commit since the accounts were created.
    if let log = try snapshot.tree(named: "log"), UInt64(log.count) != version - baseVersion {
        return "v\(version): the log has \(log.count) entries, expected \(version - baseVersion)"
    }
    return nil
}

/// Creates the accounts and the counter; returns the version that did it.
private func setUp(_ storage: Storage) throws -> UInt64 {
    let txn = try storage.beginWriteBlocking()
    let accounts = try txn.createTree(named: "accounts")
    for i in 0..<accountCount { try txn.put(accountKey(i), accountValue(initialBalance, padding: 16), in: accounts) }
    try txn.put(counterKey, encode(txn.baseVersion + 1), in: try txn.createTree(named: "meta"))
    _ = try txn.createTree(named: "log")
    return try txn.commit()
}

/// One commit of random transfers (sometimes abandoned instead, which readers must never see).
private func writerStep(_ txn: WriteTransaction, _ rng: inout TestRandom, durability: Durability) throws -> Bool {
    let accounts = try txn.tree(named: "accounts")!
    for _ in 0..<rng.int(1...6) {
        let from = rng.int(0..<accountCount)
        let to = rng.int(0..<accountCount)
        let a = decode(try txn.value(forKey: accountKey(from), in: accounts)!)!
        let amount = UInt64(rng.int(0...Int(min(a, 50))))
        try txn.put(accountKey(from), accountValue(a - amount, padding: rng.chance(5) ? rng.int(3000...9000) : rng.int(0...300)), in: accounts)
        let b = decode(try txn.value(forKey: accountKey(to), in: accounts)!)!
        try txn.put(accountKey(to), accountValue(b + amount, padding: rng.int(0...300)), in: accounts)
    }
    if rng.chance(5) {
        // Delete and re-insert an account: pages are freed and taken again.
        let i = rng.int(0..<accountCount)
        let value = try txn.value(forKey: accountKey(i), in: accounts)!
        try txn.delete(accountKey(i), from: accounts)
        try txn.put(accountKey(i), value, in: accounts)
    }
    if rng.chance(10) {
        let k = rng.int(0..<40)
        let fill = UInt8(truncatingIfNeeded: rng.next())
        try txn.put(Array("ballast-\(k)".utf8), [UInt8](repeating: fill, count: ballastSize), in: try txn.openTree(named: "ballast"))
    }
    let log = try txn.tree(named: "log")!
    try txn.put(Array(encode(txn.baseVersion + 1).reversed()), rng.bytes(rng.int(0...100)), in: log)
    if rng.chance(8) {
        try txn.put(accountKey(0), accountValue(999_999, padding: 0), in: accounts)
        txn.abort()
        return false
    }
    try txn.put(counterKey, encode(txn.baseVersion + 1), in: try txn.tree(named: "meta")!)
    let version = try txn.commit(durability: durability)
    return version == txn.baseVersion + 1
}

/// A reader's loop: snapshots in a loop, each checked, versions never going backwards, and a
/// few older snapshots held for a while and checked again later.
private func readerLoop(
    _ storage: Storage, id: Int, seed: UInt64, baseVersion: UInt64, findings: Findings, stop: @Sendable () -> Bool
) {
    var rng = TestRandom(seed: seed &+ UInt64(id) &* 0x1234_5678_9ABC)
    var held: [Snapshot] = []
    var last: UInt64 = 0
    var rounds = 0
    do {
        while !findings.hasProblems {
            let done = stop()
            let snapshot = try storage.snapshot()
            findings.countSnapshot()
            rounds += 1
            if snapshot.version < last {
                findings.record("reader \(id): version went back from \(last) to \(snapshot.version)")
                return
            }
            last = snapshot.version
            if let problem = try problem(in: snapshot, baseVersion: baseVersion) {
                findings.record("reader \(id): \(problem)")
                return
            }
            if rng.chance(10) { held.append(snapshot) }
            if held.count > 3 { held.removeFirst() }
            if !held.isEmpty && rng.chance(20) {
                let old = rng.element(held)
                if let problem = try problem(in: old, baseVersion: baseVersion) {
                    findings.record("reader \(id), held snapshot: \(problem)")
                    return
                }
            }
            if rng.chance(2) {
                let report = try snapshot.verify()
                let ballast = try snapshot.tree(named: "ballast")?.count ?? 0
                if report.entries != UInt64(accountCount + 1 + ballast) + (snapshot.version - baseVersion) {
                    findings.record("reader \(id): verify of v\(snapshot.version) counts \(report.entries) entries")
                    return
                }
            }
            if done && rounds > 10 { return }
        }
    } catch {
        findings.record("reader \(id): \(error)")
    }
}

@Suite("ConcurrentRead")
struct ConcurrentReadTests {
    static let readers = 3

    @Test("reader threads always see a consistent snapshot while a writer commits", arguments: ModelTestBacking.allCases)
    func readerThreads(backing: ModelTestBacking) throws {
        let iterations = TestEnvironment.count("BURROW_STRESS_ITERATIONS", default: 400)
        let seed = TestSeed.make("ConcurrentRead reader threads, \(backing), \(iterations) iterations")
        let directory = try TemporaryDirectory("concurrent")
        let storage: Storage =
            switch backing {
            case .memory: try Storage(device: MemoryDevice(name: "concurrent"))
            case .file: try Storage.open(path: directory.file("concurrent.burrow"))
            }
        let baseVersion = try setUp(storage)
        let findings = Findings()
        let finished = DispatchSemaphore(value: 0)
        var threads: [Thread] = []
        for id in 0..<Self.readers {
            threads.append(
                Thread {
                    readerLoop(storage, id: id, seed: seed, baseVersion: baseVersion, findings: findings) {
                        findings.writerIsDone
                    }
                    finished.signal()
                })
        }
        for thread in threads { thread.start() }

        var rng = TestRandom(seed: seed)
        var commits = 0
        do {
            for i in 0..<iterations where !findings.hasProblems {
                let txn = try storage.beginWriteBlocking()
                let durability: Durability = backing == .file && i % 50 == 0 ? .full : .normal
                if try writerStep(txn, &rng, durability: durability) { commits += 1 }
            }
        } catch {
            findings.record("writer: \(error)")
        }
        findings.finishWriting()
        for _ in 0..<Self.readers { finished.wait() }

        #expect(findings.all.isEmpty, "seed \(seed): \(findings.all)")
        #expect(commits > iterations / 2, "seed \(seed)")
        #expect(findings.snapshots >= Self.readers * 10, "seed \(seed)")
        let final = try storage.snapshot()
        #expect(final.version == baseVersion + UInt64(commits), "seed \(seed)")
        #expect(try problem(in: final, baseVersion: baseVersion) == nil, "seed \(seed)")
        if backing == .memory && iterations >= 200 {
            // The in-memory device starts with a 1 MiB buffer: it must have moved to bigger ones
            // (new mappings) while the readers ran.
            let stats = try storage.statistics()
            #expect(stats.pageCount * stats.pageSize > 2 << 20, "seed \(seed): the database did not grow as intended")
        }
        print("reader threads (\(backing)): \(commits) commits, \(findings.snapshots) snapshots checked")
    }

    @Test("reader tasks always see a consistent snapshot while an async writer commits")
    func readerTasks() async throws {
        let iterations = TestEnvironment.count("BURROW_STRESS_ITERATIONS", default: 400) / 2
        let seed = TestSeed.make("ConcurrentRead reader tasks, \(iterations) iterations")
        let storage = try Storage(device: MemoryDevice(name: "concurrent-tasks"))
        let baseVersion = try setUp(storage)
        let findings = Findings()

        let commits = try await withThrowingTaskGroup(of: Int.self) { group in
            for id in 0..<Self.readers {
                group.addTask {
                    // Short bursts with yields, so that the readers share the cooperative pool.
                    var rng = TestRandom(seed: seed &+ UInt64(id))
                    var last: UInt64 = 0
                    while !findings.hasProblems {
                        let done = findings.writerIsDone
                        let snapshot = try storage.snapshot()
                        findings.countSnapshot()
                        if snapshot.version < last { findings.record("task \(id): version went backwards") }
                        last = snapshot.version
                        if let problem = try problem(in: snapshot, baseVersion: baseVersion) {
                            findings.record("task \(id): \(problem)")
                        }
                        if done { break }
                        if rng.chance(50) { await Task.yield() }
                    }
                    return 0
                }
            }
            group.addTask {
                var rng = TestRandom(seed: seed)
                var commits = 0
                defer { findings.finishWriting() }
                for _ in 0..<iterations where !findings.hasProblems {
                    let txn = try await storage.beginWrite()
                    if try writerStep(txn, &rng, durability: .normal) { commits += 1 }
                    await Task.yield()
                }
                return commits
            }
            var total = 0
            for try await n in group { total += n }
            return total
        }
        #expect(findings.all.isEmpty, "seed \(seed): \(findings.all)")
        #expect(try storage.snapshot().version == baseVersion + UInt64(commits), "seed \(seed)")
        #expect(findings.snapshots >= Self.readers, "seed \(seed)")
    }
}
