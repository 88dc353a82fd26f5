import Foundation
import Testing

/// Runs each test on a thread of its own instead of the few threads that Swift's async tasks
/// share (as many as the machine has cores).
///
/// A synchronous test that blocks — waiting for a child process, a power-loss replay, a long
/// sleep inside a transaction — holds the thread that runs it, one of as many as the machine has
/// cores, while async tests wait for a turn on them. Suites whose tests block for long carry this
/// trait; concurrency tests whose tasks must run side by side do not (child tasks of a task group
/// would take turns on the one thread). It does not stop async tests from waiting their turn
/// behind the run's other work: see `TestWait.untilAsync`.
public struct OwnThreadTrait: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard !test.isSuite else { return try await function() }
        let executor = ThreadExecutor()
        defer { executor.stop() }
        try await withTaskExecutorPreference(executor) { try await function() }
    }
}

extension Trait where Self == OwnThreadTrait {
    /// Each test runs on a thread of its own, so that one that blocks holds none of the threads
    /// async tasks share.
    public static var ownThread: Self { OwnThreadTrait() }
}

extension OwnThreadTrait {
    /// Whether the caller runs on a thread this trait gave a test.
    public static var isOnOwnThread: Bool { Thread.current.threadDictionary[ThreadExecutor.marker] != nil }
}

/// A task executor that runs its jobs, one at a time and in order, on one thread it owns.
final class ThreadExecutor: TaskExecutor, @unchecked Sendable {
    // Safe: `jobs`, `stopped` and `ended` are read and written only with `condition` locked.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var stopped = false
    private var ended = false

    init() {
        Thread { [self] in run() }.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        if ended {
            // A job that comes after the thread ended (a task that outlived its test and still
            // prefers this executor) gets a thread of its own rather than never running.
            condition.unlock()
            Thread { job.runSynchronously(on: self.asUnownedTaskExecutor()) }.start()
            return
        }
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Lets the thread end once it has run every job enqueued so far.
    func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    /// The key of the entry an executor's thread has in its thread dictionary.
    static let marker = "burrow.test.ownThread"

    private func run() {
        Thread.current.threadDictionary[Self.marker] = true
        while true {
            condition.lock()
            while jobs.isEmpty && !stopped { condition.wait() }
            if jobs.isEmpty {
                ended = true
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
