import Foundation

/// Waits, sleeping a millisecond between checks, until `condition` holds, for tests that must
/// see another task, thread or process reach a state before they go on; throws ``WaitTimeout``,
/// naming `what`, if it does not hold within `timeout` seconds' worth of checks (the test fails
/// instead of hanging or going on too early; see `TestWait.untilAsync` for why checks are
/// counted), and `CancellationError` if the task is cancelled.
public func waitUntil(
    _ what: @autoclosure () -> String = "the condition", timeout: Double = 30, _ condition: () async throws -> Bool
) async throws {
    guard try await TestWait.untilAsync(timeout: timeout, condition) else {
        throw WaitTimeout(description: "\(what()) did not hold within \(timeout) s of checks")
    }
}

/// A state a test waited for was not reached in time.
public struct WaitTimeout: Error, CustomStringConvertible {
    public let description: String
}
