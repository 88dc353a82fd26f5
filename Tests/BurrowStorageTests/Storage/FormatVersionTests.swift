// File formats: the engine opens files of format 4 as well as the current one, keeps a
// version's format in the versions built on it, and records a new format only when told.

import BurrowTestSupport
import Foundation
import Testing

@testable import BurrowStorage

@Suite("FormatVersion")
struct FormatVersionTests {
    /// A closed file at `path` with one tree, both of whose meta pages say `format`, written by
    /// transactions of that format (whose leaves have the first form before format 7).
    private func makeFile(_ path: String, format: UInt32) throws {
        do {
            let storage = try Storage.open(path: path, options: StorageOptions())
            defer { storage.close() }
            for (key, value) in [([UInt8(1)], [UInt8(2)]), ([2], [3])] {
                _ = try modelTestCommit(storage, durability: .full) {
                    if format >= Meta.oldestReadableFormat { $0.setFormat(format) }
                    try $0.put(key, value, in: try $0.openTree(named: "t"))
                }
            }
        }
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        for slot in 0..<2 {
            try handle.seek(toOffset: UInt64(slot * 4096))
            var page = [UInt8](handle.readData(ofLength: 4096))
            page.withUnsafeMutableBytes { bytes in
                let p = bytes.baseAddress!
                p.setU32(16, format)
                p.setU64(0, Checksum.page(UnsafeRawPointer(p), length: 4096, pageNumber: UInt32(slot)))
            }
            try handle.seek(toOffset: UInt64(slot * 4096))
            handle.write(Data(page))
        }
    }

    @Test("a file of format 4 opens, and its commits keep format 4 until one sets the format")
    func olderFormatIsReadAndKept() throws {
        let directory = try TemporaryDirectory("format")
        let path = directory.file("four.burrow")
        try makeFile(path, format: 4)
        do {
            let storage = try Storage.open(path: path, options: StorageOptions())
            defer { storage.close() }
            #expect(try storage.snapshot().format == 4)
            #expect(try storage.snapshot().tree(named: "t")?.value(forKey: [2]) == [3])
            let transaction = try storage.beginWriteBlocking()
            #expect(transaction.format == 4)
            try transaction.put([3], [4], in: try transaction.openTree(named: "t"))
            _ = try transaction.commit(durability: .full)
            #expect(try storage.snapshot().format == 4)
            // A copy written whole keeps the format of the version copied.
            try storage.snapshot().copy(toPath: directory.file("copy.burrow"))
            // An aborted transaction that set the format changes nothing.
            let aborted = try storage.beginWriteBlocking()
            aborted.setFormat(Meta.formatVersion)
            aborted.abort()
            #expect(try storage.snapshot().format == 4)
            let upgrading = try storage.beginWriteBlocking()
            upgrading.setFormat(Meta.formatVersion)
            _ = try upgrading.commit(durability: .full)
            #expect(try storage.snapshot().format == Meta.formatVersion)
            _ = try modelTestCommit(storage) { try $0.put([4], [5], in: try $0.openTree(named: "t")) }
            #expect(try storage.snapshot().format == Meta.formatVersion)
        }
        let reopened = try Storage.open(path: path, options: StorageOptions(readOnly: true))
        #expect(try reopened.snapshot().format == Meta.formatVersion)
        #expect(try reopened.snapshot().tree(named: "t")?.count == 4)
        reopened.close()
        let copy = try Storage.open(path: directory.file("copy.burrow"), options: StorageOptions(readOnly: true))
        defer { copy.close() }
        #expect(try copy.snapshot().format == 4)
        #expect(try copy.snapshot().tree(named: "t")?.count == 3)
        #expect(try copy.snapshot().verify().isSound)
    }

    @Test("a file of format 6 is written in format 7 by its next write, which makes the leaves it copies compact")
    func formatSixBecomesSevenLeafByLeaf() throws {
        let directory = try TemporaryDirectory("format")
        let path = directory.file("six.burrow")
        // Two trees of several leaves each, in the first form.
        do {
            let storage = try Storage.open(path: path, options: StorageOptions())
            defer { storage.close() }
            _ = try modelTestCommit(storage, durability: .full) { write in
                write.setFormat(6)
                for name in ["a", "b"] {
                    let tree = try write.openTree(named: name)
                    for i in 0..<2_000 { try write.put(Array("\(name) key \(i)".utf8), Array("value \(i)".utf8), in: tree) }
                }
            }
        }
        func leaves(_ snapshot: Snapshot, _ name: String) throws -> (compact: Int, first: Int) {
            try #require(try snapshot.tree(named: name)).leafForms()
        }
        let storage = try Storage.open(path: path, options: StorageOptions())
        defer { storage.close() }
        #expect(try storage.snapshot().format == 6)
        #expect(try leaves(storage.snapshot(), "a").compact == 0)
        let write = try storage.beginWriteBlocking()
        #expect(write.format == Meta.formatVersion && write.compactLeaves)
        // Every entry of "a" changes (each of its leaves is copied), none of "b".
        try write.rewriteAllValues(in: try write.openTree(named: "a")) { _, old, new in
            new.append(contentsOf: old.reversed())
            return true
        }
        _ = try write.commit(durability: .full)
        let snapshot = try storage.snapshot()
        #expect(snapshot.format == Meta.formatVersion)
        #expect(try snapshot.verify().isSound)
        let a = try leaves(snapshot, "a")
        let b = try leaves(snapshot, "b")
        #expect(a.first == 0 && a.compact > 0 && b.compact == 0 && b.first > 0, "a \(a), b \(b)")
        #expect(try snapshot.tree(named: "a")?.value(forKey: Array("a key 7".utf8)) == Array("value 7".utf8).reversed())
        #expect(try snapshot.tree(named: "b")?.value(forKey: Array("b key 7".utf8)) == Array("value 7".utf8))
        // A copy written whole of the new version is all compact; the compact leaves take fewer
        // pages than the first form did.
        try snapshot.copy(toPath: directory.file("copy.burrow"))
        let copy = try Storage.open(path: directory.file("copy.burrow"), options: StorageOptions(readOnly: true))
        defer { copy.close() }
        #expect(try copy.snapshot().format == Meta.formatVersion)
        #expect(try leaves(copy.snapshot(), "b").first == 0 && leaves(copy.snapshot(), "b").compact < b.first)
    }

    @Test("a new file is written in the current format")
    func newFilesAreCurrent() throws {
        let directory = try TemporaryDirectory("format")
        let storage = try Storage.open(path: directory.file("new.burrow"), options: StorageOptions())
        defer { storage.close() }
        #expect(try storage.snapshot().format == Meta.formatVersion)
        _ = try modelTestCommit(storage) { try $0.put([1], [1], in: try $0.openTree(named: "t")) }
        #expect(try storage.snapshot().format == Meta.formatVersion)
    }

    @Test("a file older than format 4 is refused with a message naming the formats read")
    func tooOldIsRefused() throws {
        let directory = try TemporaryDirectory("format")
        let path = directory.file("three.burrow")
        try makeFile(path, format: 3)
        #expect(throws: StorageError.unsupportedFormat(path: path, version: 3, supported: Meta.formatVersion)) {
            _ = try Storage.open(path: path, options: StorageOptions(readOnly: true))
        }
        let message = StorageError.unsupportedFormat(path: path, version: 3, supported: Meta.formatVersion).description
        #expect(message.contains("file format 3") && message.contains("4 to \(Meta.formatVersion)"), "\(message)")
    }
}
