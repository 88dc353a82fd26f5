import BurrowStore
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow
@testable import BurrowStorage

/// The models of `ObjectSalvageTests`, stored under the names they had before they were namespaced.
enum ObjectSalvageModels {
    final class Parent: Object {
        override class func _realmObjectName() -> String? { "OSParent" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var child: ObjectSalvageModels.Child?
    }

    final class Child: EmbeddedObject {
        override class func _realmObjectName() -> String? { "OSChild" }
        @Persisted var name = ""
        @Persisted var next: ObjectSalvageModels.Child?
    }
}

/// `ObjectSalvage` on rows whose links no sound file holds: what it writes out is a tree under
/// each top-level object, whatever the links say, so that writing it always ends.
@Suite(.temporaryDirectory) struct ObjectSalvageTests {
    /// Sets link field `name` of `object` to the object key `target`, in the engine's trees.
    private func relink(_ object: ObjectBase, _ name: String, to target: ObjectKey, in realm: Realm) throws {
        let table = object._state!.table
        let transaction = try realm.storage.beginWriteBlocking()
        let tree = try transaction.openTree(named: table.rowsTree.string)
        let row = try #require(try transaction.value(forKey: object._state!.key.bytes, in: tree))
        var payload: [UInt8] = []
        ValueCodec.appendLE(target.rawValue, to: &payload)
        let changed = row.withUnsafeBytes {
            RowCodec.replacing(table.stored.fieldIndex(of: name)!, with: payload, in: $0, fields: table.fieldTypes.count)
        }
        _ = try transaction.put(object._state!.key.bytes, changed, in: tree)
        _ = try transaction.commit()
    }

    @Test func anEmbeddedObjectLinkedTwiceOrInALoopIsWrittenOnce() throws {
        let configuration = Realm.Configuration(
            fileURL: temporaryConfiguration().fileURL, objectTypes: [ObjectSalvageModels.Parent.self, ObjectSalvageModels.Child.self])
        let realm = try Realm(configuration: configuration)
        try realm.write {
            try realm.create(ObjectSalvageModels.Parent.self, value: ["id": 1, "child": ["name": "a", "next": ["name": "b"]]])
            try realm.create(ObjectSalvageModels.Parent.self, value: ["id": 2, "child": ["name": "c"]])
        }
        let first = try #require(realm.object(ofType: ObjectSalvageModels.Parent.self, forPrimaryKey: 1))
        let second = try #require(realm.object(ofType: ObjectSalvageModels.Parent.self, forPrimaryKey: 2))
        let a = try #require(first.child)
        let aKey = a._state!.key
        // a links to itself, and the second parent links to a too.
        try relink(a, "next", to: aKey, in: realm)
        try relink(second, "child", to: aKey, in: realm)

        let salvage = try ObjectSalvage(try realm.storage.snapshot())
        let parents = salvage.objects(of: "OSParent")
        #expect(parents.map(\.key).count == 2)
        guard case .embedded(_, let key)? = parents.first?.values.last, key == aKey.rawValue else {
            Issue.record("the first parent keeps its child: \(String(describing: parents.first?.values))")
            return
        }
        guard case .null? = parents.last?.values.last else {
            Issue.record("the second link to the child is dropped: \(String(describing: parents.last?.values))")
            return
        }
        let child = try #require(salvage.embedded("OSChild", key: aKey.rawValue))
        guard case .null? = child.values.last else {
            Issue.record("the child's link to itself is dropped: \(child.values)")
            return
        }
        #expect(salvage.report.droppedLinks == 2)
        let children = try #require(salvage.report.classes.first { $0.className == "OSChild" })
        // b and c are no longer linked from any parent: lost with it.
        #expect(children.recorded == 3 && children.recovered == 1 && children.lost == 2)
    }

    @Test func lostRangesNameIntPrimaryKeysOnlyWhenEveryObjectKeyDerivesFromOne() throws {
        let configuration = Realm.Configuration(
            fileURL: temporaryConfiguration().fileURL, objectTypes: [ObjectSalvageModels.Parent.self, ObjectSalvageModels.Child.self])
        let realm = try Realm(configuration: configuration)
        try realm.write { try realm.create(ObjectSalvageModels.Parent.self, value: ["id": 1]) }
        func intPrimaryKey() throws -> String? {
            try ObjectSalvage(try realm.storage.snapshot()).report.classes.first { $0.className == "OSParent" }?.intPrimaryKey
        }
        #expect(try intPrimaryKey() == "id")

        // An object whose key does not derive from its primary key, as the primary-key tree
        // records it (after a collision, or a migration that changed primary keys).
        let table = try #require(realm.object(ofType: ObjectSalvageModels.Parent.self, forPrimaryKey: 1)?._state?.table)
        let transaction = try realm.storage.beginWriteBlocking()
        let tree = try transaction.openTree(named: table.primaryKeyTree.string)
        _ = try transaction.put(IndexKey.encode(StoreValue.int(2)), ObjectKey(7).bytes, in: tree)
        _ = try transaction.commit()
        #expect(try intPrimaryKey() == nil, "object keys read as primary keys though one does not derive")
    }
}
