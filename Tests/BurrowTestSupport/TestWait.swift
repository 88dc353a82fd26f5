import Foundation

/// Waiting for a state another thread, task or process reaches (a waiter queued, a line
/// printed, a process ended), with a deadline, so that a test neither sleeps "long enough" nor
/// hangs when the state never comes.
public enum TestWait {
    /// Checks `condition` every `interval` seconds until it holds or `timeout` seconds pass;
    /// returns whether it held. Blocks the calling thread.
    @discardableResult
    public static func until(timeout: Double, interval: Double = 0.001, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if try condition() { return true }
            if Date() > deadline { return false }
            usleep(UInt32(interval * 1_000_000))
        }
    }

    /// ``until(timeout:interval:_:)`` from a task: it sleeps between checks instead of blocking
    /// its thread, and gives up after `timeout / interval` checks. The limit counts checks, not
    /// wall time: Swift Testing starts every test of a run at once, so on a machine with few
    /// cores a task may wait its turn for a minute or more, and a deadline in wall time would
    /// fail a test that was only waiting for its turn. Throws `CancellationError` if the task is
    /// cancelled.
    @discardableResult
    public static func untilAsync(timeout: Double, interval: Double = 0.001, _ condition: () async throws -> Bool) async throws -> Bool {
        let checks = max(1, Int(timeout / interval))
        for _ in 0..<checks {
            if try await condition() { return true }
            try await Task.sleep(nanoseconds: UInt64(interval * 1_000_000_000))
        }
        return try await condition()
    }
}
