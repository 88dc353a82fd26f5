import BurrowTestSupport
import Foundation
import Testing

@testable import BurrowStorage
@testable import StorageCrashWorker

/// A database image and what each version it may open at holds.
struct DamageRuleFile: Sendable {
    let label: String
    let image: [UInt8]
    let pageSize: Int
    let latest: UInt64
    /// The version a reported fallback may open: the one the newest commit builds on. Nil for a
    /// file written whole (a copy), which has nothing to fall back to.
    let fallback: UInt64?
    let contents: [UInt64: DamagedFileFixture.Contents]
    /// The file as it was after each of the last few versions.
    var earlierImages: [UInt64: [UInt8]] = [:]

    /// The newest meta's written-page list, read from `image`.
    var listedPages: [PageNumber] {
        image.withUnsafeBytes { raw in
            for slot in 0..<2 {
                if case .valid(let meta, let written) = Meta.read(UnsafeRawBufferPointer(rebasing: raw[(slot * pageSize)...]), slot: slot),
                    meta.version == latest
                {
                    return written.entries.map(\.page)
                }
            }
            return []
        }
    }

    /// Every tree and entry of `snapshot`, read through throwing APIs only.
    static func contents(of snapshot: Snapshot) throws -> DamagedFileFixture.Contents {
        var trees: [String: [(key: [UInt8], value: [UInt8])]] = [:]
        for name in try snapshot.treeNames() {
            guard let tree = try snapshot.tree(named: name) else { throw FailureTestError("tree \(name) listed but missing") }
            var entries: [(key: [UInt8], value: [UInt8])] = []
            var cursor = tree.makeCursor()
            var more = try cursor.first()
            while more {
                entries.append((Array(cursor.key), Array(try cursor.value())))
                more = try cursor.next()
            }
            if entries.count != tree.count { throw FailureTestError("tree \(name) counts \(tree.count) but holds \(entries.count)") }
            trees[name] = entries
        }
        return DamagedFileFixture.Contents(trees: trees)
    }

    /// Runs `commits` on a new simulated disk, each with `.full` durability, and keeps the file
    /// with the contents of its last two versions. The last `round` commits are made durable
    /// together, by one sync round (group commit): the newest meta then covers all of them.
    static func make(
        label: String, pageSize: Int = 4096, round: Int = 1, commits: [(WriteTransaction) throws -> Void]
    ) throws -> (DamageRuleFile, Storage) {
        let disk = SimulatedDisk(name: label, capacity: 1 << 24)
        let storage = try Storage(device: disk, options: StorageOptions(pageSize: pageSize))
        var contents: [UInt64: DamagedFileFixture.Contents] = [0: DamagedFileFixture.Contents(trees: [:])]
        var images: [UInt64: [UInt8]] = [:]
        var pending: CommitReceipt?
        for (index, commit) in commits.enumerated() {
            let txn = try storage.beginWriteBlocking()
            try commit(txn)
            pending = try txn.commitPendingSync(durability: .full)
            if index < commits.count - round { try storage.waitUntilDurableBlocking(pending!) }
            let snapshot = try storage.snapshot()
            contents[snapshot.version] = try Self.contents(of: snapshot)
            images[snapshot.version] = disk.currentImage
        }
        if let pending { try storage.waitUntilDurableBlocking(pending) }
        let latest = storage.version
        let base = latest - UInt64(min(round, commits.count))
        var file = DamageRuleFile(
            label: label, image: disk.currentImage, pageSize: pageSize, latest: latest, fallback: base,
            contents: contents.filter { $0.key == latest || $0.key == base })
        file.earlierImages = images.filter { $0.key + 4 >= latest }
        return (file, storage)
    }

    /// A copy of `storage`'s latest version made by `Snapshot.copy` (what `compact` and
    /// `writeCopy` run), as an image.
    static func copy(of storage: Storage, label: String) throws -> DamageRuleFile {
        let directory = try TemporaryDirectory("damage-rule")
        let path = directory.file("copy.burrow")
        let source = try storage.snapshot()
        try source.copy(toPath: path)
        let image = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let copy = try Storage(device: DamagedFileFixture.device(image), options: StorageOptions(readOnly: true))
        defer { copy.close() }
        let version = copy.version
        return DamageRuleFile(
            label: label, image: image, pageSize: source.meta.pageSize, latest: version, fallback: nil,
            contents: [version: try contents(of: source)])
    }

