/// The seeded random number generator every randomized test and test worker uses: SplitMix64,
/// small, fast and the same sequence on every platform, so that a run replays from its seed
/// (see ``TestSeed``) and a worker process and its test compute the same values from one seed.
///
/// The sequence is the one the tests' earlier copies of SplitMix64 produced, so a seed printed
/// by an earlier run still replays it.
public struct TestRandom: RandomNumberGenerator, Sendable {
    /// The generator's state: the seed, advanced by a constant on every draw.
    private var state: UInt64

    /// A generator whose sequence is determined by `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z &>> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z &>> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z &>> 31)
    }

    /// A uniform integer in `range`, from one draw (the modulo bias is irrelevant for tests).
    public mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.upperBound - range.lowerBound + 1))
    }

    /// A uniform integer in `range`, which must not be empty; the same draw as the closed range.
    public mutating func int(_ range: Range<Int>) -> Int { int(range.lowerBound...(range.upperBound - 1)) }

    /// An integer in `0..<upperBound`, the same draw as `int(0..<upperBound)`.
    ///
    /// It takes an `Int`, unlike the standard library's `next(upperBound:)` for unsigned types,
    /// which draws differently; an unlabelled integer literal picks this one.
    public mutating func next(upperBound: Int) -> Int { int(0..<upperBound) }

    /// True with probability `percent` / 100.
    public mutating func chance(_ percent: Int) -> Bool { int(0..<100) < percent }

    /// An element of `array`, which must not be empty.
    public mutating func element<T>(_ array: [T]) -> T { array[int(0..<array.count)] }

    /// `count` random bytes: each draw's 8 bytes, least significant first, the last draw cut
    /// short.
    public mutating func bytes(_ count: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            var offset = 0
            while offset + 8 <= count {
                raw.storeBytes(of: next().littleEndian, toByteOffset: offset, as: UInt64.self)
                offset += 8
            }
            if offset < count {
                var word = next()
                while offset < count {
                    raw[offset] = UInt8(truncatingIfNeeded: word)
                    word >>= 8
                    offset += 1
                }
            }
            initialized = count
        }
    }
}
