import BurrowTestSupport
import Foundation
import Testing

@testable import BurrowStorage
@testable import StorageCrashWorker

/// Power loss during group commits: batches of `commitPendingSync` followed by one wait, and
/// commits made while a sync round is in flight (their metas deferred to the next round). After
/// any power cut the file must open at a version between the last one whose wait returned and the
/// last one published, pass `verify()`, and hold exactly that version's contents.
extension PowerLossTests {
    /// The workload and what has been published, shared with the commits a test makes from inside
    /// a sync (on the same thread: a blocking waiter runs its own round).
    final class GroupLife: @unchecked Sendable {
        // Touched only by the test's thread (the sync hook runs on it, inside
        // waitUntilDurableBlocking).
        var workload: CrashWorkload
        var published: UInt64
        /// The highest version a commit started writing (its meta may be on disk even if the
        /// commit then failed).
        var attempted: UInt64
        let storage: Storage

        init(storage: Storage, workload: CrashWorkload) {
            self.storage = storage
            self.workload = workload
            published = storage.version
            attempted = published
        }

        /// Commits the next committing transaction of the workload without waiting; returns its receipt.
        func commitNext() throws -> CommitReceipt {
            while true {
                guard let (txn, _) = try workload.performNext(on: storage) else { continue }
                attempted = txn.baseVersion + 1
                let receipt = try txn.commitPendingSync(durability: .full)
                published = receipt.version
                return receipt
            }
        }
    }

    @Test("A power loss during group commits keeps every commit whose wait returned")
    func powerLossDuringGroupCommits() throws {
        var outcomes: [String: Int] = [:]
        let (seed, iterations, failures) = Self.runCases("PowerLoss group", fewer: true) { caseSeed in
            for outcome in try Self.runGroupCase(seed: caseSeed) { outcomes[outcome, default: 0] += 1 }
        }
        print(
            "PowerLoss group: \(iterations) cases, \(outcomes.values.reduce(0, +)) power losses: \(outcomes.sorted { $0.key < $1.key }), \(failures.count) failed"
        )
        Self.recordFailures(failures, of: iterations, seed: seed)
    }

    /// One case: up to three lives on one disk, each ending in a power loss at a random device
    /// call; returns how each loss ended.
    static func runGroupCase(seed caseSeed: UInt64) throws -> [String] {
        var rng = TestRandom(seed: caseSeed)
        let workloadSeed = rng.next()
        var replay = CrashReplay(seed: workloadSeed, profile: .light)
        var checker = CrashChecker()
        var disk = SimulatedDisk(name: "group power-loss case \(caseSeed)", capacity: 1 << 27)
        var storage = try Storage(device: disk)
        var outcomes: [String] = []
        for life in 0..<rng.int(1...3) {
            disk.losePower(atEvent: rng.int(1...40), seed: rng.next())
            var workload = CrashWorkload(seed: workloadSeed, profile: .light)
            workload.skip(toCommits: storage.version)
            let state = GroupLife(storage: storage, workload: workload)
            var acknowledged = storage.version
            while disk.lostImage == nil {
                do {
                    var last = CommitReceipt(version: state.published)
                    for _ in 0..<rng.int(1...5) { last = try state.commitNext() }
                    if rng.chance(30) {
                        // More commits while the round is in flight: published, metas deferred.
                        let deferred = rng.int(1...3)
                        disk.beforeNextSync { for _ in 0..<deferred { _ = try? state.commitNext() } }
                    }
                    try storage.waitUntilDurableBlocking(last)
                    acknowledged = last.version
                } catch {
                    guard disk.lostImage != nil else { throw Failure.engine("a commit or wait failed without a power loss: \(error)") }
                }
            }
            let context = "life \(life), acknowledged \(acknowledged), published \(state.published), attempted \(state.attempted)"
            let reopened: Storage
            do {
                reopened = try Storage(device: SimulatedDisk(name: disk.name, image: disk.lostImage!, capacity: 1 << 27))
            } catch {
                throw Failure.engine("\(context): the image does not open: \(error)")
            }
            let version = reopened.version
            guard version >= acknowledged, version <= max(state.published, state.attempted) else {
                throw Failure.engine("\(context): reopened at version \(version)")
            }
            guard version >= replay.version else { throw Failure.engine("\(context): version \(version) went back past \(replay.version)") }
            replay.advance(to: version)
            do {
                let snapshot = try reopened.snapshot()
                _ = try snapshot.verify()
                if let difference = try checker.difference(snapshot, replay.model) {
                    throw Failure.engine("\(context): version \(version) holds the wrong contents: \(difference)")
                }
            } catch let error as StorageError {
                throw Failure.engine("\(context): version \(version) fails verify or reading: \(error)")
            }
            // A report names the version opened and drops only versions that were never acknowledged.
            if let recovery = reopened.recovery {
                guard recovery.openedVersion == version, (recovery.droppedVersion ?? UInt64.max) > acknowledged, !recovery.reportsChangedMeta else {
                    throw Failure.engine("\(context): reopened at version \(version) reporting \(recovery)")
                }
                outcomes.append("reported what it dropped")
            }
            outcomes.append(version == acknowledged ? "kept the last acknowledged" : "kept a later published version")
            disk = reopened.device as! SimulatedDisk
            storage = reopened
        }
        return outcomes
    }
}
