import Foundation

/// The `.realm` files realm-core wrote, in `Fixtures` beside this file (see its README).
enum RealmFileFixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    static func bytes(_ name: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: directory.appendingPathComponent(name))) }

    /// The unencrypted fixtures of the formats the reader reads.
    static let readable = [
        "test_upgrade_database_20.realm", "test_upgrade_database_1000_22.realm", "test_upgrade_database_4_22.realm",
        "test_upgrade_database_1000_23.realm", "test_upgrade_database_4_23.realm", "test_backup-olden-and-golden.realm",
        "sync-metadata-v6.realm",
    ]

    /// realm-core 4.0.3's test key, which `test_shared_decrypt_4k_page.realm` was written with.
    static let legacyTestKey = Array("1234567890123456789012345678901123456789012345678901234567890123".utf8)
}
