import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

@Suite(.temporaryDirectory) struct DeleteFilesTests {
    @Test func deletesAClosedFileAndTheDataWithIt() throws {
        let config = temporaryConfiguration()
        do {
            let realm = try Realm(configuration: config)
            try realm.write { try realm.add(CommonModels.DogToy(value: ["name": "kept"])) }
        }
        #expect(try Realm.deleteFiles(for: config))
        #expect(!FileManager.default.fileExists(atPath: config.fileURL!.path))
        let reopened = try Realm(configuration: config)
        #expect(reopened.objects(CommonModels.DogToy.self).isEmpty)
    }

    @Test func refusesAFileOpenInThisProcessAndSaysSo() throws {
        let config = temporaryConfiguration()
        let realm = try Realm(configuration: config)
        try realm.write { try realm.add(CommonModels.DogToy(value: ["name": "kept"])) }
        do {
            try Realm.deleteFiles(for: config)
            Issue.record("deleted an open file")
        } catch {
            #expect(error.code == .alreadyOpen)
            #expect(error.description.contains("open in this process"), "\(error)")
            #expect(!error.description.contains("another process"), "\(error)")
            #expect(error.fileURL?.path == config.fileURL!.path)
        }
        #expect(realm.objects(CommonModels.DogToy.self).count == 1)
        #expect(FileManager.default.fileExists(atPath: config.fileURL!.path))
    }

    @Test func refusesAFileThatOnlyAFrozenValueStillReads() throws {
        let config = temporaryConfiguration()
        let frozen = try {
            let realm = try Realm(configuration: config)
            try realm.write { try realm.add(CommonModels.DogToy(value: ["name": "kept"])) }
            return try realm.objects(CommonModels.DogToy.self).freeze()
        }()
        #expect(throws: RealmError.self) { try Realm.deleteFiles(for: config) }
        #expect(frozen.first?.name == "kept")
        #expect(FileManager.default.fileExists(atPath: config.fileURL!.path))
    }

    @Test func refusesAFileOpenInAnotherProcessAndSaysSo() async throws {
        let config = temporaryConfiguration()
        let realm = try Realm(configuration: config)
        try realm.write { try realm.add(CommonModels.DogToy(value: ["name": "kept"])) }
        let path = config.fileURL!.path
        // The child is the other process: this one holds the file.
        await #expect(processExitsWith: .success) { [path = path as String] in
            do {
                try Realm.deleteFiles(for: Realm.Configuration(fileURL: URL(fileURLWithPath: path)))
                exit(2)
            } catch let error as RealmError {
                guard error.code == .alreadyOpen else { exit(3) }
                guard error.description.contains("open in another process") else { exit(4) }
                guard error.fileURL?.path == path else { exit(5) }
                exit(0)
            } catch {
                exit(6)
            }
        }
        #expect(realm.objects(CommonModels.DogToy.self).count == 1)
        #expect(FileManager.default.fileExists(atPath: path))
    }

    @Test func reportsNoFileAndIgnoresInMemoryRealms() throws {
        #expect(try !Realm.deleteFiles(for: temporaryConfiguration()))
        #expect(try !Realm.deleteFiles(for: temporaryInMemoryConfiguration()))
    }
}
