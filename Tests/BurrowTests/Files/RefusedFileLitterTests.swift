import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// The model of `RefusedFileLitterTests`, stored under the name it had before it was namespaced.
enum RefusedFileLitterModels {
    final class Dog: Object {
        override class func _realmObjectName() -> String? { "RFDog" }
        @Persisted var name = ""
    }
}

/// Opening a file Burrow refuses (empty or all zeros when read-only, cut short, not Burrow's,
/// of a newer format, a directory) throws and leaves the directory as it was: no lock file or other file beside it.
/// So does creating a file whose lock file cannot be made or used: the new file goes too.
@Suite(.temporaryDirectory) struct RefusedFileLitterTests {
    @Test func openingARefusedFileLeavesNothingBesideIt() throws {
        let directory = try testDirectory()
        let database = directory.file("good.burrow")
        let configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: database), objectTypes: [RefusedFileLitterModels.Dog.self])
        do {
            let realm = try Realm(configuration: configuration)
            try realm.write { try realm.add(RefusedFileLitterModels.Dog(value: ["name": "Rex"])) }
        }
        for name in try RefusedFiles.make(in: directory.path, from: database) {
            // Writable, an empty file (or one of zeros, left by a creation that was
            // interrupted) is made a database.
            for readOnly in [false, true] where readOnly || !["empty.burrow", "zeros.burrow"].contains(name) {
                var refused = configuration
                refused.fileURL = directory.fileURL(name)
                refused.readOnly = readOnly
                let before = try RefusedFiles.listing(directory.path)
                #expect(throws: RealmError.self, "\(name) opened (readOnly: \(readOnly))") { _ = try Realm(configuration: refused) }
                #expect(try RefusedFiles.listing(directory.path) == before, "opening \(name) (readOnly: \(readOnly)) changed the directory")
            }
        }
    }

    @Test func creatingAFileWhoseLockFileCannotBeUsedLeavesNoFile() throws {
        let directory = try testDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("blocked.burrow.lock"), withIntermediateDirectories: false)
        var foreignLock = Data("BURROWLK".utf8)
        foreignLock.append(contentsOf: [7, 0, 0, 0, 0, 0, 0, 0] + [UInt8](repeating: 0, count: 4080))
        try foreignLock.write(to: directory.fileURL("future.burrow.lock"))
        for name in ["blocked.burrow", "future.burrow"] {
            let before = try RefusedFiles.listing(directory.path)
            let configuration = Realm.Configuration(fileURL: directory.fileURL(name), objectTypes: [RefusedFileLitterModels.Dog.self])
            do {
                _ = try Realm(configuration: configuration)
                Issue.record("\(name) was created")
            } catch let error as RealmError {
                if name == "future.burrow" {
                    #expect(error.code == .incompatibleLockFile, "\(error)")
                    #expect(error.description.contains("lock file of format 7"), "\(error)")
                }
            }
            #expect(try RefusedFiles.listing(directory.path) == before, "creating \(name) left a file behind")
        }
        // Exclusive use needs no lock file, and creates the file.
        var exclusive = Realm.Configuration(fileURL: directory.fileURL("blocked.burrow"), objectTypes: [RefusedFileLitterModels.Dog.self])
        exclusive.exclusiveAccess = true
        _ = try Realm(configuration: exclusive)
        #expect(FileManager.default.fileExists(atPath: directory.file("blocked.burrow")))
    }
}