    static let oneCommitAndStorage: (DamageRuleFile, Storage) = {
        do {
            return try make(
                label: "one commit",
                commits: [
                    { txn in
                        let alpha = try txn.createTree(named: "alpha")
                        let beta = try txn.createTree(named: "beta")
                        for i in 0..<300 { try txn.put(DamagedFileFixture.key("object", i), Array(repeating: UInt8(i % 251), count: 40), in: alpha) }
                        for i in 0..<3 { try txn.put(DamagedFileFixture.key("blob", i), Array(repeating: UInt8(i), count: 6000), in: beta) }
                    }
                ])
        } catch { fatalError("cannot build the one-commit file: \(error)") }
    }()

    static let manyCommitsAndStorage: (DamageRuleFile, Storage) = {
        var rng = TestRandom(seed: 7)
        var commits: [(WriteTransaction) throws -> Void] = []
        for round in 0..<24 {
            let values = (0..<40).map { _ in rng.bytes(rng.int(0...(round % 6 == 5 ? 5000 : 120))) }
            let deletes = (0..<10).map { _ in rng.int(0..<400) }
            commits.append { txn in
                let tree = try txn.openTree(named: round % 3 == 0 ? "gamma" : "alpha")
                for (i, value) in values.enumerated() { try txn.put(DamagedFileFixture.key("k\(round % 4)-", i * 7 + round), value, in: tree) }
                for d in deletes { _ = try txn.delete(DamagedFileFixture.key("k\(d % 4)-", d), from: tree) }
            }
        }
        do { return try make(label: "many commits", commits: commits) } catch { fatalError("cannot build the many-commit file: \(error)") }
    }()

    /// Many commits whose last five were made durable by one sync round.
    static let groupRound: DamageRuleFile = {
        var rng = TestRandom(seed: 8)
        let commits: [(WriteTransaction) throws -> Void] = (0..<12).map { round in
            let values = (0..<30).map { _ in rng.bytes(rng.int(0...150)) }
            return { txn in
                let tree = try txn.openTree(named: "round")
                for (i, value) in values.enumerated() { try txn.put(DamagedFileFixture.key("r", i * 13 + round), value, in: tree) }
            }
        }
        do { return try make(label: "group round", round: 5, commits: commits).0 } catch { fatalError("cannot build the group-round file: \(error)") }
    }()

    static let compacted: DamageRuleFile = {
        do { return try copy(of: manyCommitsAndStorage.1, label: "compacted") } catch { fatalError("cannot copy: \(error)") }
    }()

    static var all: [DamageRuleFile] { [oneCommitAndStorage.0, manyCommitsAndStorage.0, compacted, groupRound] }

    /// Opens `image` read-only (as `burrow verify` does), verifies it and reads every entry.
    /// Returns a label for what happened; throws a description for anything but a thrown error,
    /// a reported fallback of at most the newest commit, or the data exactly as committed.
    func evaluate(_ image: [UInt8]) throws -> String {
        let storage: Storage
        do {
            storage = try Storage(device: DamagedFileFixture.device(image), options: StorageOptions(readOnly: true))
        } catch {
            return "open threw \(DamagedFileTests.kind(error))"
        }
        defer { storage.close() }
        let snapshot = try storage.snapshot()
        let version = snapshot.version
        var label: String
        if let recovery = storage.recovery {
            guard recovery.openedVersion == version else {
                throw FailureTestError("the report names version \(recovery.openedVersion), opened \(version)")
            }
            if let dropped = recovery.droppedVersion {
                guard dropped == latest, version == fallback else {
                    throw FailureTestError(
                        "fell back from version \(dropped) to \(version); the file's newest is \(latest), its fallback \(fallback.map(String.init) ?? "none")"
                    )
                }
            } else {
                guard case .damagedMeta = recovery.reason, version == latest || version == fallback else {
                    throw FailureTestError("a report without a dropped version opened \(version): \(recovery)")
                }
            }
            label =
                "reported \(Mirror(reflecting: recovery.reason).children.first?.label ?? "?"), opened \(version == latest ? "latest" : "previous")"
        } else {
            guard version == latest else { throw FailureTestError("opened version \(version) of \(latest) without a report") }
            label = "opened latest"
        }
        guard let expected = contents[version] else { throw FailureTestError("no contents recorded for version \(version)") }
        var verified = true
        do { _ = try snapshot.verify() } catch { verified = false }
        do {
            guard try Self.contents(of: snapshot) == expected else {
                throw FailureTestError("version \(version) read back other data than was committed (\(label))")
            }
        } catch let error as StorageError {
            if verified { throw FailureTestError("verify() passed but reading threw \(error)") }
        }
        label += verified ? ", verified" : ", verify threw"
        return label
    }
}

