// Pages written and freed between two sync rounds are written over before the next round
// (CommitState.roundReusablePages). These tests prove that it happens, and that it never costs a
// version a crash or a power cut must keep: after every commit the disk's image is opened as a
// crash of the process would leave it, and now and then as a power cut would, and the version
// found is checked against a model of every version, with verify().
//
// Replay with BURROW_SEED=<seed printed by the test>; BURROW_REUSE_STEPS=<n> runs longer.

import BurrowTestSupport
import Foundation
import Testing

@testable import BurrowStorage
@testable import StorageCrashWorker

private typealias Contents = [String: [[UInt8]: [UInt8]]]

@Suite("Reuse within a sync round")
struct RoundReuseTests {
    @Test("one-put .normal commits rewrite the same few pages instead of growing the file")
    func normalCommitsReusePagesWithinTheRound() throws {
        let disk = SimulatedDisk(name: "round reuse")
        let storage = try Storage(device: disk)
        defer { storage.close() }
        do {
            let txn = try storage.beginWriteBlocking()
            let tree = try txn.openTree(named: "t")
            for i in 0..<2000 { try txn.put(Array("key-\(i)".utf8), [UInt8](repeating: 1, count: 40), in: tree) }
            try txn.commit(durability: .full)
        }
        let before = try storage.statistics()
        let syncsBefore = disk.counts.syncs
        for i in 0..<600 {
            let txn = try storage.beginWriteBlocking()
            let tree = try txn.openTree(named: "t")
            try txn.put(Array("key-\(i % 16)".utf8), [UInt8](repeating: UInt8(i % 250), count: 40), in: tree)
            try txn.commit(durability: .normal)
        }
        let after = try storage.statistics()
        // Each commit frees its tree's path (the root and one of the ten or so leaves the keys
        // fall in) and writes a new one. Held back until a round, those pages would grow the file
        // by two a commit until a background round came (after 128 commits: over 200 pages);
        // reused, they add only the copies in flight (measured: 9 pages), and the list of pages
        // written since the durable version stays short, so no round is due at all. Placing each
        // commit's two pages in a run may take the free pages up to `PageRuns.growthLimit` first
        // (measured: 28 pages, in the first 14 commits, then none).
        let runSlack = Int(PageRuns.growthLimit(pageCount: PageNumber(after.pageCount)))
        #expect(
            after.pageCount <= before.pageCount + 24 + runSlack, "the file grew from \(before.pageCount) to \(after.pageCount) pages")
        #expect(after.pageCount - after.freePages <= before.pageCount - before.freePages + 24)
        #expect(disk.counts.syncs == syncsBefore, "\(disk.counts.syncs - syncsBefore) syncs for 600 .normal commits")
        #expect(storage.commitState.withLock { $0.pagesReusedWithinRounds } > 1000)
        let report = try storage.snapshot().verify()
        #expect(report.entries == 2000)
    }

    @Test("a snapshot keeps the pages of its version while commits reuse pages within the round")
    func snapshotsPinPagesWrittenWithinTheRound() throws {
        let storage = try Storage(device: SimulatedDisk(name: "round reuse, pinned"))
        defer { storage.close() }
        var model: [UInt8: [UInt8]] = [:]
        func commit(_ i: Int, _ durability: Durability) throws {
            let txn = try storage.beginWriteBlocking()
            let tree = try txn.openTree(named: "t")
            let key = UInt8(i % 200)
            let value = [UInt8](repeating: UInt8(i % 251), count: 30 + i % 50)
            try txn.put([key], value, in: tree)
            model[key] = value
            try txn.commit(durability: durability)
        }
        for i in 0..<300 { try commit(i, .full) }
        var held: [(Snapshot, [UInt8: [UInt8]])] = []
        for i in 300..<900 {
            try commit(i, .normal)
            if i % 37 == 0 { held.append((try storage.snapshot(), model)) }
            if i % 91 == 0, !held.isEmpty { try check(held.removeFirst()) }
        }
        for entry in held { try check(entry) }

        func check(_ entry: (Snapshot, [UInt8: [UInt8]])) throws {
            let (snapshot, expected) = entry
            let contents = try modelTestContents(snapshot)["t"] ?? [:]
            #expect(contents.count == expected.count, "version \(snapshot.version)")
            #expect(contents.filter { expected[$0.key.first!] != $0.value }.isEmpty, "version \(snapshot.version) changed")
            _ = try snapshot.verify()
        }
    }

    /// With a slow sync, the background rounds that `.normal` commits ask for are still in
    /// flight while later commits reuse pages.
    @Test(
        "random commits of every durability: a crash or a power cut keeps what it must",
        arguments: zip([4096, 8192, 4096], [0, 0, 400]))
    func crashAndPowerLossAfterEveryCommit(pageSize: Int, syncDelay: UInt32) throws {
        let seed = TestSeed.make("RoundReuse page size \(pageSize), sync delay \(syncDelay) µs")
        var run = RoundReuseRun(seed: seed, pageSize: pageSize)
        run.disk.setSyncDelay(microseconds: syncDelay)
        try run.run(steps: TestEnvironment.count("BURROW_REUSE_STEPS", default: 300))
        let reused = run.storage.commitState.withLock { $0.pagesReusedWithinRounds }
        print("round reuse (seed \(seed)): \(reused) pages reused within rounds; \(run.outcomes.sorted { $0.key < $1.key })")
        // Whether pages are reused within a round depends on rounds being in flight while later
        // commits run. With a slow sync they are; with an instant one it is up to the scheduler
        // (under load, a run measured 2 pages reused, and one in the full suite 0). And a page
        // freed while a snapshot pins a version that reaches it is not reused at all: a run
        // whose snapshots pinned nearly every commit (2 `.normal` commits without one) reused
        // none. The first test of this suite shows the reuse deterministically.
        if syncDelay > 0, run.unpinnedNormalCommits >= 10 {
            #expect(
                reused > 0,
                "seed \(seed): no page was reused within a round, over \(run.unpinnedNormalCommits) `.normal` commits that no snapshot pinned")
        }
    }
}

