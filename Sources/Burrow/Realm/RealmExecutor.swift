import BurrowStorage
import BurrowStore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A serial executor that runs its jobs on a thread of its own, for an actor of your own that
/// holds a realm and makes durable writes one after another.
///
/// Why a thread of its own: a durable commit ends with a sync of the file (`fdatasync`, from tens
/// of microseconds to milliseconds). Code on the cooperative pool must never block for that: the
/// pool has one thread per core, and a blocked one can stall every task, including the one a sync
/// waits for. So on the pool, `asyncWrite` suspends while the file's sync queue runs the sync,
/// and resumes afterwards: two thread switches per durable commit. Code running on a
/// `RealmExecutor` may block, since its thread serves one actor only, so a durable commit made
/// there runs the sync round itself when none is in flight and no other job of the actor waits,
/// with no thread switch. Otherwise it waits without blocking, as on the pool, and the actor runs
/// the waiting jobs, whose writes join the next round (group commit).
///
/// When to use one: for an actor whose durable writes come one at a time (one task writing in a
/// loop), each saves two thread switches. `RealmActor` stays on the cooperative pool, where calls
/// from outside are cheaper (see Costs) and many callers' writes share syncs.
///
/// Costs. Each executor has one thread, started when the executor is made; it ends once the
/// executor is released (when its actor is deallocated), after the jobs already queued. A call
/// into the actor from outside always switches threads (a default actor can run on the caller's
/// pool thread), and the call's return switches back. Jobs run in the order they were enqueued;
/// task priorities do not reorder them.
///
/// To give an actor of your own a `RealmExecutor`:
///
///     actor DogStore {
///         let executor = RealmExecutor()
///         nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
///     }
///
/// `assumeIsolated`, `#isolation`, `isolated` parameters and `preconditionIsolated` work as for
/// any actor. Creating and using a `RealmExecutor` needs no isolation.
public final class RealmExecutor: Sendable {
    let thread: RealmExecutorThread

    /// Starts the executor's thread.
    public init() {
        thread = RealmExecutorThread()
        thread.start()
    }

    deinit {
        thread.stop()
    }

    /// The executor as the runtime refers to it: return it from an actor's `unownedExecutor`.
    /// The actor must keep this `RealmExecutor` (a stored property) for as long as it lives.
    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        thread.asUnownedSerialExecutor()
    }

    /// Whether the calling code runs on this executor's thread, that is, isolated to it.
    public var isCurrent: Bool { thread.isCurrent }

    /// How many jobs are queued behind the ones the thread has taken (read-only, for tests that
    /// must see calls queued on the actor before they go on).
    package var queuedJobCount: Int { thread.queuedJobCount }

    /// Whether the calling code may block its thread for a sync: it runs on the thread of some
    /// `RealmExecutor`, which blocking holds up for its actor only, and no other job of that
    /// actor waits to run (a call from another task, a write that would share the sync). With
    /// jobs waiting, a durable commit waits for its round without blocking, so that the actor
    /// runs them meanwhile and their writes join the next round.
    static var currentThreadMayBlock: Bool {
        guard let thread = RealmExecutorThread.current else { return false }
        return !thread.hasJobsWaiting
    }
}

/// The thread behind a `RealmExecutor`, and the executor the runtime sees. The thread holds it
/// strongly while it runs, so that the runtime's unowned reference stays valid while any job
/// does; the `RealmExecutor` that owns it stops it when it is released.
///
/// State and the lock that guards it: `jobs`, `idle` and `stopping` are read and written only
/// between `pthread_mutex_lock(mutex)` and unlock; `batch` belongs to the executor's thread.
final class RealmExecutorThread: SerialExecutor, @unchecked Sendable {
    // Sendable by the locking described above: every mutable property is reached under `mutex`
    // (pthread, so that ThreadSanitizer sees it), except `batch` and `running`, which only the
    // executor's thread touches.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var jobs: [UnownedJob] = []
    /// Jobs taken from `jobs`, run outside the lock; swapped with it to reuse both buffers.
    private var batch: [UnownedJob] = []
    /// The position in `batch` of the job running.
    private var running = 0
    /// The thread waits on `condition`: an enqueue must signal it.
    private var idle = false
    private var stopping = false

    /// The key of the thread-local pointer to the executor whose thread is the current one.
    private static let currentKey: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "pthread_key_create failed (\(status))")
        return key
    }()

    /// The executor whose thread is the calling one, if any.
    static var current: RealmExecutorThread? {
        pthread_getspecific(currentKey).map { Unmanaged<RealmExecutorThread>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Whether jobs wait behind the one running. Only the executor's own thread may ask (it reads
    /// `batch`, the thread's own, and `running`).
    var hasJobsWaiting: Bool {
        if running + 1 < batch.count { return true }
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return !jobs.isEmpty
    }

    /// How many jobs wait in `jobs`, not yet taken by the thread; any thread may ask.
    var queuedJobCount: Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return jobs.count
    }

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deinitialize(count: 1)
        condition.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Whether the calling thread is this executor's.
    var isCurrent: Bool { pthread_getspecific(Self.currentKey) == Unmanaged.passUnretained(self).toOpaque() }

    /// Starts the thread, which holds `self` until it ends.
    func start() {
        let status = startDetachedThread { self.main() }
        precondition(status == 0, "Cannot start a RealmExecutor thread: pthread_create failed (\(status))")
    }

    /// Ends the thread once the jobs queued now have run. Callable from any thread, the
    /// executor's own included (a job may release the last reference to the actor).
    func stop() {
        pthread_mutex_lock(mutex)
        stopping = true
        let wake = idle
        idle = false
        pthread_mutex_unlock(mutex)
        if wake { pthread_cond_signal(condition) }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        pthread_mutex_lock(mutex)
        jobs.append(job)
        // Only a waiting thread needs the signal (one is enough); a running one looks at `jobs`
        // before it waits again.
        let wake = idle
        idle = false
        pthread_mutex_unlock(mutex)
        if wake { pthread_cond_signal(condition) }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Called by `assumeIsolated` and `preconditionIsolated` when the runtime cannot tell by
    /// itself: the executor's thread runs only its jobs, so being on it is being isolated to it.
    func checkIsolated() {
        precondition(isCurrent, "Expected to run on the RealmExecutor's thread, isolated to its actor.")
    }

    func isIsolatingCurrentContext() -> Bool? {
        isCurrent
    }

    /// The thread's body: runs the queued jobs in order until stopped.
    private func main() {
        pthread_setspecific(Self.currentKey, Unmanaged.passUnretained(self).toOpaque())
        #if canImport(Darwin)
        // (Glibc's module does not export `pthread_setname_np`; Linux threads keep the
        // process's name.)
        pthread_setname_np("burrow-realm")
        #endif
        let executor = asUnownedSerialExecutor()
        pthread_mutex_lock(mutex)
        while true {
            if jobs.isEmpty {
                if stopping { break }
                idle = true
                pthread_cond_wait(condition, mutex)
                continue
            }
            swap(&jobs, &batch)
            pthread_mutex_unlock(mutex)
            for (index, job) in batch.enumerated() {
                running = index
                job.runSynchronously(on: executor)
            }
            batch.removeAll(keepingCapacity: true)
            pthread_mutex_lock(mutex)
        }
        pthread_mutex_unlock(mutex)
        pthread_setspecific(Self.currentKey, nil)
    }
}
