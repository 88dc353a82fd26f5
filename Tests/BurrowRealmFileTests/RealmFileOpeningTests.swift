import BurrowTestSupport
import Foundation
import Testing

@testable import BurrowRealmFile

/// Opening `.realm` files: the header, the format versions read and refused, the group's tables.
struct RealmFileOpeningTests {
    @Test func eachFixtureOpensWithItsFormatAndTables() throws {
        let expected: [String: (format: Int, tables: Set<String>)] = [
            "test_upgrade_database_20.realm": (20, ["foo", "bar", "origin"]),
            "test_upgrade_database_1000_22.realm": (22, ["table", "target"]),
            "test_upgrade_database_4_22.realm": (22, ["table", "target"]),
            "test_upgrade_database_1000_23.realm": (23, ["table", "target", "table_for_mixed", "table2"]),
            "test_upgrade_database_4_23.realm": (23, ["table", "target", "table_for_mixed", "table2"]),
        ]
        for (name, (format, tables)) in expected {
            let file = try RealmFile(path: RealmFileFixtures.path(name))
            #expect(file.formatVersion == format, "\(name)")
            #expect(file.group.header.isStreaming, "\(name)")
            #expect(Set(file.group.tables.map(\.name)) == tables, "\(name)")
            // A table's key is its slot: no table of these files was ever deleted.
            #expect(file.group.tables.map(\.key) == Array(file.group.tables.indices), "\(name)")
        }
    }

    @Test func aCommittedFileReadsItsSelectedTopRef() throws {
        let file = try RealmFile(path: RealmFileFixtures.path("test_backup-olden-and-golden.realm"))
        #expect(file.formatVersion == 20)
        #expect(!file.group.header.isStreaming)
        #expect(file.group.header.topRef == 0x188)
    }

    @Test func theObjectStoresTablesKeepTheirClassPrefix() throws {
        let file = try RealmFile(path: RealmFileFixtures.path("sync-metadata-v6.realm"))
        #expect(file.formatVersion == 23)
        let names = Set(file.group.tables.map(\.name))
        #expect(names.contains("metadata"))
        #expect(names.contains { $0.hasPrefix("class_") })
    }

    @Test func formatsOlderThan20AreRefusedNamingTheFormat() {
        for (name, format) in [("test_upgrade_database_1000_1.realm", 2), ("test_upgrade_database_11.realm", 11)] {
            #expect {
                try RealmFile(path: RealmFileFixtures.path(name))
            } throws: { error in
                guard let error = error as? RealmFileError else { return false }
                return error.kind == .unsupportedFormat && error.message.contains("file format \(format),")
                    && error.message.contains("RealmSwift 10 or later")
            }
        }
    }

    @Test func aFileThatIsNoRealmIsRefused() throws {
        let directory = try TemporaryDirectory()
        let cases: [(String, [UInt8])] = [
            ("empty", []), ("short", Array("T-DB".utf8)), ("text", Array(String(repeating: "not a realm file\n", count: 600).utf8)),
        ]
        for (name, bytes) in cases {
            let url = directory.fileURL(name)
            try Data(bytes).write(to: url)
            #expect {
                try RealmFile(path: url.path)
            } throws: { error in
                (error as? RealmFileError)?.kind == .notARealmFile
            }
        }
        #expect {
            try RealmFile(path: directory.fileURL("missing").path)
        } throws: { error in
            (error as? RealmFileError)?.kind == .unavailable
        }
    }
}
