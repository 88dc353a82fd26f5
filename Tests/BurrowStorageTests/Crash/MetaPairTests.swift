import Testing

@testable import BurrowStorage

/// Opening checks the pair of metas on every open, not only when it falls back: the newest meta
/// builds on the version in the other slot (its `listBase`), and a crash or a power loss leaves
/// exactly that pair. An older copy of a meta page written over one of them is reported, never
/// opened silently (Architecture.md, "What a damaged file does").
@Suite("MetaPair")
struct MetaPairTests {
    /// A file on a simulated disk after versions 1 to 6, each committed `.full` on its own (so
    /// version v's meta is in slot v mod 2, listing its pages, and builds on v − 1), with the
    /// image after each version.
    struct History {
        let pageSize = 4096
        var images: [UInt64: [UInt8]] = [:]

        init() throws {
            let disk = SimulatedDisk(name: "meta pair", capacity: 1 << 24)
            let storage = try Storage(device: disk)
            images[0] = disk.currentImage
            for version in 1...6 {
                let txn = try storage.beginWriteBlocking()
                let tree = try txn.openTree(named: "t")
                for i in 0..<20 { try txn.put([UInt8(version), UInt8(i)], [UInt8](repeating: UInt8(i), count: 40), in: tree) }
                #expect(try txn.commit(durability: .full) == UInt64(version))
                images[UInt64(version)] = disk.currentImage
            }
            storage.close()
        }

        /// The newest image with meta page `slot` replaced by that page as it was after `version`.
        func newest(withSlot slot: Int, from version: UInt64) -> [UInt8] {
            var image = images[6]!
            let range = (slot * pageSize)..<((slot + 1) * pageSize)
            image.replaceSubrange(range, with: images[version]![range])
            return image
        }

        func open(_ image: [UInt8]) throws -> Storage {
            try Storage(device: SimulatedDisk(name: "meta pair copy", image: image, capacity: 1 << 24), options: StorageOptions(readOnly: true))
        }
    }

    @Test("The file as written opens at version 6 with no report")
    func wholeFileOpensWithoutReport() throws {
        let history = try History()
        let storage = try history.open(history.images[6]!)
        defer { storage.close() }
        #expect(storage.version == 6)
        #expect(storage.recovery == nil)
    }

    /// Slot 0 held version 6, slot 1 version 5 (which builds on 4, and which 6 builds on); meta
    /// page `slot` now holds `copied`. Over the newest, version 5 opens and version 6 is lost;
    /// over the other, version 6 opens. Either way the changed page is reported.
    @Test(
        "An older meta copied over one of the pair is reported, and the newest remaining opens",
        arguments: [(0, UInt64(0)), (0, 2), (1, 1), (1, 3)])
    func olderMetaOverOneOfThePair(slot: Int, copied: UInt64) throws {
        let history = try History()
        let storage = try history.open(history.newest(withSlot: slot, from: copied))
        defer { storage.close() }
        let opened: UInt64 = slot == 0 ? 5 : 6
        #expect(storage.version == opened)
        let recovery = try #require(storage.recovery, "an older meta in slot \(slot) opened silently")
        #expect(recovery.droppedVersion == nil && recovery.openedVersion == opened)
        guard case .damagedMeta(slot, slot * history.pageSize, let detail) = recovery.reason else {
            Issue.record("reported as \(recovery)")
            return
        }
        #expect(
            detail == "meta page \(slot) holds version \(copied), but version \(opened) builds on version \(opened - 1): "
                + "the page was changed after it was written")
        #expect(
            recovery.description.hasSuffix(
                "Opened version \(opened) from meta page \(1 - slot); if meta page \(slot) held a newer commit, that commit is lost."))
        _ = try storage.snapshot().verify()
    }

    @Test("The meta a newest commit builds on, copied over it, is what a crash leaves: no report")
    func builtOnMetaOverNewestIsACrash() throws {
        // Slot 0 holds version 4 again: as if version 6's meta never reached the file.
        let history = try History()
        let storage = try history.open(history.newest(withSlot: 0, from: 4))
        defer { storage.close() }
        #expect(storage.version == 5)
        #expect(storage.recovery == nil)
    }

    @Test("A report of a changed meta clears once a commit writes the pair anew")
    func writableOpenCommitsOnTop() throws {
        let history = try History()
        let disk = SimulatedDisk(name: "meta pair writable", image: history.newest(withSlot: 0, from: 2), capacity: 1 << 24)
        let storage = try Storage(device: disk)
        #expect(storage.version == 5 && storage.recovery != nil)
        let txn = try storage.beginWriteBlocking()
        try txn.put([9], [9], in: try txn.openTree(named: "t"))
        #expect(try txn.commit(durability: .full) == 6)
        storage.close()
        let reopened = try history.open(disk.currentImage)
        defer { reopened.close() }
        #expect(reopened.version == 6)
        #expect(reopened.recovery == nil)
    }
}

extension StorageRecovery {
    /// Whether this reports a meta pair that a crash or a power loss cannot leave (a meta page
    /// changed after it was written). The crash and power-loss tests check that it never comes.
    var reportsChangedMeta: Bool {
        guard case .damagedMeta(_, _, let detail) = reason else { return false }
        return detail.hasSuffix("the page was changed after it was written")
    }
}
