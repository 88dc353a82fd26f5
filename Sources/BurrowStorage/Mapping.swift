import Synchronization

/// A mapped region plus the record of which of its pages have passed their checksum and
/// structure checks. Pages are checked on first use rather than on open, so that opening costs
/// the same whatever the file's size, and checked once, so that hot reads cost no hashing.
///
/// A bit is set by any reader after checking a page, and by the writer for every page it writes
/// (it computed their checksums itself). A reused page is rewritten only once no live snapshot can
/// reach its old contents, and the version that can reach the new ones is published under the
/// storage mutex, which orders the writer's bit before every reader of that version.
final class Mapping: Sendable {
    let region: any MappedRegion
    // Points into `region`, which this object keeps alive; the memory is never written through.
    nonisolated(unsafe) let base: UnsafeRawPointer
    let pageSize: Int
    let pageCapacity: Int
    // Allocated in init, freed in deinit; each word is only touched through atomic operations.
    nonisolated(unsafe) private let verified: UnsafeMutablePointer<Atomic<UInt64>>
    private let words: Int

    init(region: any MappedRegion, pageSize: Int) {
        self.region = region
        base = region.base
        self.pageSize = pageSize
        pageCapacity = region.length / pageSize
        words = (pageCapacity + 63) / 64
        verified = .allocate(capacity: words)
        for i in 0..<words { (verified + i).initialize(to: Atomic(0)) }
    }

    deinit {
        verified.deinitialize(count: words)
        verified.deallocate()
    }

    @inline(__always) func page(_ number: PageNumber) -> UnsafeRawPointer {
        base + Int(number) * pageSize
    }

    @inline(__always) func isVerified(_ number: PageNumber) -> Bool {
        let n = Int(number)
        return verified[n >> 6].load(ordering: .relaxed) & (1 << UInt64(n & 63)) != 0
    }

    @inline(__always) func markVerified(_ number: PageNumber) {
        let n = Int(number)
        guard n < pageCapacity else { return }
        verified[n >> 6].bitwiseOr(1 << UInt64(n & 63), ordering: .relaxed)
    }
}
