import Foundation
import Testing

@testable import BurrowStorage
@testable import StorageCrashWorker

/// After opening falls back past a commit, that commit's meta still lies in the pending slot, and
/// the commits that follow reuse its version numbers. These tests build the files a power cut
/// leaves (whatever was written, minus what did not land) and check that the dropped meta never
/// opens again: the first commit after a fallback writes the version opened over it.
@Suite("A meta dropped by opening")
struct DroppedMetaTests {
    /// Commits, one version at a time up to `version`, commit *n* of a fixed sequence: tree
    /// "tree n" with one entry of `valuePages` pages. Each commit writes only its own pages, at
    /// the end of the file, so two handles that start from the same version write the same
    /// pages with the same bytes. Returns without waiting for a sync (under `.normal` the meta
    /// reaches the disk; under `.full` it waits for a round that never runs).
    static func commit(_ storage: Storage, upTo version: UInt64, valuePages: Int = 0, durability: Durability) throws {
        while storage.version < version {
            let n = storage.version + 1
            let txn = try storage.beginWriteBlocking()
            let tree = try txn.openTree(named: "tree \(n)")
            let length = valuePages > 0 ? valuePages * storage.pageSize : 100
            try txn.put(Array("key \(n)".utf8), [UInt8](repeating: UInt8(truncatingIfNeeded: n), count: length), in: tree)
            _ = try txn.commitPendingSync(durability: durability)
        }
    }

    /// The valid meta in `slot` of `image`, with the pages it lists.
    static func meta(in image: [UInt8], slot: Int, pageSize: Int = 4096) throws -> (meta: Meta, written: WrittenPages) {
        let reading = image.withUnsafeBytes { Meta.read(UnsafeRawBufferPointer(rebasing: $0[(slot * pageSize)...]), slot: slot) }
        guard case .valid(let meta, let written) = reading else { throw FailureTestError("meta page \(slot) is not valid: \(reading)") }
        return (meta, written)
    }

    /// The file after a power cut that kept every write except `pages` (they read as zeros).
    static func image(_ disk: SimulatedDisk, losing pages: [PageNumber], pageSize: Int = 4096) -> [UInt8] {
        var image = disk.currentImage
        for page in pages { image.replaceSubrange((Int(page) * pageSize)..<(Int(page + 1) * pageSize), with: repeatElement(0, count: pageSize)) }
        return image
    }

    static func open(_ image: [UInt8], readOnly: Bool = false) throws -> (Storage, SimulatedDisk) {
        let disk = SimulatedDisk(name: "dropped meta", image: image, capacity: 1 << 24)
        return (try Storage(device: disk, options: StorageOptions(readOnly: readOnly)), disk)
    }

    /// Versions 1 to 3 published with their metas going out listed (slot 1 ends with version 3,
    /// listing the pages of all three), and a power cut that lost the page version 1 wrote: the
    /// file opens at version 0, reporting version 3 dropped.
    static func fileWithDroppedVersion3() throws -> [UInt8] {
        let disk = SimulatedDisk(name: "dropped meta", capacity: 1 << 24)
        let storage = try Storage(device: disk)
        try commit(storage, upTo: 3, durability: .full)
        let (meta, written) = try meta(in: disk.currentImage, slot: 1)
        try #require(meta.version == 3 && written.base == 0 && written.entries.count == 3)
        // Each commit wrote one leaf, in version order.
        return image(disk, losing: [written.entries[0].page])
    }

    @Test("Pages written again by later commits do not make a dropped meta whole")
    func rewrittenPagesDoNotRevive() throws {
        let (storage, _) = try Self.open(try Self.fileWithDroppedVersion3())
        #expect(storage.version == 0 && storage.recovery?.droppedVersion == 3)
        // The next life commits versions 1 and 2 again, writing the page that was lost with the
        // bytes version 3's meta lists, and the power fails before a meta of its own lands.
        try Self.commit(storage, upTo: 2, durability: .full)
        let disk = storage.device as! SimulatedDisk
        let (reopened, _) = try Self.open(disk.currentImage)
        // Version 3 was never written by this life, and the open before reported it dropped.
        #expect(reopened.version == 0, "opened version \(reopened.version), which this life never wrote")
        #expect(reopened.recovery == nil, "reported \(String(describing: reopened.recovery))")
        _ = try reopened.snapshot().verify()
    }

