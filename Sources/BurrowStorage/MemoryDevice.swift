/// An in-memory database: its bytes live in a buffer that grows by doubling. Growing copies into
/// a new buffer; the old one stays alive for the snapshots that still read it (their pages are
/// never rewritten while they are pinned), exactly as an old file mapping does.
///
/// State: `current` (the buffer writes go to) and `length` are guarded by the mutex.
package final class MemoryDevice: StorageDevice {
    package let name: String
    /// How the names of in-memory databases begin: they name no file.
    package static let namePrefix = "in-memory database "
    private let state: Locked<(current: MemoryRegion, length: Int)>

    package init(name: String) {
        self.name = name
        state = Locked((MemoryRegion(capacity: 1 << 20), 0))
    }

    package func size() throws(StorageError) -> Int { state.withLock { $0.length } }

    package func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(StorageError) -> Int {
        state.withLock { s in
            let n = max(0, min(buffer.count, s.length - offset))
            if n > 0 { buffer.baseAddress!.copyMemory(from: s.current.base + offset, byteCount: n) }
            return n
        }
    }

    package func write(_ pieces: [(offset: Int, bytes: UnsafeRawBufferPointer)]) throws(StorageError) {
        state.withLock { s in
            for piece in pieces {
                let end = piece.offset + piece.bytes.count
                if end > s.current.length {
                    var capacity = s.current.length
                    while capacity < end { capacity *= 2 }
                    let grown = MemoryRegion(capacity: capacity)
                    grown.mutableBase.copyMemory(from: s.current.base, byteCount: s.length)
                    s.current = grown
                }
                (s.current.mutableBase + piece.offset).copyMemory(from: piece.bytes.baseAddress!, byteCount: piece.bytes.count)
                s.length = max(s.length, end)
            }
        }
    }

    package func sync() throws(StorageError) {}

    package func map(minimumLength: Int) throws(StorageError) -> any MappedRegion {
        state.withLock { s in
            if s.current.length < minimumLength {
                var capacity = s.current.length
                while capacity < minimumLength { capacity *= 2 }
                let grown = MemoryRegion(capacity: capacity)
                grown.mutableBase.copyMemory(from: s.current.base, byteCount: s.length)
                s.current = grown
            }
            return s.current
        }
    }

    package func close() {}

    package var isInMemory: Bool { true }
}

/// A zero-filled heap buffer serving as a mapped region.
final class MemoryRegion: MappedRegion {
    // Written only by the device while it holds its mutex and only at pages no pinned snapshot
    // can reach (the engine's reuse rule), so readers on other threads never race with a write.
    nonisolated(unsafe) let mutableBase: UnsafeMutableRawPointer
    let length: Int
    var base: UnsafeRawPointer { UnsafeRawPointer(mutableBase) }

    init(capacity: Int) {
        mutableBase = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 4096)
        mutableBase.initializeMemory(as: UInt8.self, repeating: 0, count: capacity)
        length = capacity
    }

    deinit { mutableBase.deallocate() }
}
