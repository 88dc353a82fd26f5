// Compact leaves (file format 7, `PageLayout`): entry lengths in one or two bytes, a key's first
// eight bytes in its slot alone. Checked at every length where the encoding changes, against a
// model for keys that tie in their first eight bytes or end in zero bytes, and in trees whose
// leaves have both forms (a file of an older format, upgraded in the middle of a transaction).
//
// Replay a failure with the seed it prints: BURROW_SEED=<seed> swift test --filter CompactLeafTests

import BurrowTestSupport
import Foundation
import Testing

@testable import BurrowStorage

@Suite struct CompactLeafTests {
    /// How many leaves of the tree named `name` in `snapshot` have each form.
    private func leafForms(_ snapshot: Snapshot, _ name: String) throws -> (compact: Int, first: Int) {
        try #require(try snapshot.tree(named: name)).leafForms()
    }

    /// A file of `count` entries ("key 100000" and up, 30-byte values) written by a transaction
    /// of format 5, so that its leaves have the first form, and the entries as a model.
    private func firstFormFile(in directory: TemporaryDirectory, count: Int) throws -> (Storage, [[UInt8]: [UInt8]]) {
        let storage = try Storage.open(path: directory.file("file.burrow"))
        var model: [[UInt8]: [UInt8]] = [:]
        let write = try storage.beginWriteBlocking()
        write.setFormat(5)
        let tree = try write.openTree(named: "t")
        for i in 0..<count {
            try write.put(spilledTestKey(i), [UInt8](repeating: UInt8(i & 0xFF), count: 30), in: tree)
            model[spilledTestKey(i)] = [UInt8](repeating: UInt8(i & 0xFF), count: 30)
        }
        try write.commit()
        return (storage, model)
    }

    private func spilledTestKey(_ i: Int) -> [UInt8] { Array("key \(100_000 + i)".utf8) }

    /// A write transaction of format 5 on `storage` (leaves of the first form) that keeps at most
    /// four pages in memory, spilling the rest, and its tree "t".
    private func spillingFirstFormWrite(on storage: Storage) throws -> (WriteTransaction, TreeID) {
        let write = try storage.beginWriteBlocking()
        write.setFormat(5)
        write.memoryLimit = 4 * 4096
        return (write, try write.openTree(named: "t"))
    }

    /// Expects the version `snapshot` sound and its tree "t" to hold `model`, in key order.
    private func expectSound(_ snapshot: Snapshot, holding model: [[UInt8]: [UInt8]]) throws {
        let report = try snapshot.verify()
        #expect(report.isSound, "\(report.problems)")
        let read = try entries(snapshot, "t")
        #expect(read.map(\.key) == model.keys.sorted { $0.lexicographicallyPrecedes($1) })
        #expect(read.allSatisfy { model[$0.key] == $0.value })
    }

    /// Reads every entry of the tree named `name` in order, with each leaf entry's size as the
    /// page holds it against the size its form's rule gives.
    private func entries(_ snapshot: Snapshot, _ name: String) throws -> [(key: [UInt8], value: [UInt8])] {
        let tree = try #require(try snapshot.tree(named: name))
        var result: [(key: [UInt8], value: [UInt8])] = []
        try tree.forEachEntry { key, value in
            result.append((Array(key), Array(value)))
            return true
        }
        return result
    }

