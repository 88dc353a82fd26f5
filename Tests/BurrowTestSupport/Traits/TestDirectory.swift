import BurrowTestSupport
import Testing

/// The running test's temporary directory (the `.temporaryDirectory` trait's), for tests that
/// put files of their own there; it goes, with everything in it, when the test ends.
///
/// Outside a test with the trait (an exit test's child process runs without the test's
/// task-locals) it records an issue and throws ``MissingTestDirectory``: such code makes a
/// `TemporaryDirectory` of its own.
public func testDirectory(_ name: String = #function) throws -> TemporaryDirectory {
    guard let current = TemporaryDirectory.current else {
        Issue.record("\(name) asked for the test's directory outside a test with the .temporaryDirectory trait")
        throw MissingTestDirectory(description: "no test directory for \(name)")
    }
    return current
}

/// `testDirectory()` was called outside a test with the `.temporaryDirectory` trait.
public struct MissingTestDirectory: Error, CustomStringConvertible {
    public let description: String
}
