import BurrowStorage
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

@Suite("RealmError", .temporaryDirectory)
struct RealmErrorTests {
    @Test("engine errors keep their message and get the code a caller switches on")
    func engineErrorsMapToCodes() {
        let cases: [(StorageError, RealmError.Code)] = [
            (.fileLocked(path: "/tmp/a.burrow"), .fileLocked),
            (.notADatabase(path: "/tmp/a.burrow"), .invalidFile),
            (.unsupportedFormat(path: "/tmp/a.burrow", version: 9, supported: 1), .unsupportedFileFormatVersion),
            (.damagedMeta(path: "/tmp/a.burrow", detail: "both fail"), .corruptFile),
            (.truncated(path: "/tmp/a.burrow", expectedBytes: 8192, actualBytes: 100), .corruptFile),
            (.corruptPage(path: "/tmp/a.burrow", page: 7, detail: "fails its checksum"), .corruptFile),
            (.io(path: "/tmp/a.burrow", operation: "write", errno: 28), .outOfDiskSpace),
            (.io(path: "/tmp/a.burrow", operation: "read", errno: 5), .fileAccess),
            (.readOnly(path: "/tmp/a.burrow"), .wrongState),
            (.closed(path: "/tmp/a.burrow"), .wrongState),
            (.keyTooLarge(size: 2000, limit: 990), .invalidArgument),
        ]
        for (storageError, code) in cases {
            let error = RealmError(storageError)
            #expect(error.code == code, "\(storageError)")
            #expect(error.description == storageError.description)
        }
    }

    @Test("messages name the file and say what to do")
    func messagesAreActionable() {
        let locked = RealmError(.fileLocked(path: "/data/dogs.burrow")).description
        #expect(locked.contains("/data/dogs.burrow"))
        #expect(locked.contains("another process"))
        let page = RealmError(.corruptPage(path: "/data/dogs.burrow", page: 42, detail: "fails its checksum")).description
        #expect(page.contains("page 42"))
        #expect(page.contains("backup"))
        let disk = RealmError(.io(path: "/data/dogs.burrow", operation: "write", errno: 28)).description
        #expect(disk.contains("No space left on device"))
    }
}

@Suite("RealmError as a LocalizedError", .temporaryDirectory)
struct RealmErrorLocalizationTests {
    @Test("localizedDescription is the message, not the type's name and a number")
    func localizedDescriptionIsTheMessage() {
        let error = RealmError(.corruptPage(path: "/data/dogs.burrow", page: 42, detail: "fails its checksum"))
        #expect(error.localizedDescription == error.description)
        let asAnyError: any Error = RealmError(.invalidArgument, "The name is too long.")
        #expect(asAnyError.localizedDescription == "The name is too long.")
    }

    @Test("an engine error about a file names it as a value; one about an in-memory realm or no file does not")
    func engineErrorsCarryTheirFile() {
        #expect(RealmError(.corruptPage(path: "/data/dogs.burrow", page: 42, detail: "x")).fileURL?.path == "/data/dogs.burrow")
        #expect(RealmError(.fileLocked(path: "/data/dogs.burrow")).fileURL?.path == "/data/dogs.burrow")
        #expect(RealmError(.closed(path: "in-memory database \"dogs\"")).fileURL == nil)
        #expect(RealmError(.keyTooLarge(size: 2000, limit: 990)).fileURL == nil)
        #expect(RealmError(.keyTooLarge(size: 2000, limit: 990)).errno == nil)
    }

    @Test("a damaged page is named as a value, and a realm that a failed sync stopped keeps that sync's errno")
    func engineErrorsKeepTheirPageAndErrno() {
        let damaged = RealmError(.corruptPage(path: "/data/dogs.burrow", page: 42, detail: "fails its checksum"))
        #expect(damaged.page == 42)
        #expect(damaged.errno == nil)
        let failedSync = StorageError.io(path: "/data/dogs.burrow", operation: "fsync", errno: EIO)
        let stopped = RealmError(.handleFailed(path: "/data/dogs.burrow", what: "a sync failed", cause: failedSync))
        #expect(stopped.code == .wrongState)
        #expect(stopped.errno == EIO)
        #expect(stopped.page == nil)
        #expect(stopped.fileURL?.path == "/data/dogs.burrow")
        #expect(stopped.description.contains("a sync failed (") && stopped.description.contains(failedSync.description), "\(stopped)")
        let unexplained = RealmError(.handleFailed(path: "/data/dogs.burrow", what: "a sync failed", cause: nil))
        #expect(unexplained.errno == nil)
        #expect(RealmError(.io(path: "/data/dogs.burrow", operation: "read", errno: 5)).page == nil)
    }

    @Test("an I/O error keeps its errno and path as values")
    func ioErrorsKeepErrnoAndPath() {
        let error = RealmError(.io(path: "/data/dogs.burrow", operation: "write", errno: 28))
        #expect(error.code == .outOfDiskSpace)
        #expect(error.errno == 28)
        #expect(error.fileURL?.path == "/data/dogs.burrow")
    }

    @Test("opening a realm whose directory does not exist throws ENOENT with the path")
    func openingInAMissingDirectoryGivesErrnoAndPath() throws {
        let directory = try testDirectory().fileURL("missing")
        let url = directory.appendingPathComponent("dogs.burrow")
        do {
            _ = try Realm(configuration: Realm.Configuration(fileURL: url))
            Issue.record("opened a realm in a directory that does not exist")
        } catch let error as RealmError {
            #expect(error.code == .fileNotFound)
            #expect(error.errno == ENOENT)
            #expect(error.fileURL?.path == url.path)
            #expect(error.localizedDescription.contains(url.path))
        }
    }
}