    @Test(arguments: [4096, 16384, 32768])
    func everyLengthWhereTheEncodingChangesRoundTrips(pageSize: Int) throws {
        let storage = try Storage(device: MemoryDevice(name: "compact-lengths-\(pageSize)"), options: StorageOptions(pageSize: pageSize))
        let layout = storage.layout
        // Key lengths around the head's eight bytes and the one-byte length's 127; value lengths
        // around 127 (stored as the length plus one), the largest inline value, and overflow.
        let keyLengths = [0, 1, 7, 8, 9, 126, 127, 128, 129, layout.maxKeySize]
        let largestInline = layout.maxInlineEntry - PageLayout.leafEntryHeader
        var model: [[UInt8]: [UInt8]] = [:]
        let write = try storage.beginWriteBlocking()
        let tree = try write.openTree(named: "t")
        for (k, keyLength) in keyLengths.enumerated() {
            let valueLengths = [0, 1, 125, 126, 127, 128, largestInline - keyLength, largestInline - keyLength + 1, 5_000]
            for (v, valueLength) in valueLengths.enumerated() {
                // Distinct keys of exactly `keyLength` bytes (the empty key once), ending in zeros
                // as often as not, so that short keys rely on their lengths, not their heads.
                guard keyLength > 0 || v == 0 else { continue }
                var key = [UInt8](repeating: 0, count: keyLength)
                if keyLength > 0 { key[0] = UInt8(k) }
                if keyLength > 1 { key[keyLength - 1] = UInt8(v & 1 == 0 ? 0 : v) }
                if keyLength > 2 { key[1] = UInt8(v) }
                let value = (0..<max(0, valueLength)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ v) }
                try write.put(key, value, in: tree)
                model[key] = value
            }
        }
        try write.commit()
        let snapshot = try storage.snapshot()
        #expect(snapshot.format == Meta.formatVersion)
        #expect(try snapshot.verify().isSound)
        #expect(try leafForms(snapshot, "t").first == 0)
        let read = try entries(snapshot, "t")
        let sorted = model.keys.sorted { $0.lexicographicallyPrecedes($1) }
        #expect(read.map(\.key) == sorted)
        #expect(read.allSatisfy { model[$0.key] == $0.value })
        for key in sorted { #expect(try snapshot.tree(named: "t")?.value(forKey: key) == model[key], "key of \(key.count) bytes") }
        // Each entry takes what the compact rule says, no more.
        let root = try #require(try snapshot.tree(named: "t")).state.root
        var pending = [root]
        while let number = pending.popLast() {
            let p = try snapshot.page(number)
            guard PageHeader.isLeaf(p) else {
                pending += (0..<PageHeader.count(p)).map { PageHeader.child(p, $0) }
                continue
            }
            for i in 0..<PageHeader.count(p) {
                let entry = PageHeader.leafEntry(p, i)
                let expected = PageLayout.leafEntrySize(
                    keyLength: entry.keyLength, storedCount: entry.storedCount, overflow: entry.isOverflow, compact: true)
                #expect(entry.size == expected && entry.isSplit == (entry.keyLength > 8))
            }
        }
    }

