import Foundation

/// A value behind a lock, for a test that collects what `@Sendable` code reports — a migration
/// block, a callback, a child task, another thread — and reads it once that code has run.
///
/// It is the one such box the tests share; a test needing more (counters that must change
/// together, a wait for a state) keeps its fields in one `LockedBox` of a tuple or struct rather
/// than writing a lock of its own. The value must be `Sendable`, since it is handed between
/// threads; a test that must pass on objects that are not keeps them on one thread instead.
///
/// The lock is an `NSLock` (a pthread mutex), which ThreadSanitizer sees: the concurrency
/// suites run under it in CI, and it does not see the lock of `Synchronization.Mutex` on Linux.
// @unchecked Sendable: `value` is read and written only inside `lock`.
public final class LockedBox<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    /// A box that holds `value`.
    public init(_ value: Value) { stored = value }

    /// Runs `body` with the value, which it may change, while holding the lock; returns what
    /// `body` returns and throws what it throws. `body` must not use this box again.
    public func withLock<Result: Sendable, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&stored)
    }

    /// The value now.
    public var value: Value { withLock { $0 } }
}