/// One storage on a simulated disk driven through random transactions, with every committed
/// version's contents kept, and the disk's image reopened after every commit.
private struct RoundReuseRun {
    let seed: UInt64
    var rng: TestRandom
    let disk: SimulatedDisk
    let storage: Storage
    var model: Contents = [:]
    var versions: [UInt64: Contents] = [:]
    /// The newest version a `.normal` commit returned (its meta is on disk) or a `.full` wait
    /// covered (durable).
    var acknowledged: UInt64 = 0
    var durable: UInt64 = 0
    var snapshots: [(Snapshot, Contents)] = []
    var outcomes: [String: Int] = [:]
    /// The `.normal` commits made while no snapshot of the run was held.
    var unpinnedNormalCommits = 0

    init(seed: UInt64, pageSize: Int) {
        self.seed = seed
        rng = TestRandom(seed: seed)
        disk = SimulatedDisk(name: "round reuse \(seed)", capacity: 1 << 27)
        storage = try! Storage(device: disk, options: StorageOptions(pageSize: pageSize))
        versions[storage.version] = [:]
    }

    mutating func run(steps: Int) throws {
        defer { storage.close() }
        for step in 0..<steps {
            let roll = rng.int(0..<100)
            if roll < 72 {
                try commitOne(.normal)
            } else if roll < 78 {
                try commitOne(.full)
            } else if roll < 86 {
                // Several commits published, then one wait: they share a round.
                var last = CommitReceipt(version: storage.version)
                for _ in 0..<rng.int(2...6) { last = try commitPending() }
                try storage.waitUntilDurableBlocking(last)
                acknowledged = last.version
                durable = last.version
            } else if roll < 90 {
                let txn = try storage.beginWriteBlocking()
                var scratch = model
                try change(txn, &scratch)
                txn.abort()
            } else if roll < 95 {
                if snapshots.count < 4 { snapshots.append((try storage.snapshot(), model)) }
            } else if !snapshots.isEmpty {
                let (snapshot, expected) = snapshots.remove(at: rng.int(0..<snapshots.count))
                try expectContents(snapshot, expected, "snapshot of version \(snapshot.version) at step \(step)")
            }
            try checkCrashImage(step)
            if step % 5 == 0 { try checkPowerLossImage(step) }
        }
        for (snapshot, expected) in snapshots {
            try expectContents(snapshot, expected, "snapshot of version \(snapshot.version) at the end")
        }
        snapshots.removeAll()
        try expectContents(try storage.snapshot(), model, "latest")
    }

    mutating func commitOne(_ durability: Durability) throws {
        let txn = try storage.beginWriteBlocking()
        var next = model
        try change(txn, &next)
        let version = try txn.commit(durability: durability)
        if durability == .normal, snapshots.isEmpty { unpinnedNormalCommits += 1 }
        model = next
        versions[version] = model
        acknowledged = version
        if durability == .full { durable = version }
    }