@Suite("DamageRule")
struct DamageRuleTests {
    static func check(_ file: DamageRuleFile, cases: [(String, [UInt8])]) {
        var outcomes: [String: Int] = [:]
        var failures: [String] = []
        for (damage, image) in cases {
            do {
                outcomes[try file.evaluate(image), default: 0] += 1
            } catch {
                failures.append("\(damage): \(error)")
            }
        }
        print("DamageRule (\(file.label)): \(cases.count) cases")
        for (label, count) in outcomes.sorted(by: { $0.key < $1.key }) { print("  \(count)\t\(label)") }
        if !failures.isEmpty {
            Issue.record(
                "\(file.label): \(failures.count) of \(cases.count) damaged images broke the rule; examples:\n\(failures.prefix(5).joined(separator: "\n"))"
            )
        }
    }

    @Test("Truncation at every page boundary and one byte either side: an error or a reported fallback", arguments: [0, 1, 2, 3])
    func truncationAtEveryPageBoundary(which: Int) throws {
        let file = DamageRuleFile.all[which]
        let size = file.image.count
        var lengths = Set<Int>()
        for boundary in stride(from: 0, through: size, by: file.pageSize) {
            for length in [boundary - 1, boundary, boundary + 1] where length >= 0 && length < size { lengths.insert(length) }
        }
        let needed = file.image.count
        var cases: [(String, [UInt8])] = []
        for length in lengths.sorted() { cases.append(("cut to \(length) bytes", Array(file.image[..<length]))) }
        Self.check(file, cases: cases)
        // Whatever opens reports the truncation with both sizes.
        for (_, image) in cases {
            guard let storage = try? Storage(device: DamagedFileFixture.device(image), options: StorageOptions(readOnly: true)) else { continue }
            defer { storage.close() }
            #expect(storage.recovery?.reason == .truncated(expectedBytes: needed, actualBytes: image.count), "\(file.label), cut to \(image.count)")
        }
    }

    @Test("Random flipped bytes: an error, a reported fallback of at most the newest commit, or the data as committed", arguments: [0, 1, 2, 3])
    func randomFlips(which: Int) throws {
        let file = DamageRuleFile.all[which]
        let seed = TestSeed.make("DamageRule flips in \(file.label)")
        let iterations = max(1, TestEnvironment.count("BURROW_DAMAGE_ITERATIONS", default: 2000) / 8)
        var rng = TestRandom(seed: seed)
        var cases: [(String, [UInt8])] = []
        for iteration in 0..<iterations {
            var image = file.image
            let flips = rng.int(1...4)
            for _ in 0..<flips {
                let at = rng.chance(20) ? rng.int(0..<(2 * file.pageSize)) : rng.int(0..<image.count)
                image[at] ^= UInt8(rng.int(1...255))
            }
            cases.append(("iteration \(iteration) (seed \(seed)), \(flips) flips", image))
        }
        Self.check(file, cases: cases)
    }

