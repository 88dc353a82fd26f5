import BurrowStorage
import Foundation
import Synchronization
import Testing
@testable import Burrow

/// A user-defined actor on a `RealmExecutor`, as Concurrency.md shows.
actor ExecutorDogStore {
    let executor = RealmExecutor()
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    var realm: Realm!

    init(configuration: Realm.Configuration) async throws {
        realm = try await Realm.open(configuration: configuration)
    }

    func add(_ name: String) async throws {
        let realm = self.realm!
        try await realm.asyncWrite { try realm.add(Dog(value: ["name": name])) }
    }

    var roundsRunInline: Int { realm.storage.syncRoundsRunByCommitters }
}

/// A default actor (cooperative pool) holding a realm.
actor PoolDogStore {
    var realm: Realm!

    init(configuration: Realm.Configuration) async throws {
        realm = try await Realm.open(configuration: configuration)
    }

    func add(_ name: String) async throws {
        let realm = self.realm!
        try await realm.asyncWrite { try realm.add(Dog(value: ["name": name])) }
        #expect(!RealmExecutor.currentThreadMayBlock)
    }

    var roundsRunInline: Int { realm.storage.syncRoundsRunByCommitters }
}

/// Reads the realm through `assumeIsolated`, from synchronous code that is not isolated.
func dogCountAssumingIsolation(_ db: RealmActor) -> Int {
    db.assumeIsolated { $0.realm.objects(Dog.self).count }
}

/// Inside the actor: what the code sees of its isolation and thread.
func isolationSeen(in db: isolated RealmActor) -> (onExecutorThread: Bool, mayBlock: Bool, isolationIsActor: Bool, count: Int) {
    db.preconditionIsolated()
    let isolation = #isolation
    return (db.executor.isCurrent, RealmExecutor.currentThreadMayBlock, isolation === db, dogCountAssumingIsolation(db))
}

/// Durable commits in a loop inside the actor, as the benchmark makes them.
func addDogs(in db: isolated RealmActor, _ names: [String]) async throws {
    let realm = db.realm
    for name in names {
        try await realm.asyncWrite { try realm.add(Dog(value: ["name": name])) }
        #expect(db.executor.isCurrent, "the actor resumed off its thread after a commit")
    }
}

@Suite("RealmExecutor") struct RealmExecutorTests {
    @Test("Code isolated to a RealmActor runs on the actor's own thread; isolation checks hold there")
    func actorCodeRunsOnItsExecutor() async throws {
        let db = try await RealmActor(configuration: temporaryConfiguration())
        try await db.asyncWrite { realm in try realm.add(Dog(value: ["name": "Rex"])) }
        let seen = await isolationSeen(in: db)
        #expect(seen.onExecutorThread)
        #expect(seen.mayBlock)
        #expect(seen.isolationIsActor)
        #expect(seen.count == 1)
        // Outside the actor: not its thread, and a pool thread must not block.
        #expect(!db.executor.isCurrent)
        #expect(!RealmExecutor.currentThreadMayBlock)
        // Two actors, two threads.
        let other = try await RealmActor(configuration: temporaryConfiguration())
        let otherSeesFirst = try await other.read { _ in db.executor.isCurrent }
        #expect(!otherSeesFirst)
        await db.close()
        await other.close()
    }

    @Test("A durable commit inside a RealmActor runs its sync round on the actor's thread")
    func durableCommitInsideTheActorRunsItsRoundInline() async throws {
        let db = try await RealmActor(configuration: temporaryConfiguration())
        let before = try await db.read { $0.storage.syncRoundsRunByCommitters }
        try await addDogs(in: db, ["Rex", "Fido", "Lassie"])
        // Through the actor's own asyncWrite too: the block runs inside the actor.
        try await db.asyncWrite { realm in try realm.add(Dog(value: ["name": "Bolt"])) }
        let (after, count) = try await db.read { ($0.storage.syncRoundsRunByCommitters, $0.objects(Dog.self).count) }
        // Sequential commits on one file: no round is ever in flight when a commit waits.
        #expect(after - before == 4)
        #expect(count == 4)
        await db.close()
    }

