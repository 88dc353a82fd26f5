import BurrowTestSupport
import Foundation
import Testing

@testable import BurrowRealmFile

/// Damaged and cut-short `.realm` files: every one is read to the end or refused with a
/// `RealmFileError`; none crashes the reader or loops. Byte flips and truncations of every
/// fixture, from a seed a run prints (`BURROW_SEED` replays it); `BURROW_REALM_DAMAGE_CASES`
/// changes the number of flips per fixture (100).
struct RealmFileDamageTests {
    static let cases = Int(ProcessInfo.processInfo.environment["BURROW_REALM_DAMAGE_CASES"] ?? "") ?? 100

    /// Everything the reader reads of a file; throws what it throws.
    static func readWhole(_ bytes: [UInt8]) throws(RealmFileError) {
        let file = try RealmFile(bytes: bytes)
        for entry in file.group.tables {
            let table = try file.group.table(entry)
            _ = try file.group.objects(of: table)
        }
    }

    @Test func cutShortFilesAreRefused() throws {
        for name in RealmFileFixtures.readable {
            let bytes = try RealmFileFixtures.bytes(name)
            for length in Set([0, 8, 23, 24, 39, 40, bytes.count / 2, bytes.count - 16, bytes.count - 8, bytes.count - 1]) where length < bytes.count
            {
                #expect(throws: RealmFileError.self, "\(name) cut to \(length) bytes") { try Self.readWhole(Array(bytes.prefix(length))) }
            }
        }
    }

    @Test func flippedBytesAreReadOrRefusedNeverCrash() throws {
        let seed = TestSeed.make("realm file damage")
        var random = TestRandom(seed: seed)
        for name in RealmFileFixtures.readable + ["format24_all_types.realm", "format24_many.realm"] {
            let original = try RealmFileFixtures.bytes(name)
            // The file of 5,000 objects takes a tenth of the flips: each read reads them all.
            for _ in 0..<(name == "format24_many.realm" ? max(1, Self.cases / 10) : Self.cases) {
                var bytes = original
                for _ in 0..<random.int(1...4) {
                    // Anywhere, or where a node's flags and count are if a node starts at the
                    // 8-byte boundary before.
                    let offset = random.chance(50) ? random.int(0..<bytes.count) : random.int(0..<(bytes.count / 8)) * 8 + random.int(4...7)
                    bytes[offset] ^= UInt8(random.int(1...255))
                }
                do {
                    try Self.readWhole(bytes)
                } catch {
                    #expect(!error.message.isEmpty)
                }
            }
        }
    }
}

/// Damage made on purpose where it would hurt most: refs that make a tree reach one node twice,
/// which a reader following them would read without end or multiply.
struct RealmFileSharedNodeTests {
    /// The root of the B+tree of the list `values` of the object with key `key` of `Item`, in
    /// `format24_many.realm`, and the offset of that root in the file.
    static func listRoot(_ bytes: [UInt8], key: Int64) throws -> Node {
        let image = FileImage(bytes: bytes)
        let group = try RealmGroup(image)
        let table = try group.table(try #require(group.table(named: "class_Item")))
        let column = try #require(table.columns.first { $0.name == "values" })
        for leaf in try ClusterTree(image, root: try #require(table.clusterRoot)).leaves {
            guard let row = leaf.keys.firstIndex(of: key), let refs = try leaf.columnLeaf(column.leafIndex, in: image) else { continue }
            return try Node(image, at: try #require(try refs.ref(row, in: image)))
        }
        throw RealmFileError(.damaged, "no such object")
    }

    @Test func aListWhoseTreeReachesANodeTwiceIsDamage() throws {
        var bytes = try RealmFileFixtures.bytes("format24_many.realm")
        // Item 4999 holds 10,000 integers: an inner node over leaves of 1,000.
        let root = try Self.listRoot(bytes, key: 4998)
        #expect(root.isInnerBPlusTreeNode)
        #expect(root.count >= 4)
        // Its second child becomes its first, so the first leaf would be read twice.
        let width = root.width / 8
        let first = root.payload + 1 * width
        let second = root.payload + 2 * width
        bytes.replaceSubrange(second..<(second + width), with: bytes[first..<(first + width)])
        #expect {
            try RealmFileDamageTests.readWhole(bytes)
        } throws: { error in
            (error as? RealmFileError)?.message.contains("reaches one node twice") == true
        }
    }
}
