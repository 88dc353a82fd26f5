import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// The model of `RealmErrorValueTests`, stored under the name it had before it was namespaced.
enum RealmErrorValueModels {
    final class Item: Object {
        override class func _realmObjectName() -> String? { "REVItem" }
        @Persisted var name = ""
    }
}

/// What a `RealmError` carries: the file and `errno` of file errors, and how it bridges to
/// `NSError` (RealmSwift's domain, a code per kind of error, the message and path in `userInfo`).
@Suite(.temporaryDirectory) struct RealmErrorValueTests {
    @Test func openingAMissingFileReadOnlyNamesTheFileAndENOENT() throws {
        var configuration = temporaryConfiguration()
        configuration.objectTypes = [RealmErrorValueModels.Item.self]
        configuration.readOnly = true
        let url = try #require(configuration.fileURL)
        #expect { try Realm(configuration: configuration) } throws: { error in
            guard let error = error as? RealmError else { return false }
            return error.code == .fileNotFound && error.fileURL?.path == url.path && error.errno == ENOENT
        }
    }

    @Test func writingACopyOverAFileNamesTheFileAndEEXIST() throws {
        var configuration = temporaryConfiguration()
        configuration.objectTypes = [RealmErrorValueModels.Item.self]
        let realm = try Realm(configuration: configuration)
        let target = try #require(temporaryConfiguration("copy target").fileURL)
        try Data("keep".utf8).write(to: target)
        #expect { try realm.writeCopy(toFile: target) } throws: { error in
            guard let error = error as? RealmError else { return false }
            return error.code == .fileExists && error.fileURL?.path == target.path && error.errno == EEXIST
                && error.description.contains("exists already")
        }
        #expect(try Data(contentsOf: target) == Data("keep".utf8), "the existing file is left alone")
    }

    @Test func bridgesToNSErrorInRealmSwiftsDomainWithACodePerKind() {
        let codes: [RealmError.Code] = [
            .fileLocked, .invalidFile, .corruptFile, .fileAccess, .wrongState, .invalidArgument, .schemaMismatch,
            .primaryKeyExists, .invalidObject, .alreadyOpen, .fail, .filePermissionDenied, .fileExists, .fileNotFound,
            .fileFormatUpgradeRequired, .incompatibleLockFile, .addressSpaceExhausted, .outOfDiskSpace,
            .unsupportedFileFormatVersion, .fileOperationFailed,
        ]
        let bridged = codes.map { RealmError($0, "message") as NSError }
        #expect(bridged.allSatisfy { $0.domain == "io.realm" })
        #expect(Set(bridged.map(\.code)).count == codes.count, "one code per kind: \(bridged.map(\.code))")
        // RealmSwift's RLMError values where it has the same kind of error.
        let realmSwiftCodes: [RealmError.Code: Int] = [
            .fail: 1, .fileAccess: 2, .filePermissionDenied: 3, .fileExists: 4, .fileNotFound: 5, .fileFormatUpgradeRequired: 6,
            .incompatibleLockFile: 8, .addressSpaceExhausted: 9, .schemaMismatch: 10, .alreadyOpen: 12, .invalidArgument: 13,
            .outOfDiskSpace: 14, .unsupportedFileFormatVersion: 16, .fileOperationFailed: 19, .invalidFile: 20,
        ]
        for (code, value) in realmSwiftCodes {
            #expect((RealmError(code, "m") as NSError).code == value, "\(code)")
        }
    }

    @Test func bridgedUserInfoCarriesTheMessagePathAndErrno() {
        let url = URL(fileURLWithPath: "/tmp/some.burrow")
        let error = RealmError(.fileAccess, "Writing failed: disk full.", fileURL: url, errno: ENOSPC) as NSError
        #expect(error.localizedDescription == "Writing failed: disk full.")
        #expect(error.userInfo[NSFilePathErrorKey] as? String == url.path)
        let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError
        #expect(underlying?.domain == NSPOSIXErrorDomain && underlying?.code == Int(ENOSPC))
        let plain = RealmError(.invalidArgument, "Bad value.") as NSError
        #expect(plain.userInfo[NSFilePathErrorKey] == nil && plain.userInfo[NSUnderlyingErrorKey] == nil)
        #expect(plain.localizedDescription == "Bad value.")
    }
}
