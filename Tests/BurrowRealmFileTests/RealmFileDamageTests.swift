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
        for name in RealmFileFixtures.readable {
            let original = try RealmFileFixtures.bytes(name)
            for _ in 0..<Self.cases {
                var bytes = original
                for _ in 0..<random.int(1...4) { bytes[random.int(0..<bytes.count)] ^= UInt8(random.int(1...255)) }
                do {
                    try Self.readWhole(bytes)
                } catch {
                    #expect(!error.message.isEmpty)
                }
            }
        }
    }
}
