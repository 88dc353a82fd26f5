import BurrowStore

/// A small, fast, seeded generator so that every run (and both engines) see the same data.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The key/value data of the storage workloads, laid out in two contiguous buffers so that the
/// timed loops hand both engines pointers into them without allocating.
///
/// Entry `i` has the 8-byte big-endian key `i` (SQLite stores the integer `i` as its rowid) and
/// a `valueSize`-byte pseudo-random value that depends only on `i`.
struct KeyValueDataset {
    static let keySize = 8
    static let valueSize = 60

    let count: Int
    let keys: [UInt8]
    let values: [UInt8]
    /// The order the bulk insert uses (a shuffle of 0..<count).
    let insertOrder: [Int]
    /// The order the point reads use (another shuffle).
    let readOrder: [Int]

    init(count: Int, seed: UInt64 = 0xB0_22_0E) {
        self.count = count
        var keys = [UInt8](repeating: 0, count: count * Self.keySize)
        var values = [UInt8](repeating: 0, count: count * Self.valueSize)
        keys.withUnsafeMutableBytes { k in
            values.withUnsafeMutableBytes { v in
                for i in 0..<count {
                    Self.writeKey(i, into: k.baseAddress! + i * Self.keySize)
                    Self.writeValue(i, into: v.baseAddress! + i * Self.valueSize)
                }
            }
        }
        self.keys = keys
        self.values = values
        var random = SplitMix64(seed: seed)
        var order = Array(0..<count)
        order.shuffle(using: &random)
        insertOrder = order
        order.shuffle(using: &random)
        readOrder = order
    }

    /// Writes the big-endian key of entry `i`.
    @inline(__always)
    static func writeKey(_ i: Int, into p: UnsafeMutableRawPointer) {
        p.storeBytes(of: UInt64(i).bigEndian, as: UInt64.self)
    }

    /// Writes the value of entry `i` (the same bytes whichever dataset asks).
    @inline(__always)
    static func writeValue(_ i: Int, into p: UnsafeMutableRawPointer) {
        var random = SplitMix64(seed: UInt64(i) &* 0x2545_F491_4F6C_DD1D)
        var offset = 0
        while offset < valueSize {
            var word = random.next()
            let n = min(8, valueSize - offset)
            withUnsafeBytes(of: &word) { (p + offset).copyMemory(from: $0.baseAddress!, byteCount: n) }
            offset += n
        }
    }

    func withBuffers<R>(_ body: (KeyValueBuffers) throws -> R) rethrows -> R {
        try keys.withUnsafeBytes { k in
            try values.withUnsafeBytes { v in try body(KeyValueBuffers(keys: k, values: v)) }
        }
    }
}

/// Pointers into a dataset's buffers, valid inside `withBuffers`.
struct KeyValueBuffers {
    let keys: UnsafeRawBufferPointer
    let values: UnsafeRawBufferPointer

    @inline(__always) func key(_ i: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: keys.baseAddress! + i * KeyValueDataset.keySize, count: KeyValueDataset.keySize)
    }

    @inline(__always) func value(_ i: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: values.baseAddress! + i * KeyValueDataset.valueSize, count: KeyValueDataset.valueSize)
    }
}