    @Test("A durable commit on the cooperative pool never runs its sync round on its own thread")
    func durableCommitOnThePoolWaitsForTheSyncQueue() async throws {
        let store = try await PoolDogStore(configuration: temporaryConfiguration())
        try await store.add("Rex")
        try await store.add("Fido")
        #expect(await store.roundsRunInline == 0)
    }

    @Test("An actor of your own on a RealmExecutor commits as a RealmActor does")
    func ownActorOnARealmExecutor() async throws {
        let store = try await ExecutorDogStore(configuration: temporaryConfiguration())
        try await store.add("Rex")
        try await store.add("Fido")
        #expect(await store.roundsRunInline == 2)
        let onItsThread = await store.isOnItsThread()
        #expect(onItsThread)
    }

    @Test("Concurrent durable writers on RealmActors all commit, sharing rounds")
    func concurrentActorsCommitDurably() async throws {
        let configuration = temporaryConfiguration()
        var actors: [RealmActor] = []
        for _ in 0..<6 { actors.append(try await RealmActor(configuration: configuration)) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (k, db) in actors.enumerated() {
                group.addTask { try await addDogs(in: db, (0..<40).map { "dog \(k)-\($0)" }) }
            }
            try await group.waitForAll()
        }
        let count = try await actors[0].read { $0.objects(Dog.self).count }
        #expect(count == 240)
        for db in actors { await db.close() }
    }

    @Test("A RealmActor's thread ends when the actor is deallocated")
    func threadEndsWithTheActor() async throws {
        weak var weakActor: RealmActor?
        weak var weakThread: RealmExecutorThread?
        do {
            let db = try await RealmActor(configuration: temporaryConfiguration())
            weakActor = db
            weakThread = db.executor.thread
            try await db.asyncWrite { realm in try realm.add(Dog(value: ["name": "Rex"])) }
            #expect(weakThread != nil)
        }
        // The actor goes when its last reference does; the thread, which holds its executor,
        // once it has run what was queued and seen the stop.
        try await waitUntil { weakActor == nil && weakThread == nil }
        #expect(weakActor == nil)
        #expect(weakThread == nil)
    }

    @Test("An actor whose last reference goes on its own thread stops that thread")
    func actorReleasedOnItsOwnThread() async throws {
        let deinitOnOwnThread = DeinitRecord()
        let (gate, open) = AsyncStream<Void>.makeStream()
        weak var weakThread: RealmExecutorThread?
        do {
            let holder = SelfReleasingHolder { onOwnThread in deinitOnOwnThread.onOwnThread.withLock { $0 = onOwnThread } }
            weakThread = holder.executor.thread
            await holder.keepSelfUntil(gate)
        }
        // Only the holder's own task references it now; it ends on the holder's thread.
        open.yield()
        open.finish()
        try await waitUntil { weakThread == nil }
        #expect(weakThread == nil)
        #expect(deinitOnOwnThread.onOwnThread.withLock { $0 } == true)
    }
}

/// Where an actor's deinit ran.
final class DeinitRecord: Sendable {
    let onOwnThread = Mutex<Bool?>(nil)
}

/// Polls `condition` every 10 ms, for at most 10 s.
func waitUntil(_ condition: () -> Bool) async throws {
    for _ in 0..<1000 {
        if condition() { return }
        try await Task.sleep(for: .milliseconds(10))
    }
}

/// An actor on a `RealmExecutor` that can outlive its callers in a task of its own.
actor SelfReleasingHolder {
    let executor = RealmExecutor()
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    let onDeinit: @Sendable (Bool) -> Void

    init(onDeinit: @escaping @Sendable (Bool) -> Void) {
        self.onDeinit = onDeinit
    }

    deinit {
        onDeinit(executor.isCurrent)
    }

    /// Starts a task, isolated to the actor, that holds it until `gate` yields.
    func keepSelfUntil(_ gate: AsyncStream<Void>) {
        Task {
            for await _ in gate { break }
            self.touch()
        }
    }

    func touch() {}
}

extension ExecutorDogStore {
    func isOnItsThread() -> Bool { executor.isCurrent && RealmExecutor.currentThreadMayBlock }

    func run(_ body: () -> Void) { body() }
}
