import Testing

/// Waits up to `seconds` for `body`; records an issue naming `what` and returns nil if it has not
/// finished by then (the body's task is cancelled), so a hang becomes a failure instead of a
/// stuck run. Rethrows what `body` throws.
public func withTimeout<T: Sendable>(
    seconds: Double, _ what: String, _ body: @escaping @Sendable () async throws -> T
) async throws -> T? {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try? await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
            return nil
        }
        defer { group.cancelAll() }
        if let first = try await group.next(), let value = first {
            return value
        }
        Issue.record("timed out after \(seconds) s: \(what)")
        return nil
    }
}
