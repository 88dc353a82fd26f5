import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The words of a lock file (see `LockFile`, and FileFormat.md, "The lock file"), mapped shared:
/// its header and one slot per process that has the database open.
///
/// The lock file holds the header and the first `mainSlotCount` slots, and keeps its size. The
/// slots past those are in the slots file beside it (`<database>.lock-slots`), made when a
/// process finds every slot taken and grown the same way (`grow`), up to `maxSlots` in all; the
/// header counts its slots. Each process maps the slots file at its largest size once, and reads
/// only the slots the header counts, which the file always holds: mapping past the end of a
/// file is allowed, touching a page past it is not.
///
/// State: the mapped words are only read and written through atomic operations. `base` is set
/// at init; `extensionBase` is 0 until the first thread that needs the slots file maps it, and
/// never changes after that.
final class LockFileSlots: Sendable {
    static let magic: UInt64 = 0x4B4C_574F_5252_5542  // "BURROWLK", little-endian
    static let formatVersion: UInt64 = 2
    /// The format that kept every slot in the lock file, which this format starts over from
    /// when no process of it is left (`prepare`).
    static let previousFormatVersion: UInt64 = 1
    static let size = 4096
    static let headerSize = 128
    static let slotSize = 32
    /// The slots in the lock file itself.
    static let mainSlotCount = (size - headerSize) / slotSize
    /// The most processes that can have one database open at once.
    static let maxSlots = 32_768
    /// The slots the slots file gets when it is made; each growth doubles them.
    static let firstExtensionSlots = 128
    static var maxExtensionSlots: Int { maxSlots - mainSlotCount }
    /// The length each process maps of the slots file: room for its largest size.
    private static var extensionMappingLength: Int { (maxExtensionSlots * slotSize + 4095) / 4096 * 4096 }

    /// Header words (8 bytes each), at most `headerSize / 8` of them.
    enum Header: Int, CaseIterable {
        case magic = 0
        case formatVersion, latestVersion, durableRecord, durableVersion, durableSlotVersion, writerTurns,
            reserved, slotsUsed, extensionSlots, growLock
    }

    /// Slot words (8 bytes each, `slotSize` bytes a slot).
    enum SlotWord: Int {
        /// The pid of the process that owns the slot, or 0 if the slot is free.
        case pid = 0
        /// The owner's start time (see `LockFile.processStatus`), so that a pid reused by a
        /// later process does not keep the slot.
        case startTime
        /// The oldest version the owner's snapshots pin, plus one; 0 when it pins none.
        case oldestPin
        /// How many of the owner's threads wait for the writer lock. Kept in the slot, not in
        /// the header, so that the waits of a process that died end with its slot.
        case writersWaiting
    }

    /// The owner a slot has while it is being freed: no pid is this large.
    static let reclaiming = UInt64.max

    /// The slots file beside the lock file.
    let extensionPath: String
    // The shared mapping of the lock file, `size` bytes, unmapped in deinit. Every access goes
    // through `header(_:)` or `word(_:_:)` as an atomic operation.
    nonisolated(unsafe) private let base: UnsafeMutableRawPointer
    /// The address of the slots file's mapping (`extensionMappingLength` bytes), or 0 while this
    /// process has not mapped it.
    private let extensionBase = Atomic<UInt>(0)

