import BurrowTestTraits
import Foundation
import Testing

/// Whether the caller runs on a thread the `.ownThread` trait gave a test, and which (a
/// synchronous function, as async code may not ask for the current thread).
private func onOwnThread() -> (own: Bool, thread: ObjectIdentifier) {
    (OwnThreadTrait.isOnOwnThread, ObjectIdentifier(Thread.current))
}

/// The `.ownThread` trait: a test runs on a thread of its own, which ends with the test.
@Suite(.ownThread)
struct OwnThreadTests {
    @Test func aSynchronousTestRunsOnItsOwnThread() {
        #expect(onOwnThread().own)
    }

    @Test func anAsyncTestStaysOnItsThreadAcrossSuspensions() async throws {
        let first = onOwnThread()
        #expect(first.own)
        try await Task.sleep(for: .milliseconds(2))
        #expect(onOwnThread().thread == first.thread)
        // Structured child tasks run there too, one at a time.
        let threads = await withTaskGroup(of: ObjectIdentifier.self) { group in
            for _ in 0..<3 { group.addTask { onOwnThread().thread } }
            return await group.reduce(into: [ObjectIdentifier]()) { $0.append($1) }
        }
        #expect(threads == [first.thread, first.thread, first.thread])
    }
}

/// A test without the trait runs on the shared threads.
@Test func aTestWithoutTheTraitRunsOnTheSharedThreads() {
    #expect(!onOwnThread().own)
}
