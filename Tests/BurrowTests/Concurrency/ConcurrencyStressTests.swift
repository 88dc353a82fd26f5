import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// The models of `ConcurrencyStressTests`, stored under the names they had before they were namespaced.
enum ConcurrencyStressModels {
    final class Account: Object {
        override class func _realmObjectName() -> String? { "StressAccount" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var balance = 0
    }

    /// One row per committed transfer, written in the same transaction as the balances it moved.
    final class Transfer: Object {
        override class func _realmObjectName() -> String? { "StressTransfer" }
        @Persisted var writer = 0
        @Persisted var sequence = 0
        @Persisted var from = 0
        @Persisted var to = 0
        @Persisted var amount = 0
    }

    /// Counts the transfers: read-modify-write from every writer, so a lost update shows.
    final class Ledger: Object {
        override class func _realmObjectName() -> String? { "StressLedger" }
        @Persisted(primaryKey: true) var id = "ledger"
        @Persisted var transfers = 0
    }
}

/// A user-defined actor holding a realm, as RealmSwift code does (`Realm.open` isolated to it).
actor StressStore {
    var realm: Realm!

    init(configuration: Realm.Configuration) async throws {
        realm = try await Realm.open(configuration: configuration)
    }

    func transfer(_ plan: StressPlan, writer: Int, sequence: Int) async throws {
        let realm = self.realm!
        try await realm.asyncWrite {
            try StressPlan.apply(plan, in: realm, writer: writer, sequence: sequence)
        }
    }
}

/// One transfer: `amount` from account `from` to account `to`.
struct StressPlan: Sendable {
    let from: Int
    let to: Int
    let amount: Int

    /// Applies the transfer and records it, in the open write transaction of `realm`.
    static func apply(_ plan: StressPlan, in realm: Realm, writer: Int, sequence: Int) throws {
        guard let from = realm.object(ofType: ConcurrencyStressModels.Account.self, forPrimaryKey: plan.from),
            let to = realm.object(ofType: ConcurrencyStressModels.Account.self, forPrimaryKey: plan.to),
            let ledger = realm.object(ofType: ConcurrencyStressModels.Ledger.self, forPrimaryKey: "ledger")
        else { throw StressFailure(description: "seeded objects missing") }
        from.balance -= plan.amount
        to.balance += plan.amount
        ledger.transfers += 1
        try realm.add(
            ConcurrencyStressModels.Transfer(value: ["writer": writer, "sequence": sequence, "from": plan.from, "to": plan.to, "amount": plan.amount])
        )
    }
}

struct StressFailure: Error, CustomStringConvertible {
    let description: String
}

/// Everything one snapshot holds, all at one version.
struct StressSnapshot: Sendable {
    let accounts: FrozenResults<ConcurrencyStressModels.Account>
    let transfers: FrozenResults<ConcurrencyStressModels.Transfer>
    let ledger: Frozen<ConcurrencyStressModels.Ledger>?

