import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A new empty directory under the system's temporary directory, removed with everything in it
/// when the last reference to it goes.
///
/// A test holds one for as long as it uses the files in it. A suite marked with the
/// `.temporaryDirectory` trait (`BurrowTestTraits`) gets a fresh one for each of its tests as
/// ``current``, removed when the test ends, pass or fail.
public final class TemporaryDirectory: Sendable {
    /// The directory's absolute path.
    public let path: String

    /// Makes the directory: `burrow-<label>-XXXXXX` under the system's temporary directory.
    public init(_ label: String = "test") throws {
        var template = Array((NSTemporaryDirectory() + "/burrow-\(label)-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw TemporaryDirectoryError(message: "cannot make a temporary directory for \(label): errno \(errno)")
        }
        path = String(cString: made)
    }

    /// The directory as a file URL.
    public var url: URL { URL(fileURLWithPath: path, isDirectory: true) }

    /// The path of `name` inside the directory.
    public func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    /// The URL of `name` inside the directory.
    public func fileURL(_ name: String) -> URL { url.appendingPathComponent(name) }

    deinit { remove() }

    /// Removes the directory and everything in it now, whoever still holds the object.
    private func remove() { try? FileManager.default.removeItem(atPath: path) }

    /// The directory of the test running now, set by the `.temporaryDirectory` trait; nil outside
    /// a test that has it.
    @TaskLocal public static var current: TemporaryDirectory?

    /// Runs `body` with a fresh directory as ``current`` and removes it afterwards, even if a
    /// task that `body` started (tasks inherit ``current``), such as a library's follower task
    /// still winding down, holds it.
    public static func withNew<Result>(
        _ label: String = "test", _ body: () async throws -> Result
    ) async throws -> Result {
        let directory = try TemporaryDirectory(label)
        defer { directory.remove() }
        return try await $current.withValue(directory, operation: body)
    }
}

/// The temporary directory could not be made.
public struct TemporaryDirectoryError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
