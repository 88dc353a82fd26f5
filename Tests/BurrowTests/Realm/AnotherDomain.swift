import Burrow
import Foundation

/// Runs `body` on a thread of its own and waits for it: a realm `body` opens there belongs to
/// that thread's isolation domain, so it is not the caller's realm of the same file (as
/// RealmSwift's tests use another thread for a second realm).
func onAnotherThread<R: Sendable>(_ body: @escaping @Sendable () throws -> R) throws -> R {
    let outcome = ThreadOutcome<R>()
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        outcome.result = Result { try body() }
        done.signal()
    }
    thread.start()
    done.wait()
    return try outcome.result!.get()
}

/// The result of `onAnotherThread`'s body. Written by that thread before it signals the
/// semaphore and read by the caller only after waiting on it, so the two never overlap.
private final class ThreadOutcome<R: Sendable>: @unchecked Sendable {
    var result: Result<R, any Error>?
}
