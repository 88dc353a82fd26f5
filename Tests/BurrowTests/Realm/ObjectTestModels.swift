import Burrow
import BurrowTestSupport
import Foundation
import Testing

final class DogToy: Object {
    @Persisted var name = ""
}

final class Dog: Object, ObjectKeyIdentifiable {
    // The migration ladder's releases are this test program's Person, Dog and Address.
    override class func shouldIncludeInDefaultSchema() -> Bool { false }
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted(indexed: true) var name = ""
    @Persisted var age = 0
    @Persisted var color = ""
    @Persisted var currentCity = ""
    @Persisted var favoriteToy: DogToy?
    @Persisted var companion: AnyRealmValue
    @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
}

final class Person: Object {
    // The migration ladder's releases are this test program's Person, Dog and Address.
    override class func shouldIncludeInDefaultSchema() -> Bool { false }
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var dogs: List<Dog>
    @Persisted var address: Address?
}

final class Address: EmbeddedObject {
    // The migration ladder's releases are this test program's Person, Dog and Address.
    override class func shouldIncludeInDefaultSchema() -> Bool { false }
    @Persisted var street: String?
    @Persisted var city: String?
    @Persisted var country: String?
    @Persisted var postalCode: String?
}

/// A configuration for a new file, `test.burrow`, in a directory of its own inside the running
/// test's temporary directory, which goes when the test ends. Each call names another file.
///
/// The test's suite (or the test) must have the `.temporaryDirectory` trait; without it the call
/// records an issue and the file is left behind.
func temporaryConfiguration(_ name: String = #function) -> Realm.Configuration {
    // Outside such a test, `testDirectory` records the issue; the file then goes to the
    // system's temporary directory so that the test can still run.
    let base = (try? testDirectory(name))?.url ?? FileManager.default.temporaryDirectory
    let directory = base.appendingPathComponent("burrow-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return Realm.Configuration(fileURL: directory.appendingPathComponent("test.burrow"))
}

/// The running test's temporary directory (the `.temporaryDirectory` trait's), for tests that
/// put files of their own there; it goes, with everything in it, when the test ends.
///
/// Outside a test with the trait (an exit test's child process runs without the test's
/// task-locals) it records an issue and throws: such code makes a `TemporaryDirectory` of its
/// own.
func testDirectory(_ name: String = #function) throws -> TemporaryDirectory {
    guard let current = TemporaryDirectory.current else {
        Issue.record("\(name) asked for the test's directory outside a test with the .temporaryDirectory trait")
        throw MissingTestDirectory(description: "no test directory for \(name)")
    }
    return current
}

/// `testDirectory()` was called outside a test with the `.temporaryDirectory` trait.
struct MissingTestDirectory: Error, CustomStringConvertible {
    let description: String
}
