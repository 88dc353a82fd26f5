import BurrowStore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A thread-specific key whose value on each thread is one instance of `Value`: made on the
/// thread's first use and released when the thread ends. Only its thread reaches an instance.
struct ThreadLocal<Value: AnyObject>: Sendable {
    private let key: pthread_key_t

    init() {
        var key = pthread_key_t()
        #if canImport(Darwin)
        let status = pthread_key_create(&key) { Unmanaged<AnyObject>.fromOpaque($0).release() }
        #else
        let status = pthread_key_create(&key) { pointer in
            if let pointer { Unmanaged<AnyObject>.fromOpaque(pointer).release() }
        }
        #endif
        precondition(status == 0, "pthread_key_create failed (\(status)): the process has used up its thread-specific keys")
        self.key = key
    }

    /// The calling thread's instance, made by `make` if the thread has none yet.
    @inline(__always)
    func value(_ make: () -> Value) -> Value {
        if let existing = pthread_getspecific(key) {
            return Unmanaged<Value>.fromOpaque(existing).takeUnretainedValue()
        }
        let value = make()
        pthread_setspecific(key, Unmanaged.passRetained(value).toOpaque())
        return value
    }
}
