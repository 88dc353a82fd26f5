import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// The model of `LongValueTests`.
enum LongValueModels {
    final class Attachment: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var title = ""
        @Persisted var body: Data?
        @Persisted var note: AnyRealmValue
    }
}

/// Long strings and data live outside their rows, so a row stays small whatever it holds.
@Suite(.temporaryDirectory) struct LongValueTests {
    private func rowSize(_ realm: Realm, _ object: ObjectBase) throws -> Int {
        let state = try #require(object._state)
        return try #require(try realm.store.reader.withValue(state.table.rowsTree, state.key.bytes) { $0.count })
    }

    private func blobCount(_ realm: Realm) throws -> Int {
        let table = try #require(try realm.table(for: LongValueModels.Attachment.self, creating: false))
        return try realm.store.reader.count(table.blobsTree)
    }

    @Test func testLongValuesLeaveTheRowSmallAndReadBackWhole() throws {
        let config = temporaryConfiguration()
        let body = Data((0..<(4 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let longText = String(repeating: "é", count: 5_000)
        do {
            let realm = try Realm(configuration: config)
            let attachment = LongValueModels.Attachment(value: ["id": 1, "title": "t", "body": body, "note": AnyRealmValue.string(longText)])
            try realm.write { try realm.add(attachment) }
            #expect(try rowSize(realm, attachment) < 200, "the row keeps references, not the values")
            #expect(try blobCount(realm) == 2)
            try realm.write { attachment.title = "changed" }
            #expect(try rowSize(realm, attachment) < 200)
            #expect(attachment.body == body)
            #expect(attachment.note == .string(longText))
        }
        let realm = try Realm(configuration: config)
        let attachment = try #require(realm.object(ofType: LongValueModels.Attachment.self, forPrimaryKey: 1))
        #expect(attachment.title == "changed")
        #expect(attachment.body == body)
        #expect(attachment.note == .string(longText))
        let frozen = try attachment.freeze()
        #expect(frozen.body == body)

        // Shrinking a value brings it back into the row; deleting the object drops its blobs.
        try realm.write { attachment.body = Data([1, 2, 3]) }
        #expect(try blobCount(realm) == 1)
        #expect(attachment.body == Data([1, 2, 3]))
        try realm.write { try realm.delete(attachment) }
        #expect(try blobCount(realm) == 0)
        _ = try realm.storage.snapshot().verify()
    }

    @Test func testACancelledWriteKeepsTheOldLongValue() throws {
        struct Stop: Error {}
        let realm = try Realm(configuration: temporaryConfiguration())
        let first = String(repeating: "a", count: 3_000)
        let attachment = LongValueModels.Attachment(value: ["id": 1, "note": AnyRealmValue.string(first)])
        try realm.write { try realm.add(attachment) }
        #expect(throws: Stop.self) {
            try realm.write {
                attachment.note = .string(String(repeating: "b", count: 3_000))
                throw Stop()
            }
        }
        #expect(attachment.note == .string(first))
    }
}