    /// Version 1 durable in slot 1; a handle opened on that file writes version 2's meta
    /// without a list (`.normal`, before its first sync round), and the power fails before
    /// version 2's pages, at the end of the file, land. Returns a handle opened on what the disk
    /// kept (at version 1, reporting version 2 dropped for a file too short for it) and the
    /// bytes version 2 needs.
    static func handleAfterDroppingAVersionWithoutAList() throws -> (storage: Storage, droppedBytes: Int) {
        let first = SimulatedDisk(name: "dropped meta", capacity: 1 << 24)
        try commit(try Storage(device: first), upTo: 1, durability: .normal)
        let (writer, disk) = try open(first.currentImage)
        try commit(writer, upTo: 2, valuePages: 3, durability: .normal)
        let (version1, _) = try meta(in: disk.currentImage, slot: 1)
        let (version2, list) = try meta(in: disk.currentImage, slot: 0)
        try #require(version1.version == 1 && version2.version == 2 && list.base == 1 && list.entries.isEmpty)
        let (storage, _) = try open(Array(disk.currentImage[..<(Int(version1.pageCount) * writer.pageSize)]))
        guard case .truncated = storage.recovery?.reason, storage.version == 1 else {
            throw FailureTestError("opened version \(storage.version), reporting \(String(describing: storage.recovery))")
        }
        return (storage, Int(version2.pageCount) * writer.pageSize)
    }

    @Test("A dropped meta without a list stays dropped when later commits lengthen the file")
    func longerFileDoesNotRevive() throws {
        let (storage, droppedBytes) = try Self.handleAfterDroppingAVersionWithoutAList()
        // The next life commits another version 2, longer than the dropped one; the power fails
        // before its meta lands.
        try Self.commit(storage, upTo: 2, valuePages: 6, durability: .full)
        let image = (storage.device as! SimulatedDisk).currentImage
        try #require(image.count >= droppedBytes)
        let (reopened, _) = try Self.open(image)
        #expect(reopened.version == 1, "opened version \(reopened.version), whose pages this life wrote over")
        #expect(reopened.recovery == nil, "reported \(String(describing: reopened.recovery))")
        _ = try reopened.snapshot().verify()
    }

    @Test("A dropped meta without a list stays dropped when a transaction spills past the file's end and aborts")
    func spilledPagesDoNotRevive() throws {
        let (storage, droppedBytes) = try Self.handleAfterDroppingAVersionWithoutAList()
        // The next life's transaction passes its memory limit and writes pages past the end of
        // the file, then aborts; the power fails before any commit.
        let txn = try storage.beginWriteBlocking()
        txn.memoryLimit = storage.pageSize
        let tree = try txn.openTree(named: "big")
        for n in 0..<8 { try txn.put([UInt8(n)], [UInt8](repeating: 9, count: 3 * storage.pageSize), in: tree) }
        #expect(txn.dirtyPageCounts.spilled > 0)
        txn.abort()
        let image = (storage.device as! SimulatedDisk).currentImage
        try #require(image.count >= droppedBytes)
        let (reopened, _) = try Self.open(image)
        #expect(reopened.version == 1, "opened version \(reopened.version), whose pages an aborted transaction wrote over")
        #expect(reopened.recovery == nil, "reported \(String(describing: reopened.recovery))")
        _ = try reopened.snapshot().verify()
    }

    @Test("A read-only handle leaves the dropped meta in place and every open reports it")
    func readOnlyOpenKeepsTheReport() throws {
        let image = try Self.fileWithDroppedVersion3()
        for _ in 0..<2 {
            let (storage, disk) = try Self.open(image, readOnly: true)
            #expect(storage.version == 0 && storage.recovery?.droppedVersion == 3)
            #expect(disk.currentImage == image)
        }
    }

    @Test("The first commit after a fallback writes the version opened over the dropped meta, once")
    func firstCommitRetiresTheDroppedMeta() throws {
        let (storage, disk) = try Self.open(try Self.fileWithDroppedVersion3())
        #expect(disk.counts.writes == 0, "opening wrote to the file")
        try Self.commit(storage, upTo: 1, durability: .full)
        let counts = disk.counts
        // The slot that held version 3 now holds version 0, synced before version 1's page.
        #expect(counts.syncs == 1)
        let (cover, list) = try Self.meta(in: disk.durableImage, slot: 1)
        #expect(cover.version == 0 && list.base == 0 && list.entries.isEmpty)
        try Self.commit(storage, upTo: 2, durability: .full)
        #expect(disk.counts.syncs == counts.syncs, "a later commit wrote the slot again")
        // Acknowledged commits then alternate slots as ever.
        try storage.waitUntilDurableBlocking(CommitReceipt(version: 2))
        let (reopened, _) = try Self.open(disk.durableImage)
        #expect(reopened.version == 2 && reopened.recovery == nil)
    }
}
