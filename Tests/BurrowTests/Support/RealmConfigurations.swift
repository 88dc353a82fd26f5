import Burrow
import BurrowTestTraits
import Foundation

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

/// A fresh in-memory configuration with an identifier no other test uses.
func temporaryInMemoryConfiguration(_ name: String = #function) -> Realm.Configuration {
    Realm.Configuration(inMemoryIdentifier: "\(name)-\(UUID().uuidString)")
}
