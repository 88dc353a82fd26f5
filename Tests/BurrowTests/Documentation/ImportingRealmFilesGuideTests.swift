import Burrow
import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

// The samples of Sources/Burrow/Burrow.docc/ImportingRealmFiles.md, compiled and run as the page
// shows them (DocumentationSamplesTests checks that they are the page's), on a `.realm` file
// realm-core wrote (the reader's fixtures). Inside the suite, `Dog` and `Person` name the page's
// models below.

/// The page's models.
enum ImportingPage {
    final class Person: Object {
        override class func shouldIncludeInDefaultSchema() -> Bool { false }  // test only
        @Persisted(primaryKey: true) var name = ""
    }

    final class Dog: Object {
        override class func shouldIncludeInDefaultSchema() -> Bool { false }  // test only
        @Persisted var name = ""
        @Persisted var owner: Person?
    }
}

@Suite(.temporaryDirectory) @MainActor struct ImportingRealmFilesGuideTests {
    typealias Dog = ImportingPage.Dog
    typealias Person = ImportingPage.Person

    /// A `.realm` file of realm-core's, with its class `Table`.
    static let realmFixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("BurrowRealmFileTests/Fixtures/client_schema_version_011.realm")

    func openConvertingRealmFile(in directory: URL, realmKey: Data?) throws -> Realm {
        let burrowFile = directory.appendingPathComponent("default.burrow")
        let realmFile = directory.appendingPathComponent("default.realm")
        let configuration = Realm.Configuration(fileURL: burrowFile, objectTypes: [Dog.self, Person.self])
        if !FileManager.default.fileExists(atPath: burrowFile.path), FileManager.default.fileExists(atPath: realmFile.path) {
            var staging = configuration
            staging.fileURL = directory.appendingPathComponent("converting.burrow")
            _ = try Realm.deleteFiles(for: staging)  // what a conversion cut short left
            let report = try Realm.importRealmFile(at: realmFile, encryptionKey: realmKey, configuration: staging)
            for omission in report.omissions {
                print("not converted: \(omission)")
            }
            try FileManager.default.moveItem(at: staging.fileURL!, to: burrowFile)
            _ = try Realm.deleteFiles(for: staging)
        }
        return try Realm(configuration: configuration)
    }

    func removeRealmFile(in directory: URL) throws {
        for name in ["default.realm", "default.realm.lock", "default.realm.note", "default.realm.management"] {
            let url = directory.appendingPathComponent(name)
            if FileManager.default.fileExists(atPath: url.path) {
                try FileManager.default.removeItem(at: url)
            }
        }
    }

    @Test func convertOnTheFirstLaunch() throws {
        let directory = try testDirectory().url
        try FileManager.default.copyItem(at: Self.realmFixture, to: directory.appendingPathComponent("default.realm"))
        // A conversion cut short left its staging file: it goes, and the conversion runs again.
        try Data("left by a killed launch".utf8).write(to: directory.appendingPathComponent("converting.burrow"))
        do {
            let realm = try openConvertingRealmFile(in: directory, realmKey: nil)
            // The fixture's class is not the page's model: it is reported, and the file opens.
            #expect(realm.objects(Dog.self).isEmpty)
        }
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("default.burrow").path))
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("converting.burrow").path))
        // The next launch opens the Burrow file and converts nothing.
        let before = try Data(contentsOf: directory.appendingPathComponent("default.burrow"))
        _ = try openConvertingRealmFile(in: directory, realmKey: nil)
        #expect(try Data(contentsOf: directory.appendingPathComponent("default.burrow")).count == before.count)

        for name in ["default.realm.lock", "default.realm.note"] { try Data().write(to: directory.appendingPathComponent(name)) }
        try removeRealmFile(in: directory)
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(!left.contains { $0.hasPrefix("default.realm") })
    }
}
