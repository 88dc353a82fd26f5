import Foundation

/// Polls `condition` every millisecond until it holds, for tests that must see another task,
/// thread or process reach a state before they go on; throws, naming `what`, if it does not
/// hold within `timeout` seconds (the test fails instead of hanging or going on too early).
func waitUntil(
    _ what: @autoclosure () -> String = "the condition", timeout: Double = 30, _ condition: () async throws -> Bool
) async throws {
    let deadline = Date().addingTimeInterval(timeout)
    while try await !condition() {
        guard Date() < deadline else { throw WaitTimeout(description: "\(what()) did not hold within \(timeout) s") }
        try await Task.sleep(for: .milliseconds(1))
    }
}

/// A state a test waited for was not reached in time.
struct WaitTimeout: Error, CustomStringConvertible {
    let description: String
}
