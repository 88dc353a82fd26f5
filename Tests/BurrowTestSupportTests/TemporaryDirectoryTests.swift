import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

/// The test-support directory every test's files live in: made fresh for each test, gone after.
@Suite(.temporaryDirectory)
struct TemporaryDirectoryTests {
    @Test func eachTestHasItsOwnDirectory() throws {
        let directory = try #require(TemporaryDirectory.current)
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) && isDirectory.boolValue)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test(arguments: [1, 2]) func eachCaseOfAParameterizedTestHasItsOwnDirectory(_ n: Int) throws {
        let directory = try #require(TemporaryDirectory.current)
        // A directory shared between cases would already hold the other case's file.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        #expect(FileManager.default.createFile(atPath: directory.file("case-\(n)"), contents: Data([1])))
    }

    @Test func theDirectoryGoesWithEverythingInItWhenTheScopeEnds() async throws {
        var kept = ""
        try await TemporaryDirectory.withNew("scope") {
            let directory = try #require(TemporaryDirectory.current)
            kept = directory.path
            try FileManager.default.createDirectory(atPath: directory.file("a/b"), withIntermediateDirectories: true)
            #expect(FileManager.default.createFile(atPath: directory.file("a/b/c"), contents: Data([1, 2, 3])))
        }
        #expect(!kept.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: kept))
    }

    @Test func aDirectoryHeldByATestGoesWhenItIsDropped() throws {
        var directory: TemporaryDirectory? = try TemporaryDirectory("dropped")
        let path = directory!.path
        #expect(FileManager.default.createFile(atPath: directory!.file("x"), contents: Data([1])))
        #expect(FileManager.default.fileExists(atPath: path))
        directory = nil
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}

/// A test without the trait has no current directory.
@Test func aTestWithoutTheTraitHasNoDirectory() {
    #expect(TemporaryDirectory.current == nil)
}
