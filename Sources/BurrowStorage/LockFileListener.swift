#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The thread that reads one process's FIFO beside a shared database's lock file (see
/// `LockFile`) and calls a handler for each wake-up: another process committed, or waits for
/// the writer lock. Wake-ups that arrive together are handled once.
///
/// State: the handler and the flags are behind their lock. The FIFO's descriptor is opened at
/// init and closed by the thread as it ends (or by `stop` if the thread never started).
final class LockFileListener: Sendable {
    let path: String
    /// The FIFO, opened for reading and writing: a read blocks until a byte comes, never at an
    /// end of file, and `stop` wakes the thread through it.
    private let descriptor: Int32
    private let state = Locked<(handler: (@Sendable () -> Void)?, started: Bool, stopping: Bool)>((nil, false, false))

    /// Makes (or makes again) the FIFO at `path` and opens it.
    init(path: String) throws(StorageError) {
        self.path = path
        _ = path.withCString { unlink($0) }
        guard path.withCString({ mkfifo($0, 0o600) }) == 0 else { throw .io(path: path, operation: "mkfifo", errno: errno) }
        let fd = path.withCString { open($0, O_RDWR | O_CLOEXEC) }
        guard fd >= 0 else { throw .io(path: path, operation: "open", errno: errno) }
        descriptor = fd
    }

    /// Starts the thread, which calls `handler` for each wake-up until `stop`.
    func start(_ handler: @escaping @Sendable () -> Void) {
        let shouldStart = state.withLock { s -> Bool in
            s.handler = handler
            guard !s.started, !s.stopping else { return false }
            s.started = true
            return true
        }
        guard shouldStart else { return }
        if startDetachedThread({ self.run() }) != 0 {
            // No thread: other processes' commits are then seen when this one next reads.
            state.withLock { $0.started = false }
        }
    }

    /// Ends the thread (which closes the FIFO) and removes the FIFO's name, at once, so that a
    /// process that takes the slot next makes its own.
    func stop() {
        let started = state.withLock { s -> Bool in
            s.stopping = true
            s.handler = nil
            return s.started
        }
        _ = path.withCString { unlink($0) }
        if started {
            var byte: UInt8 = 0
            _ = write(descriptor, &byte, 1)
        } else {
            closeDescriptor(descriptor)
        }
    }

    private func run() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            let handler = state.withLock { $0.stopping ? nil : $0.handler }
            guard count > 0, let handler else { break }
            handler()
        }
        closeDescriptor(descriptor)
    }
}
