import BurrowStorage
import BurrowTestSupport

/// What the shared-file workers and `SharedFileTests` agree a file holds: one tree, "bank", with
///
/// - "a0" … "a<K-1>": account balances (8-byte little-endian), whose sum every commit keeps;
/// - "accounts": K, and "total": the sum the balances must have;
/// - "counter": the number of commits that changed the bank (or, for the counter workers, the
///   counter they increment), 8 bytes;
/// - "blob": 8 bytes of seed followed by bytes generated from it (0 to 12,000 more, so often an
///   overflow run that every rewrite frees), which a reader can check by itself.
///
/// Every name starts with `Shared` so that the test target, which imports this module and
/// `StorageCrashWorker` together, sees no clash.
enum SharedBank {
    static let treeName = "bank"
    static let counterKey = Array("counter".utf8)
    static let totalKey = Array("total".utf8)
    static let accountsKey = Array("accounts".utf8)
    static let blobKey = Array("blob".utf8)
    static let initialBalance: UInt64 = 1000
    static let longestBlob = 12_000

    static func accountKey(_ index: Int) -> [UInt8] { Array("a\(index)".utf8) }

    static func encode(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }

    /// The 8-byte little-endian value, or nil if `bytes` is not 8 bytes long.
    static func decode<C: Collection<UInt8>>(_ bytes: C) -> UInt64? {
        guard bytes.count == 8 else { return nil }
        var value: UInt64 = 0
        for (i, byte) in bytes.enumerated() { value |= UInt64(byte) << (8 * UInt64(i)) }
        return value
    }

    /// A blob: its seed, then `length` bytes generated from the seed.
    static func blob(seed: UInt64, length: Int) -> [UInt8] {
        var rng = TestRandom(seed: seed)
        return encode(seed) + rng.bytes(length)
    }

    /// Why `bytes` is not a blob `blob(seed:length:)` makes, or nil.
    static func blobProblem(_ bytes: [UInt8]) -> String? {
        guard bytes.count >= 8, let seed = decode(bytes[0..<8]) else { return "the blob has \(bytes.count) bytes, fewer than its seed" }
        let expected = blob(seed: seed, length: bytes.count - 8)
        guard expected != bytes else { return nil }
        let at = zip(expected, bytes).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? -1
        return "the blob of \(bytes.count) bytes (seed \(seed)) differs from its seed's bytes at byte \(at)"
    }

    /// Creates the accounts in a file that has none (in one transaction, under the write lock,
    /// so that two processes setting up at once make one bank). Returns the version.
    @discardableResult
    static func setUp(_ storage: Storage, accounts: Int) throws -> UInt64 {
        let txn = try storage.beginWriteBlocking()
        let tree = try txn.openTree(named: treeName)
        if try txn.value(forKey: totalKey, in: tree) != nil {
            txn.abort()
            return storage.version
        }
        for i in 0..<accounts { try txn.put(accountKey(i), encode(initialBalance), in: tree) }
        try txn.put(accountsKey, encode(UInt64(accounts)), in: tree)
        try txn.put(totalKey, encode(UInt64(accounts) * initialBalance), in: tree)
        if try txn.value(forKey: counterKey, in: tree) == nil { try txn.put(counterKey, encode(0), in: tree) }
        try txn.put(blobKey, blob(seed: 1, length: 100), in: tree)
        return try txn.commit(durability: .full)
    }

