import BurrowStorage
import BurrowTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The workload shared by the crash worker (a child process) and the failure tests (which
// `@testable import StorageCrashWorker`). Everything here is a pure function of a seed, so the
// state a file must hold after `k` commits can be recomputed by replaying the generator against
// an in-memory model: the worker and the tests never exchange contents, only version numbers.

/// A value, described by the seed and length of its bytes rather than by the bytes themselves,
/// so replaying thousands of transactions costs no allocation.
struct CrashValue: Equatable, Hashable, Sendable {
    var seed: UInt64
    var length: Int

    var bytes: [UInt8] {
        var rng = TestRandom(seed: seed)
        return rng.bytes(length)
    }
}

enum CrashOperation: Equatable, Sendable {
    case put(tree: Int, key: UInt32, value: CrashValue)
    case delete(tree: Int, key: UInt32)
    case removeAll(tree: Int)
    case dropTree(tree: Int)
}

struct CrashTransaction: Sendable {
    var operations: [CrashOperation]
    /// False: the worker performs the operations and then aborts.
    var commits: Bool
    /// The pages the transaction keeps in memory before it spills the rest to the file, when
    /// the workload sets a limit (most of its large transactions then spill many times); nil:
    /// the engine's default, which these transactions never reach.
    var memoryLimitPages: Int?
    var size: Int { operations.count }
}

/// The shape of a workload.
struct CrashWorkloadProfile: Sendable, Equatable {
    /// Keys per tree.
    var keySpace: Int
    /// Whether some transactions have 600 to 2500 operations (so that a kill often lands in the
    /// middle of a commit); otherwise the largest have 100 to 400.
    var largeTransactions: Bool
    /// The largest value; above about 1000 bytes values go to overflow pages.
    var maxValueLength: Int
    /// The share of transactions (in percent) given a memory limit of a few pages, so that they
    /// spill their pages to the file before they commit or abort.
    var spillingPercent = 30

    /// The crash worker's: large transactions, large values.
    static let heavy = CrashWorkloadProfile(keySpace: 2000, largeTransactions: true, maxValueLength: 120_000)
    /// The power-loss tests': smaller transactions over fewer keys, so pages are reused often.
    static let light = CrashWorkloadProfile(keySpace: 400, largeTransactions: false, maxValueLength: 30_000)
    /// Every transaction spilling: the spill tests'.
    static let spilling = CrashWorkloadProfile(keySpace: 2000, largeTransactions: true, maxValueLength: 30_000, spillingPercent: 100)
}

/// The infinite, seeded sequence of transactions. Every committed transaction ends with a put,
/// so each one changes something and adds exactly 1 to the version.
struct CrashWorkload: Sendable {
    static let treeCount = 4
    static let largestKeySpace = 2000

    let seed: UInt64
    let profile: CrashWorkloadProfile
    private var rng: TestRandom
    /// Committed transactions handed out so far.
    private(set) var commits: UInt64 = 0

    init(seed: UInt64, profile: CrashWorkloadProfile = .heavy) {
        precondition(profile.keySpace <= Self.largestKeySpace)
        self.seed = seed
        self.profile = profile
        rng = TestRandom(seed: seed)
    }

    static func treeName(_ index: Int) -> String { "tree\(index)" }

    /// Key `n`: mostly short, some of middling length, a few long ones close to the 4 KiB limit.
    static func key(_ n: UInt32) -> [UInt8] {
        var key: [UInt8] = [
            UInt8(ascii: "k"), UInt8(truncatingIfNeeded: n >> 8), UInt8(truncatingIfNeeded: n),
        ]
        let padding: Int
        switch n % 53 {
        case 0: padding = 600 + Int(n % 390)
        case 1...6: padding = 40 + Int(n % 200)
        default: padding = Int(n % 9)
        }
        for i in 0..<padding { key.append(UInt8(truncatingIfNeeded: Int(n) &* 31 &+ i)) }
        return key
    }

    /// Every key, by number.
    static let keys: [[UInt8]] = (0..<UInt32(largestKeySpace)).map { key($0) }
    /// Key numbers in the engine's order (bytewise on the key).
    static let sortedKeyNumbers: [UInt32] = (0..<UInt32(largestKeySpace)).sorted {
        keys[Int($0)].lexicographicallyPrecedes(keys[Int($1)])
    }

    private mutating func value() -> CrashValue {
        let roll = rng.int(0..<100)
        let length: Int
        if roll < 60 {
            length = rng.int(0...64)
        } else if roll < 88 {
            length = rng.int(65...1000)
        } else if roll < 98 {
            length = rng.int(1001...min(9000, profile.maxValueLength))  // overflow runs of one to three pages
        } else {
            length = rng.int(1001...profile.maxValueLength)
        }
        return CrashValue(seed: rng.next(), length: length)
    }

    private mutating func keyNumber() -> UInt32 {
        // Skewed towards low keys so deletes and overwrites hit existing entries.
        let a = rng.int(0..<profile.keySpace)
        let b = rng.int(0..<profile.keySpace)
        return UInt32(rng.chance(50) ? min(a, b) : a)
    }

    mutating func nextTransaction() -> CrashTransaction {
        let sizeRoll = rng.int(0..<100)
        let count: Int
        if sizeRoll < 50 {
            count = rng.int(1...8)
        } else if sizeRoll < 85 {
            count = rng.int(20...200)
        } else {
            count = profile.largeTransactions ? rng.int(600...2500) : rng.int(100...400)
        }
        let commits = !rng.chance(12)
        var operations: [CrashOperation] = []
        operations.reserveCapacity(count + 1)
        let hot = rng.int(0..<Self.treeCount)
        for _ in 0..<count {
            let tree = rng.chance(70) ? hot : rng.int(0..<Self.treeCount)
            let roll = rng.int(0..<1000)
            if roll < 3 {
                operations.append(.removeAll(tree: tree))
            } else if roll < 5 {
                operations.append(.dropTree(tree: tree))
            } else if roll < 300 {
                operations.append(.delete(tree: tree, key: keyNumber()))
            } else {
                operations.append(.put(tree: tree, key: keyNumber(), value: value()))
            }
        }
        operations.append(.put(tree: hot, key: keyNumber(), value: value()))
        if commits { self.commits += 1 }
        let memoryLimitPages = rng.chance(profile.spillingPercent) ? rng.int(1...24) : nil
        return CrashTransaction(operations: operations, commits: commits, memoryLimitPages: memoryLimitPages)
    }

    /// Discards transactions until `count` commits have been handed out in all.
    mutating func skip(toCommits count: UInt64) {
        while commits < count { _ = nextTransaction() }
    }
}

/// What the database must hold: tree index to (key number to value). A tree that exists but is
/// empty maps to an empty dictionary.
struct CrashModel: Sendable, Equatable {
    var trees: [Int: [UInt32: CrashValue]] = [:]

    mutating func apply(_ transaction: CrashTransaction) {
        guard transaction.commits else { return }
        for operation in transaction.operations {
            switch operation {
            case .put(let tree, let key, let value):
                trees[tree, default: [:]][key] = value
            case .delete(let tree, let key):
                trees[tree]?[key] = nil
            case .removeAll(let tree):
                if trees[tree] != nil { trees[tree] = [:] }
            case .dropTree(let tree):
                trees[tree] = nil
            }
        }
    }
}

/// A model that advances a workload commit by commit, forward only.
struct CrashReplay: Sendable {
    private(set) var workload: CrashWorkload
    private(set) var model = CrashModel()

    init(seed: UInt64, profile: CrashWorkloadProfile = .heavy) { workload = CrashWorkload(seed: seed, profile: profile) }

    /// The number of commits the model reflects.
    var version: UInt64 { workload.commits }

    /// Advances to the state after `commits` commits.
    mutating func advance(to commits: UInt64) {
        precondition(commits >= workload.commits, "the replay only moves forward")
        while workload.commits < commits { model.apply(workload.nextTransaction()) }
    }
}

extension CrashTransaction {
    /// Performs the operations on `transaction` (without committing or aborting it).
    func perform(in transaction: WriteTransaction) throws(StorageError) {
        if let memoryLimitPages { transaction.memoryLimit = memoryLimitPages * transaction.storage.pageSize }
        for operation in operations {
            switch operation {
            case .put(let tree, let key, let value):
                let id = try transaction.openTree(named: CrashWorkload.treeName(tree))
                try transaction.put(CrashWorkload.keys[Int(key)], value.bytes, in: id)
            case .delete(let tree, let key):
                if let id = try transaction.tree(named: CrashWorkload.treeName(tree)) {
                    try transaction.delete(CrashWorkload.keys[Int(key)], from: id)
                }
            case .removeAll(let tree):
                if let id = try transaction.tree(named: CrashWorkload.treeName(tree)) { try transaction.removeAll(in: id) }
            case .dropTree(let tree):
                if try transaction.tree(named: CrashWorkload.treeName(tree)) != nil {
                    try transaction.dropTree(named: CrashWorkload.treeName(tree))
                }
            }
        }
    }
}

/// Compares a snapshot with a model by reading every tree fully, in order. Expected values are
/// generated once and cached, and compared with `memcmp`, so a check stays cheap in debug builds.
struct CrashChecker {
    private var cache: [CrashValue: [UInt8]] = [:]

    init() {}

    /// nil if `snapshot` holds exactly `model`, otherwise the first difference found.
    /// Throws what reading the snapshot throws.
    mutating func difference(_ snapshot: Snapshot, _ model: CrashModel) throws(StorageError) -> String? {
        let expectedTrees = model.trees.keys.sorted { CrashWorkload.treeName($0).utf8.lexicographicallyPrecedes(CrashWorkload.treeName($1).utf8) }
        let names = try snapshot.treeNames()
        let expectedNames = expectedTrees.map { CrashWorkload.treeName($0) }
        if names != expectedNames { return "trees \(names), expected \(expectedNames)" }
        var used = Set<CrashValue>()
        for index in expectedTrees {
            let name = CrashWorkload.treeName(index)
            let entries = model.trees[index]!
            guard let tree = try snapshot.tree(named: name) else { return "tree \(name) is listed but cannot be opened" }
            if tree.count != entries.count { return "tree \(name) records \(tree.count) entries, expected \(entries.count)" }
            var cursor = tree.makeCursor()
            var more = try cursor.first()
            var seen = 0
            for number in CrashWorkload.sortedKeyNumbers {
                guard let value = entries[number] else { continue }
                guard more else { return "tree \(name) ends after \(seen) entries, expected \(entries.count)" }
                if !Self.equal(cursor.key, CrashWorkload.keys[Int(number)]) {
                    return "tree \(name) entry \(seen) has key \(Array(cursor.key.prefix(8))), expected \(CrashWorkload.keys[Int(number)].prefix(8))"
                }
                let bytes: [UInt8]
                if let cached = cache[value] {
                    bytes = cached
                } else {
                    bytes = value.bytes
                    cache[value] = bytes
                }
                used.insert(value)
                if !Self.equal(try cursor.value(), bytes) {
                    return
                        "tree \(name) key #\(number) has a value of \(try cursor.value().count) bytes that differs from the expected \(bytes.count)"
                }
                seen += 1
                more = try cursor.next()
            }
            if more { return "tree \(name) has more than the expected \(entries.count) entries" }
        }
        if cache.count > 2 * used.count + 1000 { cache = cache.filter { used.contains($0.key) } }
        return nil
    }

    static func equal(_ a: UnsafeRawBufferPointer, _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        if a.isEmpty { return true }
        return b.withUnsafeBytes { memcmp(a.baseAddress!, $0.baseAddress!, a.count) == 0 }
    }
}

extension CrashWorkload {
    /// Takes the next transaction and performs it in a new write transaction of `storage`
    /// (calling `starting` with it first). One that aborts is aborted, and nil returned; one
    /// that commits is handed back open, for the caller to commit.
    mutating func performNext(
        on storage: Storage, starting: (CrashTransaction) -> Void = { _ in }
    ) throws -> (txn: WriteTransaction, transaction: CrashTransaction)? {
        let transaction = nextTransaction()
        let txn = try storage.beginWriteBlocking()
        starting(transaction)
        try transaction.perform(in: txn)
        guard transaction.commits else {
            txn.abort()
            return nil
        }
        return (txn, transaction)
    }

    /// Commits the next `count` transactions that commit on `storage` with `.full`, aborting the
    /// others on the way.
    mutating func commitFull(_ count: Int, on storage: Storage) throws {
        var done = 0
        while done < count {
            guard let next = try performNext(on: storage) else { continue }
            try next.txn.commit(durability: .full)
            done += 1
        }
    }
}
