import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file beside a shared database (`<path>.lock`) through which the processes that have it
/// open take turns writing and keep each other's readers safe, as LMDB's lock file does. It is
/// mapped read-write and shared by every process, and holds (see FileFormat.md, "The lock
/// file"):
///
/// - the newest version whose meta is in the database file, so that a reader notices another
///   process's commit with one load;
/// - what the last writer knew of durability (which meta slot holds the newest durable meta),
///   so that the next writer never writes over it;
/// - one slot per process with the oldest version its snapshots pin, so that no writer reuses a
///   page a reader anywhere may still read. A slot names its process by pid and start time, and
///   a slot whose process is gone (or whose pid now belongs to a process started later) is
///   reclaimed. The lock file has 124 slots; past those, slots are added in a file beside it,
///   up to 32,768 processes (`LockFileSlots`).
///
/// Writers take turns with an exclusive `flock` on the lock file, held from the start of a
/// write transaction until the process's commits are all in the database file and another
/// process asks for it; the kernel drops it when a process dies.
///
/// Each process has a FIFO beside the lock file (`<path>.lock.<slot>`), which its listener
/// thread reads (`LockFileListener`): a process that commits writes a byte into the FIFO of
/// every other process, so that their change streams learn of the commit at once, and so does
/// a writer that waits for the writer lock, so that an idle holder lets go of it.
///
/// State: the mapped words are only read and written through atomic operations; `descriptor`
/// and `slot` are set at open and never change; the descriptors of other processes' FIFOs are
/// behind their lock.
final class LockFile: Sendable {
    let path: String
    private let descriptor: Int32
    /// The header and the slots, mapped.
    private let slots: LockFileSlots
    /// This process's slot.
    let slot: Int
    private let pid: UInt64
    /// The thread that reads this process's FIFO.
    private let listener: LockFileListener
    /// Open write ends of other processes' FIFOs, by slot, with the pid they were opened for.
    private let wakeDescriptors = Locked<[Int: (pid: UInt64, fd: Int32)]>([:])

    /// Opens (creating and initialising if needed) the lock file of the database at
    /// `databasePath`, and claims a slot for this process.
    init(databasePath: String) throws(StorageError) {
        path = databasePath + ".lock"
        if let kind = Self.networkFileSystem(at: databasePath) {
            throw .invalidOption(
                "\(databasePath) is on a network file system (\(kind)), whose locks and shared memory do not reach other machines, so processes cannot share it safely. Keep it on a local disk, or open it with Realm.Configuration.exclusiveAccess."
            )
        }
        let fd = path.withCString { open($0, O_RDWR | O_CREAT | O_CLOEXEC, 0o644) }
        guard fd >= 0 else { throw .io(path: path, operation: "open", errno: errno) }
        descriptor = fd
        pid = UInt64(getpid())
        do throws(StorageError) {
            try LockFileSlots.prepare(fd: fd, lockPath: path, databasePath: databasePath)
            slots = try LockFileSlots(fd: fd, lockPath: path)
            slot = try slots.claim(pid: pid, databasePath: databasePath)
        } catch {
            closeDescriptor(fd)
            throw error
        }
        do {
            listener = try LockFileListener(path: Self.fifoPath(path, slot))
        } catch {
            slots.free(slot, owner: pid)
            closeDescriptor(fd)
            throw error
        }
    }

    deinit {
        listener.stop()
        for (_, entry) in wakeDescriptors.withLock({ $0 }) { closeDescriptor(entry.fd) }
        slots.free(slot, owner: pid)
        closeDescriptor(descriptor)
    }

    /// Calls `handler` on the listener thread whenever another process wakes this one (it
    /// committed, or waits for the writer lock). Set once, before other processes can matter.
    func listen(_ handler: @escaping @Sendable () -> Void) {
        listener.start(handler)
    }

    /// Wakes the listener of every other process that has the file open, or (`onlyWaiting`)
    /// of those waiting for the writer lock.
    func wakeOtherProcesses(onlyWaiting: Bool = false) {
        for index in 0..<slots.slotsInUse where index != slot {
            guard let waiting = slots.word(index, .writersWaiting), let ownerWord = slots.word(index, .pid) else { continue }
            if onlyWaiting, waiting.pointee.load(ordering: .sequentiallyConsistent) == 0 { continue }
            let owner = ownerWord.pointee.load(ordering: .sequentiallyConsistent)
            guard owner != 0, owner != LockFileSlots.reclaiming else { continue }
            wakeDescriptors.withLock { descriptors in
                if let open = descriptors[index], open.pid != owner {
                    closeDescriptor(open.fd)
                    descriptors[index] = nil
                }
                if descriptors[index] == nil {
                    let fd = Self.fifoPath(path, index).withCString { open($0, O_WRONLY | O_NONBLOCK | O_CLOEXEC) }
                    guard fd >= 0 else { return }
                    #if canImport(Darwin)
                    _ = fcntl(fd, F_SETNOSIGPIPE, 1)
                    #endif
                    descriptors[index] = (owner, fd)
                }
                // A full FIFO already holds a wake-up; a FIFO with no reader left belongs to a
                // process that is gone.
                if Self.wake(descriptors[index]!.fd) < 0, errno != EAGAIN, errno != EINTR {
                    closeDescriptor(descriptors[index]!.fd)
                    descriptors[index] = nil
                }
            }
        }
    }

