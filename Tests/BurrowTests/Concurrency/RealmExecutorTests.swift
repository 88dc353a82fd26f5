import BurrowStorage
import BurrowTestSupport
import BurrowTestTraits
import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Burrow

/// Reads the realm through `assumeIsolated`, from synchronous code that is not isolated.
func dogCountAssumingIsolation(_ store: ConcurrencyPage.DogKennel) -> Int {
    store.assumeIsolated { $0.realm.objects(GettingStartedPage.Dog.self).count }
}

/// Inside the actor: what the code sees of its isolation and thread.
func isolationSeen(in store: isolated ConcurrencyPage.DogKennel) -> (onExecutorThread: Bool, mayBlock: Bool, isolationIsActor: Bool, count: Int) {
    store.preconditionIsolated()
    let isolation = #isolation
    return (store.executor.isCurrent, RealmExecutor.currentThreadMayBlock, isolation === store, dogCountAssumingIsolation(store))
}

/// Durable commits in a loop inside the actor, one after another.
func addDogs(in store: isolated ConcurrencyPage.DogKennel, _ names: [String]) async throws {
    let realm = store.realm!
    for name in names {
        try await realm.asyncWrite { try realm.add(GettingStartedPage.Dog(value: ["name": name])) }
        #expect(store.executor.isCurrent, "the actor resumed off its thread after a commit")
    }
}

@Suite("RealmExecutor", .temporaryDirectory) struct RealmExecutorTests {
    @Test("Code isolated to an actor on a RealmExecutor runs on its thread; isolation checks hold there")
    func actorCodeRunsOnItsExecutor() async throws {
        let store = try await ConcurrencyPage.DogKennel(configuration: temporaryConfiguration())
        try await store.add("Rex")
        let seen = await isolationSeen(in: store)
        #expect(seen.onExecutorThread)
        #expect(seen.mayBlock)
        #expect(seen.isolationIsActor)
        #expect(seen.count == 1)
        // Outside the actor: not its thread, and a pool thread must not block.
        #expect(!store.executor.isCurrent)
        #expect(!RealmExecutor.currentThreadMayBlock)
        // Two actors, two threads.
        let other = try await ConcurrencyPage.DogKennel(configuration: temporaryConfiguration())
        let otherSeesFirst = await other.run { store.executor.isCurrent }
        #expect(!otherSeesFirst)
    }

    @Test("Durable commits made one after another on a RealmExecutor run their sync rounds on its thread")
    func durableCommitsInALoopRunTheirRoundsInline() async throws {
        let store = try await ConcurrencyPage.DogKennel(configuration: temporaryConfiguration())
        let before = await store.roundsRunInline
        try await addDogs(in: store, ["Rex", "Fido", "Lassie"])
        try await store.add("Bolt")
        // Sequential commits on one file: no round is ever in flight when a commit waits, and
        // nothing else waits for the actor.
        #expect(await store.roundsRunInline - before == 4)
        #expect(await store.count == 4)
    }

