import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

@testable import BurrowStorage
@testable import StorageCrashWorker

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A valid database image with a few trees, overflow values and a non-empty free tree, plus the
/// exact contents of its last two versions (the only ones its two meta pages can describe).
struct DamagedFileFixture: Sendable {
    struct Contents: Sendable, Equatable {
        var trees: [String: [(key: [UInt8], value: [UInt8])]]

        static func == (a: Contents, b: Contents) -> Bool {
            a.trees.keys.sorted() == b.trees.keys.sorted()
                && a.trees.allSatisfy { name, entries in
                    guard let other = b.trees[name], other.count == entries.count else { return false }
                    return zip(entries, other).allSatisfy { $0.key == $1.key && $0.value == $1.value }
                }
        }
    }

    /// The file with its metas' written-page lists removed, as a commit too large for the list
    /// leaves it: damage to any page is then found when the page is read.
    let image: [UInt8]
    /// The file as written: the newest meta lists the pages written since the durable version,
    /// so damage to one of them makes opening fall back to the previous version.
    let listedImage: [UInt8]
    /// The pages the newest meta of `listedImage` lists.
    let listedPages: [PageNumber]
    let pageSize: Int
    let pageCount: Int
    let latest: UInt64
    /// Contents by version, for the latest version and the one before it.
    let contents: [UInt64: Contents]
    /// Pages of interest, as numbers.
    let gammaLeaf: PageNumber
    let gammaLeafKey: [UInt8]
    let betaOverflow: PageNumber
    let betaOverflowKey: [UInt8]
    let catalogRoot: PageNumber
    let freeRoot: PageNumber
    /// Every page the latest version reaches (tree, overflow, catalog and free-tree pages).
    let reachablePages: [PageNumber]

    static let shared: DamagedFileFixture = {
        do { return try make(pageSize: 4096) } catch { fatalError("cannot build the damaged-file fixture: \(error)") }
    }()
    static let sharedLargePages: DamagedFileFixture = {
        do { return try make(pageSize: 16384) } catch { fatalError("cannot build the damaged-file fixture: \(error)") }
    }()

    static func key(_ prefix: String, _ i: Int) -> [UInt8] { Array("\(prefix)\(String(format: "%05d", i))".utf8) }

    static func make(pageSize: Int) throws -> DamagedFileFixture {
        let disk = SimulatedDisk(name: "fixture", capacity: 1 << 24)
        let storage = try Storage(device: disk, options: StorageOptions(pageSize: pageSize))
        var rng = TestRandom(seed: 42)
        func bytes(_ n: Int) -> [UInt8] { (0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next()) } }
        var contents: [UInt64: Contents] = [:]
        func record() throws {
            let snapshot = try storage.snapshot()
            _ = try snapshot.verify()
            var trees: [String: [(key: [UInt8], value: [UInt8])]] = [:]
            for name in try snapshot.treeNames() {
                var entries: [(key: [UInt8], value: [UInt8])] = []
                var cursor = try snapshot.tree(named: name)!.makeCursor()
                var more = try cursor.first()
                while more {
                    entries.append((Array(cursor.key), Array(try cursor.value())))
                    more = try cursor.next()
                }
                trees[name] = entries
            }
            contents[snapshot.version] = Contents(trees: trees)
        }
        func write(_ body: (WriteTransaction) throws -> Void) throws {
            let txn = try storage.beginWriteBlocking()
            try body(txn)
            try txn.commit(durability: .full)
            try record()
        }
        try write { txn in
            let alpha = try txn.openTree(named: "alpha")
            let gamma = try txn.openTree(named: "gamma")
            let delta = try txn.openTree(named: "delta")
            for i in 0..<400 { try txn.put(key("a", i), bytes(rng.int(0...100)), in: alpha) }
            for i in 0..<1500 { try txn.put(key("g", i), bytes(rng.int(10...40)), in: gamma) }
            for i in 0..<100 { try txn.put(key("d", i), bytes(200), in: delta) }
            // Empty trees with long names make the catalog too large for the meta page, so that
            // it is a tree whose page can be damaged.
            for i in 0...(Meta.inlineRoom(pageSize: pageSize) / 900) {
                _ = try txn.createTree(named: "filler \(i) " + String(repeating: "x", count: 900))
            }
            // At 4 KiB pages, a long value whose tree is dropped below leaves more free pages than
            // the meta page lists, so that the free list is a tree too.
            if pageSize == 4096 {
                try txn.put(
                    [1], [UInt8](repeating: 9, count: (Meta.inlineRoom(pageSize: pageSize) / 4 + 300) * pageSize),
                    in: try txn.openTree(named: "epsilon"))
            }
        }
        if pageSize == 4096 { try write { txn in try txn.dropTree(named: "epsilon") } }
        try write { txn in
            let beta = try txn.openTree(named: "beta")
            for i in 0..<12 { try txn.put(key("b", i), bytes(rng.int(5000...20000)), in: beta) }
        }
        try write { txn in
            let alpha = try txn.tree(named: "alpha")!
            let beta = try txn.tree(named: "beta")!
            for i in stride(from: 0, to: 400, by: 2) { try txn.delete(key("a", i), from: alpha) }
            for i in 0..<4 { try txn.put(key("b", i), bytes(rng.int(5000...9000)), in: beta) }
        }
        try write { txn in try txn.dropTree(named: "delta") }
        try write { txn in
            let gamma = try txn.tree(named: "gamma")!
            for i in 0..<20 { try txn.put(key("g", i * 70), bytes(30), in: gamma) }
        }
        try write { txn in
            let gamma = try txn.tree(named: "gamma")!
            let alpha = try txn.tree(named: "alpha")!
            for i in 0..<10 { try txn.delete(key("g", 1000 + i), from: gamma) }
            try txn.put(key("a", 1), bytes(50), in: alpha)
        }
        let snapshot = try storage.snapshot()
        let latest = snapshot.version
        let pageCount = Int(snapshot.meta.pageCount)
        guard snapshot.meta.freePageCount > 0 else { throw FailureTestError("the fixture's free tree is empty") }
        guard snapshot.meta.catalog.root != 0 else { throw FailureTestError("the fixture's catalog is inline") }
        guard snapshot.meta.free.root != 0 || pageSize != 4096 else { throw FailureTestError("the fixture's free list is inline") }

