import BurrowTestSupport
import Foundation
import Testing

@testable import BurrowRealmFile

/// Encrypted `.realm` files: realm-core's page encryption, read with libcrypto.
struct RealmFileEncryptionTests {
    static let fixture = "test_shared_decrypt_4k_page.realm"

    @Test func theRightKeyDecryptsEveryPage() throws {
        let physical = try RealmFileFixtures.bytes(Self.fixture)
        #expect(EncryptedFile.looksEncrypted(physical))
        let image = try EncryptedFile.decrypt(physical, key: RealmFileFixtures.legacyTestKey)
        // 19 pages: one page of IVs and HMACs, 18 of data.
        #expect(image.count == 18 * 4096)
        #expect(Array(image.bytes[16..<20]) == Array("T-DB".utf8))
        // The file's one string: 6,144 'a's and the NUL after it, in a blob of 6,145 bytes.
        let blob = Array(repeating: UInt8(ascii: "a"), count: 6144) + [0]
        let run = image.bytes.firstRange(of: blob)
        #expect(run != nil)
    }

    @Test func aDecryptedFileOfAnOldFormatIsRefusedAsSuch() {
        #expect {
            try RealmFile(path: RealmFileFixtures.path(Self.fixture), encryptionKey: RealmFileFixtures.legacyTestKey)
        } throws: { error in
            guard let error = error as? RealmFileError else { return false }
            return error.kind == .unsupportedFormat && error.message.contains("file format 9,")
        }
    }

    @Test func anEncryptedFileWithoutItsKeySaysSo() {
        #expect {
            try RealmFile(path: RealmFileFixtures.path(Self.fixture))
        } throws: { error in
            guard let error = error as? RealmFileError else { return false }
            return error.kind == .notARealmFile && error.message.contains("encrypted")
        }
    }

    @Test func aWrongKeyIsRefusedNeverDecryptedToGarbage() {
        // realm-core's current test key shares its HMAC half with the file's: the pages verify
        // and decrypt to no realm. A key of other bytes fails the first page's HMAC.
        let sharesHMACHalf: [UInt8] = [0] + Array("123456789012345678901234567890123456789012345678901234567890123".utf8)
        let other = [UInt8](repeating: 0x55, count: 64)
        for key in [sharesHMACHalf, other] {
            #expect {
                try RealmFile(path: RealmFileFixtures.path(Self.fixture), encryptionKey: key)
            } throws: { error in
                (error as? RealmFileError)?.kind == .wrongKey
            }
        }
        #expect {
            try RealmFile(path: RealmFileFixtures.path(Self.fixture), encryptionKey: [1, 2, 3])
        } throws: { error in
            guard let error = error as? RealmFileError else { return false }
            return error.kind == .wrongKey && error.message.contains("64 bytes")
        }
    }

    @Test func aKeyForAPlainFileIsRefused() {
        #expect {
            try RealmFile(path: RealmFileFixtures.path("test_upgrade_database_20.realm"), encryptionKey: RealmFileFixtures.legacyTestKey)
        } throws: { error in
            guard let error = error as? RealmFileError else { return false }
            return error.kind == .wrongKey && error.message.contains("not encrypted")
        }
    }

    @Test func aDamagedPageIsReportedWithItsNumber() throws {
        var physical = try RealmFileFixtures.bytes(Self.fixture)
        // Data page 9 was written (page 0 of the file holds the IVs): flip a byte of its
        // ciphertext.
        physical[(9 + 1) * 4096 + 100] ^= 0x01
        #expect {
            try EncryptedFile.decrypt(physical, key: RealmFileFixtures.legacyTestKey)
        } throws: { error in
            guard let error = error as? RealmFileError else { return false }
            return error.kind == .damaged && error.message.contains("page 9")
        }
    }
}

@Test func aMissingLibcryptoNamesThePackageToInstall() {
    guard case .failure(let error) = LibCrypto.load(path: "/nonexistent/libcrypto.so.3") else {
        Issue.record("a library that does not exist loaded")
        return
    }
    #expect(error.kind == .unavailable)
    #expect(error.message.contains("apt-get install libssl3"))
    #expect(error.message.contains("BURROW_LIBCRYPTO"))
}
