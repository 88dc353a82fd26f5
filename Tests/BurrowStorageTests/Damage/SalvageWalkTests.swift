import BurrowTestSupport
import Foundation
import Testing

@testable import BurrowStorage

/// The salvage walk (`PageWalk`) and `Snapshot.check` on files with random contents and random
/// pages damaged: every entry whose pages are all sound is visited, with its exact value, and
/// nothing else; every damaged page the walk can reach is listed, and the check goes on past it.
@Suite("SalvageWalk", .ownThread)
struct SalvageWalkTests {
    typealias Entries = [[UInt8]: [UInt8]]

    /// A file of a few trees of random entries (some values long enough for overflow runs),
    /// its metas without written-page lists, so that damage anywhere is found on reading.
    static func makeImage(_ rng: inout TestRandom, pageSize: Int) throws -> (image: [UInt8], trees: [String: Entries]) {
        let disk = SimulatedDisk(name: "salvage", capacity: 1 << 24)
        let storage = try Storage(device: disk, options: StorageOptions(pageSize: pageSize))
        var trees: [String: Entries] = [:]
        let txn = try storage.beginWriteBlocking()
        for t in 0..<rng.int(2...5) {
            let name = "tree \(t)"
            let id = try txn.openTree(named: name)
            var entries: Entries = [:]
            for _ in 0..<rng.int(0...1500) {
                let key = (0..<rng.int(1...24)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                let length = rng.int(0...100) < 3 ? rng.int(pageSize...(3 * pageSize)) : rng.int(0...120)
                let value = (0..<length).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                try txn.put(key, value, in: id)
                entries[key] = value
            }
            trees[name] = entries
        }
        try txn.commit(durability: .full)
        let latest = try storage.snapshot().version
        let pageCount = Int(try storage.snapshot().meta.pageCount)
        storage.close()
        var image = disk.currentImage
        if image.count < pageCount * pageSize { image += [UInt8](repeating: 0, count: pageCount * pageSize - image.count) }
        return (DamagedFileFixture.withoutWrittenPageLists(image, pageSize: pageSize, latest: latest).0, trees)
    }

    /// The entries of each tree whose leaf, overflow run and every page above them are not in
    /// `damaged`, read from the sound image; and the damaged pages a walk reaches (those with
    /// no damaged page above them).
    static func expected(_ image: [UInt8], damaged: Set<PageNumber>) throws -> (trees: [String: Entries], reachable: Set<PageNumber>) {
        let storage = try Storage(device: DamagedFileFixture.device(image), options: StorageOptions())
        defer { storage.close() }
        let snapshot = try storage.snapshot()
        var trees: [String: Entries] = [:]
        var reachable = Set<PageNumber>()
        for name in try snapshot.treeNames() {
            var entries: Entries = [:]
            var pending = [try snapshot.tree(named: name)!.state.root].filter { $0 != 0 }
            while let number = pending.popLast() {
                if damaged.contains(number) {
                    reachable.insert(number)
                    continue
                }
                let p = try snapshot.page(number)
                for i in 0..<PageHeader.count(p) {
                    if !PageHeader.isLeaf(p) {
                        pending.append(PageHeader.child(p, i))
                        continue
                    }
                    if PageHeader.leafIsOverflow(p, i) {
                        let first = PageHeader.leafStored(p, i).baseAddress!.u32(0)
                        let run = try snapshot.page(first)
                        let pages = (0..<PageHeader.overflowPages(run)).map { first + PageNumber($0) }
                        // Only a run's first page is checked on its own; the checksum covers the run.
                        if pages.contains(where: damaged.contains) {
                            reachable.insert(first)
                            continue
                        }
                    }
                    entries[PageHeader.leafKeyBytes(p, i)] = Array(try BTree.value(snapshot, leaf: p, index: i))
                }
            }
            trees[name] = entries
        }
        return (trees, reachable)
    }

    @Test("Every entry on sound pages is salvaged, nothing else, and every reachable damaged page is listed", arguments: [4096, 8192])
    func randomDamage(pageSize: Int) throws {
        let seed = TestSeed.make("SalvageWalk \(pageSize)-byte pages")
        var rng = TestRandom(seed: seed)
        for iteration in 0..<TestEnvironment.count("BURROW_SALVAGE_ITERATIONS", default: 12) {
            let (image, written) = try Self.makeImage(&rng, pageSize: pageSize)
            let pageCount = image.count / pageSize
            var damaged = Set<PageNumber>()
            for _ in 0..<rng.int(0...6) { damaged.insert(PageNumber(rng.int(2..<pageCount))) }
            var bytes = image
            for page in damaged { bytes[Int(page) * pageSize + rng.int(0..<pageSize)] ^= UInt8(rng.int(1...255)) }
            let (expected, reachable) = try Self.expected(image, damaged: damaged)
            let what = "iteration \(iteration) (seed \(seed)), pages \(damaged.sorted()) damaged"

            let storage = try Storage(device: DamagedFileFixture.device(bytes), options: StorageOptions(readOnly: true))
            defer { storage.close() }
            let snapshot = try storage.snapshot()
            let report = snapshot.check(problemLimit: 1000)
            let listed = Set(report.problems.filter(\.isUnreadable).map(\.page))
            #expect(listed == reachable, "\(what): listed \(listed.sorted()), expected \(reachable.sorted())")
            #expect(report.isSound == damaged.isEmpty, "\(what)")

            for (name, entries) in written {
                var salvaged: Entries = [:]
                var previous: [UInt8]?
                let walk = PageWalk(snapshot)
                let state = try #require(try snapshot.tree(named: name)).state
                walk.walk(state, tree: name, owner: name) { key, value in
                    if let previous { #expect(previous.lexicographicallyPrecedes(Array(key)), "\(what): keys out of order") }
                    previous = Array(key)
                    salvaged[Array(key)] = Array(value)
                    return true
                }
                #expect(salvaged == expected[name], "\(what): tree \(name)")
                // Nothing invented: every entry salvaged was written, with its value.
                #expect(salvaged.allSatisfy { entries[$0.key] == $0.value }, "\(what): tree \(name)")
                let lost = walk.problems.filter(\.isUnreadable).reduce(UInt64(0)) { $0 + ($1.lostEntries ?? 0) }
                #expect(UInt64(salvaged.count) + lost == UInt64(entries.count), "\(what): tree \(name) counts")
            }
        }
    }

    @Test("verify() still throws the first damaged page; check() lists them all")
    func verifyThrowsTheFirst() throws {
        let fixture = DamagedFileFixture.shared
        var bytes = fixture.image
        let pages = [fixture.gammaLeaf, fixture.betaOverflow]
        for page in pages { bytes[Int(page) * fixture.pageSize + 300] ^= 0x41 }
        let storage = try Storage(device: DamagedFileFixture.device(bytes), options: StorageOptions(readOnly: true))
        defer { storage.close() }
        let snapshot = try storage.snapshot()
        DamagedFileTests.expectCorruptPage(nil, "verify() of a damaged file succeeded") { _ = try snapshot.verify() }
        let report = snapshot.check()
        #expect(Set(report.problems.filter(\.isUnreadable).map(\.page)) == Set(pages), "\(report.problems)")
        #expect(report.problems.first { $0.page == fixture.betaOverflow }?.tree == "beta")
        #expect(report.problems.first { $0.page == fixture.gammaLeaf }?.lostEntries ?? 0 > 0)
    }

    @Test("A damaged catalog page is listed, and the trees it named are not read")
    func damagedCatalog() throws {
        let fixture = DamagedFileFixture.shared
        var bytes = fixture.image
        bytes[Int(fixture.catalogRoot) * fixture.pageSize + 300] ^= 0x41
        let storage = try Storage(device: DamagedFileFixture.device(bytes), options: StorageOptions(readOnly: true))
        defer { storage.close() }
        let snapshot = try storage.snapshot()
        let walk = PageWalk(snapshot)
        let trees = snapshot.soundTrees(walk)
        #expect(trees.count < fixture.contents[fixture.latest]!.trees.count)
        #expect(walk.problems.contains { $0.page == fixture.catalogRoot && $0.owner == "the catalog" && $0.isUnreadable }, "\(walk.problems)")
        #expect(snapshot.check().problems.first?.page == fixture.catalogRoot)
    }

    @Test("A file of garbage finishes with a bounded list and a count of the rest")
    func garbageIsBounded() throws {
        let fixture = DamagedFileFixture.shared
        var bytes = fixture.image
        // Every page but the catalog's root: each tree's root is damaged.
        for page in 2..<fixture.pageCount where page != Int(fixture.catalogRoot) { bytes[page * fixture.pageSize + 100] ^= 0x5a }
        let storage = try Storage(device: DamagedFileFixture.device(bytes), options: StorageOptions(readOnly: true))
        defer { storage.close() }
        let snapshot = try storage.snapshot()
        let report = snapshot.check(problemLimit: 3)
        #expect(report.problems.count == 3 && report.unlistedProblems > 0, "\(report.problems)")
        // Listed or not, every damaged page the walk reached is counted.
        let all = snapshot.check(problemLimit: 10_000)
        #expect(all.problems.count == 3 + report.unlistedProblems)
        #expect(all.problems.filter(\.isUnreadable).count > 3)
    }
}