    /// Removes the lock file of the database at `databasePath`, its slots file, and the
    /// processes' FIFOs beside it, once the database is deleted (nobody has it open).
    static func removeFiles(databasePath: String) {
        let path = databasePath + ".lock"
        let capacity = LockFileSlots.capacity(ofLockFileAt: path)
        for name in [path, LockFileSlots.extensionPath(path)] { _ = name.withCString { unlink($0) } }
        for slot in 0..<capacity { _ = fifoPath(path, slot).withCString { unlink($0) } }
    }

    /// Writes one byte into the FIFO `fd`; returns what `write` returned. A FIFO whose reader
    /// has gone fails with `EPIPE` rather than raising `SIGPIPE`, which would end the process:
    /// on Darwin the descriptor is marked so, on Linux the signal is blocked in this thread
    /// for the write and a signal it raised is taken back.
    private static func wake(_ fd: Int32) -> Int {
        var byte: UInt8 = 1
        #if canImport(Darwin)
        return write(fd, &byte, 1)
        #else
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous)
        let result = write(fd, &byte, 1)
        let failure = errno
        if result < 0, failure == EPIPE {
            var noWait = timespec()
            _ = sigtimedwait(&pipeSignal, nil, &noWait)
        }
        pthread_sigmask(SIG_SETMASK, &previous, nil)
        errno = failure
        return result
        #endif
    }

    /// The FIFO of the process in slot `slot`.
    static func fifoPath(_ lockPath: String, _ slot: Int) -> String { "\(lockPath).\(slot)" }

    // MARK: The writer lock

    /// Blocks until this process holds the writer lock. While it waits, its slot counts the
    /// wait (`writersWaiting`), so that the holder lets go at its next chance rather than after
    /// a pause.
    func lockWriter() throws(StorageError) {
        if tryLockWriter() { return }
        beginWaiting()
        defer { endWaiting() }
        try Self.lock(descriptor, path: path)
    }

    /// Counts a wait of this process for the writer lock and wakes the other processes, so
    /// that the holder lets go at its next chance.
    func beginWaiting() {
        _ = ownWord(.writersWaiting).pointee.wrappingAdd(1, ordering: .sequentiallyConsistent)
        wakeOtherProcesses()
    }

    /// Ends a wait counted by `beginWaiting`.
    func endWaiting() {
        _ = ownWord(.writersWaiting).pointee.wrappingSubtract(1, ordering: .sequentiallyConsistent)
    }

    /// How many writers of this process wait for the writer lock now (`beginWaiting` counts
    /// them; read-only, for tests that wait for a writer to have begun waiting).
    var writersWaitingInThisProcess: UInt64 {
        ownWord(.writersWaiting).pointee.load(ordering: .sequentiallyConsistent)
    }

    /// Whether a writer of another process waits for the writer lock. A wait counted in the slot
    /// of a process that is gone (killed while it waited) does not count: that slot is freed.
    var writersWaiting: Bool {
        for index in 0..<slots.slotsInUse where index != slot {
            guard let waiting = slots.word(index, .writersWaiting), waiting.pointee.load(ordering: .sequentiallyConsistent) != 0,
                let (owner, alive) = owner(of: index), owner != LockFileSlots.reclaiming
            else { continue }
            if alive { return true }
            slots.free(index, owner: owner)
        }
        return false
    }

    /// Takes the writer lock if no other process holds it; returns whether it did.
    func tryLockWriter() -> Bool {
        flock(descriptor, LOCK_EX | LOCK_NB) == 0
    }

    /// Called at open, with the writer lock held, with the newest version in the database file:
    /// if no other process has the file open, what the lock file says of versions and
    /// durability may be left from another file of that name (deleted and made again) or from
    /// processes that died, and starts over.
    func startOverIfAlone(fileVersion: UInt64) {
        for index in 0..<slots.slotsInUse where index != slot {
            // A slot that cannot be read may be a live process's.
            guard let (owner, alive) = owner(of: index) else { return }
            if owner == 0 { continue }
            if alive { return }
            slots.free(index, owner: owner)
        }
        header(.latestVersion).pointee.store(fileVersion, ordering: .sequentiallyConsistent)
        header(.durableRecord).pointee.store(0, ordering: .sequentiallyConsistent)
    }

    /// The number of the latest turn of the writer lock.
    var writerTurns: UInt64 { header(.writerTurns).pointee.load(ordering: .sequentiallyConsistent) }

    /// Counts a turn of the writer lock, which the caller holds, and returns its number: a
    /// process whose previous turn has the number before knows that no other process wrote
    /// since.
    func countWriterTurn() -> UInt64 {
        header(.writerTurns).pointee.wrappingAdd(1, ordering: .sequentiallyConsistent).newValue
    }

    /// Releases the writer lock, and wakes the processes that wait for it: one that waits
    /// without blocking a thread (an async writer) tries the lock when woken.
    func unlockWriter() {
        Self.unlock(descriptor)
        if writersWaiting { wakeOtherProcesses(onlyWaiting: true) }
    }

    static func lock(_ fd: Int32, path: String) throws(StorageError) {
        while flock(fd, LOCK_EX) != 0 {
            if errno == EINTR { continue }
            throw .io(path: path, operation: "flock", errno: errno)
        }
    }

    static func unlock(_ fd: Int32) {
        _ = flock(fd, LOCK_UN)
    }

    // MARK: Versions and durability

    /// The newest version whose meta is in the database file (0 before any commit through a
    /// lock file).
    var latestVersion: UInt64 { header(.latestVersion).pointee.load(ordering: .sequentiallyConsistent) }

    /// Records that the meta of `version` is in the database file, and wakes the other
    /// processes. Versions only grow.
    func noteMetaWritten(_ version: UInt64) {
        let word = header(.latestVersion)
        var current = word.pointee.load(ordering: .sequentiallyConsistent)
        while current < version {
            let (exchanged, original) = word.pointee.compareExchange(expected: current, desired: version, ordering: .sequentiallyConsistent)
            if exchanged {
                wakeOtherProcesses()
                return
            }
            current = original
        }
    }

    /// What the last writer knew of durability: the slot holding the newest durable meta, its
    /// version, and the newest version known durable. Nil if no writer recorded it.
    var durability: (slot: Int, slotVersion: UInt64, durableVersion: UInt64)? {
        let record = header(.durableRecord).pointee.load(ordering: .sequentiallyConsistent)
        guard record != 0 else { return nil }
        return (
            Int(record - 1), header(.durableSlotVersion).pointee.load(ordering: .sequentiallyConsistent),
            header(.durableVersion).pointee.load(ordering: .sequentiallyConsistent)
        )
    }

    /// Records what this writer knows of durability, for the next one (called with the writer
    /// lock held).
    func recordDurability(slot: Int, slotVersion: UInt64, durableVersion: UInt64) {
        header(.durableRecord).pointee.store(0, ordering: .sequentiallyConsistent)
        header(.durableSlotVersion).pointee.store(slotVersion, ordering: .sequentiallyConsistent)
        header(.durableVersion).pointee.store(durableVersion, ordering: .sequentiallyConsistent)
        header(.durableRecord).pointee.store(UInt64(slot + 1), ordering: .sequentiallyConsistent)
    }

    // MARK: Pinned versions

    /// Publishes the oldest version this process's snapshots pin (nil: none).
    func publishOldestPin(_ version: UInt64?) {
        ownWord(.oldestPin).pointee.store(version.map { $0 + 1 } ?? 0, ordering: .sequentiallyConsistent)
    }

    /// The oldest version pinned by another process, if any. Slots of processes that are gone
    /// are freed on the way.
    func oldestPinOfOtherProcesses() -> UInt64? {
        var oldest: UInt64?
        for index in 0..<slots.slotsInUse where index != slot {
            // A slot that cannot be read may pin any version: reuse nothing.
            guard let pinWord = slots.word(index, .oldestPin), let (owner, alive) = owner(of: index) else { return 0 }
            guard owner != 0 else { continue }
            let pin = pinWord.pointee.load(ordering: .sequentiallyConsistent)
            if !alive {
                slots.free(index, owner: owner)
                continue
            }
            if pin != 0 { oldest = min(oldest ?? .max, pin - 1) }
        }
        return oldest
    }

    /// Whether process `pid`, started at `startTime` (0: unknown), still runs. A process that
    /// has ended but is not reaped yet (a zombie) keeps its pid, but has no memory left to
    /// read with: it counts as gone.
    static func isAlive(pid: UInt64, startTime: UInt64) -> Bool {
        guard pid > 0, pid <= UInt64(Int32.max) else { return false }
        if kill(pid_t(pid), 0) != 0, errno == ESRCH { return false }
        guard let process = processStatus(pid: pid) else { return true }
        if process.ended { return false }
        return startTime == 0 || process.startTime == startTime
    }

    /// When process `pid` started, in the system's own unit, and whether it has ended without
    /// being reaped (a zombie); nil if it cannot be read. The start time is, on Linux, in clock
    /// ticks after boot (`/proc/<pid>/stat`, field 22), and on Darwin in microseconds
    /// (`sysctl`).
    static func processStatus(pid: UInt64) -> (startTime: UInt64, ended: Bool)? {
        #if os(Linux)
        let fd = "/proc/\(pid)/stat".withCString { open($0, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { return nil }
        defer { closeDescriptor(fd) }
        var buffer = [UInt8](repeating: 0, count: 1024)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        let text = buffer[..<count]
        // The command name (field 2) is in parentheses and may hold spaces: count from the last ')'.
        guard let close = text.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let fields = text[(close + 1)...].split(separator: UInt8(ascii: " "))
        // Fields after the name start at field 3, the state (Z: zombie, X: dead); the start
        // time is field 22.
        guard fields.count > 19, let startTime = UInt64(String(decoding: fields[19], as: UTF8.self)) else { return nil }
        let state = fields[0].first
        return (startTime, state == UInt8(ascii: "Z") || state == UInt8(ascii: "X"))
        #elseif canImport(Darwin)
        var info = kinfo_proc()
        var length = MemoryLayout<kinfo_proc>.stride
        var name: [Int32] = [CTL_KERN, KERN_PROC, KERN_PROC_PID, Int32(pid)]
        guard sysctl(&name, 4, &info, &length, nil, 0) == 0, length > 0 else { return nil }
        let started = info.kp_proc.p_un.__p_starttime
        return (UInt64(started.tv_sec) * 1_000_000 + UInt64(started.tv_usec), info.kp_proc.p_stat == SZOMB)
        #else
        return nil
        #endif
    }

    /// The kind of network file system the file at `path` is on, or nil for a local one. On
    /// Linux, the type of the longest mount point above the file's real path in
    /// `/proc/self/mounts`; on Darwin, `statfs`'s type name.
    static func networkFileSystem(at path: String) -> String? {
        let network: Set<String> = ["nfs", "nfs4", "cifs", "smb3", "smbfs", "afs", "coda", "afpfs", "webdav"]
        #if os(Linux)
        guard let real = realpath(path, nil) ?? realpath(".", nil) else { return nil }
        // Mount points are listed with spaces written as \040.
        var resolved = ""
        for character in String(cString: real) { resolved += character == " " ? "\\040" : String(character) }
        Glibc.free(real)
        let fd = open("/proc/self/mounts", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { closeDescriptor(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        var best: (length: Int, type: String)?
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            let fields = line.split(separator: UInt8(ascii: " "))
            guard fields.count >= 3 else { continue }
            let mountPoint = String(decoding: fields[1], as: UTF8.self)
            let isAbove = mountPoint == "/" || resolved == mountPoint || resolved.hasPrefix(mountPoint + "/")
            if isAbove, mountPoint.count > best?.length ?? -1 { best = (mountPoint.count, String(decoding: fields[2], as: UTF8.self)) }
        }
        guard let type = best?.type, network.contains(type) else { return nil }
        return type
        #elseif canImport(Darwin)
        var info = statfs()
        guard statfs(path, &info) == 0 else { return nil }
        let name = withUnsafeBytes(of: info.f_fstypename) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return network.contains(name) ? name : nil
        #else
        return nil
        #endif
    }

    // MARK: Words

    private func header(_ field: LockFileSlots.Header) -> UnsafeMutablePointer<Atomic<UInt64>> {
        slots.header(field)
    }

    /// A word of this process's slot, which is always mapped: claiming it mapped it.
    private func ownWord(_ field: LockFileSlots.SlotWord) -> UnsafeMutablePointer<Atomic<UInt64>> {
        slots.word(slot, field)!
    }

    /// The owner of slot `index` and whether it still runs, or nil if the slot cannot be read.
    private func owner(of index: Int) -> (pid: UInt64, alive: Bool)? {
        guard let pid = slots.word(index, .pid), let startTime = slots.word(index, .startTime) else { return nil }
        let owner = pid.pointee.load(ordering: .sequentiallyConsistent)
        guard owner != 0, owner != LockFileSlots.reclaiming else { return (owner, false) }
        return (owner, Self.isAlive(pid: owner, startTime: startTime.pointee.load(ordering: .sequentiallyConsistent)))
    }
}
