import BurrowTestSupport
import Testing

/// Gives each test a fresh ``TemporaryDirectory`` as `TemporaryDirectory.current` and removes it
/// with everything in it when the test ends, whether it passed or failed. On a suite, it applies
/// to every test in it.
public struct TemporaryDirectoryTrait: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // A suite's own scope runs once around its tests; only a test (or each of its cases) gets
        // a directory.
        guard !test.isSuite else { return try await function() }
        try await TemporaryDirectory.withNew(test.name.prefix(40).filter { $0.isLetter || $0.isNumber }.description) {
            try await function()
        }
    }
}

extension Trait where Self == TemporaryDirectoryTrait {
    /// A fresh temporary directory for each test, removed when the test ends.
    public static var temporaryDirectory: Self { TemporaryDirectoryTrait() }
}
