import BurrowTestSupport
import Foundation
import Synchronization

@testable import BurrowStorage
@testable import StorageCrashWorker

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// A disk for the failure tests: it keeps what the engine wrote (which reads see at once, as a
// page cache does) apart from what a sync made durable, and can fail a sync on demand or lose
// power at a chosen device call.

struct FailureTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// One write the engine made that is not yet durable.
struct SimulatedWrite: Sendable {
    var offset: Int
    var bytes: [UInt8]
}

/// The memory a `SimulatedDisk` hands out as its mapped region: one large anonymous mapping,
/// reserved up front and zero-filled lazily by the kernel, into which every write goes, so a
/// region handed out keeps showing later writes, as a shared file mapping does.
final class SimulatedDiskMemory: MappedRegion {
    // Written only by the disk under its mutex, at pages no live snapshot reads (the engine's rule).
    nonisolated(unsafe) let mutableBase: UnsafeMutableRawPointer
    let length: Int
    var base: UnsafeRawPointer { UnsafeRawPointer(mutableBase) }

    init(capacity: Int) {
        let address = mmap(nil, capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
        guard let address, address != MAP_FAILED else { fatalError("mmap of \(capacity) bytes failed (errno \(errno))") }
        mutableBase = address
        length = capacity
    }

    deinit { munmap(mutableBase, length) }
}

/// A simulated disk. The engine's writes go into `memory` at once (what reads and the mapping
/// see) and are queued as pending; `sync()` makes the queue durable. A power loss builds the
/// image the disk would hold afterwards: the durable bytes plus some of the pending writes, each
/// applied whole, not at all, or torn at 512-byte sectors.
final class SimulatedDisk: StorageDevice {
    let name: String
    let memory: SimulatedDiskMemory

    struct State: Sendable {
        var length = 0
        var durable: [UInt8] = []
        var pending: [SimulatedWrite] = []
        /// Calls to `write` and `sync` so far.
        var events = 0
        var writeCalls = 0
        var syncCalls = 0
        var closed = false
        /// `sync` calls (1-based) that fail.
        var failingSyncs: Set<Int> = []
        /// Whether a failing sync drops the pending writes from memory's durable future (they stay
        /// visible in memory either way; only `durable` is affected).
        var failedSyncDropsWrites = false
        /// The event (1-based) at which power is lost; from then on writes and syncs fail.
        var powerLossAt: Int?
        var powerLossRandom = TestRandom(seed: 0)
        var lostImage: [UInt8]?
        /// After a power loss or a failed sync: what the engine did afterwards.
        var writesAfterFailure = 0
        var syncsAfterFailure = 0
        var failed = false
    }

    let state: Locked<State>

    /// Test hooks around `sync`, run outside the disk's mutex: a delay (so that commits pile up
    /// behind a sync in flight), and a closure run once, at the start of the next sync.
    private let hooks = Locked<(delay: UInt32, beforeNextSync: (@Sendable () -> Void)?)>((0, nil))

    /// Makes every later sync take at least `microseconds`.
    func setSyncDelay(microseconds: UInt32) { hooks.withLock { $0.delay = microseconds } }

    /// Runs `body` at the start of the next sync, on the syncing thread, before the sync takes
    /// effect: whatever it writes may or may not be covered by that sync, as with a real disk.
    func beforeNextSync(_ body: @escaping @Sendable () -> Void) { hooks.withLock { $0.beforeNextSync = body } }

    /// An empty disk, or one holding `image` (all of it durable).
    init(name: String = "simulated disk", image: [UInt8] = [], capacity: Int = 1 << 28) {
        self.name = name
        let memory = SimulatedDiskMemory(capacity: max(capacity, image.count))
        if !image.isEmpty { image.withUnsafeBytes { memory.mutableBase.copyMemory(from: $0.baseAddress!, byteCount: $0.count) } }
        self.memory = memory
        var initial = State()
        initial.length = image.count
        initial.durable = image
        state = Locked(initial)
    }

    // MARK: Control

    /// Loses power at the `event`-th call to `write` or `sync` from now (1 = the next one).
    func losePower(atEvent event: Int, seed: UInt64) {
        state.withLock { s in
            s.powerLossAt = s.events + event
            s.powerLossRandom = TestRandom(seed: seed)
        }
    }

    /// Makes the `n`-th `sync` from now (1 = the next one) fail.
    func failSync(after n: Int, dropsWrites: Bool = false) {
        state.withLock { s in
            s.failingSyncs.insert(s.syncCalls + n)
            s.failedSyncDropsWrites = dropsWrites
        }
    }

    var lostImage: [UInt8]? { state.withLock { $0.lostImage } }
    var durableImage: [UInt8] { state.withLock { $0.durable } }
    var isClosed: Bool { state.withLock { $0.closed } }
    var counts: (writes: Int, syncs: Int, writesAfterFailure: Int, syncsAfterFailure: Int) {
        state.withLock { ($0.writeCalls, $0.syncCalls, $0.writesAfterFailure, $0.syncsAfterFailure) }
    }

    /// Everything written so far, durable or not: what the kernel's page cache would show.
    var currentImage: [UInt8] {
        state.withLock { s in [UInt8](UnsafeRawBufferPointer(start: memory.base, count: s.length)) }
    }

    // MARK: StorageDevice

