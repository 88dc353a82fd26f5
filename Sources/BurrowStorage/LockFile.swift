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
///   reclaimed.
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
    static let magic: UInt64 = 0x4B4C_574F_5252_5542  // "BURROWLK", little-endian
    static let formatVersion: UInt64 = 1
    static let size = 4096
    static let headerSize = 128
    static let slotSize = 32
    static var slotCount: Int { (size - headerSize) / slotSize }

    /// Header words (8 bytes each), at most `headerSize / 8` of them.
    private enum Header: Int, CaseIterable {
        case magic = 0
        case formatVersion, latestVersion, durableRecord, durableVersion, durableSlotVersion, writerTurns,
            reserved, slotsUsed
    }

    /// Slot words (8 bytes each, at `headerSize + slot * slotSize`).
    private enum SlotWord: Int {
        /// The pid of the process that owns the slot, or 0 if the slot is free.
        case pid = 0
        /// The owner's start time (see `processStatus`), so that a pid reused by a later
        /// process does not keep the slot.
        case startTime
        /// The oldest version the owner's snapshots pin, plus one; 0 when it pins none.
        case oldestPin
        /// How many of the owner's threads wait for the writer lock. Kept in the slot, not in
        /// the header, so that the waits of a process that died end with its slot.
        case writersWaiting
    }

    let path: String
    private let descriptor: Int32
    // The shared mapping of the lock file, `size` bytes, unmapped in deinit. Every access goes
    // through `word(_:)` as an atomic operation, whichever process made the other change.
    nonisolated(unsafe) private let base: UnsafeMutableRawPointer
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
        precondition(Header.allCases.count * 8 <= Self.headerSize, "the lock file's header words overlap its slots")
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
            // A lock file in use is whole; a new one is made under the writer lock, which
            // nobody can hold idle before the file is made.
            if try !Self.isInitialized(fd, path: path) {
                try Self.lock(fd, path: path)
                defer { Self.unlock(fd) }
                try Self.initializeIfNeeded(fd, path: path)
            }
            let mapped = mmap(nil, Self.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
            guard let mapped, mapped != MAP_FAILED else { throw .io(path: path, operation: "mmap", errno: errno) }
            base = mapped
        } catch {
            closeDescriptor(fd)
            throw error
        }
        guard let claimed = Self.claimSlot(base: base, pid: pid) else {
            munmap(base, Self.size)
            closeDescriptor(fd)
            throw .fileLocked(path: databasePath)
        }
        slot = claimed
        do {
            listener = try LockFileListener(path: Self.fifoPath(path, claimed))
        } catch {
            Self.free(base: base, slot: claimed, owner: pid)
            munmap(base, Self.size)
            closeDescriptor(fd)
            throw error
        }
    }

    deinit {
        listener.stop()
        for (_, entry) in wakeDescriptors.withLock({ $0 }) { closeDescriptor(entry.fd) }
        Self.free(base: base, slot: slot, owner: pid)
        munmap(base, Self.size)
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
        let used = min(Self.slotCount, Int(header(.slotsUsed).pointee.load(ordering: .sequentiallyConsistent)))
        for index in 0..<used where index != slot {
            if onlyWaiting, word(index, .writersWaiting).pointee.load(ordering: .sequentiallyConsistent) == 0 { continue }
            let owner = word(index, .pid).pointee.load(ordering: .sequentiallyConsistent)
            guard owner != 0, owner != Self.reclaiming else { continue }
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

    /// Removes the lock file of the database at `databasePath` and the processes' FIFOs beside
    /// it, once the database is deleted (nobody has it open).
    static func removeFiles(databasePath: String) {
        let path = databasePath + ".lock"
        _ = path.withCString { unlink($0) }
        for slot in 0..<slotCount { _ = fifoPath(path, slot).withCString { unlink($0) } }
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
        _ = word(slot, .writersWaiting).pointee.wrappingAdd(1, ordering: .sequentiallyConsistent)
        wakeOtherProcesses()
    }

    /// Ends a wait counted by `beginWaiting`.
    func endWaiting() {
        _ = word(slot, .writersWaiting).pointee.wrappingSubtract(1, ordering: .sequentiallyConsistent)
    }

    /// How many writers of this process wait for the writer lock now (`beginWaiting` counts
    /// them; read-only, for tests that wait for a writer to have begun waiting).
    var writersWaitingInThisProcess: UInt64 {
        word(slot, .writersWaiting).pointee.load(ordering: .sequentiallyConsistent)
    }

    /// Whether a writer of another process waits for the writer lock. A wait counted in the slot
    /// of a process that is gone (killed while it waited) does not count: that slot is freed.
    var writersWaiting: Bool {
        let used = min(Self.slotCount, Int(header(.slotsUsed).pointee.load(ordering: .sequentiallyConsistent)))
        for index in 0..<used where index != slot && word(index, .writersWaiting).pointee.load(ordering: .sequentiallyConsistent) != 0 {
            let owner = word(index, .pid).pointee.load(ordering: .sequentiallyConsistent)
            guard owner != 0, owner != Self.reclaiming else { continue }
            if Self.isAlive(pid: owner, startTime: word(index, .startTime).pointee.load(ordering: .sequentiallyConsistent)) { return true }
            Self.free(base: base, slot: index, owner: owner)
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
        let used = min(Self.slotCount, Int(header(.slotsUsed).pointee.load(ordering: .sequentiallyConsistent)))
        for index in 0..<used where index != slot {
            let owner = word(index, .pid).pointee.load(ordering: .sequentiallyConsistent)
            if owner == 0 { continue }
            if Self.isAlive(pid: owner, startTime: word(index, .startTime).pointee.load(ordering: .sequentiallyConsistent)) { return }
            Self.free(base: base, slot: index, owner: owner)
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

    private static func lock(_ fd: Int32, path: String) throws(StorageError) {
        while flock(fd, LOCK_EX) != 0 {
            if errno == EINTR { continue }
            throw .io(path: path, operation: "flock", errno: errno)
        }
    }

    private static func unlock(_ fd: Int32) {
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
        word(slot, .oldestPin).pointee.store(version.map { $0 + 1 } ?? 0, ordering: .sequentiallyConsistent)
    }

    /// The oldest version pinned by another process, if any. Slots of processes that are gone
    /// are freed on the way.
    func oldestPinOfOtherProcesses() -> UInt64? {
        var oldest: UInt64?
        let used = min(Self.slotCount, Int(header(.slotsUsed).pointee.load(ordering: .sequentiallyConsistent)))
        for index in 0..<used where index != slot {
            let owner = word(index, .pid).pointee.load(ordering: .sequentiallyConsistent)
            guard owner != 0 else { continue }
            let pin = word(index, .oldestPin).pointee.load(ordering: .sequentiallyConsistent)
            if !Self.isAlive(pid: owner, startTime: word(index, .startTime).pointee.load(ordering: .sequentiallyConsistent)) {
                Self.free(base: base, slot: index, owner: owner)
                continue
            }
            if pin != 0 { oldest = min(oldest ?? .max, pin - 1) }
        }
        return oldest
    }

    // MARK: Slots

    private static func claimSlot(base: UnsafeMutableRawPointer, pid: UInt64) -> Int? {
        let startTime = processStatus(pid: pid)?.startTime ?? 0
        for pass in 0..<2 {
            for index in 0..<slotCount {
                let owner = word(base, index, .pid)
                let current = owner.pointee.load(ordering: .sequentiallyConsistent)
                if current != 0 {
                    // On the second pass, slots of processes that are gone are taken over.
                    guard pass == 1, !isAlive(pid: current, startTime: word(base, index, .startTime).pointee.load(ordering: .sequentiallyConsistent))
                    else { continue }
                    free(base: base, slot: index, owner: current)
                }
                guard owner.pointee.compareExchange(expected: 0, desired: pid, ordering: .sequentiallyConsistent).exchanged else { continue }
                word(base, index, .oldestPin).pointee.store(0, ordering: .sequentiallyConsistent)
                word(base, index, .writersWaiting).pointee.store(0, ordering: .sequentiallyConsistent)
                word(base, index, .startTime).pointee.store(startTime, ordering: .sequentiallyConsistent)
                // Writers scan the slots below the highest one ever claimed.
                let used = (base + Header.slotsUsed.rawValue * 8).assumingMemoryBound(to: Atomic<UInt64>.self)
                var highest = used.pointee.load(ordering: .sequentiallyConsistent)
                while highest < UInt64(index + 1) {
                    let (exchanged, original) = used.pointee.compareExchange(
                        expected: highest, desired: UInt64(index + 1), ordering: .sequentiallyConsistent)
                    if exchanged { break }
                    highest = original
                }
                return index
            }
        }
        return nil
    }

    /// Frees slot `slot` if `owner` still owns it. The slot is marked first, so that no other
    /// process claims it while its words are cleared (claims take only free slots); a marked
    /// slot left by a process that died meanwhile is freed by the next one that looks.
    private static func free(base: UnsafeMutableRawPointer, slot: Int, owner: UInt64) {
        guard word(base, slot, .pid).pointee.compareExchange(expected: owner, desired: reclaiming, ordering: .sequentiallyConsistent).exchanged
        else { return }
        word(base, slot, .oldestPin).pointee.store(0, ordering: .sequentiallyConsistent)
        word(base, slot, .writersWaiting).pointee.store(0, ordering: .sequentiallyConsistent)
        word(base, slot, .startTime).pointee.store(0, ordering: .sequentiallyConsistent)
        word(base, slot, .pid).pointee.store(0, ordering: .sequentiallyConsistent)
    }

    /// The owner a slot has while it is being freed: no pid is this large.
    private static let reclaiming = UInt64.max

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

    // MARK: The file

    /// Gives a new (or foreign, or cut short) lock file its header and empty slots. Called with
    /// the writer lock held, so that two processes do not initialise it at once.
    private static func initializeIfNeeded(_ fd: Int32, path: String) throws(StorageError) {
        if try isInitialized(fd, path: path) { return }
        var fresh = [UInt8](repeating: 0, count: size)
        fresh.withUnsafeMutableBytes { bytes in
            bytes.storeBytes(of: magic.littleEndian, toByteOffset: 0, as: UInt64.self)
            bytes.storeBytes(of: formatVersion.littleEndian, toByteOffset: 8, as: UInt64.self)
        }
        guard ftruncate(fd, off_t(size)) == 0 else { throw .io(path: path, operation: "ftruncate", errno: errno) }
        let written = fresh.withUnsafeBytes { pwrite(fd, $0.baseAddress, size, 0) }
        guard written == size else { throw .io(path: path, operation: "write", errno: errno) }
    }

    /// Whether the lock file has its full size and a header of this format. Throws for a lock
    /// file of another format.
    private static func isInitialized(_ fd: Int32, path: String) throws(StorageError) -> Bool {
        var header = [UInt64](repeating: 0, count: 2)
        let read = header.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 16, 0) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .io(path: path, operation: "fstat", errno: errno) }
        guard read == 16, Int(info.st_size) == size, UInt64(littleEndian: header[0]) == magic else { return false }
        guard UInt64(littleEndian: header[1]) == formatVersion else {
            throw .unsupportedFormat(
                path: path, version: UInt32(truncatingIfNeeded: UInt64(littleEndian: header[1])), supported: UInt32(formatVersion))
        }
        return true
    }

    private func header(_ field: Header) -> UnsafeMutablePointer<Atomic<UInt64>> {
        (base + field.rawValue * 8).assumingMemoryBound(to: Atomic<UInt64>.self)
    }

    private func word(_ slot: Int, _ field: SlotWord) -> UnsafeMutablePointer<Atomic<UInt64>> {
        Self.word(base, slot, field)
    }

    private static func word(_ base: UnsafeMutableRawPointer, _ slot: Int, _ field: SlotWord) -> UnsafeMutablePointer<Atomic<UInt64>> {
        (base + headerSize + slot * slotSize + field.rawValue * 8).assumingMemoryBound(to: Atomic<UInt64>.self)
    }
}
