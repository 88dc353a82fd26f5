/// XXH64 (Yann Collet's xxHash, 64-bit variant), written out here so the engine has no dependency.
/// Every page and meta page carries one, seeded with the page's number so that a page written to
/// the wrong place fails its check just as a damaged one does.
@usableFromInline
package enum Checksum {
    private static let p1: UInt64 = 11_400_714_785_074_694_791
    private static let p2: UInt64 = 14_029_467_366_897_019_727
    private static let p3: UInt64 = 1_609_587_929_392_839_161
    private static let p4: UInt64 = 9_650_029_242_287_828_579
    private static let p5: UInt64 = 2_870_177_450_012_600_261

    @inline(__always) private static func rotl(_ x: UInt64, _ r: UInt64) -> UInt64 {
        (x &<< r) | (x &>> (64 &- r))
    }
    @inline(__always) private static func round(_ acc: UInt64, _ input: UInt64) -> UInt64 {
        rotl(acc &+ input &* p2, 31) &* p1
    }
    @inline(__always) private static func merge(_ acc: UInt64, _ value: UInt64) -> UInt64 {
        (acc ^ round(0, value)) &* p1 &+ p4
    }

    @usableFromInline
    package static func xxh64(_ bytes: UnsafeRawBufferPointer, seed: UInt64) -> UInt64 {
        guard let base = bytes.baseAddress else { return avalanche(seed &+ p5) }
        let length = bytes.count
        var offset = 0
        var h: UInt64
        if length >= 32 {
            var v1 = seed &+ p1 &+ p2
            var v2 = seed &+ p2
            var v3 = seed
            var v4 = seed &- p1
            // A pointer walk with no overflow checks: the hot loop of every page write and first
            // page read is the four rounds and nothing else.
            var stripe = base
            let last = base + (length &- 32)
            repeat {
                v1 = round(v1, stripe.u64(0))
                v2 = round(v2, stripe.u64(8))
                v3 = round(v3, stripe.u64(16))
                v4 = round(v4, stripe.u64(24))
                stripe += 32
            } while stripe <= last
            offset = stripe - base
            h = rotl(v1, 1) &+ rotl(v2, 7) &+ rotl(v3, 12) &+ rotl(v4, 18)
            h = merge(h, v1)
            h = merge(h, v2)
            h = merge(h, v3)
            h = merge(h, v4)
        } else {
            h = seed &+ p5
        }
        h = h &+ UInt64(length)
        while offset + 8 <= length {
            h ^= round(0, base.u64(offset))
            h = rotl(h, 27) &* p1 &+ p4
            offset += 8
        }
        if offset + 4 <= length {
            h ^= UInt64(base.u32(offset)) &* p1
            h = rotl(h, 23) &* p2 &+ p3
            offset += 4
        }
        while offset < length {
            h ^= UInt64(base.u8(offset)) &* p5
            h = rotl(h, 11) &* p1
            offset += 1
        }
        return avalanche(h)
    }

    @inline(__always) private static func avalanche(_ value: UInt64) -> UInt64 {
        var h = value
        h ^= h &>> 33
        h = h &* p2
        h ^= h &>> 29
        h = h &* p3
        h ^= h &>> 32
        return h
    }

    /// The checksum stored in the first eight bytes of a page (or of an overflow run's first page):
    /// it covers every byte after itself.
    static func page(_ base: UnsafeRawPointer, length: Int, pageNumber: UInt32) -> UInt64 {
        xxh64(UnsafeRawBufferPointer(start: base + 8, count: length - 8), seed: UInt64(pageNumber))
    }
}