    func size() throws(StorageError) -> Int { state.withLock { $0.length } }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(StorageError) -> Int {
        state.withLock { s in
            let n = max(0, min(buffer.count, s.length - offset))
            if n > 0 { buffer.baseAddress!.copyMemory(from: memory.base + offset, byteCount: n) }
            return n
        }
    }

    func write(_ pieces: [(offset: Int, bytes: UnsafeRawBufferPointer)]) throws(StorageError) {
        try state.withLock { s throws(StorageError) in
            try begin(&s, operation: "write")
            s.writeCalls += 1
            for piece in pieces {
                let end = piece.offset + piece.bytes.count
                guard end <= memory.length else { throw .io(path: name, operation: "write", errno: ENOSPC) }
                if let source = piece.bytes.baseAddress {
                    (memory.mutableBase + piece.offset).copyMemory(from: source, byteCount: piece.bytes.count)
                }
                s.length = max(s.length, end)
                s.pending.append(SimulatedWrite(offset: piece.offset, bytes: Array(piece.bytes)))
            }
            // The write was issued; any part of it may have reached the platter.
            try losePowerIfDue(&s, operation: "write")
        }
    }

    func sync() throws(StorageError) {
        let (delay, hook) = hooks.withLock { h in
            defer { h.beforeNextSync = nil }
            return (h.delay, h.beforeNextSync)
        }
        hook?()
        if delay > 0 { usleep(delay) }  // the simulated slow disk the test asked for
        try state.withLock { s throws(StorageError) in
            try begin(&s, operation: "fsync")
            s.syncCalls += 1
            // Power fails while the sync is under way: some of the pending writes made it.
            try losePowerIfDue(&s, operation: "fsync")
            if s.failingSyncs.contains(s.syncCalls) {
                if s.failedSyncDropsWrites { s.pending.removeAll() }
                s.failed = true
                throw .io(path: name, operation: "fsync", errno: EIO)
            }
            s.durable = Self.apply(s.pending, to: s.durable)
            s.pending.removeAll()
        }
    }

    /// Refuses a call on a closed or failed disk (counting calls made after a failure, which
    /// must never happen: nothing is retried), and counts it as an event otherwise.
    private func begin(_ s: inout State, operation: String) throws(StorageError) {
        if s.closed { throw .closed(path: name) }
        if s.failed {
            if operation == "write" { s.writesAfterFailure += 1 } else { s.syncsAfterFailure += 1 }
            throw .io(path: name, operation: operation, errno: EIO)
        }
        s.events += 1
    }

    /// At the chosen event, the power fails: the image that survives is the durable bytes plus
    /// any part of the pending writes, and the disk fails every call from then on.
    private func losePowerIfDue(_ s: inout State, operation: String) throws(StorageError) {
        guard s.events == s.powerLossAt else { return }
        s.lostImage = Self.powerLossImage(s.durable, s.pending, random: &s.powerLossRandom)
        s.failed = true
        throw .io(path: name, operation: operation, errno: EIO)
    }

    func map(minimumLength: Int) throws(StorageError) -> any MappedRegion {
        guard minimumLength <= memory.length else { throw .io(path: name, operation: "mmap", errno: ENOMEM) }
        return memory
    }

    func close() { state.withLock { $0.closed = true } }

    // MARK: Images

    static func apply(_ writes: [SimulatedWrite], to image: [UInt8]) -> [UInt8] {
        var image = image
        for write in writes {
            let end = write.offset + write.bytes.count
            if end > image.count { image.append(contentsOf: repeatElement(0, count: end - image.count)) }
            image.withUnsafeMutableBytes { target in
                write.bytes.withUnsafeBytes { (target.baseAddress! + write.offset).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            }
        }
        return image
    }

    static let sectorSize = 512

    /// The image after a power loss: `durable` plus each pending write applied whole, not at all,
    /// or torn (a random subset of its sectors, a prefix of them, or a prefix of bytes). A write
    /// that extends the file may leave the new length behind even when its data is lost (the
    /// gap reads as zeros), as on file systems that persist sizes before data.
    static func powerLossImage(_ durable: [UInt8], _ pending: [SimulatedWrite], random: inout TestRandom) -> [UInt8] {
        var image = durable
        // Now and then the whole queue made it, or none of it.
        let mood = random.int(0..<10)
        for write in pending {
            var pieces: [SimulatedWrite] = []
            let roll = mood == 0 ? 0 : (mood == 1 ? 50 : random.int(0..<100))
            let sectors = (write.bytes.count + sectorSize - 1) / sectorSize
            func sector(_ i: Int) -> SimulatedWrite {
                let start = i * sectorSize
                let end = min(write.bytes.count, start + sectorSize)
                return SimulatedWrite(offset: write.offset + start, bytes: Array(write.bytes[start..<end]))
            }
            if roll < 35 {
                pieces = [write]
            } else if roll < 65 {
                pieces = []
            } else if roll < 80 {
                pieces = (0..<sectors).filter { _ in random.chance(50) }.map(sector)
            } else if roll < 95 {
                pieces = (0..<random.int(0..<max(1, sectors))).map(sector)
            } else {
                let n = random.int(0..<max(1, write.bytes.count))
                pieces = [SimulatedWrite(offset: write.offset, bytes: Array(write.bytes[..<n]))]
            }
            image = apply(pieces, to: image)
            let end = write.offset + write.bytes.count
            if end > image.count, random.chance(30) {
                image.append(contentsOf: repeatElement(0, count: end - image.count))
            }
        }
        return image
    }
}
