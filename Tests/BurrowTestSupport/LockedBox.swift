import Synchronization

/// A value behind a lock, for a test that collects what `@Sendable` code reports — a migration
/// block, a callback, a child task, another thread — and reads it once that code has run.
///
/// It is the one such box the tests share; a test needing more (counters that must change
/// together, a wait for a state) keeps its fields in one `LockedBox` of a tuple or struct rather
/// than writing a lock of its own. The value must be `Sendable`, since it is handed between
/// threads; a test that must pass on objects that are not keeps them on one thread instead.
public final class LockedBox<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    /// A box that holds `value`.
    public init(_ value: Value) { mutex = Mutex(value) }

    /// Runs `body` with the value, which it may change, while holding the lock; returns what
    /// `body` returns and throws what it throws. `body` must not use this box again.
    public func withLock<Result: Sendable, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try mutex.withLock { (value: inout Value) throws(Failure) -> Result in try body(&value) }
    }

    /// The value now.
    public var value: Value { mutex.withLock { $0 } }
}
