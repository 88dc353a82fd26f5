#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value that is only ever read or written while holding a pthread mutex.
///
/// The engine uses this rather than the standard library's `Mutex` for one reason: on Linux
/// `Mutex` waits on a raw futex that ThreadSanitizer cannot see, so every run of
/// `swift test --sanitize=thread` would report the state it guards as racing. ThreadSanitizer
/// intercepts pthread mutexes, so with this type its reports mean something.
package final class Locked<Value> {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    // Unchecked for exclusivity: the mutex already makes every access exclusive (a `withLock`
    // body nested in another on the same instance would deadlock before it could overlap), and
    // the runtime check cost a tracked access per lock, about thirty per commit.
    @exclusivity(unchecked) private var value: Value

    package init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value. `body` must not call `withLock` on the
    /// same instance (the mutex is not recursive).
    @inline(__always)
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}

// Sendable when the value is: `value` is reached only inside `withLock`, between lock and unlock
// of `mutex`, and the mutex itself is allocated once and freed in deinit, when no thread holds
// it. A value that is not Sendable could still leave the lock by way of `withLock`'s result, so
// such a lock stays with one isolation domain.
extension Locked: @unchecked Sendable where Value: Sendable {}