    @Test("A file whose newest commit added 300 entries, cut by one byte, reports the truncation and the dropped commit")
    func newestCommitCutByOneByte() throws {
        let file = DamageRuleFile.oneCommitAndStorage.0
        let image = Array(file.image.dropLast())
        let storage = try Storage(device: DamagedFileFixture.device(image), options: StorageOptions(readOnly: true))
        defer { storage.close() }
        #expect(
            storage.recovery
                == StorageRecovery(
                    droppedVersion: 1, openedVersion: 0, reason: .truncated(expectedBytes: file.image.count, actualBytes: file.image.count - 1)))
        #expect(storage.recovery?.description.contains("truncated to \(file.image.count - 1) bytes") == true)
    }

    @Test("A flipped byte in a page of the newest commit reports the page and its offset")
    func flippedByteInNewestCommit() throws {
        let file = DamageRuleFile.oneCommitAndStorage.0
        let listed = file.listedPages
        #expect(!listed.isEmpty)
        for page in listed {
            var image = file.image
            image[Int(page) * file.pageSize + 100] ^= 0x10
            let damaged = try Storage(device: DamagedFileFixture.device(image), options: StorageOptions(readOnly: true))
            defer { damaged.close() }
            guard let recovery = damaged.recovery, case .damagedPage(let reported, let offset, _) = recovery.reason else {
                Issue.record("a flipped byte in page \(page) of the newest commit opened version \(damaged.version) without a report")
                continue
            }
            #expect(reported == page && offset == Int(page) * file.pageSize)
            #expect(recovery.droppedVersion == 1 && recovery.openedVersion == 0 && damaged.version == 0)
        }
    }

    @Test("A damaged page of a group-commit round drops the whole round, reported, back to the durable version it built on")
    func damagedRoundFallsBackToItsBase() throws {
        let file = DamageRuleFile.groupRound
        let page = try #require(file.listedPages.last)
        var image = file.image
        image[Int(page) * file.pageSize + 64] ^= 0x08
        let storage = try Storage(device: DamagedFileFixture.device(image), options: StorageOptions(readOnly: true))
        defer { storage.close() }
        #expect(storage.version == file.latest - 5)
        #expect(storage.recovery?.droppedVersion == file.latest && storage.recovery?.openedVersion == file.latest - 5)
        #expect(try DamageRuleFile.contents(of: storage.snapshot()) == file.contents[file.latest - 5])
    }

    @Test("A copy with 4 bytes changed at offset 20000 is an error, never its empty version 0")
    func compactedFileWithFourBytesChanged() throws {
        let file = DamageRuleFile.compacted
        #expect(file.image.count > 20004)
        var image = file.image
        for i in 20000..<20004 { image[i] ^= 0x5A }
        do {
            let storage = try Storage(device: DamagedFileFixture.device(image), options: StorageOptions(readOnly: true))
            defer { storage.close() }
            #expect(storage.version == file.latest)
            #expect(storage.recovery == nil)
            #expect(throws: StorageError.self) { _ = try storage.snapshot().verify() }
        } catch {
            guard case .corruptPage(_, let page, let detail) = error else {
                Issue.record("expected .corruptPage, got \(error)")
                return
            }
            #expect(page == PageNumber(20000 / file.pageSize))
            #expect(detail.contains("byte offset \(Int(page) * file.pageSize)") && detail.contains("both meta pages hold version"))
        }
    }

    @Test("A copy holds its version in both meta slots")
    func copyFillsBothMetaSlots() throws {
        let file = DamageRuleFile.compacted
        let bytes = file.image
        let metas = bytes.withUnsafeBytes { raw in
            (0..<2).map { slot -> UInt64? in
                guard case .valid(let meta, _) = Meta.read(UnsafeRawBufferPointer(rebasing: raw[(slot * file.pageSize)...]), slot: slot) else {
                    return nil
                }
                return meta.version
            }
        }
        #expect(metas == [file.latest, file.latest])
    }

    @Test("Falling back more than the newest commit is an error naming the page and offset")
    func fallbackOfMoreThanOneCommitThrows() throws {
        // The many-commit file whose older meta slot holds the meta it had two commits earlier:
        // the newest commit builds on latest - 1, which is no longer there.
        let file = DamageRuleFile.manyCommitsAndStorage.0
        let slot = Int((file.latest - 1) % 2)
        let earlier = try #require(file.earlierImages[file.latest - 3])
        var image = file.image
        image.replaceSubrange(
            (slot * file.pageSize)..<((slot + 1) * file.pageSize), with: earlier[(slot * file.pageSize)..<((slot + 1) * file.pageSize)])
        // Undamaged, it opens its newest version, reporting the older meta page as changed after
        // it was written (a crash never leaves that pair).
        #expect(try file.evaluate(image) == "reported damagedMeta, opened latest, verified")
        let page = try #require(file.listedPages.first)
        image[Int(page) * file.pageSize + 200] ^= 0x01
        #expect {
            _ = try Storage(device: DamagedFileFixture.device(image), options: StorageOptions(readOnly: true))
        } throws: { error in
            guard case .corruptPage(_, page, let detail) = error as? StorageError else { return false }
            return detail.contains("byte offset \(Int(page) * file.pageSize)") && detail.contains("more than one commit")
        }
    }
}
