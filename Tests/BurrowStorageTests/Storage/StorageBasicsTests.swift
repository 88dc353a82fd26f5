// The storage handle's basic contract: one handle per file, modes, limits, errors, versions,
// closing, in-memory sharing and statistics.

import BurrowTestSupport
import Foundation
import Testing

@testable import BurrowStorage
@testable import StorageCrashWorker

@Suite("StorageBasics")
struct StorageBasicsTests {
    // MARK: Handles and modes

    @Test("opening the same file twice in one process returns the same handle")
    func sameFileSameHandle() throws {
        let directory = try TemporaryDirectory("basics")
        let path = directory.file("same.burrow")
        let first = try Storage.open(path: path)
        let second = try Storage.open(path: path)
        #expect(first === second)
        // Another spelling of the same file is the same file.
        let third = try Storage.open(path: directory.path + "/./same.burrow")
        #expect(third === first)
        // A change through one is seen through the other.
        _ = try modelTestCommit(first) { try $0.put([1], [2], in: try $0.openTree(named: "t")) }
        #expect(try second.snapshot().tree(named: "t")?.value(forKey: [1]) == [2])
        // Another file is another handle.
        let other = try Storage.open(path: directory.file("other.burrow"))
        #expect(other !== first)
    }

    @Test("threads creating one new file at once all get its one handle")
    func concurrentCreationSharesTheHandle() throws {
        let directory = try TemporaryDirectory("basics")
        for round in 0..<TestEnvironment.count("BURROW_STRESS_ITERATIONS", default: 20) {
            let path = directory.file("new-\(round).burrow")
            let handles = Locked<[ObjectIdentifier]>([])
            let failures = Locked<[String]>([])
            let done = DispatchGroup()
            for _ in 0..<8 {
                done.enter()
                Thread {
                    defer { done.leave() }
                    do {
                        let storage = try Storage.open(path: path)
                        handles.withLock { $0.append(ObjectIdentifier(storage)) }
                        // Hold the handle until every thread has opened, so none is released early.
                        let all = TestWait.until(timeout: 60, interval: 0.0001) {
                            handles.withLock { $0.count } + failures.withLock { $0.count } >= 8
                        }
                        if !all { failures.withLock { $0.append("not every thread opened the file within 60 s") } }
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }.start()
            }
            done.wait()
            #expect(failures.withLock { $0 } == [], "round \(round)")
            #expect(Set(handles.withLock { $0 }).count == 1, "round \(round): one handle for one file")
        }
    }

    @Test("a file open writable cannot be opened read-only in the same process, and the reverse")
    func modeConflict() throws {
        let directory = try TemporaryDirectory("basics")
        let path = directory.file("modes.burrow")
        do {
            let writable = try Storage.open(path: path)
            let error = #expect(throws: StorageError.self) { _ = try Storage.open(path: path, options: StorageOptions(readOnly: true)) }
            guard case .modeConflict = error else {
                Issue.record("expected modeConflict, got \(String(describing: error))")
                return
            }
            _ = try modelTestCommit(writable) { try $0.put([1], [1], in: try $0.openTree(named: "t")) }
        }
        do {
            let readOnly = try Storage.open(path: path, options: StorageOptions(readOnly: true))
            #expect(readOnly.isReadOnly)
            let error = #expect(throws: StorageError.self) { _ = try Storage.open(path: path) }
            guard case .modeConflict = error else {
                Issue.record("expected modeConflict, got \(String(describing: error))")
                return
            }
            #expect(try Storage.open(path: path, options: StorageOptions(readOnly: true)) === readOnly)
        }
        // Once every handle is gone, either mode opens.
        let writable = try Storage.open(path: path)
        #expect(!writable.isReadOnly)
        #expect(writable.version == 1)
    }

    @Test("a handle whose last user let go while a sync round was running reopens in another mode")
    func reopenAfterRoundInFlight() throws {
        let directory = try TemporaryDirectory("basics")
        for i in 0..<50 {
            let path = directory.file("linger\(i).burrow")
            do {
                let storage = try Storage.open(path: path)
                _ = try modelTestCommit(storage) { try $0.put([1], [1], in: try $0.openTree(named: "t")) }
            }
            // Opened again, the handle does not know the newest meta durable: its `.normal`
            // commit asks for a sync round in the background, which may still run as the
            // handle goes.
            do {
                let storage = try Storage.open(path: path)
                _ = try modelTestCommit(storage) { try $0.put([2], [2], in: try $0.openTree(named: "t")) }
            }
            let readOnly = try Storage.open(path: path, options: StorageOptions(readOnly: true))
            #expect(readOnly.version == 2)
        }
    }

    @Test("a read-only handle reads but refuses to write")
    func readOnlyRefusesWrites() async throws {
        let directory = try TemporaryDirectory("basics")
        let path = directory.file("ro.burrow")
        do {
            let storage = try Storage.open(path: path)
            _ = try modelTestCommit(storage) { try $0.put([1], [7], in: try $0.openTree(named: "t")) }
        }
        let storage = try Storage.open(path: path, options: StorageOptions(readOnly: true))
        #expect(throws: StorageError.readOnly(path: path)) { _ = try storage.beginWriteBlocking() }
        await #expect(throws: StorageError.readOnly(path: path)) { _ = try await storage.beginWrite() }
        #expect(try storage.snapshot().tree(named: "t")?.value(forKey: [1]) == [7])
        #expect(storage.version == 1)

        // A read-only open never creates a file.
        let missing = directory.file("missing.burrow")
        #expect(throws: StorageError.self) { _ = try Storage.open(path: missing, options: StorageOptions(readOnly: true)) }
        #expect(!FileManager.default.fileExists(atPath: missing))
        #expect(throws: StorageError.self) { _ = try Storage.open(path: missing, options: StorageOptions(create: false)) }
        #expect(!FileManager.default.fileExists(atPath: missing))
    }

    @Test("invalid page sizes are refused", arguments: [0, 1000, 2048, 4095, 6144, 65536])
    func invalidPageSize(pageSize: Int) throws {
        let directory = try TemporaryDirectory("basics")
        let error = #expect(throws: StorageError.self) {
            _ = try Storage.open(path: directory.file("bad.burrow"), options: StorageOptions(pageSize: pageSize))
        }
        guard case .invalidOption = error else {
            Issue.record("expected invalidOption, got \(String(describing: error))")
            return
        }
    }

