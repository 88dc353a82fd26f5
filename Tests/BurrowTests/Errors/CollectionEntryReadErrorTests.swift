import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow
@testable import BurrowStorage

/// The model of `CollectionEntryReadErrorTests`, stored under the name it had before it was namespaced.
enum CollectionEntryReadErrorModels {
    final class Box: Object {
        override class func _realmObjectName() -> String? { "CEBox" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var ints: List<Int>
        @Persisted var tags: MutableSet<String>
        @Persisted var nums: Map<String, Int>
    }
}

/// A file whose pages are all sound (checksums and structure) but one entry of a collection of
/// box 1 holds lengths that do not fit what it must hold: the damage only the object layer sees.
private struct DamagedEntryFile: Sendable {
    enum Target: Sendable, Codable { case listElement, setElement, mapKeyLength, mapElement }

    let path: String
    let tree: String

    var configuration: Realm.Configuration {
        Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [CollectionEntryReadErrorModels.Box.self])
    }

    static func make(_ target: Target, _ name: String = #function) throws -> DamagedEntryFile {
        let configuration = temporaryConfiguration(name + "\(target)")
        let realm = try Realm(configuration: configuration)
        let box = CollectionEntryReadErrorModels.Box()
        box.id = 1
        box.ints.append(objectsIn: [7, 8])
        box.tags.insert("hi")
        box.nums["a"] = 1
        try realm.write { try realm.add(box) }
        let table = box._state!.table
        let property = ["ints", "tags", "nums", "nums"][[.listElement, .setElement, .mapKeyLength, .mapElement].firstIndex(of: target)!]
        let tree = table.collectionTrees[table.stored.fieldIndex(of: property)!]!.string
        let transaction = try realm.storage.beginWriteBlocking()
        let id = try transaction.openTree(named: tree)
        var cursor = try transaction.makeCursor(for: id)
        #expect(try cursor.seek(box._state!.key.bytes))
        let key = Array(cursor.key)
        let damaged: [UInt8] =
            switch target {
            case .listElement: [7, 0, 0, 0]  // 4 bytes where an Int takes 8
            case .setElement: [2, 0, 16, 0] + Array("hi".utf8)  // says 1048578 bytes, holds 2
            case .mapKeyLength: [200, 0, 0, 0, UInt8(ascii: "a")] + [1, 0, 0, 0, 0, 0, 0, 0]  // a key longer than the entry
            case .mapElement: [1, 0, 0, 0, UInt8(ascii: "a")] + [1, 0, 0]  // 3 bytes where an Int takes 8
            }
        _ = try transaction.put(key, damaged, in: id)
        _ = try transaction.commit()
        _ = try realm.storage.snapshot().verify()
        return DamagedEntryFile(path: configuration.fileURL!.path, tree: tree)
    }

    /// Whether `message` names the file, the tree and the entry's owner.
    func names(_ message: String) -> Bool {
        message.contains(path) && message.contains("tree \"\(tree)\"") && message.contains("object #")
    }

    func isReport(_ error: any Error) -> Bool {
        guard let error = error as? RealmError else { return false }
        return error.code == .corruptFile && names(error.description) && error.fileURL?.path == path
    }
}

/// Collection entries that pass the page checks but whose lengths do not fit their element's
/// type are damage like a bad page (Architecture.md, "Read errors"): never a crash without a
/// message, never a wrong value.
@Suite(.temporaryDirectory) struct CollectionEntryReadErrorTests {
    @Test(arguments: [DamagedEntryFile.Target.listElement, .setElement, .mapKeyLength, .mapElement])
    fileprivate func freezingResultsFilteredThroughTheCollectionThrows(_ target: DamagedEntryFile.Target) throws {
        let file = try DamagedEntryFile.make(target)
        let realm = try Realm(configuration: file.configuration)
        let query =
            switch target {
            case .listElement: "ANY ints == 7"
            case .setElement: "ANY tags == 'hi'"
            case .mapKeyLength, .mapElement: "ANY nums == 1"
            }
        #expect { try realm.objects(CollectionEntryReadErrorModels.Box.self).filter(query).freeze() } throws: { file.isReport($0) }
    }

    @Test(arguments: [DamagedEntryFile.Target.mapKeyLength, .mapElement])
    fileprivate func aQueryThroughTheMapThrows(_ target: DamagedEntryFile.Target) async throws {
        let file = try DamagedEntryFile.make(target)
        let db = try await RealmActor(configuration: file.configuration)
        do {
            let boxes = try await db.objects(CollectionEntryReadErrorModels.Box.self, where: { $0.nums["a"] == 1 })
            Issue.record("found \(boxes.count) boxes through a damaged map entry")
        } catch {
            #expect(file.isReport(error), "\(error)")
        }
    }

    /// A getter of the damaged collection (a map's value, a set's iteration, a list's
    /// subscript) traps naming the file, the tree, the owner and what is wrong.
    @Test(arguments: [
        (DamagedEntryFile.Target.mapKeyLength, "too short for the map key"),
        (.mapElement, "holds 3 bytes where an Int takes 8"),
        (.setElement, "says its value is 1048578 bytes long, but holds 2"),
        (.listElement, "holds 4 bytes where an Int takes 8"),
    ])
    fileprivate func readingTheDamagedEntryTraps(_ target: DamagedEntryFile.Target, _ problem: String) async throws {
        let file = try DamagedEntryFile.make(target)
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            [path = file.path as String, target = target as DamagedEntryFile.Target] in
            let realm = try Realm(
                configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [CollectionEntryReadErrorModels.Box.self]))
            let box = try #require(realm.object(ofType: CollectionEntryReadErrorModels.Box.self, forPrimaryKey: 1))
            switch target {
            case .mapKeyLength, .mapElement: print(box.nums["a"] ?? -1)
            case .setElement: print(Array(box.tags))
            case .listElement: print(box.ints[0])
            }
        }
        let message = standardError(of: result)
        #expect(file.names(message) && message.contains(problem), "\(message)")
    }
}