        let gammaRoot = try snapshot.tree(named: "gamma")!.state.root
        let root = try snapshot.page(gammaRoot)
        guard !PageHeader.isLeaf(root) else { throw FailureTestError("gamma is a single leaf") }
        var leaf = PageHeader.child(root, 1)
        var p = try snapshot.page(leaf)
        while !PageHeader.isLeaf(p) {
            leaf = PageHeader.child(p, 0)
            p = try snapshot.page(leaf)
        }
        let leafKey = PageHeader.leafKeyBytes(p, 0)

        let betaRoot = try snapshot.tree(named: "beta")!.state.root
        let betaLeaf = try snapshot.page(betaRoot)
        guard PageHeader.isLeaf(betaLeaf), PageHeader.leafIsOverflow(betaLeaf, 5) else {
            throw FailureTestError("beta is not a leaf of overflow references")
        }
        let overflow = PageHeader.leafStored(betaLeaf, 5).baseAddress!.u32(0)
        let overflowKey = PageHeader.leafKeyBytes(betaLeaf, 5)

        var reachable: [PageNumber] = []
        func walk(_ number: PageNumber) throws {
            guard number != 0 else { return }
            reachable.append(number)
            let p = try snapshot.page(number)
            for i in 0..<PageHeader.count(p) {
                if !PageHeader.isLeaf(p) {
                    try walk(PageHeader.child(p, i))
                } else if PageHeader.leafIsOverflow(p, i) {
                    reachable.append(PageHeader.leafStored(p, i).baseAddress!.u32(0))
                }
            }
        }
        try walk(snapshot.meta.catalog.root)
        try walk(snapshot.meta.free.root)
        for name in try snapshot.treeNames() { try walk(try snapshot.tree(named: name)!.state.root) }

        var image = disk.currentImage
        // Pad a file left short by the engine (see CrashTests' short-file test), so that the
        // fixture is a sound file whatever that bug's state.
        if image.count < pageCount * pageSize { image += [UInt8](repeating: 0, count: pageCount * pageSize - image.count) }
        let (stripped, listed) = withoutWrittenPageLists(image, pageSize: pageSize, latest: latest)
        let fixture = DamagedFileFixture(
            image: stripped, listedImage: image, listedPages: listed, pageSize: pageSize, pageCount: pageCount, latest: latest,
            contents: contents.filter { $0.key + 1 >= latest }, gammaLeaf: leaf, gammaLeafKey: leafKey,
            betaOverflow: overflow, betaOverflowKey: overflowKey, catalogRoot: snapshot.meta.catalog.root,
            freeRoot: snapshot.meta.free.root, reachablePages: reachable)
        storage.close()
        return fixture
    }

    /// `image` with both metas re-encoded without a written-page list, and the pages the
    /// latest one listed.
    static func withoutWrittenPageLists(_ image: [UInt8], pageSize: Int, latest: UInt64) -> ([UInt8], [PageNumber]) {
        var image = image
        var listed: [PageNumber] = []
        image.withUnsafeMutableBytes { bytes in
            for slot in 0..<2 {
                let page = UnsafeRawBufferPointer(rebasing: bytes[(slot * pageSize)..<((slot + 1) * pageSize)])
                guard case .valid(let meta, let written) = Meta.read(page, slot: slot) else { continue }
                if meta.version == latest { listed = written.entries.map(\.page) }
                meta.encode(into: bytes.baseAddress! + slot * pageSize, slot: slot)
            }
        }
        return (image, listed)
    }

    /// A device holding `image`.
    static func device(_ image: [UInt8], name: String = "damaged image") -> SimulatedDisk {
        SimulatedDisk(name: name, image: image, capacity: max(1 << 21, 2 * image.count))
    }

    /// Writes `image` to a new file at `path`.
    static func writeFile(_ image: [UInt8], to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: Data(image)) else {
            throw FailureTestError("cannot write \(path)")
        }
    }
}

