import BurrowStore
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow
@testable import BurrowStorage

/// The model of `RowPayloadReadErrorTests`, stored under the name it had before it was namespaced.
enum RowPayloadReadErrorModels {
    final class Note: Object {
        override class func _realmObjectName() -> String? { "RPNote" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var text = ""
    }
}

/// A row field whose payload passes the page checks but does not hold a value of its type is
/// damage (Architecture.md, "Read errors"): the getter traps naming the file, the rows tree and
/// the object, instead of reading it as nil or as a wrong value.
@Suite(.temporaryDirectory) struct RowPayloadReadErrorTests {
    @Test func aStringFieldHoldingTheBlobMarkerAndMoreTraps() async throws {
        let configuration = Realm.Configuration(fileURL: temporaryConfiguration().fileURL, objectTypes: [RowPayloadReadErrorModels.Note.self])
        let path = configuration.fileURL!.path
        let rowsTree: String
        do {
            let realm = try Realm(configuration: configuration)
            let note = RowPayloadReadErrorModels.Note()
            note.id = 1
            note.text = "hello"
            try realm.write { try realm.add(note) }
            let table = note._state!.table
            rowsTree = table.rowsTree.string
            let field = table.stored.fieldIndex(of: "text")!
            let transaction = try realm.storage.beginWriteBlocking()
            let tree = try transaction.openTree(named: rowsTree)
            let row = try #require(try transaction.value(forKey: note._state!.key.bytes, in: tree))
            let damaged = row.withUnsafeBytes {
                RowCodec.replacing(field, with: [0xFE] + Array("hello".utf8), in: $0, fields: table.fieldTypes.count)
            }
            _ = try transaction.put(note._state!.key.bytes, damaged, in: tree)
            _ = try transaction.commit()
        }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [path = path as String] in
            let realm = try Realm(
                configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [RowPayloadReadErrorModels.Note.self]))
            print(realm.object(ofType: RowPayloadReadErrorModels.Note.self, forPrimaryKey: 1)?.text ?? "none")
        }
        let message = standardError(of: result)
        #expect(
            message.contains(path) && message.contains("tree \"\(rowsTree)\"")
                && message.contains("starts with the blob marker 0xFE but holds 6 bytes"), "\(message)")
    }
}
