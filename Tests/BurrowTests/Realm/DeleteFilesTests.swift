import Foundation
import Testing
@testable import Burrow

@Suite struct DeleteFilesTests {
    @Test func deletesAClosedFileAndTheDataWithIt() throws {
        let config = temporaryConfiguration()
        do {
            let realm = try Realm(configuration: config)
            try realm.write { try realm.add(DogToy(value: ["name": "kept"])) }
        }
        #expect(try Realm.deleteFiles(for: config))
        #expect(!FileManager.default.fileExists(atPath: config.fileURL!.path))
        let reopened = try Realm(configuration: config)
        #expect(reopened.objects(DogToy.self).isEmpty)
    }

    @Test func refusesAFileThatIsStillOpen() throws {
        let config = temporaryConfiguration()
        let realm = try Realm(configuration: config)
        try realm.write { try realm.add(DogToy(value: ["name": "kept"])) }
        do {
            try Realm.deleteFiles(for: config)
            Issue.record("deleted an open file")
        } catch {
            #expect(error.code == .fileLocked)
        }
        #expect(realm.objects(DogToy.self).count == 1)
        #expect(FileManager.default.fileExists(atPath: config.fileURL!.path))
    }

    @Test func reportsNoFileAndIgnoresInMemoryRealms() throws {
        #expect(try !Realm.deleteFiles(for: temporaryConfiguration()))
        #expect(try !Realm.deleteFiles(for: temporaryInMemoryConfiguration()))
    }
}