@Suite("DamagedFile", .ownThread)
struct DamagedFileTests {
    var fixture: DamagedFileFixture { DamagedFileFixture.shared }

    enum Outcome: Hashable {
        case opened(version: UInt64, verified: Bool)
        case error(String)
    }

    /// Runs `body`, which must fail with `.corruptPage` naming `page` (any page if nil); records
    /// `ifSucceeded` as an issue if it does not fail, and what it threw if that is something else.
    static func expectCorruptPage(_ page: PageNumber?, _ ifSucceeded: String, _ body: () throws -> Void) {
        do {
            try body()
            Issue.record("\(ifSucceeded)")
        } catch {
            guard case .corruptPage(_, let found, _) = error as? StorageError else {
                Issue.record("expected .corruptPage, got \(error)")
                return
            }
            if let page { #expect(found == page, "\(error)") }
        }
    }

    /// Opens `image`, verifies it, reads every tree fully and looks up some keys. Returns what
    /// happened; throws a description if it read back anything but an exact past version.
    static func evaluate(_ image: [UInt8], fixture: DamagedFileFixture, rng: inout TestRandom) throws -> Outcome {
        let storage: Storage
        do {
            storage = try Storage(device: DamagedFileFixture.device(image), options: StorageOptions(readOnly: image.isEmpty))
        } catch {
            return .error(Self.kind(error))
        }
        defer { storage.close() }
        let snapshot: Snapshot
        do { snapshot = try storage.snapshot() } catch { throw FailureTestError("snapshot() threw \(error) after a successful open") }
        guard let expected = fixture.contents[snapshot.version] else {
            throw FailureTestError("opened at version \(snapshot.version), which the file never held as its last two")
        }
        // Never silently: an older version opens only with a report that says what was dropped.
        if snapshot.version != fixture.latest, storage.recovery == nil {
            throw FailureTestError("opened version \(snapshot.version) of \(fixture.latest) without a report")
        }
        var verifyError: StorageError?
        do { _ = try snapshot.verify() } catch { verifyError = error }

        // Whatever verify said, every read either throws or returns exactly the version's contents.
        var readError: StorageError?
        do {
            let names = try snapshot.treeNames()
            if names != expected.trees.keys.sorted() { throw FailureTestError("tree names \(names), expected \(expected.trees.keys.sorted())") }
            for name in names {
                guard let tree = try snapshot.tree(named: name) else { throw FailureTestError("tree \(name) listed but missing") }
                let entries = expected.trees[name]!
                if tree.count != entries.count { throw FailureTestError("tree \(name) counts \(tree.count), expected \(entries.count)") }
                var cursor = tree.makeCursor()
                var more = try cursor.first()
                var index = 0
                while more {
                    guard index < entries.count else { throw FailureTestError("tree \(name) has extra entries") }
                    guard CrashChecker.equal(cursor.key, entries[index].key), CrashChecker.equal(try cursor.value(), entries[index].value) else {
                        throw FailureTestError("tree \(name) entry \(index) differs from version \(snapshot.version)")
                    }
                    index += 1
                    more = try cursor.next()
                }
                if index != entries.count { throw FailureTestError("tree \(name) ends after \(index) of \(entries.count) entries") }
                // Point lookups take another path down the tree.
                for _ in 0..<3 where !entries.isEmpty {
                    let entry = entries[rng.int(0..<entries.count)]
                    guard try tree.value(forKey: entry.key) == entry.value else {
                        throw FailureTestError("tree \(name) looks up a wrong value")
                    }
                }
                if try tree.value(forKey: Array("zz-missing".utf8)) != nil { throw FailureTestError("a missing key was found") }
            }
        } catch let error as StorageError {
            readError = error
        }
        if verifyError == nil, let readError {
            throw FailureTestError("verify() passed but reading then threw \(readError)")
        }
        // A verified file also takes a new commit (not always, to keep the loop fast).
        if verifyError == nil && !storage.isReadOnly && rng.chance(20) {
            do {
                let txn = try storage.beginWriteBlocking()
                let tree = try txn.openTree(named: "alpha")
                try txn.put(Array("new-key".utf8), [UInt8](repeating: 7, count: 3000), in: tree)
                try txn.delete(DamagedFileFixture.key("a", 1), from: tree)
                try txn.commit(durability: .normal)
                let after = try storage.snapshot()
                _ = try after.verify()
                guard try after.tree(named: "alpha")?.value(forKey: Array("new-key".utf8)) == [UInt8](repeating: 7, count: 3000) else {
                    throw FailureTestError("the new commit did not read back")
                }
            } catch let error as StorageError {
                throw FailureTestError("a verified file failed a new commit: \(error)")
            }
        }
        return .opened(version: snapshot.version, verified: verifyError == nil)
    }

    /// The error's case name, e.g. "truncated".
    static func kind(_ error: StorageError) -> String {
        Mirror(reflecting: error).children.first?.label ?? "\(error)"
    }

    @Test("Random damage gives an error or an exact past version, never a wrong answer", arguments: [4096, 16384])
    func randomDamage(pageSize: Int) throws {
        let seed = TestSeed.make("DamagedFile \(pageSize)-byte pages")
        let total = TestEnvironment.count("BURROW_DAMAGE_ITERATIONS", default: 2000)
        // Most cases on 4 KiB pages; a quarter as many again on 16 KiB pages.
        let iterations = pageSize == 4096 ? total : max(1, total / 4)
        let fixture = pageSize == 4096 ? DamagedFileFixture.shared : DamagedFileFixture.sharedLargePages
        var rng = TestRandom(seed: seed)
        var outcomes: [String: Int] = [:]
        var failures: [String] = []
        let started = Date()
        let size = fixture.image.count
        for iteration in 0..<iterations {
            let caseSeed = rng.next()
            var r = TestRandom(seed: caseSeed)
            // Half the cases on the file as written, whose newest meta lists its commit's pages.
            var image = r.chance(50) ? fixture.image : fixture.listedImage
            let roll = r.int(0..<100)
            let damage: String
            func position() -> Int {
                r.chance(30) ? r.int(0..<(2 * pageSize)) : r.int(0..<size)
            }
            if roll < 35 {
                let flips = r.int(1...4)
                for _ in 0..<flips { image[position()] ^= UInt8(r.int(1...255)) }
                damage = "flip \(flips)"
            } else if roll < 50 {
                let start = position()
                let length = r.int(1...(3 * pageSize))
                for i in start..<min(size, start + length) { image[i] = 0 }
                damage = "zero range"
            } else if roll < 60 {
                let page = r.int(0..<(size / pageSize))
                for i in (page * pageSize)..<((page + 1) * pageSize) { image[i] = 0 }
                damage = "zero page"
            } else if roll < 70 {
                let start = position()
                let length = r.int(1...pageSize)
                for i in start..<min(size, start + length) { image[i] = UInt8(truncatingIfNeeded: r.next()) }
                damage = "garbage range"
            } else if roll < 85 {
                let length = r.chance(50) ? r.int(0...(size / pageSize)) * pageSize : r.int(0..<size)
                image.removeSubrange(length...)
                damage = "truncate"
            } else if roll < 95 {
                let from = r.int(0..<(size / pageSize))
                let to = r.int(0..<(size / pageSize))
                let source = Array(image[(from * pageSize)..<((from + 1) * pageSize)])
                image.replaceSubrange((to * pageSize)..<((to + 1) * pageSize), with: source)
                damage = "misplaced page"
            } else {
                image[r.int(16..<pageSize)] ^= UInt8(r.int(1...255))
                image[pageSize + r.int(16..<pageSize)] ^= UInt8(r.int(1...255))
                image[position()] ^= UInt8(r.int(1...255))
                damage = "both metas and a page"
            }
            do {
                let outcome = try Self.evaluate(image, fixture: fixture, rng: &r)
                let label: String
                switch outcome {
                case .opened(let version, let verified):
                    label = "opened \(version == fixture.latest ? "latest" : "previous") version, \(verified ? "verified" : "verify threw")"
                case .error(let kind):
                    label = "open threw \(kind)"
                }
                outcomes["\(damage): \(label)", default: 0] += 1
            } catch {
                failures.append("iteration \(iteration) (case seed \(caseSeed), \(damage)): \(error)")
            }
        }
        print(
            "DamagedFile (\(pageSize)-byte pages): \(iterations) cases in \(String(format: "%.1f", Date().timeIntervalSince(started))) s (seed \(seed)):"
        )
        for (label, count) in outcomes.sorted(by: { $0.key < $1.key }) { print("  \(count)\t\(label)") }
        if !failures.isEmpty {
            Issue.record(
                "\(failures.count) of \(iterations) damaged images gave a wrong answer (seed \(seed)); examples:\n\(failures.prefix(5).joined(separator: "\n"))"
            )
        }
    }

    /// Damage that keeps checksums valid (as a bug writing a bad page, or a hostile file, would):
    /// flipped bytes in a page whose checksum is then recomputed. Contents may now legitimately
    /// differ, so this asks less: never a crash or a hang, and a version that verifies must read
    /// fully, without errors, and take a new commit that verifies too.
    @Test("Damage under valid checksums never crashes, and what verifies reads and writes")
    func damageUnderValidChecksums() throws {
        let seed = TestSeed.make("DamagedFile valid checksums")
        let iterations = max(1, TestEnvironment.count("BURROW_DAMAGE_ITERATIONS", default: 2000) / 2)
        let fixture = DamagedFileFixture.shared
        let pageSize = fixture.pageSize
        var rng = TestRandom(seed: seed)
        var failures: [String] = []
        var outcomes: [String: Int] = [:]
        for iteration in 0..<iterations {
            let caseSeed = rng.next()
            var r = TestRandom(seed: caseSeed)
            var image = fixture.image
            let page = Int(fixture.reachablePages[r.int(0..<fixture.reachablePages.count)])
            let flips = r.int(1...3)
            image.withUnsafeMutableBytes { bytes in
                let p = bytes.baseAddress! + page * pageSize
                for _ in 0..<flips {
                    // Mostly the header and slot area, where the structure lives.
                    let offset = r.chance(60) ? r.int(8..<(PageLayout.headerSize + 64)) : r.int(8..<pageSize)
                    p.storeBytes(of: p.load(fromByteOffset: offset, as: UInt8.self) ^ UInt8(r.int(1...255)), toByteOffset: offset, as: UInt8.self)
                }
                var length = pageSize
                if PageHeader.kind(UnsafeRawPointer(p)) == PageKind.overflow.rawValue {
                    let run = PageHeader.overflowPages(UnsafeRawPointer(p))
                    if run >= 1 && page + run <= fixture.pageCount { length = run * pageSize }
                }
                p.storeBytes(
                    of: Checksum.page(UnsafeRawPointer(p), length: length, pageNumber: UInt32(page)).littleEndian, toByteOffset: 0, as: UInt64.self)
            }
            do {
                outcomes[try Self.exercise(image), default: 0] += 1
            } catch {
                failures.append("iteration \(iteration) (case seed \(caseSeed), page \(page)): \(error)")
            }
        }
        print("DamagedFile valid checksums: \(iterations) cases: \(outcomes.sorted { $0.key < $1.key })")
        if !failures.isEmpty {
            Issue.record("\(failures.count) of \(iterations) cases failed (seed \(seed)); examples:\n\(failures.prefix(5).joined(separator: "\n"))")
        }
    }

    /// Opens, verifies, scans every tree both ways and looks keys up; if it verified, also commits.
    /// Returns a label of what happened; throws if a verified version then fails to read or write.
    static func exercise(_ image: [UInt8]) throws -> String {
        let storage: Storage
        do { storage = try Storage(device: DamagedFileFixture.device(image)) } catch { return "open threw \(kind(error))" }
        defer { storage.close() }
        let snapshot = try storage.snapshot()
        var verified = true
        do { _ = try snapshot.verify() } catch { verified = false }
        do {
            for name in try snapshot.treeNames() {
                guard let tree = try snapshot.tree(named: name) else { continue }
                var keys: [[UInt8]] = []
                var cursor = tree.makeCursor()
                var more = try cursor.first()
                while more {
                    keys.append(Array(cursor.key))
                    _ = try cursor.value()
                    more = try cursor.next()
                }
                more = try cursor.last()
                while more { more = try cursor.previous() }
                for key in keys.prefix(50) { _ = try tree.value(forKey: key) }
                _ = try cursor.seek(Array("g00700".utf8))
            }
        } catch {
            if verified { throw FailureTestError("verify() passed but reading threw \(error)") }
            return "verify threw, reading threw"
        }
        guard verified else { return "verify threw, reading passed" }
        do {
            let txn = try storage.beginWriteBlocking()
            let tree = try txn.openTree(named: "gamma")
            for i in 0..<40 { try txn.put(DamagedFileFixture.key("g", i * 37), [UInt8](repeating: 1, count: 2000), in: tree) }
            try txn.commit(durability: .normal)
            _ = try storage.snapshot().verify()
        } catch {
            throw FailureTestError("a verified file failed a new commit or its verify: \(error)")
        }
        return "verified, read and written"
    }

    /// Structure that is impossible although every checksum holds.
    @Test("Crafted pages with valid checksums: loops, bad lengths, unordered keys are .corruptPage")
    func craftedPages() throws {
        let fixture = DamagedFileFixture.shared
        let pageSize = fixture.pageSize
        func patched(_ page: PageNumber, _ body: (UnsafeMutableRawPointer) -> Void) -> [UInt8] {
            var image = fixture.image
            image.withUnsafeMutableBytes { bytes in
                let p = bytes.baseAddress! + Int(page) * pageSize
                body(p)
                p.setU64(0, Checksum.page(UnsafeRawPointer(p), length: pageSize, pageNumber: page))
            }
            return image
        }
        func expectCorrupt(_ image: [UInt8], _ what: String, read: (Snapshot) throws -> Void) throws {
            let storage = try Storage(device: DamagedFileFixture.device(image))
            defer { storage.close() }
            let snapshot = try storage.snapshot()
            do {
                try read(snapshot)
                Issue.record("\(what): reading succeeded")
            } catch let error as StorageError {
                guard case .corruptPage = error else {
                    Issue.record("\(what): reading threw \(error)")
                    return
                }
            }
            do {
                _ = try snapshot.verify()
                Issue.record("\(what): verify() passed")
            } catch {
                guard case .corruptPage = error else {
                    Issue.record("\(what): verify threw \(error)")
                    return
                }
            }
        }
        let source = try Storage(device: DamagedFileFixture.device(fixture.image))
        let snapshot = try source.snapshot()
        let gammaRoot = try #require(try snapshot.tree(named: "gamma")).state.root
        let betaRoot = try #require(try snapshot.tree(named: "beta")).state.root
        source.close()

        // A branch whose second child is itself: a loop.
        let loop = patched(gammaRoot) { p in
            p.setU32(PageHeader.slot(UnsafeRawPointer(p), 1), gammaRoot)
        }
        try expectCorrupt(loop, "a loop (scan)") { snapshot in
            var cursor = try snapshot.tree(named: "gamma")!.makeCursor()
            var more = try cursor.first()
            while more { more = try cursor.next() }
        }
        try expectCorrupt(loop, "a loop (lookup)") { snapshot in
            _ = try snapshot.tree(named: "gamma")!.value(forKey: fixture.gammaLeafKey)
        }
        // An overflow reference longer than its run.
        let long = patched(betaRoot) { p in
            let offset = PageHeader.slot(UnsafeRawPointer(p), 5)
            let keyLength = Int(UnsafeRawPointer(p).u16(offset))
            p.setU64(offset + PageLayout.leafEntryHeader + keyLength + 4, 1 << 40)
        }
        try expectCorrupt(long, "an overlong overflow reference") { snapshot in
            _ = try snapshot.tree(named: "beta")!.value(forKey: fixture.betaOverflowKey)
        }
        // Two keys of a leaf out of order.
        let unordered = patched(fixture.gammaLeaf) { p in
            let first = PageHeader.slot(UnsafeRawPointer(p), 0)
            let second = PageHeader.slot(UnsafeRawPointer(p), 1)
            p.setU16(PageLayout.headerSize, UInt16(second))
            p.setU16(PageLayout.headerSize + 2, UInt16(first))
        }
        try expectCorrupt(unordered, "unordered keys") { snapshot in
            _ = try snapshot.tree(named: "gamma")!.value(forKey: fixture.gammaLeafKey)
        }
    }

    // MARK: Specific damage, exact errors

    @Test("A file that is not Burrow's is .notADatabase")
    func foreignFile() throws {
        let directory = try TemporaryDirectory("damaged")
        for (index, text) in ["hello, world\n", String(repeating: "Lorem ipsum dolor sit amet. ", count: 800)].enumerated() {
            let path = directory.file("text\(index).txt")
            try DamagedFileFixture.writeFile(Array(text.utf8), to: path)
            #expect(throws: StorageError.notADatabase(path: path)) { _ = try Storage.open(path: path) }
            #expect(throws: StorageError.notADatabase(path: path)) { _ = try Storage.open(path: path, options: StorageOptions(readOnly: true)) }
            // And it was left alone.
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(text.utf8))
        }
    }