    @Test("a file that is not a Burrow database is refused")
    func notADatabase() throws {
        let directory = try TemporaryDirectory("basics")
        let path = directory.file("text.burrow")
        try Data(String(repeating: "not a database\n", count: 1000).utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: StorageError.notADatabase(path: path)) { _ = try Storage.open(path: path) }
    }

    // MARK: Limits

    @Test("keys up to maxKeySize are stored; one byte more is keyTooLarge", arguments: [4096, 16384])
    func keySizeLimit(pageSize: Int) throws {
        let storage = try Storage(device: MemoryDevice(name: "keys"), options: StorageOptions(pageSize: pageSize))
        let limit = storage.maxKeySize
        // Documentation/FileFormat.md: (pageSize − 24) / 4 − 28 bytes, 990 at 4 KiB pages.
        #expect(limit == (pageSize - 24) / 4 - 28)
        if pageSize == 4096 { #expect(limit == 990) }

        let txn = try storage.beginWriteBlocking()
        let tree = try txn.openTree(named: "t")
        let tooLong = [UInt8](repeating: 0x41, count: limit + 1)
        #expect(throws: StorageError.keyTooLarge(size: limit + 1, limit: limit)) { try txn.put(tooLong, [1], in: tree) }
        txn.abort()

        // Longest keys with values inline, at the inline limit and in overflow pages; enough of
        // them to split leaves and branches.
        let valueSizes = [0, 1, 12, 13, 100, 3000, 20000]
        var expected: [[UInt8]: [UInt8]] = [:]
        _ = try modelTestCommit(storage) { txn in
            let tree = try txn.openTree(named: "t")
            for i in 0..<60 {
                var key = [UInt8](repeating: 0x42, count: limit)
                key[limit - 2] = UInt8(i / 10)
                key[limit - 1] = UInt8(i % 10)
                let value = [UInt8](repeating: UInt8(i), count: valueSizes[i % valueSizes.count])
                try txn.put(key, value, in: tree)
                expected[key] = value
            }
        }
        let snapshot = try storage.snapshot()
        let stored = try #require(try snapshot.tree(named: "t"))
        #expect(stored.count == expected.count)
        for (key, value) in expected { #expect(try stored.value(forKey: key) == value) }
        #expect(try stored.value(forKey: tooLong) == nil)
        #expect(try snapshot.verify().entries == UInt64(expected.count))
        let scanned = try modelTestScan(stored).map(\.key)
        #expect(scanned == expected.keys.sorted(by: modelTestKeyLess))
    }

    @Test("empty keys and empty values round-trip")
    func emptyKeysAndValues() throws {
        let storage = try Storage(device: MemoryDevice(name: "empty"))
        _ = try modelTestCommit(storage) { txn in
            let t = try txn.openTree(named: "t")
            try txn.put([], [], in: t)
            try txn.put([0], [], in: t)
            try txn.put([0, 0], [9], in: t)
            #expect(try txn.value(forKey: [], in: t) == [])
        }
        let tree = try #require(try storage.snapshot().tree(named: "t"))
        #expect(try tree.value(forKey: []) == [])
        #expect(try tree.contains([]))
        #expect(try tree.value(forKey: [0]) == [])
        #expect(try modelTestScan(tree).map(\.key) == [[], [0], [0, 0]])
        var cursor = tree.makeCursor()
        #expect(try cursor.seek([]))
        #expect(Array(cursor.key) == [])
        #expect(try cursor.seek(atOrBefore: [0, 0, 0]))
        #expect(Array(cursor.key) == [0, 0])
        #expect(try cursor.seek(atOrBefore: [0]))
        #expect(Array(cursor.key) == [0])
    }

    // MARK: Transactions

    @Test("createTree on an existing name throws treeExists")
    func createExistingTree() throws {
        let storage = try Storage(device: MemoryDevice(name: "trees"))
        _ = try modelTestCommit(storage) { _ = try $0.createTree(named: "committed") }
        let txn = try storage.beginWriteBlocking()
        #expect(throws: StorageError.treeExists(name: "committed")) { _ = try txn.createTree(named: "committed") }
        _ = try txn.createTree(named: "new")
        #expect(throws: StorageError.treeExists(name: "new")) { _ = try txn.createTree(named: "new") }
        // After a drop the name is free again, within the same transaction.
        try txn.dropTree(named: "committed")
        #expect(throws: StorageError.noSuchTree(name: "committed")) { try txn.dropTree(named: "committed") }
        let recreated = try txn.createTree(named: "committed")
        #expect(try txn.count(of: recreated) == 0)
        // The failed createTree calls did not poison the transaction.
        #expect(try txn.commit(durability: .normal) == 2)
        #expect(try storage.snapshot().treeNames() == ["committed", "new"])
    }

    @Test("tree names must be 1 to maxKeySize bytes")
    func treeNameLimits() throws {
        let storage = try Storage(device: MemoryDevice(name: "names"))
        let txn = try storage.beginWriteBlocking()
        for bad in ["", String(repeating: "n", count: storage.maxKeySize + 1)] {
            let error = #expect(throws: StorageError.self) { _ = try txn.createTree(named: bad) }
            guard case .invalidOption = error else {
                Issue.record("expected invalidOption, got \(String(describing: error))")
                return
            }
        }
        let longest = String(repeating: "n", count: storage.maxKeySize)
        try txn.put([1], [1], in: try txn.createTree(named: longest))
        #expect(try txn.commit(durability: .normal) == 1)
        #expect(try storage.snapshot().treeNames() == [longest])
    }

    @Test("a write transaction refuses every call after commit or abort")
    func transactionFinished() throws {
        let storage = try Storage(device: MemoryDevice(name: "finished"))
        for ending in ["commit", "abort"] {
            let txn = try storage.beginWriteBlocking()
            let tree = try txn.openTree(named: "t")
            try txn.put([1], [1], in: tree)
            if ending == "commit" { try txn.commit(durability: .normal) } else { txn.abort() }
            #expect(throws: StorageError.transactionFinished, "\(ending)") { try txn.put([2], [2], in: tree) }
            #expect(throws: StorageError.transactionFinished, "\(ending)") { try txn.delete([1], from: tree) }
            #expect(throws: StorageError.transactionFinished, "\(ending)") { _ = try txn.value(forKey: [1], in: tree) }
            #expect(throws: StorageError.transactionFinished, "\(ending)") { _ = try txn.tree(named: "t") }
            #expect(throws: StorageError.transactionFinished, "\(ending)") { _ = try txn.createTree(named: "u") }
            #expect(throws: StorageError.transactionFinished, "\(ending)") { _ = try txn.makeCursor(for: tree) }
            #expect(throws: StorageError.transactionFinished, "\(ending)") { _ = try txn.treeNames() }
            #expect(throws: StorageError.transactionFinished, "\(ending)") { try txn.commit() }

            // A late abort of a finished transaction must not release the next writer's lock.
            let next = try storage.beginWriteBlocking()
            txn.abort()
            #expect(!storage.writeLock.tryAcquire(), "aborting a finished transaction released another's lock")
            next.abort()
        }
        #expect(storage.version == 1)
    }

    @Test("a write transaction's cursor throws cursorInvalidated after a change")
    func cursorInvalidated() throws {
        let storage = try Storage(device: MemoryDevice(name: "cursor"))
        let txn = try storage.beginWriteBlocking()
        let t = try txn.openTree(named: "t")
        let u = try txn.openTree(named: "u")
        for i: UInt8 in 0..<10 { try txn.put([i], [i], in: t) }

        var cursor = try txn.makeCursor(for: t)
        #expect(try cursor.first())
        #expect(try cursor.next())
        try txn.put([100], [1], in: t)
        #expect(throws: StorageError.cursorInvalidated) { try cursor.next() }
        #expect(throws: StorageError.cursorInvalidated) { try cursor.previous() }
        // Seeking again starts over on the tree as it stands.
        #expect(try cursor.seek([100]))
        #expect(Array(cursor.key) == [100])

        // A change to another tree, and a delete, invalidate it too.
        #expect(try cursor.first())
        try txn.put([1], [1], in: u)
        #expect(throws: StorageError.cursorInvalidated) { try cursor.next() }
        #expect(try cursor.last())
        try txn.delete([0], from: t)
        #expect(throws: StorageError.cursorInvalidated) { try cursor.previous() }
        txn.abort()
    }

    @Test("versions: a new file is version 0 and each changing commit adds exactly one")
    func versionsCount() throws {
        let storage = try Storage(device: MemoryDevice(name: "versions"))
        #expect(storage.version == 0)
        #expect(try storage.snapshot().version == 0)
        #expect(try storage.snapshot().treeNames() == [])
        for expected: UInt64 in 1...5 {
            let version = try modelTestCommit(storage) { try $0.put([UInt8(expected)], [], in: try $0.openTree(named: "t")) }
            #expect(version == expected)
            #expect(storage.version == expected)
        }
        // Creating an empty tree is a change; so is removing everything from an empty tree.
        #expect(try modelTestCommit(storage) { _ = try $0.createTree(named: "empty") } == 6)
        #expect(try modelTestCommit(storage) { try $0.removeAll(in: try $0.tree(named: "empty")!) } == 7)
        #expect(try modelTestCommit(storage) { try $0.dropTree(named: "empty") } == 8)
        #expect(try storage.snapshot().treeNames() == ["t"])
    }

    @Test("a commit with no changes keeps the version")
    func emptyCommitKeepsVersion() throws {
        let storage = try Storage(device: MemoryDevice(name: "noop"))
        _ = try modelTestCommit(storage) { try $0.put([1], [1], in: try $0.openTree(named: "t")) }
        let before = try storage.statistics()

        // Nothing at all.
        #expect(try modelTestCommit(storage) { _ in } == 1)
        // Only reads.
        var missing: TreeID?
        let afterReads = try modelTestCommit(storage) { txn in
            let t = try txn.tree(named: "t")!
            _ = try txn.value(forKey: [1], in: t)
            _ = try txn.treeNames()
            var cursor = try txn.makeCursor(for: t)
            _ = try cursor.first()
            missing = try txn.tree(named: "missing")
        }
        #expect(afterReads == 1)
        #expect(missing == nil)
        #expect(try storage.statistics() == before)
        // An aborted transaction, with changes, keeps it too.
        let txn = try storage.beginWriteBlocking()
        try txn.put([2], [2], in: try txn.openTree(named: "t"))
        txn.abort()
        #expect(storage.version == 1)
        #expect(try storage.snapshot().tree(named: "t")?.value(forKey: [2]) == nil)
    }

    /// A transaction whose only operation is deleting a key that is not there changes nothing,
    /// so committing it must not add a version, even when the free tree holds records that
    /// became reusable (taking them out of the free tree is bookkeeping, not a change).
    @Test("deleting only missing keys commits no new version")
    func deletingMissingKeysKeepsVersion() throws {
        let storage = try Storage(device: MemoryDevice(name: "noop-delete"))
        _ = try modelTestCommit(storage) { txn in
            let t = try txn.openTree(named: "t")
            for i in 0..<400 { try txn.put(Array("key-\(i)".utf8), [UInt8](repeating: 1, count: 200), in: t) }
        }
        // Accumulate free-tree records while a snapshot keeps them from being reused.
        var pin: Snapshot? = try storage.snapshot()
        for round in 0..<6 {
            _ = try modelTestCommit(storage) { txn in
                let t = try txn.tree(named: "t")!
                for i in stride(from: round, to: 400, by: 6) { try txn.put(Array("key-\(i)".utf8), [UInt8(round)], in: t) }
            }
        }
        #expect(pin?.version == 1)
        pin = nil
        let before = storage.version
        var removed = true
        let after = try modelTestCommit(storage) { txn in
            removed = try txn.delete(Array("no such key".utf8), from: try txn.tree(named: "t")!)
        }
        #expect(!removed)
        #expect(after == before, "a transaction that changed nothing committed version \(after) over \(before)")
    }

    // MARK: Closing

    private func openForClosing(_ backing: ModelTestBacking, _ directory: TemporaryDirectory) throws -> Storage {
        let storage: Storage =
            switch backing {
            case .memory: try Storage.inMemory(identifier: "close-\(UUID().uuidString)")
            case .file: try Storage.open(path: directory.file("close.burrow"))
            }
        _ = try modelTestCommit(storage) { try $0.put([1], [1], in: try $0.openTree(named: "t")) }
        return storage
    }

    @Test("close() makes later calls throw closed; earlier snapshots stay readable", arguments: ModelTestBacking.allCases)
    func closeRefusesLaterCalls(backing: ModelTestBacking) async throws {
        let directory = try TemporaryDirectory("basics")
        let storage = try openForClosing(backing, directory)
        let snapshot = try storage.snapshot()
        storage.close()
        let name = storage.name
        #expect(throws: StorageError.closed(path: name)) { _ = try storage.snapshot() }
        #expect(throws: StorageError.closed(path: name)) { _ = try storage.beginWriteBlocking() }
        await #expect(throws: StorageError.closed(path: name)) { _ = try await storage.beginWrite() }
        // The failed starts gave the write lock back.
        #expect(storage.writeLock.tryAcquire())
        storage.writeLock.release()
        #expect(try snapshot.tree(named: "t")?.value(forKey: [1]) == [1])
        #expect(try snapshot.verify().entries == 1)
    }

    @Test("statistics() throws closed after close()", arguments: ModelTestBacking.allCases)
    func statisticsAfterClose(backing: ModelTestBacking) throws {
        let directory = try TemporaryDirectory("basics")
        let storage = try openForClosing(backing, directory)
        storage.close()
        #expect(throws: StorageError.closed(path: storage.name)) { _ = try storage.statistics() }
    }

    @Test("a transaction begun before close() cannot commit after it", arguments: ModelTestBacking.allCases)
    func commitAfterClose(backing: ModelTestBacking) throws {
        let directory = try TemporaryDirectory("basics")
        let storage = try openForClosing(backing, directory)
        let pending = try storage.beginWriteBlocking()
        try pending.put([2], [2], in: try pending.openTree(named: "t"))
        storage.close()
        #expect(throws: StorageError.self) { try pending.commit(durability: .normal) }
        #expect(storage.version == 1, "a commit went through on a closed handle")
    }

    /// `close()` keeps the file locked while snapshots of the handle live (a new handle could
    /// otherwise reuse the pages they read); opening the file again meanwhile reopens that
    /// handle. Once nothing references it, a reopen gets a fresh handle.
    @Test("a closed file can be opened again while the old handle and its snapshots are referenced")
    func reopenAfterClose() throws {
        let directory = try TemporaryDirectory("basics")
        var storage: Storage? = try openForClosing(.file, directory)
        var snapshot: Snapshot? = try storage!.snapshot()
        storage!.close()
        #expect(throws: StorageError.closed(path: storage!.name)) { _ = try storage!.snapshot() }
        let reopened = try Storage.open(path: directory.file("close.burrow"))
        #expect(reopened === storage, "while its snapshot lives, the closed handle is the one reopened")
        #expect(reopened.version == 1)
        _ = try modelTestCommit(reopened) { try $0.put([3], [3], in: try $0.tree(named: "t")!) }
        #expect(try reopened.snapshot().tree(named: "t")?.count == 2)
        #expect(try snapshot!.tree(named: "t")?.count == 1)

        // With its last snapshot gone, the closed handle releases the file (it is still
        // referenced here), so the next open is a new handle reading the file.
        reopened.close()
        snapshot = nil
        storage = nil
        let fresh = try Storage.open(path: directory.file("close.burrow"))
        #expect(fresh !== reopened)
        #expect(fresh.version == 2)
        #expect(try fresh.snapshot().tree(named: "t")?.count == 2)
    }

    // MARK: In-memory databases

    @Test("in-memory storages with the same identifier share data while alive")
    func inMemorySharing() throws {
        let id = "shared-\(UUID().uuidString)"
        var a: Storage? = try Storage.inMemory(identifier: id)
        var b: Storage? = try Storage.inMemory(identifier: id)
        #expect(a === b)
        _ = try modelTestCommit(a!) { try $0.put([1], [42], in: try $0.openTree(named: "t")) }
        #expect(try b!.snapshot().tree(named: "t")?.value(forKey: [1]) == [42])

        let other = try Storage.inMemory(identifier: id + "-other")
        #expect(other !== a)
        #expect(other.version == 0)

        // A snapshot alone keeps the database alive.
        var snapshot: Snapshot? = try a!.snapshot()
        a = nil
        b = nil
        let again = try Storage.inMemory(identifier: id)
        #expect(again.version == 1)
        #expect(try again.snapshot().tree(named: "t")?.value(forKey: [1]) == [42])
        #expect(again === snapshot?.storage)
        snapshot = nil
        _ = snapshot
    }

    @Test("an in-memory database is gone once nothing references it")
    func inMemoryLifetime() throws {
        let id = "lifetime-\(UUID().uuidString)"
        do {
            let storage = try Storage.inMemory(identifier: id)
            _ = try modelTestCommit(storage) { try $0.put([1], [1], in: try $0.openTree(named: "t")) }
            #expect(storage.version == 1)
        }
        let fresh = try Storage.inMemory(identifier: id)
        #expect(fresh.version == 0)
        #expect(try fresh.snapshot().treeNames() == [])
    }

    // MARK: Statistics

    @Test("statistics add up and agree with verify()", arguments: ModelTestBacking.allCases)
    func statisticsAddUp(backing: ModelTestBacking) throws {
        let seed = TestSeed.make("StorageBasics statistics, \(backing)")
        var rng = TestRandom(seed: seed)
        let directory = try TemporaryDirectory("basics")
        let storage: Storage =
            switch backing {
            case .memory: try Storage(device: MemoryDevice(name: "stats"))
            case .file: try Storage.open(path: directory.file("stats.burrow"))
            }
        let fresh = try storage.statistics()
        #expect(fresh.version == 0)
        #expect(fresh.pageSize == 4096)
        #expect(fresh.pageCount == 2, "a new file holds its two meta pages")
        #expect(fresh.usedPages == 2)
        #expect(fresh.freePages == 0)
        #expect(fresh.pinnedVersions == 0)
        #expect(fresh.fileSize == 2 * 4096)

        var sawFreePages = false
        for round in 0..<30 {
            _ = try modelTestCommit(storage) { txn in
                let t = try txn.openTree(named: "t")
                try txn.put(Array("round".utf8), [UInt8(round)], in: t)
                for _ in 0..<rng.int(1...80) {
                    let key = Array("k\(rng.int(0..<300))".utf8)
                    if rng.chance(30) {
                        try txn.delete(key, from: t)
                    } else {
                        try txn.put(key, rng.bytes(rng.chance(10) ? rng.int(2000...9000) : rng.int(0...100)), in: t)
                    }
                }
            }
            let snapshot = try storage.snapshot()
            let stats = try storage.statistics()
            let report = try snapshot.verify()
            #expect(stats.version == UInt64(round + 1), "seed \(seed)")
            #expect(stats.usedPages + stats.freePages == stats.pageCount, "seed \(seed)")
            #expect(stats.pageCount == report.pageCount, "seed \(seed)")
            #expect(stats.usedPages == report.reachablePages, "seed \(seed)")
            #expect(stats.freePages == report.freePages, "seed \(seed)")
            #expect(stats.pinnedVersions == 1, "seed \(seed): the snapshot just taken")
            #expect(stats.oldestPinnedVersion == snapshot.version, "seed \(seed)")
            #expect(stats.fileSize >= stats.pageCount * stats.pageSize, "seed \(seed): the file is shorter than its pages")
            sawFreePages = sawFreePages || stats.freePages > 0
        }
        #expect(sawFreePages, "seed \(seed): copy-on-write commits must free pages")
    }

    /// A transaction that allocates pages at the end of the file and frees them again before
    /// committing (here: a value long enough for an overflow run, put and deleted) leaves the
    /// meta counting pages the file does not hold; opening the file again then fails.
    @Test("a file reopens after a transaction freed pages it had just allocated", arguments: [4096, 16384])
    func reopenAfterFreeingNewPages(pageSize: Int) throws {
        let directory = try TemporaryDirectory("basics")
        let path = directory.file("tail.burrow")
        do {
            let storage = try Storage.open(path: path, options: StorageOptions(pageSize: pageSize))
            let txn = try storage.beginWriteBlocking()
            let t = try txn.openTree(named: "t")
            try txn.put([1], [UInt8](repeating: 7, count: 5 * pageSize), in: t)
            try txn.delete([1], from: t)
            try txn.put([2], [2], in: t)
            try txn.commit()
            let stats = try storage.statistics()
            #expect(
                stats.fileSize >= stats.pageCount * stats.pageSize,
                "the meta counts \(stats.pageCount) pages but the file holds \(stats.fileSize / stats.pageSize)")
        }
        let reopened = try Storage.open(path: path)
        #expect(reopened.version == 1)
        #expect(try reopened.snapshot().tree(named: "t")?.value(forKey: [2]) == [2])
        #expect(try reopened.snapshot().verify().entries == 1)
    }

    /// A small catalog lives in the meta page; one that outgrows the room there becomes a tree,
    /// and it comes back into the meta page once its last tree is dropped. Every form reopens
    /// and verifies.
    @Test("the catalog moves from the meta page to a tree and back", arguments: [4096, 16384])
    func catalogInlineAndTree(pageSize: Int) throws {
        let directory = try TemporaryDirectory("basics")
        let path = directory.file("catalog.burrow")
        let longName = { (i: Int) in "tree \(i) " + String(repeating: "n", count: 400) }
        func reopened(_ check: (Snapshot) throws -> Void) throws {
            let storage = try Storage.open(path: path)
            try check(try storage.snapshot())
            _ = try storage.snapshot().verify()
            storage.close()
        }
        do {
            let storage = try Storage.open(path: path, options: StorageOptions(pageSize: pageSize))
            _ = try modelTestCommit(storage) { txn in try txn.put([1], [1], in: try txn.openTree(named: "small")) }
            #expect(try storage.snapshot().meta.catalog.root == 0, "a one-tree catalog is inline")
            // Enough long names to pass the room a meta page keeps for the catalog.
            let limit = Meta.inlineRoom(pageSize: pageSize)
            let count = limit / 400 + 2
            _ = try modelTestCommit(storage) { txn in
                for i in 0..<count { try txn.put([UInt8(i)], [2], in: try txn.openTree(named: longName(i))) }
            }
            let grown = try storage.snapshot()
            #expect(grown.meta.catalog.root != 0, "a catalog of \(count + 1) long names is a tree")
            #expect(try grown.treeNames().count == count + 1)
            _ = try grown.verify()
            storage.close()
        }
        try reopened { snapshot throws in
            let long = try snapshot.tree(named: longName(1))?.value(forKey: [1])
            let small = try snapshot.tree(named: "small")?.value(forKey: [1])
            #expect(snapshot.meta.catalog.root != 0)
            #expect(long == [2])
            #expect(small == [1])
        }
        do {
            let storage = try Storage.open(path: path)
            _ = try modelTestCommit(storage) { txn in
                for name in try txn.treeNames() { try txn.dropTree(named: name) }
            }
            #expect(try storage.snapshot().meta.catalog.root == 0, "an empty catalog is inline")
            _ = try modelTestCommit(storage) { txn in try txn.put([3], [3], in: try txn.openTree(named: "again")) }
            storage.close()
        }
        try reopened { snapshot throws in
            let names = try snapshot.treeNames()
            let again = try snapshot.tree(named: "again")?.value(forKey: [3])
            #expect(snapshot.meta.catalog.root == 0)
            #expect(names == ["again"])
            #expect(again == [3])
        }
    }

    /// A short free list lives in the meta page; dropping a large tree frees more pages than fit
    /// there, so the list becomes a tree, and reusing most of them brings it back. Every form
    /// reopens and verifies.
    @Test("the free list moves from the meta page to a tree and back")
    func freeListInlineAndTree() throws {
        let directory = try TemporaryDirectory("basics")
        let path = directory.file("free.burrow")
        let value = [UInt8](repeating: 5, count: 900)
        func key(_ i: Int) -> [UInt8] { Array("key \(100_000 + i)".utf8) }
        // Durable commits, so that the pages each frees are reusable by the next at once.
        func reopenedFreeRoot() throws -> PageNumber {
            let storage = try Storage.open(path: path)
            defer { storage.close() }
            let snapshot = try storage.snapshot()
            _ = try snapshot.verify()
            return snapshot.meta.free.root
        }
        do {
            let storage = try Storage.open(path: path)
            _ = try modelTestCommit(storage, durability: .full) { txn in
                let t = try txn.openTree(named: "big")
                for i in 0..<4000 { try txn.put(key(i), value, in: t) }
            }
            #expect(try storage.snapshot().meta.free.root == 0, "a new file's few free pages are inline")
            _ = try modelTestCommit(storage, durability: .full) { txn in try txn.dropTree(named: "big") }
            let dropped = try storage.statistics()
            #expect(dropped.freePages > 800)
            #expect(try storage.snapshot().meta.free.root != 0, "\(dropped.freePages) free pages are a tree")
            storage.close()
        }
        #expect(try reopenedFreeRoot() != 0)
        do {
            let storage = try Storage.open(path: path)
            // A reopened handle reuses nothing the opened version freed until its first sync
            // round has made that version durable: one small durable commit first.
            _ = try modelTestCommit(storage, durability: .full) { txn in try txn.put([0], [0], in: try txn.openTree(named: "small")) }
            _ = try modelTestCommit(storage, durability: .full) { txn in
                let t = try txn.openTree(named: "again")
                for i in 0..<3500 { try txn.put(key(i), value, in: t) }
            }
            // Committed twice more, so that the records the refill took are gone from the tree.
            for round in 0..<2 {
                _ = try modelTestCommit(storage, durability: .full) { txn in try txn.put(key(round), value, in: try txn.openTree(named: "again")) }
            }
            let stats = try storage.statistics()
            #expect(try storage.snapshot().meta.free.root == 0, "\(stats.freePages) free pages are inline again")
            storage.close()
        }
        #expect(try reopenedFreeRoot() == 0)
    }
}
