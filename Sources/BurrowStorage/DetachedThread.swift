#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Starts a detached thread that runs `body` (which it holds until it returns). Returns the
/// `pthread_create` status: 0 when the thread started.
package func startDetachedThread(_ body: @escaping @Sendable () -> Void) -> Int32 {
    final class Body: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    let context = Unmanaged.passRetained(Body(body)).toOpaque()
    #if canImport(Glibc)
    var id = pthread_t()
    let status = pthread_create(
        &id, &attributes,
        { context in
            Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context)
    #else
    var id: pthread_t?
    let status = pthread_create(
        &id, &attributes,
        { context in
            Unmanaged<Body>.fromOpaque(context).takeRetainedValue().run()
            return nil
        }, context)
    #endif
    if status != 0 { Unmanaged<Body>.fromOpaque(context).release() }
    return status
}
