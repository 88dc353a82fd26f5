import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// The model of `ErrorCodesTests`, stored under the name it had before it was namespaced.
enum ErrorCodesModels {
    final class Dog: Object {
        override class func _realmObjectName() -> String? { "ECDog" }
        @Persisted var name = ""
    }
}

/// `Realm.Error` is `RealmError` with RealmSwift's codes: a code is a `catch` pattern, a failed
/// system call gets the code RealmSwift names for its `errno`, and a specific file code is also
/// caught by the `.fileAccess` pattern that Burrow code written before it uses.
@Suite(.temporaryDirectory) struct ErrorCodesTests {
    private func missingFileReadOnly() -> Realm.Configuration {
        var configuration = temporaryConfiguration()
        configuration.objectTypes = [ErrorCodesModels.Dog.self]
        configuration.readOnly = true
        return configuration
    }

    @Test func realmErrorAndRealmDotErrorAreOneType() {
        #expect(Realm.Error.self == RealmError.self)
        let error: Realm.Error = RealmError(.schemaMismatch, "m")
        #expect(error.code == Realm.Error.schemaMismatch)
    }

    @Test func aMissingFileIsCaughtByItsCodeAsAPattern() {
        do {
            _ = try Realm(configuration: missingFileReadOnly())
            Issue.record("opened a missing file read-only")
        } catch Realm.Error.fileNotFound {
            // expected
        } catch {
            Issue.record("caught \(error) instead of fileNotFound")
        }
    }

    /// RealmSwift's `testOpeningInvalidPathThrows` and `testCatchSpecificErrors`: a path through
    /// a file that is not a directory.
    @Test func aPathThroughAFileThatIsNoDirectoryIsFileOperationFailed() {
        let url = URL(fileURLWithPath: "/dev/null/foo")
        do {
            _ = try Realm(configuration: Realm.Configuration(fileURL: url))
            Issue.record("opened \(url.path)")
        } catch Realm.Error.fileOperationFailed {
            // expected
        } catch {
            Issue.record("caught \(error) instead of fileOperationFailed")
        }
        let error = #expect(throws: RealmError.self) { try Realm(configuration: Realm.Configuration(fileURL: url)) }
        #expect(error?.code == .fileOperationFailed && error?.errno == ENOTDIR)
        #expect(error?.description.contains("/dev/null") == true, "\(String(describing: error))")
        #expect(error.map { RealmError.fileAccess ~= $0 } == true)
    }

    @Test func aMissingFileHasCodeFileNotFoundAndMatchesFileAccessAsAPattern() {
        do {
            _ = try Realm(configuration: missingFileReadOnly())
            Issue.record("opened a missing file read-only")
        } catch let error as Realm.Error where error.code == .fileNotFound {
            #expect(error.code != .fileAccess, "== compares codes exactly")
            #expect(RealmError.fileAccess ~= error, "the .fileAccess pattern catches every failed file operation")
            #expect(!(RealmError.filePermissionDenied ~= error))
            #expect(error.code.isKind(of: .fileAccess) && !error.code.isKind(of: .fileExists))
        } catch {
            Issue.record("caught \(error)")
        }
        do {
            _ = try Realm(configuration: missingFileReadOnly())
        } catch RealmError.fileAccess {
            // a clause written for any file failure still catches it
        } catch {
            Issue.record("the .fileAccess pattern missed \(error)")
        }
    }

    @Test func writingACopyOverAFileIsFileExists() throws {
        var configuration = temporaryConfiguration()
        configuration.objectTypes = [ErrorCodesModels.Dog.self]
        let realm = try Realm(configuration: configuration)
        let target = try #require(temporaryConfiguration("copy target").fileURL)
        try Data("keep".utf8).write(to: target)
        #expect(throws: Realm.Error.self) { try realm.writeCopy(toFile: target) }
        do {
            try realm.writeCopy(toFile: target)
        } catch Realm.Error.fileExists {
            // expected
        } catch {
            Issue.record("caught \(error) instead of fileExists")
        }
    }

    @Test func aFileThatIsNoDatabaseIsInvalidDatabase() throws {
        var configuration = temporaryConfiguration()
        configuration.objectTypes = [ErrorCodesModels.Dog.self]
        let url = try #require(configuration.fileURL)
        try Data(repeating: 0x41, count: 16384).write(to: url)
        do {
            _ = try Realm(configuration: configuration)
            Issue.record("opened a file that is no database")
        } catch let error as RealmError {
            #expect(error.code == .invalidDatabase && error.code == .invalidFile, "two names of one code")
            #expect(Realm.Error.invalidDatabase ~= error)
        }
        #expect(try Data(contentsOf: url) == Data(repeating: 0x41, count: 16384), "the file is left as it was")
    }

    @Test(arguments: [
        (ENOENT, RealmError.Code.fileNotFound), (ENOTDIR, .fileOperationFailed), (EACCES, .filePermissionDenied),
        (EPERM, .filePermissionDenied), (EROFS, .filePermissionDenied), (EEXIST, .fileExists), (ENOSPC, .outOfDiskSpace),
        (ENOMEM, .addressSpaceExhausted), (EIO, .fileAccess),
    ])
    func aFailedSystemCallGetsTheCodeRealmSwiftNamesForItsErrno(errno: Int32, code: RealmError.Code) {
        let error = RealmError(.fileAccess, "failed", fileURL: URL(fileURLWithPath: "/tmp/x.burrow"), errno: errno)
        #expect(error.code == code)
        #expect(error.errno == errno)
        #expect(RealmError.fileAccess ~= error)
        #expect(code ~= error)
    }

    @Test func aFileFromANewerBurrowIsUnsupportedFormatAndAKindOfInvalidFile() {
        let error = RealmError(.unsupportedFormat(path: "/tmp/x.burrow", version: 9, supported: 1))
        #expect(error.code == .unsupportedFileFormatVersion)
        #expect(Realm.Error.invalidFile ~= error && Realm.Error.unsupportedFileFormatVersion ~= error)
        #expect((error as NSError).code == 16)
    }

    @Test func codesWithoutAFamilyMatchOnlyThemselves() {
        let error = RealmError(.invalidArgument, "bad")
        #expect(Realm.Error.invalidInput ~= error && Realm.Error.invalidArgument ~= error)
        #expect(!(Realm.Error.fileAccess ~= error) && !(Realm.Error.fail ~= error))
        #expect(!(Realm.Error.fileAccess ~= CocoaError(.fileNoSuchFile)), "only RealmError matches a code")
        #expect(RealmError(.fileAccess, "no errno").code == .fileAccess)
        #expect(RealmError(.wrongState, "not a file error", errno: ENOENT).code == .wrongState)
    }
}
