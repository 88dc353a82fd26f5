import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// `schemaVersionAtURL(_:)` reads a file's schema version without opening a realm, as
/// RealmSwift's does, and says why when it cannot.
@Suite(.temporaryDirectory) struct SchemaVersionAtURLTests {
    @Test func readsTheVersionOfAClosedAndOfAnOpenFile() throws {
        var config = temporaryConfiguration()
        config.objectTypes = [MigrationModels.PersonV1.self]
        config.schemaVersion = 3
        do {
            let realm = try Realm(configuration: config)
            #expect(try schemaVersionAtURL(config.fileURL!) == 3, "read through the handle open here")
            try realm.write { try realm.add(MigrationModels.PersonV1(value: ["id": 1])) }
        }
        #expect(try schemaVersionAtURL(config.fileURL!) == 3)
        // Reading it left nothing open: the file can be deleted.
        #expect(try Realm.deleteFiles(for: config))
    }

    @Test func saysWhyItCannotRead() throws {
        let config = temporaryConfiguration()
        let url = config.fileURL!
        #expect { try schemaVersionAtURL(url) } throws: { ($0 as? RealmError)?.code == .fileNotFound }

        _ = try Realm(configuration: config)  // a file with no class yet is at version 0, as in RealmSwift
        #expect(try schemaVersionAtURL(url) == 0)

        let notBurrow = url.deletingLastPathComponent().appendingPathComponent("not-burrow.txt")
        try Data(repeating: 0x41, count: 10_000).write(to: notBurrow)
        #expect { try schemaVersionAtURL(notBurrow) } throws: { error in
            let code = (error as? RealmError)?.code
            return code == .invalidFile || code == .corruptFile
        }
    }
}
