import BurrowTestTraits
import Testing

@testable import Burrow

/// Waiting for a write transaction's end: a task that reaches `wait()` after the end (it
/// checked the transaction on the realm's actor, then ran `wait()` on another thread) returns
/// at once instead of waiting forever, and waiting tasks are resumed by the end.
///
/// The time limit guards against a wait that never ends. It is generous because in the full
/// suite on two cores a test's task may wait minutes for a thread of the cooperative pool,
/// which the other tests keep busy: a test that returns at once can start over a minute late.
@Suite(.timeLimit(.minutes(5)), .temporaryDirectory) struct WriteEndWaitersTests {
    @Test func waitingAfterTheEndReturnsAtOnce() async {
        let waiters = WriteEndWaiters()
        waiters.resumeAll()
        await waiters.wait()
    }

    @Test func theEndResumesEveryWaitingTask() async {
        let waiters = WriteEndWaiters()
        let (started, didStart) = AsyncStream<Void>.makeStream()
        let tasks = (0..<3).map { _ in
            Task {
                didStart.yield()
                await waiters.wait()
            }
        }
        var count = 0
        for await _ in started {
            count += 1
            if count == 3 { break }
        }
        waiters.resumeAll()
        for task in tasks { await task.value }
    }

    @Test func cancellingAWaitingTaskResumesIt() async {
        let waiters = WriteEndWaiters()
        let task = Task { await waiters.wait() }
        task.cancel()
        await task.value
    }
}