    mutating func commitPending() throws -> CommitReceipt {
        let txn = try storage.beginWriteBlocking()
        var next = model
        try change(txn, &next)
        let receipt = try txn.commitPendingSync(durability: .full)
        model = next
        versions[receipt.version] = model
        return receipt
    }

    /// One to six puts and deletes over a small key space, now and then a value long enough for
    /// an overflow run, a second tree, or a tree dropped.
    mutating func change(_ txn: WriteTransaction, _ contents: inout Contents) throws {
        for _ in 0..<rng.int(1...6) {
            let name = rng.chance(80) ? "main" : "side"
            let tree = try txn.openTree(named: name)
            if contents[name] == nil { contents[name] = [:] }
            let key = Array("k\(rng.int(0..<300))".utf8)
            let roll = rng.int(0..<100)
            if roll < 20 {
                try txn.delete(key, from: tree)
                contents[name]![key] = nil
            } else if roll < 22, name == "side" {
                try txn.dropTree(named: name)
                contents[name] = nil
                return
            } else {
                let value = rng.bytes(rng.chance(4) ? rng.int(2000...9000) : rng.int(0...120))
                try txn.put(key, value, in: tree)
                contents[name]![key] = value
            }
        }
    }

    /// Opens what the kernel holds (a crash of the process loses nothing written): the version
    /// found must be at least the last acknowledged one, and hold exactly its contents.
    mutating func checkCrashImage(_ step: Int) throws {
        let version = try openAndCheck(disk.currentImage, "crash image at step \(step)", crash: true)
        #expect(version >= acknowledged, "seed \(seed), step \(step): a crash lost version \(acknowledged) (opened \(version))")
        outcomes[version == storage.version ? "crash: latest" : "crash: older", default: 0] += 1
    }

    /// Opens what a power cut now could leave: at least the last durable version, exactly as
    /// committed. (Metas without a written-page list give up that check; the workload's commits
    /// are small enough to keep every meta listed, which the test confirms before relying on it.)
    mutating func checkPowerLossImage(_ step: Int) throws {
        guard !storage.commitState.withLock({ $0.untracked }) else {
            outcomes["power cut: skipped, metas unlisted", default: 0] += 1
            return
        }
        var random = TestRandom(seed: rng.next())
        let (durableBytes, pending) = disk.state.withLock { ($0.durable, $0.pending) }
        let image = SimulatedDisk.powerLossImage(durableBytes, pending, random: &random)
        let version = try openAndCheck(image, "power-cut image at step \(step)", crash: false)
        #expect(version >= durable, "seed \(seed), step \(step): a power cut lost durable version \(durable) (opened \(version))")
        outcomes[version == storage.version ? "power cut: latest" : "power cut: older", default: 0] += 1
    }

    /// Opens `image`, checks the version it holds against the model and with verify(); returns
    /// the version. What a crash leaves (every write kept) opens with no report; a power cut may
    /// drop commits since the durable version, with a report, or tear a meta page, but never
    /// leaves a meta pair that only a change after writing leaves.
    func openAndCheck(_ image: [UInt8], _ what: String, crash: Bool) throws -> UInt64 {
        let reopened = try Storage(device: SimulatedDisk(name: what, image: image, capacity: 1 << 27))
        defer { reopened.close() }
        if let recovery = reopened.recovery {
            let expected = !crash && !recovery.reportsChangedMeta && (recovery.droppedVersion ?? UInt64.max) > durable
            #expect(expected, "seed \(seed), \(what): opened version \(reopened.version) reporting \(recovery)")
        }
        let snapshot = try reopened.snapshot()
        guard let expected = versions[snapshot.version] else {
            Issue.record("seed \(seed), \(what): opened version \(snapshot.version), which was never committed")
            return snapshot.version
        }
        try expectContents(snapshot, expected, "seed \(seed), \(what), version \(snapshot.version)")
        return snapshot.version
    }

    func expectContents(_ snapshot: Snapshot, _ expected: Contents, _ what: String) throws {
        let contents = try modelTestContents(snapshot)
        #expect(contents.keys.sorted() == expected.keys.sorted(), "\(what): tree names")
        for (name, entries) in expected {
            let actual = contents[name] ?? [:]
            #expect(actual == entries, "\(what): tree \(name) differs (\(actual.count) entries, \(entries.count) expected)")
        }
        let report = try snapshot.verify()
        #expect(report.version == snapshot.version, "\(what)")
    }
}