    @Test func keysTiedInTheirFirstEightBytesOrderAndSearchAsTheModel() throws {
        let seed = TestSeed.make("CompactLeafTests.keysTiedInTheirFirstEightBytesOrderAndSearchAsTheModel")
        var random = TestRandom(seed: seed)
        let storage = try Storage.inMemory(identifier: "compact-ties-\(seed)")
        // Few byte values and lengths around eight: keys that are prefixes of one another, that
        // differ only in trailing zeros ("AB", "AB\0"), or only after their eighth byte.
        let alphabet: [UInt8] = [0x00, 0x01, 0x41, 0xFF]
        func makeKey() -> [UInt8] {
            let common: [UInt8] = random.chance(50) ? [0x41, 0x41, 0x41, 0x41, 0x41, 0x41, 0x41, 0x41] : []
            return common + (0..<random.int(0...(common.isEmpty ? 12 : 4))).map { _ in random.element(alphabet) }
        }
        var model: [[UInt8]: [UInt8]] = [:]
        for round in 0..<TestEnvironment.count("BURROW_MODEL_OPS", default: 8) {
            let write = try storage.beginWriteBlocking()
            let tree = try write.openTree(named: "t")
            for _ in 0..<random.int(50...600) {
                let key = makeKey()
                if random.chance(25) {
                    #expect(try write.delete(key, from: tree) == (model[key] != nil), "seed \(seed) round \(round)")
                    model[key] = nil
                } else {
                    let value = random.bytes(random.int(0...(random.chance(3) ? 3_000 : 60)))
                    try write.put(key, value, in: tree)
                    model[key] = value
                }
                let probe = makeKey()
                #expect(try write.value(forKey: probe, in: tree) == model[probe], "seed \(seed) round \(round): \(probe)")
            }
            try write.commit()
            let snapshot = try storage.snapshot()
            #expect(try snapshot.verify().isSound, "seed \(seed) round \(round)")
            let sorted = model.keys.sorted { $0.lexicographicallyPrecedes($1) }
            let read = try entries(snapshot, "t")
            #expect(read.map(\.key) == sorted, "seed \(seed) round \(round): order")
            #expect(read.allSatisfy { model[$0.key] == $0.value }, "seed \(seed) round \(round): values")
            // Seeks land on the first key not below the probe, whatever it ties with.
            var cursor = try #require(try snapshot.tree(named: "t")).makeCursor()
            for _ in 0..<200 {
                let probe = makeKey()
                let expected = sorted.first { !$0.lexicographicallyPrecedes(probe) }
                let found = try cursor.seek(probe)
                #expect(found == (expected != nil), "seed \(seed) round \(round): seek \(probe)")
                if found { #expect(Array(cursor.key) == expected, "seed \(seed) round \(round): seek \(probe)") }
            }
        }
    }

    @Test func leavesOfBothFormsInOneTreeReadAndChangeAsTheModelSays() throws {
        let seed = TestSeed.make("CompactLeafTests.leavesOfBothFormsInOneTreeReadAndChangeAsTheModelSays")
        var random = TestRandom(seed: seed)
        let storage = try Storage.inMemory(identifier: "compact-mixed-\(seed)")
        var model: [[UInt8]: [UInt8]] = [:]
        // In the upgrading round, keys below "key" before the format is raised and "key" keys
        // after it (and no rewrite of every value), so that it changes leaves it had not
        // touched yet, which it makes compact.
        var region: Bool?
        func makeKey() -> [UInt8] {
            switch region {
            case false?: return [UInt8(random.int(0..<0x40))] + random.bytes(random.int(0...7))
            case true?: return Array("key \(random.int(0..<4_000))".utf8)
            case nil: return random.chance(50) ? Array("key \(random.int(0..<4_000))".utf8) : random.bytes(random.int(1...8))
            }
        }
        func makeValue() -> [UInt8] { random.bytes(random.chance(2) ? random.int(2_000...5_000) : random.int(0...150)) }
        // A file of format 5 writes leaves of the first form; the transaction that upgrades it
        // raises its format partway, after it has changed some leaves, and every later one
        // makes each leaf it copies compact.
        let rounds = TestEnvironment.count("BURROW_MODEL_OPS", default: 10)
        let upgradeRound = rounds / 2
        for round in 0..<rounds {
            let write = try storage.beginWriteBlocking()
            if round < upgradeRound { write.setFormat(5) }
            let tree = try write.openTree(named: "t")
            let operations = round == upgradeRound ? 1_000 : random.chance(30) ? random.int(1...10) : random.int(200...2_000)
            region = round == upgradeRound ? false : nil
            for step in 0..<operations {
                if round == upgradeRound && step == operations - 100 {
                    #expect(!write.compactLeaves)
                    write.setFormat(Meta.formatVersion)
                    region = true
                }
                switch random.int(0..<20) {
                case 0..<12:
                    let key = makeKey()
                    let value = makeValue()
                    try write.put(key, value, in: tree)
                    model[key] = value
                case 12..<18:
                    // Deletes empty leaves into their siblings, of either form.
                    let key = region == nil && random.chance(70) ? (model.keys.randomElement() ?? makeKey()) : makeKey()
                    #expect(try write.delete(key, from: tree) == (model[key] != nil), "seed \(seed) round \(round)")
                    model[key] = nil
                case 18 where region == nil:
                    // A rewrite of some values: same sizes, other sizes (leaves rebuilt, entries
                    // carried into the next leaf), inline to overflow and back.
                    let every = random.int(2...9)
                    var changed: [[UInt8]: [UInt8]] = [:]
                    let lengths = [0, 3, 40, 150, 3_000]
                    var counter = 0
                    try write.rewriteAllValues(in: tree) { key, old, new in
                        counter += 1
                        guard counter % every == 0 else { return false }
                        let length = counter % 3 == 0 ? old.count : lengths[counter % lengths.count]
                        // `new` may hold values gathered before: the body appends its own.
                        let value = (0..<length).map { UInt8(truncatingIfNeeded: $0 &+ counter) }
                        new.append(contentsOf: value)
                        changed[Array(key)] = value
                        return true
                    }
                    model.merge(changed) { _, new in new }
                default:
                    let key = makeKey()
                    #expect(try write.value(forKey: key, in: tree) == model[key], "seed \(seed) round \(round)")
                }
            }
            #expect(try write.count(of: tree) == model.count, "seed \(seed) round \(round)")
            try write.commit()
            let snapshot = try storage.snapshot()
            #expect(snapshot.format == (round < upgradeRound ? 5 : Meta.formatVersion), "seed \(seed) round \(round)")
            let report = try snapshot.verify()
            #expect(report.isSound, "seed \(seed) round \(round): \(report.problems)")
            let forms = try leafForms(snapshot, "t")
            if round < upgradeRound { #expect(forms.compact == 0, "seed \(seed) round \(round): \(forms)") }
            // The upgrading transaction leaves leaves of both forms: those it changed after
            // raising the format compact, the others as they were.
            if round == upgradeRound { #expect(forms.compact > 0 && forms.first > 0, "seed \(seed) round \(round): \(forms)") }
            let read = try entries(snapshot, "t")
            #expect(read.map(\.key) == model.keys.sorted { $0.lexicographicallyPrecedes($1) }, "seed \(seed) round \(round)")
            #expect(read.allSatisfy { model[$0.key] == $0.value }, "seed \(seed) round \(round): values")
        }
        // A transaction that copies every leaf (a rewrite of every value) leaves none of the
        // first form.
        let write = try storage.beginWriteBlocking()
        let tree = try write.openTree(named: "t")
        try write.rewriteAllValues(in: tree) { _, old, new in
            new.append(contentsOf: old)
            new.append(1)
            return true
        }
        try write.commit()
        let snapshot = try storage.snapshot()
        #expect(try snapshot.verify().isSound)
        #expect(try leafForms(snapshot, "t").first == 0, "seed \(seed)")
        #expect(try entries(snapshot, "t").allSatisfy { model[$0.key].map { $0 + [1] } == $0.value }, "seed \(seed)")
    }

    @Test func spilledLeavesOfTheFirstFormKeepTheirFormWhenTheTransactionRaisesItsFormat() throws {
        // A transaction that upgrades a large file has changed leaves of the first form, and
        // written many of them to the file (spilled) before it raises its format. Merges and
        // shares with such a leaf must see its form, not the compact one of a leaf it has not
        // changed.
        let directory = try TemporaryDirectory("compact-spilled")
        let count = 4_000
        var (storage, model) = try firstFormFile(in: directory, count: count)
        defer { storage.close() }
        let key = spilledTestKey
        let (write, tree) = try spillingFirstFormWrite(on: storage)
        // Every leaf of the first half changed in the first form, most of them spilled.
        for i in 0..<(count / 2) {
            let value = [UInt8](repeating: UInt8(i & 0xFF) ^ 0xFF, count: 30)
            try write.put(key(i), value, in: tree)
            model[key(i)] = value
        }
        write.setFormat(Meta.formatVersion)
        // Inserts just past the boundary: the second half's leaves become compact as they are
        // copied, and fill up beside spilled leaves of the first form, with which they may
        // not share.
        for j in 0..<8 {
            for i in (count / 2)..<(count / 2 + 100) {
                let k = key(i) + [UInt8(j)]
                try write.put(k, [UInt8](repeating: 1, count: 20), in: tree)
                model[k] = [UInt8](repeating: 1, count: 20)
            }
        }
        // Deletes that leave the first half's leaves nearly empty, merged into their spilled
        // siblings of the first form.
        for i in (count / 8)..<(count / 2) where i % 9 != 0 {
            #expect(try write.delete(key(i), from: tree))
            model[key(i)] = nil
        }
        try write.commit()
        let snapshot = try storage.snapshot()
        try expectSound(snapshot, holding: model)
        let forms = try leafForms(snapshot, "t")
        #expect(forms.compact > 0 && forms.first > 0, "\(forms)")
    }

    @Test func aLeafMergesIntoASpilledSiblingOfTheFirstFormInItsForm() throws {
        // The last leaf of a tree empties into its left sibling, which the transaction changed
        // in the first form and then spilled, before it raised its format.
        let directory = try TemporaryDirectory("compact-spilled-merge")
        let count = 4_000
        var (storage, model) = try firstFormFile(in: directory, count: count)
        defer { storage.close() }
        let key = spilledTestKey
        let (write, tree) = try spillingFirstFormWrite(on: storage)
        // The last leaves half emptied, in the first form...
        for i in stride(from: count - 301, to: count, by: 2) {
            #expect(try write.delete(key(i), from: tree))
            model[key(i)] = nil
        }
        // ...then spilled, as the transaction changes many other leaves.
        for i in 0..<(count / 2) {
            try write.put(key(i), [1], in: tree)
            model[key(i)] = [1]
        }
        write.setFormat(Meta.formatVersion)
        // The last leaf empties from its end: below a quarter full, it merges into its left
        // sibling, which is still of the first form.
        for i in stride(from: count - 2, through: count - 300, by: -2) {
            #expect(try write.delete(key(i), from: tree))
            model[key(i)] = nil
        }
        try write.commit()
        try expectSound(storage.snapshot(), holding: model)
    }

    @Test func aCopiedCursorGathersItsKeysApartFromTheOriginal() throws {
        let storage = try Storage.inMemory(identifier: "compact-cursor-copy")
        let write = try storage.beginWriteBlocking()
        let tree = try write.openTree(named: "t")
        // Keys longer than eight bytes, which a cursor gathers from their two parts.
        for i in 0..<10 { try write.put(Array("a long key \(i)".utf8), [UInt8(i)], in: tree) }
        try write.commit()
        var original = try #require(try storage.snapshot().tree(named: "t")).makeCursor()
        #expect(try original.first())
        let first = original.key
        #expect(Array(first) == Array("a long key 0".utf8))
        var copy = original
        #expect(try copy.next())
        #expect(Array(copy.key) == Array("a long key 1".utf8))
        // The key the original handed out is as it was.
        #expect(Array(first) == Array("a long key 0".utf8))
    }

    @Test func theChecksOfACompactLeafFindEachWayItCanBeWrong() throws {
        let storage = try Storage.inMemory(identifier: "compact-checks")
        let write = try storage.beginWriteBlocking()
        let tree = try write.openTree(named: "t")
        // Short keys (in their slots) and long ones (in two parts), short and long values.
        for i in 0..<40 {
            try write.put(i % 2 == 0 ? [UInt8(i)] : Array("a long key \(i)".utf8), [UInt8](repeating: UInt8(i), count: i), in: tree)
        }
        try write.commit()
        let snapshot = try storage.snapshot()
        let leaf = try #require(try snapshot.tree(named: "t")).state.root
        let pageSize = snapshot.layout.pageSize
        let original = Array(UnsafeRawBufferPointer(start: try snapshot.page(leaf), count: pageSize))
        #expect(
            PageHeader.isLeaf(original.withUnsafeBytes { $0.baseAddress! }) && PageHeader.count(original.withUnsafeBytes { $0.baseAddress! }) == 40)
        /// What the check says of the leaf once `change` has been made to a copy of it (its
        /// checksum made again, so that the structure is what is checked).
        func problem(_ change: (UnsafeMutableRawPointer) -> Void) -> String? {
            var bytes = original
            return bytes.withUnsafeMutableBytes { buffer in
                let p = buffer.baseAddress!
                change(p)
                p.setU64(0, Checksum.page(UnsafeRawPointer(p), length: pageSize, pageNumber: leaf))
                return PageCheck.problem(
                    UnsafeRawPointer(p), number: leaf, layout: snapshot.layout, pageCount: snapshot.meta.pageCount,
                    maxVersion: snapshot.version, format: snapshot.format)
            }
        }
        func slot(_ i: Int) -> Int { PageLayout.headerSize + PageLayout.slotSize * i }
        #expect(problem { _ in } == nil)
        // Entry 0 has the one-byte key [0]: a byte after it in its head is not zero.
        #expect(problem { $0.setU8(slot(0) + 2 + 3, 1) }?.contains("key head does not match") == true)
        // Two slots swapped: keys out of order (by their heads, and by their second parts).
        for (a, b) in [(0, 2), (1, 3)] {
            let swapped = problem { p in
                var first = [UInt8](repeating: 0, count: PageLayout.slotSize)
                first.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(start: p + slot(a), count: PageLayout.slotSize)) }
                (p + slot(a)).copyMemory(from: p + slot(b), byteCount: PageLayout.slotSize)
                first.withUnsafeBytes { (p + slot(b)).copyMemory(from: $0.baseAddress!, byteCount: PageLayout.slotSize) }
            }
            #expect(swapped?.contains("out of order") == true, "\(a), \(b): \(swapped ?? "nil")")
        }
        // A key length of one byte written in two.
        #expect(
            problem { p in
                let offset = PageHeader.slot(UnsafeRawPointer(p), 0)
                p.setU8(offset, 0x80)
            }?.contains("impossible lengths") == true)
        // A key longer than any key may be.
        #expect(
            problem { p in
                let offset = PageHeader.slot(UnsafeRawPointer(p), 1)
                p.setU8(offset, 0xFF)
                p.setU8(offset + 1, 0xFF)
            } != nil)
        // A form the engine does not know, and a compact branch.
        #expect(problem { $0.setU8(17, 2) }?.contains("unknown form") == true)
        #expect(problem { $0.setU8(16, PageKind.branch.rawValue) }?.contains("unknown form") == true)
    }

    @Test func aCompactLeafInAVersionOfAnOlderFormatIsReportedAsDamage() throws {
        let directory = try TemporaryDirectory("compact-older-format")
        let path = directory.path + "/file.burrow"
        do {
            let storage = try Storage.open(path: path)
            defer { storage.close() }
            let write = try storage.beginWriteBlocking()
            let tree = try write.openTree(named: "t")
            for i in 0..<2_000 { try write.put(Array("key \(i)".utf8), Array("value \(i)".utf8), in: tree) }
            try write.commit(durability: .full)
        }
        // The newest meta made to say format 6, with its checksum made again: as if an older
        // writer had committed the version, or a bit of the format field had flipped.
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        let pageSize = 4096
        var newest = (slot: 0, version: UInt64(0))
        for slot in 0..<2 {
            try handle.seek(toOffset: UInt64(slot * pageSize))
            let page = try #require(try handle.read(upToCount: pageSize))
            let version = page.withUnsafeBytes { UnsafeRawPointer($0.baseAddress!).u64(24) }
            if version >= newest.version { newest = (slot, version) }
        }
        try handle.seek(toOffset: UInt64(newest.slot * pageSize))
        var page = try #require(try handle.read(upToCount: pageSize))
        page.withUnsafeMutableBytes { bytes in
            let p = bytes.baseAddress!
            p.setU32(16, 6)
            p.setU64(0, Checksum.page(UnsafeRawPointer(p), length: pageSize, pageNumber: UInt32(newest.slot)))
        }
        try handle.seek(toOffset: UInt64(newest.slot * pageSize))
        try handle.write(contentsOf: page)
        try handle.close()

        let storage = try Storage.open(path: path, options: StorageOptions(readOnly: true))
        defer { storage.close() }
        let snapshot = try storage.snapshot()
        #expect(snapshot.format == 6)
        let report = snapshot.check()
        #expect(!report.isSound)
        #expect(report.problems.contains { $0.detail.contains("is a compact leaf in a version of format 6") }, "\(report.problems)")
        #expect(throws: StorageError.self) { _ = try snapshot.tree(named: "t")?.value(forKey: Array("key 7".utf8)) }
    }
}
