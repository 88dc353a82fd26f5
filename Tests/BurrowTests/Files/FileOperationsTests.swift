import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// The model of `FileOperationsTests`, stored under the name it had before it was namespaced.
enum FileOperationsModels {
    final class Bird: Object {
        override class func _realmObjectName() -> String? { "FOBird" }
        @Persisted(primaryKey: true) var name = ""
        @Persisted var wingspan = 0.0
    }
}

/// `Realm.fileExists(for:)`, `writeCopy(configuration:)` and `Configuration.seedFilePath`, with
/// RealmSwift's meaning.
@Suite(.temporaryDirectory) struct FileOperationsTests {
    private func configuration(_ name: String = #function) -> Realm.Configuration {
        var configuration = temporaryConfiguration(name)
        configuration.objectTypes = [FileOperationsModels.Bird.self]
        return configuration
    }

    private func writeBirds(_ names: [String], to configuration: Realm.Configuration) throws {
        let realm = try Realm(configuration: configuration)
        try realm.write {
            for name in names { _ = try realm.create(FileOperationsModels.Bird.self, value: ["name": name]) }
        }
    }

    @Test func fileExistsTellsWhetherTheFileIsThere() throws {
        let configuration = configuration()
        #expect(!Realm.fileExists(for: configuration))
        try writeBirds(["Robin"], to: configuration)
        #expect(Realm.fileExists(for: configuration))
        #expect(!Realm.fileExists(for: Realm.Configuration(inMemoryIdentifier: "fo-\(UUID())")))
    }

    @Test func writeCopyToAConfigurationWritesAFileThatOpensWithIt() throws {
        let source = configuration()
        try writeBirds(["Robin", "Wren"], to: source)
        let destination = configuration("destination")
        try Realm(configuration: source).writeCopy(configuration: destination)
        let copy = try Realm(configuration: destination)
        #expect(copy.objects(FileOperationsModels.Bird.self).map(\.name).sorted() == ["Robin", "Wren"])
    }

    @Test func writeCopyRefusesAnExistingFileAndAnInMemoryTarget() throws {
        let source = configuration()
        try writeBirds(["Robin"], to: source)
        let realm = try Realm(configuration: source)
        let destination = configuration("destination")
        try writeBirds(["Owl"], to: destination)
        #expect { try realm.writeCopy(configuration: destination) } throws: { ($0 as? RealmError)?.code == .fileExists }
        #expect(try Realm(configuration: destination).objects(FileOperationsModels.Bird.self).map(\.name) == ["Owl"], "the file is left alone")
        #expect { try realm.writeCopy(configuration: Realm.Configuration(inMemoryIdentifier: "fo-\(UUID())")) } throws: {
            ($0 as? RealmError)?.code == .invalidArgument
        }
    }

    @Test func aSeedFileIsCopiedWhenThereIsNoFileYet() throws {
        let seed = configuration("seed")
        try writeBirds(["Robin", "Wren"], to: seed)
        var configuration = configuration()
        configuration.seedFilePath = seed.fileURL
        try Realm.copySeedFileIfNeeded(configuration)
        #expect(Realm.fileExists(for: configuration))
        let realm = try Realm(configuration: configuration)
        #expect(realm.objects(FileOperationsModels.Bird.self).map(\.name).sorted() == ["Robin", "Wren"])
        try realm.write { _ = try realm.create(FileOperationsModels.Bird.self, value: ["name": "Owl"]) }
        #expect(try Realm(configuration: seed).objects(FileOperationsModels.Bird.self).count == 2, "the seed is not changed")
    }

    @Test func openingCopiesTheSeed() throws {
        let seed = configuration("seed")
        try writeBirds(["Robin"], to: seed)
        var configuration = configuration()
        configuration.seedFilePath = seed.fileURL
        let realm = try Realm(configuration: configuration)
        #expect(realm.objects(FileOperationsModels.Bird.self).map(\.name) == ["Robin"])
    }

    @Test func anExistingFileIsOpenedAsItIsNotReplacedByTheSeed() throws {
        let seed = configuration("seed")
        try writeBirds(["Robin"], to: seed)
        var configuration = configuration()
        try writeBirds(["Owl"], to: configuration)
        configuration.seedFilePath = seed.fileURL
        try Realm.copySeedFileIfNeeded(configuration)
        #expect(try Realm(configuration: configuration).objects(FileOperationsModels.Bird.self).map(\.name) == ["Owl"])
    }

    @Test func aMissingSeedFileThrowsFileNotFoundAndCreatesNothing() throws {
        var configuration = configuration()
        let missing = try #require(configuration.fileURL).deletingLastPathComponent().appendingPathComponent("no-seed.burrow")
        configuration.seedFilePath = missing
        #expect { try Realm.copySeedFileIfNeeded(configuration) } throws: { error in
            guard let error = error as? RealmError else { return false }
            return error.code == .fileNotFound && error.fileURL == missing && error.description.contains(missing.path)
        }
        #expect(!Realm.fileExists(for: configuration))
        let directory = try #require(configuration.fileURL).deletingLastPathComponent()
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty, "no temporary copy is left")
    }

    @Test func aSeedThatIsNoBurrowFileThrowsAndLeavesNoFile() throws {
        var configuration = configuration()
        let directory = try #require(configuration.fileURL).deletingLastPathComponent()
        let seed = directory.appendingPathComponent("not-a-database.burrow")
        try Data(repeating: 0x41, count: 16384).write(to: seed)
        configuration.seedFilePath = seed
        #expect { try Realm(configuration: configuration) } throws: { error in
            guard let error = error as? RealmError else { return false }
            return error.code == .invalidFile && error.fileURL == seed && error.description.contains(seed.path)
        }
        #expect(!Realm.fileExists(for: configuration), "no copy of a bad seed is left at fileURL")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["not-a-database.burrow"])
    }

    @Test func aSeedFilePathClearsTheInMemoryIdentifier() {
        var configuration = Realm.Configuration(inMemoryIdentifier: "fo-seed")
        configuration.seedFilePath = URL(fileURLWithPath: "/tmp/seed.burrow")
        #expect(configuration.inMemoryIdentifier == nil && configuration.fileURL != nil)
        let initialized = Realm.Configuration(inMemoryIdentifier: "fo-seed", seedFilePath: URL(fileURLWithPath: "/tmp/seed.burrow"))
        #expect(initialized.inMemoryIdentifier == nil && initialized.fileURL == Realm.Configuration.defaultFileURL)
    }
}