    @Test("A commit on a RealmExecutor with other calls waiting does not block for its sync: they share rounds")
    func waitingCallsShareRoundsInsteadOfWaitingForABlockedThread() async throws {
        let store = try await ConcurrencyPage.DogKennel(configuration: temporaryConfiguration())
        try await store.add("first")
        let before = await store.roundsRunInline
        // Hold the actor's thread while 8 calls queue up behind it.
        let release = DispatchSemaphore(value: 0)
        let blocking = Mutex(false)
        let blocker = Task {
            await store.run {
                blocking.withLock { $0 = true }
                release.wait()
            }
        }
        try await waitUntil("the actor's thread blocked") { blocking.withLock { $0 } }
        let (calling, call) = AsyncStream<Void>.makeStream()
        let adds = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for k in 0..<8 {
                    group.addTask {
                        call.yield()
                        try await store.add("dog \(k)")
                    }
                }
                try await group.waitForAll()
            }
        }
        var started = 0
        for await _ in calling {
            started += 1
            if started == 8 { break }
        }
        // Every call is queued on the actor's executor, behind the blocked job, before it goes.
        try await waitUntil("8 calls queued on the actor") { store.executor.queuedJobCount >= 8 }
        release.signal()
        try await adds.value
        await blocker.value
        #expect(await store.count == 9)
        // Each commit that found calls waiting let them run instead of syncing alone: at most the
        // last ones, with nothing behind them, ran a round on the thread.
        let inline = await store.roundsRunInline - before
        #expect(inline < 8, "\(inline) of 8 queued commits blocked the actor for a sync of their own")
    }

    @Test("A durable commit in a RealmActor, on the cooperative pool, never runs its round on its own thread")
    func realmActorStaysOnThePool() async throws {
        let db = try await RealmActor(configuration: temporaryConfiguration())
        try await db.asyncWrite { realm in try realm.add(GettingStartedPage.Dog(value: ["name": "Rex"])) }
        let (inline, mayBlock) = try await db.read { ($0.storage.syncRoundsRunByCommitters, RealmExecutor.currentThreadMayBlock) }
        #expect(inline == 0)
        #expect(!mayBlock)
        await db.close()
    }

    @Test("Concurrent durable writers on actors with RealmExecutors all commit")
    func concurrentActorsCommitDurably() async throws {
        let configuration = temporaryConfiguration()
        var stores: [ConcurrencyPage.DogKennel] = []
        for _ in 0..<6 { stores.append(try await ConcurrencyPage.DogKennel(configuration: configuration)) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (k, store) in stores.enumerated() {
                group.addTask { try await addDogs(in: store, (0..<40).map { "dog \(k)-\($0)" }) }
            }
            try await group.waitForAll()
        }
        #expect(await stores[0].count == 240)
    }

    @Test("An actor's RealmExecutor thread ends when the actor is deallocated")
    func threadEndsWithTheActor() async throws {
        weak var weakStore: ConcurrencyPage.DogKennel?
        weak var weakThread: RealmExecutorThread?
        do {
            let store = try await ConcurrencyPage.DogKennel(configuration: temporaryConfiguration())
            weakStore = store
            weakThread = store.executor.thread
            try await store.add("Rex")
            #expect(weakThread != nil)
        }
        // The actor goes when its last reference does; the thread, which holds its executor,
        // once it has run what was queued and seen the stop.
        try await waitUntil("the store and its thread gone") { weakStore == nil && weakThread == nil }
        #expect(weakStore == nil)
        #expect(weakThread == nil)
    }

    @Test("An actor whose last reference goes on its own thread stops that thread")
    func actorReleasedOnItsOwnThread() async throws {
        let deinitOnOwnThread = LockedBox<Bool?>(nil)
        let (gate, open) = AsyncStream<Void>.makeStream()
        weak var weakThread: RealmExecutorThread?
        do {
            let holder = SelfReleasingHolder { onOwnThread in deinitOnOwnThread.withLock { $0 = onOwnThread } }
            weakThread = holder.executor.thread
            await holder.keepSelfUntil(gate)
        }
        // Only the holder's own task references it now; it ends on the holder's thread.
        open.yield()
        open.finish()
        try await waitUntil("the thread gone") { weakThread == nil }
        #expect(weakThread == nil)
        #expect(deinitOnOwnThread.value == true)
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

/// What the tests read of Concurrency.md's actor on a `RealmExecutor` (ConcurrencyGuideTests).
extension ConcurrencyPage.DogKennel {
    var roundsRunInline: Int { realm.storage.syncRoundsRunByCommitters }

    /// The dogs in the file's newest version.
    var count: Int {
        realm.refresh()
        return realm.objects(GettingStartedPage.Dog.self).count
    }

    /// Runs `body` on the actor's thread.
    func run<T: Sendable>(_ body: () -> T) -> T { body() }
}
