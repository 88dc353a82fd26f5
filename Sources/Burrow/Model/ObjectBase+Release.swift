import BurrowStore

/// Freeing an unmanaged object graph one object at a time.
///
/// Swift frees an object's stored properties after its `deinit`, so freeing the head of a
/// chain of unmanaged objects (`a.next = b`, `b.next = c`, …) would free each next object
/// from inside the previous one's destruction: a recursion as deep as the chain, which
/// overflows the stack at some ten thousand objects. Instead, an unmanaged object's `deinit`
/// moves the values of its links and collections onto its thread's queue; the first `deinit`
/// on the thread releases the queue's values one by one, and the objects that frees add
/// theirs to the queue instead of freeing them themselves. Managed objects hold no such
/// values (see `ClassInfo.dropUnmanagedValues`).
///
/// The queue belongs to one thread and is only touched from `deinit`s running on it; its
/// fields are unchecked for exclusivity, since no access overlaps another.
final class HeldValueRelease {
    /// Values moved out of objects being freed, waiting to be released.
    @exclusivity(unchecked) private var pending: [Any] = []
    /// Whether a `deinit` further up this thread's stack is releasing `pending`.
    @exclusivity(unchecked) private var isReleasing = false
    /// Whether this thread is discovering a class (`ClassInfo.of`): the prototype it makes
    /// and frees must not look its own class up again.
    @exclusivity(unchecked) private(set) var isDiscovering = false

    /// Runs `body` (which discovers a class) with `isDiscovering` set.
    static func discovering<T>(_ body: () -> T) -> T {
        let release = current
        let outer = release.isDiscovering
        release.isDiscovering = true
        defer { release.isDiscovering = outer }
        return body()
    }

    /// Takes the values of `object`'s links and collections, and releases them (and what
    /// freeing them gives up) unless a `deinit` further up the stack is doing so already.
    static func releaseHeldValues(of object: ObjectBase) {
        let release = current
        if release.isDiscovering { return }
        if let dynamic = object as? DynamicObject, let values = dynamic.pending {
            // A dynamic object holds its values in place of fields.
            dynamic.pending = nil
            release.pending.append(values.fields.map(\.value))
        }
        let info = ClassInfo.of(type(of: object))
        let base = Unmanaged.passUnretained(object).toOpaque()
        for property in info.objectHoldingProperties {
            let field = info.fields[property]
            if let value = field.accessor.takeUnmanagedValue(at: base + field.offset) { release.pending.append(value) }
        }
        guard !release.isReleasing, !release.pending.isEmpty else { return }
        release.isReleasing = true
        defer { release.isReleasing = false }
        // Each value is released at the end of its iteration; the objects that frees append here.
        while let value = release.pending.popLast() { _ = value }
    }

    /// The calling thread's queue.
    private static var current: HeldValueRelease { threadLocal.value { HeldValueRelease() } }

    private static let threadLocal = ThreadLocal<HeldValueRelease>()
}