    /// Maps the lock file open at `fd`, which `prepare` made ready.
    init(fd: Int32, lockPath: String) throws(StorageError) {
        precondition(Header.allCases.count * 8 <= Self.headerSize, "the lock file's header words overlap its slots")
        extensionPath = Self.extensionPath(lockPath)
        let mapped = mmap(nil, Self.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
        guard let mapped, mapped != MAP_FAILED else { throw .io(path: lockPath, operation: "mmap", errno: errno) }
        base = mapped
    }

    deinit {
        munmap(base, Self.size)
        let extensionAddress = extensionBase.load(ordering: .sequentiallyConsistent)
        if let mapped = UnsafeMutableRawPointer(bitPattern: extensionAddress) { munmap(mapped, Self.extensionMappingLength) }
    }

    /// The slots file beside the lock file at `lockPath`.
    static func extensionPath(_ lockPath: String) -> String { lockPath + "-slots" }

    /// How many slots there are now: those of the lock file and those the header counts in the
    /// slots file.
    var capacity: Int {
        let extra = header(.extensionSlots).pointee.load(ordering: .sequentiallyConsistent)
        return Self.mainSlotCount + Int(min(extra, UInt64(Self.maxExtensionSlots)))
    }

    /// The slots a scan of other processes' slots covers: those below the highest ever claimed.
    var slotsInUse: Int {
        min(capacity, Int(min(header(.slotsUsed).pointee.load(ordering: .sequentiallyConsistent), UInt64(Self.maxSlots))))
    }

    func header(_ field: Header) -> UnsafeMutablePointer<Atomic<UInt64>> {
        (base + field.rawValue * 8).assumingMemoryBound(to: Atomic<UInt64>.self)
    }

    /// A word of slot `slot`, which must be below `capacity`; nil if the slot is in the slots
    /// file and that cannot be mapped (it was removed while in use).
    func word(_ slot: Int, _ field: SlotWord) -> UnsafeMutablePointer<Atomic<UInt64>>? {
        if slot < Self.mainSlotCount {
            return (base + Self.headerSize + slot * Self.slotSize + field.rawValue * 8).assumingMemoryBound(to: Atomic<UInt64>.self)
        }
        guard let extensionBase = try? extensionMapping() else { return nil }
        return (extensionBase + (slot - Self.mainSlotCount) * Self.slotSize + field.rawValue * 8).assumingMemoryBound(to: Atomic<UInt64>.self)
    }

    /// The slots file's mapping, made on first use.
    private func extensionMapping() throws(StorageError) -> UnsafeMutableRawPointer {
        if let mapped = UnsafeMutableRawPointer(bitPattern: extensionBase.load(ordering: .sequentiallyConsistent)) { return mapped }
        let fd = extensionPath.withCString { open($0, O_RDWR | O_CLOEXEC) }
        guard fd >= 0 else { throw .io(path: extensionPath, operation: "open", errno: errno) }
        defer { closeDescriptor(fd) }
        let mapped = mmap(nil, Self.extensionMappingLength, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
        guard let mapped, mapped != MAP_FAILED else { throw .io(path: extensionPath, operation: "mmap", errno: errno) }
        let (exchanged, winner) = extensionBase.compareExchange(
            expected: 0, desired: UInt(bitPattern: mapped), ordering: .sequentiallyConsistent)
        if exchanged { return mapped }
        munmap(mapped, Self.extensionMappingLength)
        return UnsafeMutableRawPointer(bitPattern: winner)!
    }

    // MARK: Claiming and freeing

    /// Claims a free slot for process `pid` (taking over slots of processes that are gone if no
    /// slot is free, and growing the slots file if none of those is left either) and returns
    /// its number. Throws `tooManyProcesses`, naming `databasePath`, once `maxSlots` processes
    /// have the file open.
    func claim(pid: UInt64, databasePath: String) throws(StorageError) -> Int {
        let startTime = LockFile.processStatus(pid: pid)?.startTime ?? 0
        while true {
            let capacity = capacity
            if let index = claimFree(below: capacity, pid: pid, startTime: startTime) { return index }
            guard try grow(from: capacity) else { throw .tooManyProcesses(path: databasePath, limit: Self.maxSlots) }
        }
    }

    /// Claims a free slot below `capacity`: on a first pass only free ones, on a second also
    /// those of processes that are gone. Nil if every slot belongs to a live process.
    private func claimFree(below capacity: Int, pid: UInt64, startTime: UInt64) -> Int? {
        for pass in 0..<2 {
            for index in 0..<capacity {
                guard let owner = word(index, .pid) else { continue }
                let current = owner.pointee.load(ordering: .sequentiallyConsistent)
                if current != 0 {
                    // On the second pass, slots of processes that are gone are taken over.
                    guard pass == 1, let started = word(index, .startTime),
                        !LockFile.isAlive(pid: current, startTime: started.pointee.load(ordering: .sequentiallyConsistent))
                    else { continue }
                    free(index, owner: current)
                }
                guard owner.pointee.compareExchange(expected: 0, desired: pid, ordering: .sequentiallyConsistent).exchanged else { continue }
                word(index, .oldestPin)!.pointee.store(0, ordering: .sequentiallyConsistent)
                word(index, .writersWaiting)!.pointee.store(0, ordering: .sequentiallyConsistent)
                word(index, .startTime)!.pointee.store(startTime, ordering: .sequentiallyConsistent)
                // Scans cover the slots below the highest one ever claimed.
                let used = header(.slotsUsed)
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
    /// process claims it while its words are cleared (claims take only free slots), and a
    /// marked slot is never freed again: its freer ends by marking it free, which would free
    /// the slot of a process that claimed it after a second freeing, leaving that process's
    /// pins unseen. A slot whose freer died while it cleared it stays marked, and unused.
    func free(_ slot: Int, owner: UInt64) {
        guard owner != Self.reclaiming, let pid = word(slot, .pid),
            pid.pointee.compareExchange(expected: owner, desired: Self.reclaiming, ordering: .sequentiallyConsistent).exchanged
        else { return }
        for field in [SlotWord.oldestPin, .writersWaiting, .startTime] { word(slot, field)!.pointee.store(0, ordering: .sequentiallyConsistent) }
        pid.pointee.store(0, ordering: .sequentiallyConsistent)
    }

    // MARK: Growing

    /// How many slots the slots file has once it grows from `extra` slots.
    static func grownExtensionSlots(from extra: Int) -> Int {
        min(maxExtensionSlots, extra == 0 ? firstExtensionSlots : 2 * extra)
    }

    /// Adds slots, found full at `capacity`, by growing the slots file (making it first):
    /// under the grow lock, the file is lengthened, its new slots cleared, and only then does
    /// the header count them, so no process reads a slot the file does not hold yet. A process
    /// that dies on the way leaves the count as it was and a file that may be longer, which the
    /// next growth uses. Returns false at `maxSlots`; does nothing if another process grew them
    /// meanwhile.
    func grow(from capacity: Int) throws(StorageError) -> Bool {
        guard capacity < Self.maxSlots else { return false }
        try withGrowLock { () throws(StorageError) in
            let extra = capacity - Self.mainSlotCount
            guard self.capacity == capacity else { return }
            let target = Self.grownExtensionSlots(from: extra)
            let fd = extensionPath.withCString { open($0, O_RDWR | O_CREAT | O_CLOEXEC, 0o644) }
            guard fd >= 0 else { throw .io(path: extensionPath, operation: "open", errno: errno) }
            defer { closeDescriptor(fd) }
            var info = stat()
            guard fstat(fd, &info) == 0 else { throw .io(path: extensionPath, operation: "fstat", errno: errno) }
            if Int(info.st_size) < target * Self.slotSize, ftruncate(fd, off_t(target * Self.slotSize)) != 0 {
                throw .io(path: extensionPath, operation: "ftruncate", errno: errno)
            }
            // A file left by an earlier use of the lock file may hold old slots: clear the new ones.
            let mapped = try extensionMapping()
            for offset in stride(from: extra * Self.slotSize, to: target * Self.slotSize, by: 8) {
                (mapped + offset).assumingMemoryBound(to: Atomic<UInt64>.self).pointee.store(0, ordering: .sequentiallyConsistent)
            }
            header(.extensionSlots).pointee.store(UInt64(target), ordering: .sequentiallyConsistent)
        }
        return true
    }

    /// Runs `body` holding the grow lock: a header word naming its holder by pid (low 32 bits)
    /// and the low 32 bits of its start time, taken over from a holder that is gone.
    private func withGrowLock(_ body: () throws(StorageError) -> Void) throws(StorageError) {
        let pid = UInt64(getpid())
        let me = pid | (((LockFile.processStatus(pid: pid)?.startTime ?? 0) & 0xFFFF_FFFF) << 32)
        let lock = header(.growLock)
        while true {
            let (taken, holder) = lock.pointee.compareExchange(expected: 0, desired: me, ordering: .sequentiallyConsistent)
            if taken { break }
            if !Self.isAlive(growLockHolder: holder) {
                _ = lock.pointee.compareExchange(expected: holder, desired: 0, ordering: .sequentiallyConsistent)
                continue
            }
            usleep(100)
        }
        defer { lock.pointee.store(0, ordering: .sequentiallyConsistent) }
        try body()
    }

    /// Whether the process the grow lock's word `holder` names still runs.
    static func isAlive(growLockHolder holder: UInt64) -> Bool {
        let pid = holder & 0xFFFF_FFFF
        guard LockFile.isAlive(pid: pid, startTime: 0) else { return false }
        guard let status = LockFile.processStatus(pid: pid) else { return true }
        return status.startTime & 0xFFFF_FFFF == holder >> 32
    }

    // MARK: The files

    /// Makes the lock file open at `fd` ready to map: gives a new (or foreign, or cut short) one
    /// its header and empty slots, and starts one of the previous format over as this format
    /// if no process of that format has it open; both under the writer lock, so that two
    /// processes do not do it at once. Throws `incompatibleLockFile` for a lock file of another
    /// format that may be in use.
    static func prepare(fd: Int32, lockPath: String, databasePath: String) throws(StorageError) {
        // A lock file in use is whole; a new one is made under the writer lock, which nobody can
        // hold idle before the file is made. One of the previous format that a live process uses
        // is refused before that: such a process may hold the writer lock while it is idle.
        if try isReady(fd, lockPath: lockPath, databasePath: databasePath) { return }
        try refuseIfPreviousFormatInUse(fd, lockPath: lockPath, databasePath: databasePath)
        try LockFile.lock(fd, path: lockPath)
        defer { LockFile.unlock(fd) }
        if try isReady(fd, lockPath: lockPath, databasePath: databasePath) { return }
        // One of the previous format that no live process uses is made anew, as a deleted one
        // would be.
        try refuseIfPreviousFormatInUse(fd, lockPath: lockPath, databasePath: databasePath)
        var fresh = [UInt8](repeating: 0, count: size)
        fresh.withUnsafeMutableBytes { bytes in
            bytes.storeBytes(of: magic.littleEndian, toByteOffset: 0, as: UInt64.self)
            bytes.storeBytes(of: formatVersion.littleEndian, toByteOffset: 8, as: UInt64.self)
        }
        // A slots file left beside it belongs to an earlier use of the lock file.
        let extensionFile = extensionPath(lockPath).withCString { open($0, O_WRONLY | O_CLOEXEC) }
        if extensionFile >= 0 {
            _ = ftruncate(extensionFile, 0)
            closeDescriptor(extensionFile)
        }
        guard ftruncate(fd, off_t(size)) == 0 else { throw .io(path: lockPath, operation: "ftruncate", errno: errno) }
        let written = fresh.withUnsafeBytes { pwrite(fd, $0.baseAddress, size, 0) }
        guard written == size else { throw .io(path: lockPath, operation: "write", errno: errno) }
    }

    /// Whether the lock file has its full size and a header of this format. Throws
    /// `incompatibleLockFile` for a lock file of a format other than this one and the previous.
    private static func isReady(_ fd: Int32, lockPath: String, databasePath: String) throws(StorageError) -> Bool {
        var header = [UInt64](repeating: 0, count: 2)
        let read = header.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 16, 0) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .io(path: lockPath, operation: "fstat", errno: errno) }
        guard read == 16, UInt64(littleEndian: header[0]) == magic else { return false }
        let version = UInt64(littleEndian: header[1])
        if version == formatVersion { return Int(info.st_size) == size }
        if version == previousFormatVersion { return false }
        throw .incompatibleLockFile(path: lockPath, database: databasePath, version: version, supported: formatVersion, inUse: false)
    }

    /// Throws `incompatibleLockFile` if the lock file is of the previous format and a slot of it
    /// names a live process.
    private static func refuseIfPreviousFormatInUse(_ fd: Int32, lockPath: String, databasePath: String) throws(StorageError) {
        guard let previous = previousFormatSlots(fd),
            previous.contains(where: { LockFile.isAlive(pid: $0.pid, startTime: $0.startTime) })
        else { return }
        throw .incompatibleLockFile(path: lockPath, database: databasePath, version: previousFormatVersion, supported: formatVersion, inUse: true)
    }

    /// The owners of the slots of a lock file of the previous format (which had the same size,
    /// header and slots as this one, and no slots file), or nil if it is not one.
    private static func previousFormatSlots(_ fd: Int32) -> [(pid: UInt64, startTime: UInt64)]? {
        var words = [UInt64](repeating: 0, count: size / 8)
        let read = words.withUnsafeMutableBytes { pread(fd, $0.baseAddress, size, 0) }
        guard read == size, UInt64(littleEndian: words[0]) == magic, UInt64(littleEndian: words[1]) == previousFormatVersion else {
            return nil
        }
        return (0..<mainSlotCount).compactMap { slot in
            let at = (headerSize + slot * slotSize) / 8
            return words[at] == 0 ? nil : (words[at], words[at + 1])
        }
    }

    /// How many slots the lock file at `lockPath` has (its own and its slots file's), for
    /// removing the processes' FIFOs: `mainSlotCount` if it cannot be read.
    static func capacity(ofLockFileAt lockPath: String) -> Int {
        let fd = lockPath.withCString { open($0, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { return mainSlotCount }
        defer { closeDescriptor(fd) }
        var words = [UInt64](repeating: 0, count: Header.allCases.count)
        let read = words.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard read == words.count * 8, UInt64(littleEndian: words[0]) == magic, UInt64(littleEndian: words[1]) == formatVersion
        else { return mainSlotCount }
        return mainSlotCount + Int(min(words[Header.extensionSlots.rawValue], UInt64(maxExtensionSlots)))
    }
}
