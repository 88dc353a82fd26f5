import Foundation

/// Runs `body` on a thread of its own and waits for it, blocking the caller: a realm `body`
/// opens there belongs to that thread's isolation domain, so it is not the caller's realm of the
/// same file (as RealmSwift's tests use another thread for a second realm). Rethrows what `body`
/// throws.
public func onAnotherThread<R: Sendable>(_ body: @escaping @Sendable () throws -> R) throws -> R {
    let outcome = LockedBox<Result<R, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        let result = Result { try body() }
        outcome.withLock { $0 = result }
        done.signal()
    }
    thread.start()
    done.wait()
    return try outcome.value!.get()
}

/// Runs `body`, which blocks its thread (for a lock, a sync or a loop that waits for other
/// tasks), on a thread of its own and returns its result, suspending the calling task meanwhile.
/// A test that blocked a thread of the cooperative pool instead could stall the tasks it waits
/// for, and every other suite's: on a 2-core machine the pool has two threads. Rethrows what
/// `body` throws.
public func onThreadOfItsOwn<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(with: Result { try body() })
        }
    }
}