    @Test("An empty file opened read-only is .notADatabase")
    func emptyFileReadOnly() throws {
        let directory = try TemporaryDirectory("damaged")
        let path = directory.file("empty.burrow")
        try DamagedFileFixture.writeFile([], to: path)
        #expect(throws: StorageError.notADatabase(path: path)) { _ = try Storage.open(path: path, options: StorageOptions(readOnly: true)) }
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int == 0)
    }

    @Test("A meta page of a newer or older format with a valid checksum is .unsupportedFormat")
    func otherFormat() throws {
        let directory = try TemporaryDirectory("damaged")
        for (slot, format) in [(0, Meta.formatVersion + 1), (1, Meta.formatVersion + 1), (0, 1), (1, Meta.oldestReadableFormat - 1)] {
            var image = fixture.image
            image.withUnsafeMutableBytes { bytes in
                let p = bytes.baseAddress! + slot * fixture.pageSize
                p.setU32(16, format)
                p.setU64(0, Checksum.page(UnsafeRawPointer(p), length: fixture.pageSize, pageNumber: UInt32(slot)))
            }
            let path = directory.file("format\(format)-\(slot).burrow")
            try DamagedFileFixture.writeFile(image, to: path)
            let expected = StorageError.unsupportedFormat(path: path, version: format, supported: Meta.formatVersion)
            #expect(throws: expected) { _ = try Storage.open(path: path) }
            #expect(throws: expected) { _ = try Storage.open(path: path, options: StorageOptions(readOnly: true)) }
        }
    }

    @Test("A file truncated below its page count is .truncated")
    func truncatedFile() throws {
        let directory = try TemporaryDirectory("damaged")
        let needed = fixture.pageCount * fixture.pageSize
        for length in [needed - fixture.pageSize, needed - 1, 3 * fixture.pageSize, 2 * fixture.pageSize] {
            let path = directory.file("truncated\(length).burrow")
            try DamagedFileFixture.writeFile(Array(fixture.image[..<length]), to: path)
            #expect(throws: StorageError.truncated(path: path, expectedBytes: needed, actualBytes: length)) {
                _ = try Storage.open(path: path)
            }
        }
        // Bytes past the page count (as an interrupted commit leaves) are no damage.
        let path = directory.file("longer.burrow")
        try DamagedFileFixture.writeFile(fixture.image + [UInt8](repeating: 0xA5, count: 3 * fixture.pageSize + 100), to: path)
        let storage = try Storage.open(path: path)
        #expect(storage.version == fixture.latest)
        _ = try storage.snapshot().verify()
        storage.close()
    }

    @Test("Both meta pages damaged is .damagedMeta")
    func bothMetasDamaged() throws {
        var image = fixture.image
        image[100] ^= 0x01
        image[fixture.pageSize + 100] ^= 0x01
        let device = DamagedFileFixture.device(image)
        do {
            _ = try Storage(device: device)
            Issue.record("a file with both metas damaged opened")
        } catch {
            guard case .damagedMeta(let path, _) = error else {
                Issue.record("expected .damagedMeta, got \(error)")
                return
            }
            #expect(path == device.name)
        }
        // Nothing was written over the damaged file.
        #expect(device.counts.writes == 0)
    }

    /// A one-sync commit writes its pages and its meta before one sync, so after a power cut the
    /// newest meta may be on disk without some of its pages. Opening checks the pages that meta
    /// lists and, if one is not exactly as written, takes the previous (durable) version.
    @Test("Damage to a page the newest meta lists opens the previous version")
    func damagedListedPageFallsBack() throws {
        var rng = TestRandom(seed: 11)
        #expect(!fixture.listedPages.isEmpty)
        #expect(try Self.evaluate(fixture.listedImage, fixture: fixture, rng: &rng) == .opened(version: fixture.latest, verified: true))
        for page in fixture.listedPages {
            for damage in ["flip", "zero", "stale"] {
                var image = fixture.listedImage
                let start = Int(page) * fixture.pageSize
                switch damage {
                case "flip": image[start + fixture.pageSize - 1 - rng.int(0..<(fixture.pageSize - 24))] ^= 0x40
                case "zero": image.replaceSubrange(start..<(start + fixture.pageSize), with: repeatElement(0, count: fixture.pageSize))
                default:
                    // An older page with a valid checksum: stamped by another version.
                    image.withUnsafeMutableBytes { bytes in
                        let p = bytes.baseAddress! + start
                        p.setU64(8, fixture.latest - 1)
                        let length =
                            PageHeader.kind(UnsafeRawPointer(p)) == PageKind.overflow.rawValue
                            ? PageHeader.overflowPages(UnsafeRawPointer(p)) * fixture.pageSize : fixture.pageSize
                        p.setU64(0, Checksum.page(UnsafeRawPointer(p), length: length, pageNumber: page))
                    }
                }
                let outcome = try Self.evaluate(image, fixture: fixture, rng: &rng)
                #expect(outcome == .opened(version: fixture.latest - 1, verified: true), "page \(page), \(damage)")
            }
        }
        // A file cut short of the newest version's page count is a commit whose growth did not
        // reach the disk: the previous version.
        let short = Array(fixture.listedImage[..<((fixture.pageCount - 1) * fixture.pageSize)])
        let outcome = try Self.evaluate(short, fixture: fixture, rng: &rng)
        #expect(outcome == .opened(version: fixture.latest - 1, verified: true) || outcome == .error("truncated"))
    }

    @Test("One meta page damaged opens the other version", arguments: [true, false])
    func oneMetaDamaged(newest: Bool) throws {
        let slot = Int(newest ? fixture.latest % 2 : (fixture.latest + 1) % 2)
        for offset in [0, 8, 24, 40, 100, fixture.pageSize - 1] {
            var image = fixture.image
            image[slot * fixture.pageSize + offset] ^= 0x40
            let storage = try Storage(device: DamagedFileFixture.device(image))
            let expectedVersion = newest ? fixture.latest - 1 : fixture.latest
            #expect(storage.version == expectedVersion, "damage at byte \(offset) of slot \(slot)")
            // Never silently: the damaged meta page is reported, with the version opened.
            let recovery = try #require(storage.recovery, "damage at byte \(offset) of slot \(slot) was not reported")
            #expect(recovery.droppedVersion == nil && recovery.openedVersion == expectedVersion)
            guard case .damagedMeta(slot, slot * fixture.pageSize, let detail) = recovery.reason, detail.hasPrefix("meta page \(slot) ") else {
                Issue.record("damage at byte \(offset) of slot \(slot) reported as \(recovery)")
                continue
            }
            let snapshot = try storage.snapshot()
            _ = try snapshot.verify()
            var rng = TestRandom(seed: 1)
            let outcome = try Self.evaluate(image, fixture: fixture, rng: &rng)
            #expect(outcome == .opened(version: expectedVersion, verified: true))
            // It keeps working: a commit on top of the older version.
            let txn = try storage.beginWriteBlocking()
            try txn.put([1, 2, 3], [4, 5, 6], in: try txn.openTree(named: "alpha"))
            #expect(try txn.commit() == expectedVersion + 1)
            _ = try storage.snapshot().verify()
        }
    }

    @Test("A damaged tree page is .corruptPage naming it, on read and in verify")
    func damagedTreePage() throws {
        var image = fixture.image
        let leaf = Int(fixture.gammaLeaf)
        image[leaf * fixture.pageSize + fixture.pageSize - 10] ^= 0x08
        let storage = try Storage(device: DamagedFileFixture.device(image))
        let snapshot = try storage.snapshot()
        let gamma = try #require(try snapshot.tree(named: "gamma"))
        // Other trees read fine.
        #expect(try snapshot.tree(named: "alpha")?.value(forKey: DamagedFileFixture.key("a", 3)) != nil)
        Self.expectCorruptPage(fixture.gammaLeaf, "reading a key on a damaged page succeeded") { _ = try gamma.value(forKey: fixture.gammaLeafKey) }
        Self.expectCorruptPage(fixture.gammaLeaf, "a full scan over a damaged page succeeded") {
            var cursor = gamma.makeCursor()
            var more = try cursor.first()
            while more { more = try cursor.next() }
        }
        Self.expectCorruptPage(fixture.gammaLeaf, "verify() passed a damaged page") { _ = try snapshot.verify() }
    }

    @Test("A damaged overflow page is .corruptPage naming its run")
    func damagedOverflowPage() throws {
        var image = fixture.image
        let first = Int(fixture.betaOverflow)
        image[(first + 1) * fixture.pageSize + 77] ^= 0x10  // inside the run's second page
        let storage = try Storage(device: DamagedFileFixture.device(image))
        let snapshot = try storage.snapshot()
        let beta = try #require(try snapshot.tree(named: "beta"))
        #expect(try beta.contains(fixture.betaOverflowKey))  // the leaf itself is sound
        Self.expectCorruptPage(fixture.betaOverflow, "reading a damaged overflow value succeeded") {
            _ = try beta.value(forKey: fixture.betaOverflowKey)
        }
        #expect(throws: StorageError.self) { _ = try snapshot.verify() }
    }

    @Test("A damaged catalog or free-tree page is .corruptPage")
    func damagedCatalogAndFreeTree() throws {
        // The catalog: every tree lookup fails, naming it.
        var image = fixture.image
        image[Int(fixture.catalogRoot) * fixture.pageSize + 30] ^= 0x02
        var storage = try Storage(device: DamagedFileFixture.device(image))
        Self.expectCorruptPage(fixture.catalogRoot, "a lookup through a damaged catalog succeeded") {
            _ = try storage.snapshot().tree(named: "alpha")
        }
        #expect(throws: StorageError.self) { _ = try storage.snapshot().verify() }
        storage.close()

        // The free tree: reads are untouched, verify finds it, and a writer does not use it blindly.
        image = fixture.image
        image[Int(fixture.freeRoot) * fixture.pageSize + 30] ^= 0x02
        storage = try Storage(device: DamagedFileFixture.device(image))
        var rng = TestRandom(seed: 7)
        #expect(try Self.evaluate(image, fixture: fixture, rng: &rng) == .opened(version: fixture.latest, verified: false))
        Self.expectCorruptPage(fixture.freeRoot, "verify() passed a damaged free tree") { _ = try storage.snapshot().verify() }
        Self.expectCorruptPage(nil, "a commit over a damaged free tree succeeded") {
            let txn = try storage.beginWriteBlocking()
            try txn.put([1], [1], in: try txn.openTree(named: "alpha"))
            try txn.commit()
        }
        storage.close()
    }

    @Test("A file held open by another process is .fileLocked")
    func lockedByAnotherProcess() throws {
        let directory = try TemporaryDirectory("locked")
        let path = directory.file("locked.burrow")
        try DamagedFileFixture.writeFile(fixture.image, to: path)
        let worker = try ChildProcess.crashWorker(["hold", path], directory: directory.path, label: "holder")
        try worker.expectLine("holding")
        #expect(throws: StorageError.fileLocked(path: path)) { _ = try Storage.open(path: path) }
        #expect(throws: StorageError.fileLocked(path: path)) { _ = try Storage.open(path: path, options: StorageOptions(readOnly: true)) }
        worker.kill()
        let storage = try Storage.open(path: path)
        #expect(storage.version == fixture.latest)
        storage.close()
    }
}