    /// Why this snapshot is not internally consistent, or nil if it is.
    func inconsistency(accountCount: Int, initialBalance: Int) -> String? {
        let version = accounts.versionNumber
        guard transfers.isEmpty || transfers.versionNumber == version else {
            return "transfers at version \(transfers.versionNumber), accounts at \(version)"
        }
        guard let ledger else { return "no ledger at version \(version)" }
        guard ledger.versionNumber == version else { return "ledger at version \(ledger.versionNumber), accounts at \(version)" }
        guard accounts.count == accountCount else { return "\(accounts.count) accounts at version \(version)" }
        let total = accounts.reduce(0) { $0 + $1.balance }
        guard total == accountCount * initialBalance else { return "total balance \(total) at version \(version)" }
        guard transfers.count == ledger.transfers else {
            return "\(transfers.count) transfer records but the ledger counts \(ledger.transfers) at version \(version)"
        }
        // Every balance is the initial one moved by exactly the transfers recorded so far.
        var expected = [Int: Int]()
        for account in accounts { expected[account.id] = initialBalance }
        for transfer in transfers {
            expected[transfer.from, default: 0] -= transfer.amount
            expected[transfer.to, default: 0] += transfer.amount
        }
        for account in accounts where expected[account.id] != account.balance {
            return "account \(account.id) has \(account.balance), the recorded transfers give \(expected[account.id] ?? 0) at version \(version)"
        }
        return nil
    }
}

/// One snapshot of accounts, transfers and ledger, taken inside `actor` so all are one version.
func stressSnapshot(_ actor: RealmActor) async throws -> StressSnapshot {
    try await actor.read { realm in
        StressSnapshot(
            accounts: try realm.objects(ConcurrencyStressModels.Account.self).freeze(),
            transfers: try realm.objects(ConcurrencyStressModels.Transfer.self).freeze(),
            ledger: try realm.object(ofType: ConcurrencyStressModels.Ledger.self, forPrimaryKey: "ledger")?.freeze())
    }
}

@Suite(.timeLimit(.minutes(5)), .temporaryDirectory) struct ConcurrencyStressTests {
    static var iterations: Int {
        TestEnvironment.count("BURROW_STRESS_ITERATIONS", default: 60)
    }

    @Test func testTransfersFromManyActorsKeepEverySnapshotConsistentAndLoseNoUpdate() async throws {
        let seed = TestSeed.make("ConcurrencyStressTests.testTransfersFromManyActors…, \(Self.iterations) iterations")
        let config = temporaryConfiguration()
        let accountCount = 8
        let initialBalance = 1_000
        let actorWriters = 4
        let storeWriters = 1
        let writers = actorWriters + storeWriters
        let iterations = Self.iterations

        // The plan of every writer, fixed up front: the final balances do not depend on the
        // order the transfers commit in.
        var random = TestRandom(seed: seed)
        let plans: [[StressPlan]] = (0..<writers).map { _ in
            (0..<iterations).map { _ in
                let from = Int.random(in: 0..<accountCount, using: &random)
                let to = (from + Int.random(in: 1..<accountCount, using: &random)) % accountCount
                return StressPlan(from: from, to: to, amount: Int.random(in: 1...300, using: &random))
            }
        }
        var expectedBalances = [Int](repeating: initialBalance, count: accountCount)
        for plan in plans.joined() {
            expectedBalances[plan.from] -= plan.amount
            expectedBalances[plan.to] += plan.amount
        }

        let setup = try await RealmActor(configuration: config)
        try await setup.asyncWrite { realm in
            for id in 0..<accountCount { try realm.add(ConcurrencyStressModels.Account(value: ["id": id, "balance": initialBalance])) }
            try realm.add(ConcurrencyStressModels.Ledger())
        }
        let initial = try await stressSnapshot(setup)
        #expect(initial.inconsistency(accountCount: accountCount, initialBalance: initialBalance) == nil)

        let writersDone = LockedBox(false)
        let snapshotsChecked = LockedBox(0)
        let problems = LockedBox<[String]>([])

        try await withThrowingTaskGroup(of: Void.self) { group in
            // The writers, in a group of their own; the readers run until it is done.
            group.addTask {
                defer { writersDone.withLock { $0 = true } }
                try await withThrowingTaskGroup(of: Void.self) { writersGroup in
                    for writer in 0..<actorWriters {
                        writersGroup.addTask {
                            let actor = try await RealmActor(configuration: config)
                            for (sequence, plan) in plans[writer].enumerated() {
                                try await actor.asyncWrite { realm in
                                    try StressPlan.apply(plan, in: realm, writer: writer, sequence: sequence)
                                }
                            }
                        }
                    }
                    for store in 0..<storeWriters {
                        writersGroup.addTask {
                            let writer = actorWriters + store
                            let owner = try await StressStore(configuration: config)
                            for (sequence, plan) in plans[writer].enumerated() {
                                try await owner.transfer(plan, writer: writer, sequence: sequence)
                            }
                        }
                    }
                    try await writersGroup.waitForAll()
                }
            }
            // Readers of whole snapshots, each checked from several detached tasks at once.
            for _ in 0..<3 {
                group.addTask {
                    let reader = try await RealmActor(configuration: config)
                    var lastCount = 0
                    var rounds = 0
                    while rounds < 3 || !writersDone.withLock({ $0 }) {
                        rounds += 1
                        let snapshot = try await stressSnapshot(reader)
                        let verdicts = await withTaskGroup(of: String?.self) { checks in
                            for _ in 0..<3 {
                                checks.addTask {
                                    snapshot.inconsistency(accountCount: accountCount, initialBalance: initialBalance)
                                }
                            }
                            var all: [String?] = []
                            for await verdict in checks { all.append(verdict) }
                            return all
                        }
                        for case let problem? in verdicts { problems.withLock { $0.append(problem) } }
                        let count = snapshot.ledger?.transfers ?? 0
                        if count < lastCount {
                            problems.withLock { $0.append("a reader went back from \(lastCount) to \(count) transfers") }
                        }
                        lastCount = count
                        snapshotsChecked.withLock { $0 += 1 }
                        // A pause between reads, so that the writers commit between them (pacing,
                        // not a wait for a state).
                        try await Task.sleep(for: .milliseconds(1))
                    }
                }
            }
            // Readers of the actor's frozen results alone: one class, one version, total constant.
            for _ in 0..<2 {
                group.addTask {
                    let reader = try await RealmActor(configuration: config)
                    var rounds = 0
                    while rounds < 3 || !writersDone.withLock({ $0 }) {
                        rounds += 1
                        let accounts = try await reader.objects(ConcurrencyStressModels.Account.self)
                        let total = await Task.detached { accounts.reduce(0) { $0 + $1.balance } }.value
                        if accounts.count != accountCount || total != accountCount * initialBalance {
                            problems.withLock { $0.append("\(accounts.count) accounts with total \(total) at version \(accounts.versionNumber)") }
                        }
                        snapshotsChecked.withLock { $0 += 1 }
                        // A pause between reads, so that the writers commit between them (pacing,
                        // not a wait for a state).
                        try await Task.sleep(for: .milliseconds(1))
                    }
                }
            }
            try await group.waitForAll()
        }

        print("ConcurrencyStressTests: \(snapshotsChecked.withLock { $0 }) snapshots checked while \(writers * iterations) transfers committed")
        #expect(problems.withLock { $0 } == [])
        #expect(snapshotsChecked.withLock { $0 } > 0)
        let final = try await stressSnapshot(setup)
        #expect(final.inconsistency(accountCount: accountCount, initialBalance: initialBalance) == nil)
        #expect(final.ledger?.transfers == writers * iterations, "no lost update")
        #expect(final.transfers.count == writers * iterations)
        #expect(final.accounts.map(\.balance) == expectedBalances)
        // Every writer's transfers all committed, each exactly once.
        var sequences = [Int: Set<Int>]()
        for transfer in final.transfers { sequences[transfer.writer, default: []].insert(transfer.sequence) }
        #expect(sequences == Dictionary(uniqueKeysWithValues: (0..<writers).map { ($0, Set(0..<iterations)) }))
    }

    @Test func testConcurrentIncrementsOfOneCounterFromManyActorsLoseNoUpdate() async throws {
        let config = temporaryConfiguration()
        let setup = try await RealmActor(configuration: config)
        _ = try await setup.create(ConcurrencyStressModels.Ledger.self, value: ["id": "counter"])
        let writers = 6
        let increments = Self.iterations
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<writers {
                group.addTask {
                    let actor = try await RealmActor(configuration: config)
                    for _ in 0..<increments {
                        try await actor.asyncWrite { realm in
                            realm.object(ofType: ConcurrencyStressModels.Ledger.self, forPrimaryKey: "counter")!.transfers += 1
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await setup.object(ofType: ConcurrencyStressModels.Ledger.self, forPrimaryKey: "counter")?.transfers == writers * increments)
    }

    @Test func testATaskCancelledWhileWaitingForTheWriteLockGetsCancellationErrorAndChangesNothing() async throws {
        let config = temporaryConfiguration()
        let holder = try Realm(configuration: config)
        try holder.write { try holder.add(ConcurrencyStressModels.Account(value: ["id": 1, "balance": 100])) }
        let waiter = try await RealmActor(configuration: config)
        let blockRan = LockedBox(false)

        try holder.beginWrite()  // holds the file's write lock
        let task = Task {
            try await waiter.asyncWrite { realm in
                blockRan.withLock { $0 = true }
                realm.object(ofType: ConcurrencyStressModels.Account.self, forPrimaryKey: 1)!.balance = 0
                try realm.add(ConcurrencyStressModels.Account(value: ["id": 2, "balance": 5]))
            }
        }
        try await waitUntil("the writer queued for the lock") { holder.writeLockWaiterCount == 1 }
        task.cancel()
        let result = await task.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(holder.isInWriteTransaction, "the holder still has the lock")
        holder.objects(ConcurrencyStressModels.Account.self).first!.balance = 90
        try holder.commitWrite()

        #expect(!blockRan.withLock { $0 })
        #expect(try await waiter.read { realm in realm.isInWriteTransaction } == false)
        let accounts = try await waiter.objects(ConcurrencyStressModels.Account.self)
        #expect(accounts.map(\.id) == [1])
        #expect(accounts.first?.balance == 90)
        // The cancelled waiter left the lock's queue: the next write gets the lock.
        try await waiter.asyncWrite { realm in try realm.add(ConcurrencyStressModels.Account(value: ["id": 3, "balance": 10])) }
        #expect(try await waiter.objects(ConcurrencyStressModels.Account.self).map(\.id) == [1, 3])
    }

    @Test func testCancellingSomeQueuedWritersLetsTheOthersCommitInTurn() async throws {
        let config = temporaryConfiguration()
        let holder = try Realm(configuration: config)
        try holder.write { try holder.add(ConcurrencyStressModels.Ledger(value: ["id": "counter"])) }
        try holder.beginWrite()
        var tasks: [(cancelled: Bool, task: Task<Void, any Error>)] = []
        for i in 0..<8 {
            let actor = try await RealmActor(configuration: config)
            let task = Task {
                try await actor.asyncWrite { realm in
                    realm.object(ofType: ConcurrencyStressModels.Ledger.self, forPrimaryKey: "counter")!.transfers += 1
                    try realm.add(ConcurrencyStressModels.Transfer(value: ["sequence": i]))
                }
            }
            tasks.append((i % 2 == 0, task))
        }
        try await waitUntil("8 writers queued for the lock") { holder.writeLockWaiterCount == 8 }
        for entry in tasks where entry.cancelled { entry.task.cancel() }
        try await waitUntil("the cancelled writers out of the queue") { holder.writeLockWaiterCount == 4 }
        try holder.cancelWrite()
        for (index, entry) in tasks.enumerated() {
            let result = await entry.task.result
            if entry.cancelled {
                #expect(throws: CancellationError.self, "writer \(index)") { try result.get() }
            } else {
                #expect(throws: Never.self, "writer \(index)") { try result.get() }
            }
        }
        let reader = try await RealmActor(configuration: config)
        #expect(try await reader.object(ofType: ConcurrencyStressModels.Ledger.self, forPrimaryKey: "counter")?.transfers == 4)
        #expect(Set(try await reader.objects(ConcurrencyStressModels.Transfer.self).map(\.sequence)) == [1, 3, 5, 7])
    }

    @Test func testATaskCancelledBeforeAsyncWriteChangesNothing() async throws {
        let config = temporaryConfiguration()
        let db = try await RealmActor(configuration: config)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await db.asyncWrite { realm in try realm.add(ConcurrencyStressModels.Account(value: ["id": 1])) }
        }
        let result = await task.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(try await db.objects(ConcurrencyStressModels.Account.self).isEmpty)
    }
}