    /// One commit of the transfer workload: a few transfers between random accounts, the
    /// counter raised by one, and half the time a new blob. Returns the version and the counter.
    static func transfer(_ storage: Storage, rng: inout TestRandom, durability: Durability) throws -> (version: UInt64, counter: UInt64) {
        let txn = try storage.beginWriteBlocking()
        let tree = try txn.openTree(named: treeName)
        guard let accountsValue = try txn.value(forKey: accountsKey, in: tree), let accounts = decode(accountsValue), accounts >= 2 else {
            txn.abort()
            throw SharedWorkerError("the bank is not set up")
        }
        for _ in 0..<rng.int(1...6) {
            let from = rng.int(0..<Int(accounts))
            let to = rng.int(0..<Int(accounts))
            guard from != to else { continue }
            guard let fromBalance = decode(try txn.value(forKey: accountKey(from), in: tree) ?? []),
                let toBalance = decode(try txn.value(forKey: accountKey(to), in: tree) ?? [])
            else {
                txn.abort()
                throw SharedWorkerError("account a\(from) or a\(to) is missing or not 8 bytes")
            }
            let amount = rng.next() % (fromBalance + 1)
            try txn.put(accountKey(from), encode(fromBalance - amount), in: tree)
            try txn.put(accountKey(to), encode(toBalance + amount), in: tree)
        }
        let counter = (decode(try txn.value(forKey: counterKey, in: tree) ?? []) ?? 0) + 1
        try txn.put(counterKey, encode(counter), in: tree)
        if rng.chance(50) { try txn.put(blobKey, blob(seed: rng.next(), length: rng.int(0...longestBlob)), in: tree) }
        let version = try txn.commit(durability: durability)
        return (version, counter)
    }

    /// Adds one to "counter" and commits; returns the version and the new value.
    static func increment(_ storage: Storage, durability: Durability) throws -> (version: UInt64, counter: UInt64) {
        let txn = try storage.beginWriteBlocking()
        let tree = try txn.openTree(named: treeName)
        let counter = (decode(try txn.value(forKey: counterKey, in: tree) ?? []) ?? 0) + 1
        try txn.put(counterKey, encode(counter), in: tree)
        return (try txn.commit(durability: durability), counter)
    }
}

/// Everything a snapshot's bank holds, in key order, and what it adds up to.
struct SharedBankReading: Equatable {
    var version: UInt64
    var entries: [[UInt8]] = []  // key, value, key, value, …
    var accounts: UInt64?
    var total: UInt64?
    var counter: UInt64?
    var sum: UInt64 = 0
    var accountsSeen = 0
    var blob: [UInt8]?
    /// The first entry whose value has the wrong length.
    var malformed: String?

    /// Reads the bank of `snapshot` (an empty reading if there is no bank yet).
    init(_ snapshot: Snapshot) throws {
        version = snapshot.version
        guard let tree = try snapshot.tree(named: SharedBank.treeName) else { return }
        var cursor = tree.makeCursor()
        var more = try cursor.first()
        while more {
            let key = Array(cursor.key)
            let value = Array(try cursor.value())
            entries.append(key)
            entries.append(value)
            if key.first == UInt8(ascii: "a"), key.count > 1, key[1] >= UInt8(ascii: "0"), key[1] <= UInt8(ascii: "9") {
                accountsSeen += 1
                if let balance = SharedBank.decode(value) {
                    sum &+= balance
                } else if malformed == nil {
                    malformed = "\(String(decoding: key, as: UTF8.self)) has \(value.count) bytes"
                }
            } else if key == SharedBank.accountsKey {
                accounts = SharedBank.decode(value)
            } else if key == SharedBank.totalKey {
                total = SharedBank.decode(value)
            } else if key == SharedBank.counterKey {
                counter = SharedBank.decode(value)
            } else if key == SharedBank.blobKey {
                blob = value
            }
            more = try cursor.next()
        }
    }

    /// Whether the bank has been set up.
    var isSetUp: Bool { total != nil }

    /// What is wrong with the bank, or nil: the balances must add up to the total, every
    /// account be there, and the blob match its seed.
    var problem: String? {
        if let malformed { return "version \(version): \(malformed)" }
        guard let total else { return entries.isEmpty ? nil : "version \(version): the bank has entries but no total" }
        guard let accounts else { return "version \(version): the bank has no account count" }
        if accountsSeen != Int(accounts) { return "version \(version): \(accountsSeen) accounts, expected \(accounts)" }
        if sum != total { return "version \(version): the balances add up to \(sum), not \(total)" }
        if counter == nil { return "version \(version): no counter" }
        guard let blob else { return "version \(version): no blob" }
        if let problem = SharedBank.blobProblem(blob) { return "version \(version): \(problem)" }
        return nil
    }
}

struct SharedWorkerError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
