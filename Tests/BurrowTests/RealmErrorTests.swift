import Testing
import BurrowStorage
@testable import Burrow

@Suite("RealmError")
struct RealmErrorTests {
    @Test("engine errors keep their message and get the code a caller switches on")
    func engineErrorsMapToCodes() {
        let cases: [(StorageError, RealmError.Code)] = [
            (.fileLocked(path: "/tmp/a.burrow"), .fileLocked),
            (.notADatabase(path: "/tmp/a.burrow"), .invalidFile),
            (.unsupportedFormat(path: "/tmp/a.burrow", version: 9, supported: 1), .invalidFile),
            (.damagedMeta(path: "/tmp/a.burrow", detail: "both fail"), .corruptFile),
            (.truncated(path: "/tmp/a.burrow", expectedBytes: 8192, actualBytes: 100), .corruptFile),
            (.corruptPage(path: "/tmp/a.burrow", page: 7, detail: "fails its checksum"), .corruptFile),
            (.io(path: "/tmp/a.burrow", operation: "write", errno: 28), .fileAccess),
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
