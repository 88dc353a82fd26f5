import BurrowStorage
import BurrowStore
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

// Models of this suite only (class names distinct from every other suite's).

enum OVColor: String, PersistableEnum { case red, green }

/// The models of `ObjectVerifierTests`, stored under the names they had before they were namespaced.
enum ObjectVerifierModels {
    /// A link target with a string primary key, an indexed field and backlinks.
    final class Target: Object {
        override class func _realmObjectName() -> String? { "OVTarget" }
        @Persisted(primaryKey: true) var name = ""
        @Persisted(indexed: true) var rank = 0
        @Persisted(originProperty: "targets") var listedIn: LinkingObjects<ObjectVerifierModels.Everything>
    }

    final class Lamp: EmbeddedObject {
        override class func _realmObjectName() -> String? { "OVLamp" }
        @Persisted var watts = 0
    }

    final class Corner: EmbeddedObject {
        override class func _realmObjectName() -> String? { "OVCorner" }
        @Persisted var label = ""
        @Persisted var lamps: List<ObjectVerifierModels.Lamp>
    }

    /// An embedded object holding another embedded object and a link.
    final class Place: EmbeddedObject {
        override class func _realmObjectName() -> String? { "OVPlace" }
        @Persisted var street = ""
        @Persisted var corner: ObjectVerifierModels.Corner?
        @Persisted var visitor: ObjectVerifierModels.Target?
    }

    /// Every kind of property: each scalar, optionals, `AnyRealmValue`, links, lists, sets and maps
    /// of scalars and objects, embedded objects (nested), indexed properties and a primary key.
    final class Everything: Object {
        override class func _realmObjectName() -> String? { "OVEverything" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var bool = false
        @Persisted var int8: Int8 = 0
        @Persisted var int16: Int16 = 0
        @Persisted var int32: Int32 = 0
        @Persisted var int64: Int64 = 0
        @Persisted var float: Float = 0
        @Persisted var double = 0.0
        @Persisted(indexed: true) var string = ""
        @Persisted var data = Data()
        @Persisted var date = Date(timeIntervalSince1970: 0)
        @Persisted var objectId = ObjectId()
        @Persisted var uuid = UUID()
        @Persisted var decimal = Decimal128()
        @Persisted var color = OVColor.red
        @Persisted(indexed: true) var optInt: Int?
        @Persisted var optString: String?
        @Persisted var optDate: Date?
        @Persisted var optUUID: UUID?
        @Persisted var optDecimal: Decimal128?
        @Persisted var any: AnyRealmValue
        @Persisted(indexed: true) var indexedAny: AnyRealmValue
        @Persisted var longText = ""
        @Persisted var link: ObjectVerifierModels.Target?
        @Persisted var ints: List<Int>
        @Persisted var optStrings: List<String?>
        @Persisted var targets: List<ObjectVerifierModels.Target>
        @Persisted var tags: MutableSet<String>
        @Persisted var targetSet: MutableSet<ObjectVerifierModels.Target>
        @Persisted var mixedSet: MutableSet<AnyRealmValue>
        @Persisted var scores: Map<String, Int>
        @Persisted var targetMap: Map<String, ObjectVerifierModels.Target?>
        @Persisted var place: ObjectVerifierModels.Place?
        @Persisted var places: List<ObjectVerifierModels.Place>
    }

    /// A class without a primary key.
    final class Node: Object {
        override class func _realmObjectName() -> String? { "OVNode" }
        @Persisted var name = ""
        @Persisted var next: ObjectVerifierModels.Node?
    }
}

/// A file made by ordinary use of every property kind, with updates and deletes.
private func makeFile() throws -> Realm {
    let realm = try Realm(configuration: temporaryConfiguration())
    try realm.write {
        let targets = (0..<6).map { ObjectVerifierModels.Target(value: ["name": "t\($0)", "rank": $0 % 3]) }
        try realm.add(targets)
        for id in 0..<8 {
            let object = ObjectVerifierModels.Everything()
            object.id = id
            object.bool = id % 2 == 0
            object.int8 = Int8(id)
            object.int16 = -Int16(id)
            object.int32 = Int32(id * 1000)
            object.int64 = Int64(id) << 40
            object.float = Float(id) / 3
            object.double = Double(id) * 1.5
            object.string = "name \(id % 3) é"
            object.data = Data([UInt8](repeating: UInt8(id), count: id))
            object.date = Date(timeIntervalSince1970: Double(id) * 86_400)
            object.decimal = Decimal128(Double(id) / 4)
            object.color = id % 2 == 0 ? .red : .green
            object.optInt = id % 3 == 0 ? nil : id
            object.optString = id % 2 == 0 ? "s\(id)" : nil
            object.optDate = id % 2 == 0 ? Date() : nil
            object.optUUID = id % 2 == 1 ? UUID() : nil
            object.optDecimal = id % 2 == 1 ? Decimal128(1) : nil
            object.any = id % 3 == 0 ? .string("mixed") : id % 3 == 1 ? .object(targets[id % 6]) : .none
            if id % 2 == 0 { object.indexedAny = .int(id) }
            object.longText = String(repeating: "long \(id) ", count: 300)
            object.link = targets[id % 6]
            object.ints.append(objectsIn: [id, id + 1, id])
            object.optStrings.append(objectsIn: ["a", nil, "b"])
            object.targets.append(objectsIn: [targets[0], targets[id % 6], targets[0]])
            object.tags.insert(objectsIn: ["x", "y\(id)"])
            object.targetSet.insert(objectsIn: [targets[1], targets[2]])
            object.mixedSet.insert(objectsIn: [.int(id), .object(targets[3]), .none])
            object.scores["a"] = id
            object.scores["b é"] = -id
            object.targetMap["first"] = targets[4]
            object.targetMap["none"] = nil
            let place = ObjectVerifierModels.Place()
            place.street = "street \(id)"
            let corner = ObjectVerifierModels.Corner()
            corner.label = "corner"
            corner.lamps.append(objectsIn: [ObjectVerifierModels.Lamp(value: ["watts": 40]), ObjectVerifierModels.Lamp(value: ["watts": 60])])
            place.corner = corner
            place.visitor = targets[5]
            object.place = place
            object.places.append(objectsIn: [ObjectVerifierModels.Place(value: ["street": "a"]), ObjectVerifierModels.Place(value: ["street": "b"])])
            try realm.add(object)
        }
        let first = ObjectVerifierModels.Node(value: ["name": "first"])
        first.next = ObjectVerifierModels.Node(value: ["name": "second"])
        try realm.add(first)
    }
    try realm.write {
        let objects = realm.objects(ObjectVerifierModels.Everything.self)
        let changed = objects[1]
        changed.string = "renamed"
        changed.optInt = nil
        changed.longText = "short now"
        changed.ints.remove(at: 0)
        changed.targets.insert(realm.object(ofType: ObjectVerifierModels.Target.self, forPrimaryKey: "t2")!, at: 1)
        changed.place = ObjectVerifierModels.Place(value: ["street": "replaced"])
        changed.places.remove(at: 0)
        changed.scores["a"] = nil
        changed.tags.remove("x")
        changed.any = .int(7)
        try realm.delete(objects[2])
        try realm.delete(realm.object(ofType: ObjectVerifierModels.Target.self, forPrimaryKey: "t4")!)
        realm.object(ofType: ObjectVerifierModels.Target.self, forPrimaryKey: "t1")!.rank = 99
        try realm.delete(realm.objects(ObjectVerifierModels.Node.self).filter { $0.name == "second" })
    }
    return realm
}

private func verifyObjects(_ realm: Realm, limit: Int = ObjectVerifier.defaultFindingLimit) throws -> ObjectVerifyReport {
    try ObjectVerifier.verify(realm.storage.snapshot(), findingLimit: limit)
}

/// Changes the file's trees directly through the engine, then checks that the engine's own
/// verify still finds the file sound: what follows is damage only the object check can see.
private func damage(_ realm: Realm, _ change: (WriteTransaction) throws -> Void) throws {
    let transaction = try realm.storage.beginWriteBlocking()
    try change(transaction)
    _ = try transaction.commit()
    _ = try realm.storage.snapshot().verify()
}

private func key(_ object: ObjectBase) -> ObjectKey { object._state!.key }
private func tableId(_ object: ObjectBase) -> UInt32 { object._state!.table.id }
private func field(_ object: ObjectBase, _ name: String) -> Int { object._state!.table.stored.fieldIndex(of: name)! }

/// The row of `object`, with field `name` replaced by `payload`.
private func row(of object: ObjectBase, replacing name: String, with payload: [UInt8]?, in transaction: WriteTransaction) throws -> [UInt8] {
    let table = object._state!.table
    let tree = try #require(try transaction.tree(named: table.rowsTree.string))
    let row = try #require(try transaction.value(forKey: key(object).bytes, in: tree))
    return row.withUnsafeBytes { RowCodec.replacing(field(object, name), with: payload, in: $0, fields: table.fieldTypes.count) }
}

private func putRow(_ object: ObjectBase, _ row: [UInt8], in transaction: WriteTransaction) throws {
    _ = try transaction.put(key(object).bytes, row, in: try transaction.openTree(named: object._state!.table.rowsTree.string))
}

/// The tree of collection property `name` of `object`.
private func collectionTree(of object: ObjectBase, _ name: String, in transaction: WriteTransaction) throws -> TreeID {
    try transaction.openTree(named: object._state!.table.collectionTrees[field(object, name)]!.string)
}

/// The key of the first entry of `object`'s collection property `name`.
private func firstEntryKey(of object: ObjectBase, _ name: String, in transaction: WriteTransaction) throws -> [UInt8] {
    var cursor = try transaction.makeCursor(for: try collectionTree(of: object, name, in: transaction))
    #expect(try cursor.seek(key(object).bytes))
    return Array(cursor.key)
}

/// Sets the count of the backlink entry for `source`'s property `name` linking to `target`
/// (nil deletes the entry).
private func setBacklink(
    from source: ObjectBase, _ name: String, to target: ObjectBase, count: UInt32?, in transaction: WriteTransaction
) throws {
    let tree = try transaction.openTree(named: Backlinks.treeName(tableId(target)).string)
    let entry = Backlinks.key(key(target), from: tableId(source), field: field(source, name), source: key(source))
    if let count {
        _ = try transaction.put(entry, withUnsafeBytes(of: count.littleEndian) { Array($0) }, in: tree)
    } else {
        #expect(try transaction.delete(entry, from: tree))
    }
}

private func expectFinding(
    _ report: ObjectVerifyReport, _ className: String, key: ObjectKey? = nil, property: String? = nil, _ text: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let found = report.findings.contains {
        $0.className == className && (key == nil || $0.objectKey == key!.rawValue) && (property == nil || $0.property == property)
            && $0.problem.contains(text)
    }
    #expect(found, "expected \(className) \(property ?? "") “\(text)” among \(report.findings.map(\.description))", sourceLocation: sourceLocation)
}

@Suite(.temporaryDirectory) struct ObjectVerifierTests {
    @Test func testFileMadeByOrdinaryUseOfEveryPropertyKindIsSound() throws {
        let realm = try makeFile()
        let report = try verifyObjects(realm)
        #expect(report.findings.map(\.description) == [])
        #expect(report.isSound)
        #expect(report.objects > 50)
    }

    @Test func testIndexedAnyRealmValueLeftNilIsIndexedAsNil() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        try realm.write {
            for id in 0..<4 {
                let object = ObjectVerifierModels.Everything()
                object.id = id
                if id % 2 == 0 { object.indexedAny = .int(id) }
                try realm.add(object)
            }
        }
        #expect(try realm.objects(ObjectVerifierModels.Everything.self).filter("indexedAny == nil").count == 2)
        #expect(realm.objects(ObjectVerifierModels.Everything.self).where { $0.indexedAny == .none }.count == 2)
        let report = try verifyObjects(realm)
        #expect(report.findings.map(\.description) == [])
    }

    @Test func testPayloadTooShortForItsTypeIsNamed() throws {
        let realm = try makeFile()
        let target = realm.object(ofType: ObjectVerifierModels.Target.self, forPrimaryKey: "t3")!
        try damage(realm) { transaction in
            try putRow(target, try row(of: target, replacing: "rank", with: [1, 2, 3, 4, 5, 6, 7, 8, 9], in: transaction), in: transaction)
        }
        let report = try verifyObjects(realm)
        expectFinding(report, "OVTarget", key: key(target), property: "rank", "holds 9 bytes where an Int takes 1 to 8")
        #expect(report.findings.first { $0.property == "rank" }?.primaryKey == "\"t3\"")
        #expect(report.findings.count == 1, "an unreadable value is not also an index finding: \(report.findings)")
    }

    @Test func testIntInMoreBytesThanItNeedsIsNamed() throws {
        let realm = try makeFile()
        let target = realm.object(ofType: ObjectVerifierModels.Target.self, forPrimaryKey: "t3")!
        try damage(realm) { transaction in
            try putRow(target, try row(of: target, replacing: "rank", with: [5, 0], in: transaction), in: transaction)
        }
        expectFinding(try verifyObjects(realm), "OVTarget", key: key(target), property: "rank", "holds the Int 5 in 2 bytes, where it takes 1")
    }

    @Test func testStringThatIsNotUTF8IsNamed() throws {
        let realm = try makeFile()
        let object = realm.object(ofType: ObjectVerifierModels.Everything.self, forPrimaryKey: 0)!
        try damage(realm) { transaction in
            try putRow(object, try row(of: object, replacing: "optString", with: [2, 0, 0, 0, 0xC3, 0x28], in: transaction), in: transaction)
        }
        expectFinding(try verifyObjects(realm), "OVEverything", key: key(object), property: "optString", "not valid UTF-8")
    }

    @Test func testRowWhoseOffsetsRunPastItsEndIsNamed() throws {
        let realm = try makeFile()
        let object = realm.object(ofType: ObjectVerifierModels.Everything.self, forPrimaryKey: 3)!
        try damage(realm) { transaction in
            var row = try row(of: object, replacing: "bool", with: [1], in: transaction)
            // The offset table loses its last byte; the payloads go.
            row.removeLast(row.count - row.withUnsafeBytes { RowCodec.headerSize($0) } + 1)
            try putRow(object, row, in: transaction)
        }
        let report = try verifyObjects(realm)
        expectFinding(report, "OVEverything", key: key(object), "offset table runs past")
        #expect(report.findings.count == 1, "its links, collections and embedded objects are not judged without it: \(report.findings)")
    }

    @Test func testUnknownAnyRealmValueTagIsNamed() throws {
        let realm = try makeFile()
        let object = realm.object(ofType: ObjectVerifierModels.Everything.self, forPrimaryKey: 0)!
        try damage(realm) { transaction in
            try putRow(object, try row(of: object, replacing: "any", with: [200, 1, 2], in: transaction), in: transaction)
        }
        expectFinding(try verifyObjects(realm), "OVEverything", key: key(object), property: "any", "unknown AnyRealmValue type tag 200")
    }

    @Test func testNilInAListOfObjectsIsNamed() throws {
        let realm = try makeFile()
        let object = realm.object(ofType: ObjectVerifierModels.Everything.self, forPrimaryKey: 0)!
        try damage(realm) { transaction in
            let entry = try firstEntryKey(of: object, "targets", in: transaction)
            _ = try transaction.put(entry, [], in: try collectionTree(of: object, "targets", in: transaction))
        }
        expectFinding(
            try verifyObjects(realm), "OVEverything", key: key(object), property: "targets", "holds a nil element, which List<OVTarget> cannot hold")
    }

    @Test func testBlobWithoutItsRowIsNamed() throws {
        let realm = try makeFile()
        let object = realm.object(ofType: ObjectVerifierModels.Everything.self, forPrimaryKey: 1)!  // Its long text was shortened.
        try damage(realm) { transaction in
            var blob: [UInt8] = []
            ValueCodec.append(StoreValue.string(String(repeating: "x", count: 2000)), as: .string, to: &blob)
            _ = try transaction.put(
                ObjectStore.blobKey(key(object), field(object, "longText")), blob,
                in: try transaction.openTree(named: object._state!.table.blobsTree.string)
            )
        }
        expectFinding(try verifyObjects(realm), "OVEverything", key: key(object), property: "longText", "the object's row does not refer to it")
    }

    @Test func testLinkToAClassTheFileDoesNotHoldIsNamed() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        // Only OVNode is stored; its link field is made to name a class the file lacks.
        let node = ObjectVerifierModels.Node(value: ["name": "alone"])
        try realm.write { try realm.add(node) }
        try damage(realm) { transaction in
            let schema = try #require(try transaction.tree(named: TreeName.schema.string))
            let classKey = Array((FileSchema.classKeyPrefix + "OVNode").utf8)
            var stored = try #require(try transaction.value(forKey: classKey, in: schema)).withUnsafeBytes { bytes in
                try FileSchema.decode(StoredClass.self, from: bytes, path: "test")
            }
            stored.properties[field(node, "next")].objectClassName = "Absent"
            _ = try transaction.put(classKey, FileSchema.encode(stored), in: schema)
            var payload: [UInt8] = []
            ValueCodec.appendLE(key(node).rawValue, to: &payload)
            try putRow(node, try row(of: node, replacing: "next", with: payload, in: transaction), in: transaction)
        }
        expectFinding(try verifyObjects(realm), "OVNode", key: key(node), property: "next", "links to class 'Absent', which the schema does not have")
    }

    @Test func testLinkToAMissingObjectIsNamed() throws {
        let realm = try makeFile()
        let node = realm.objects(ObjectVerifierModels.Node.self).first!
        try damage(realm) { transaction in
            var payload: [UInt8] = []
            ValueCodec.appendLE(UInt64(12345), to: &payload)
            try putRow(node, try row(of: node, replacing: "next", with: payload, in: transaction), in: transaction)
        }
        expectFinding(try verifyObjects(realm), "OVNode", key: key(node), property: "next", "links to OVNode #12345, which does not exist")
    }

    @Test func testMissingBacklinkIsNamed() throws {
        let realm = try makeFile()
        let object = realm.object(ofType: ObjectVerifierModels.Everything.self, forPrimaryKey: 0)!
        let target = object.link!
        try damage(realm) { try setBacklink(from: object, "link", to: target, count: nil, in: $0) }
        expectFinding(try verifyObjects(realm), "OVEverything", key: key(object), property: "link", "backlinks do not list the link")
    }

    @Test func testBacklinkWithoutItsLinkIsNamed() throws {
        let realm = try makeFile()
        let object = realm.object(ofType: ObjectVerifierModels.Everything.self, forPrimaryKey: 0)!
        let other = realm.object(ofType: ObjectVerifierModels.Target.self, forPrimaryKey: "t5")!
        try damage(realm) { try setBacklink(from: object, "targets", to: other, count: 1, in: $0) }
        expectFinding(try verifyObjects(realm), "OVEverything", key: key(object), property: "targets", "does not link to OVTarget")
    }

    @Test func testBacklinkCountThatDisagreesIsNamed() throws {
        let realm = try makeFile()
        let object = realm.object(ofType: ObjectVerifierModels.Everything.self, forPrimaryKey: 0)!
        let target = object.targets[0]
        try damage(realm) { try setBacklink(from: object, "targets", to: target, count: 5, in: $0) }
        expectFinding(try verifyObjects(realm), "OVEverything", key: key(object), property: "targets", "but that object's backlinks count 5")
    }

    @Test func testMissingAndStaleIndexEntriesAreNamed() throws {
        let realm = try makeFile()
        let object = realm.object(ofType: ObjectVerifierModels.Everything.self, forPrimaryKey: 4)!
        let stringField = field(object, "string")
        try damage(realm) { transaction in
            let tree = try transaction.openTree(named: TreeName(.index, tableId(object), field: stringField).string)
            #expect(try transaction.delete(IndexKey.entry(StoreValue.string(object.string), key(object)), from: tree))
            _ = try transaction.put(IndexKey.entry(StoreValue.string("a value it never had"), key(object)), [], in: tree)
            _ = try transaction.put(IndexKey.entry(StoreValue.string("gone"), ObjectKey(777)), [], in: tree)
        }
        let report = try verifyObjects(realm)
        expectFinding(report, "OVEverything", key: key(object), property: "string", "no entry for the object's value")
        expectFinding(report, "OVEverything", key: key(object), property: "string", "a value the object does not have")
        expectFinding(report, "OVEverything", key: ObjectKey(777), property: "string", "an object that does not exist")
        #expect(report.findings.count == 3)
    }

    @Test func testDuplicatePrimaryKeyIsNamed() throws {
        let realm = try makeFile()
        let target = realm.object(ofType: ObjectVerifierModels.Target.self, forPrimaryKey: "t0")!
        try damage(realm) { transaction in
            let tree = try transaction.openTree(named: target._state!.table.rowsTree.string)
            let row = try #require(try transaction.value(forKey: key(target).bytes, in: tree))
            _ = try transaction.put(ObjectKey(42).bytes, row, in: tree)
        }
        let report = try verifyObjects(realm)
        expectFinding(report, "OVTarget", property: "name", "has the same primary key as OVTarget #")
        expectFinding(report, "OVTarget", key: ObjectKey(42), property: "rank", "no entry for the object's value")
    }

    @Test func testPrimaryKeyTreeEntryForNoCollisionIsNamed() throws {
        let realm = try makeFile()
        let target = realm.object(ofType: ObjectVerifierModels.Target.self, forPrimaryKey: "t0")!
        try damage(realm) { transaction in
            let tree = try transaction.openTree(named: TreeName(.primaryKey, tableId(target)).string)
            _ = try transaction.put(IndexKey.encode(StoreValue.string("t0")), key(target).bytes, in: tree)
        }
        expectFinding(try verifyObjects(realm), "OVTarget", key: key(target), property: "name", "the primary-key tree lists the object")
    }

    @Test func testListCountThatDisagreesWithItsTreeIsNamed() throws {
        let realm = try makeFile()
        let object = realm.object(ofType: ObjectVerifierModels.Everything.self, forPrimaryKey: 5)!
        try damage(realm) { transaction in
            let entry = try firstEntryKey(of: object, "ints", in: transaction)
            #expect(try transaction.delete(entry, from: try collectionTree(of: object, "ints", in: transaction)))
        }
        expectFinding(
            try verifyObjects(realm), "OVEverything", key: key(object), property: "ints", "its row counts 3 elements, but the collection tree holds 2"
        )
    }

    @Test func testElementsOfAMissingObjectAreNamed() throws {
        let realm = try makeFile()
        let object = realm.object(ofType: ObjectVerifierModels.Everything.self, forPrimaryKey: 5)!
        try damage(realm) { transaction in
            let tree = try collectionTree(of: object, "ints", in: transaction)
            _ = try transaction.put(ObjectStore.listEntryKey(ObjectKey(99), ObjectStore.listFirstPosition), [1, 0, 0, 0, 0, 0, 0, 0], in: tree)
        }
        expectFinding(try verifyObjects(realm), "OVEverything", key: ObjectKey(99), property: "ints", "of an object that does not exist")
    }

    @Test func testSetEntryUnderTheWrongKeyIsNamed() throws {
        let realm = try makeFile()
        let object = realm.object(ofType: ObjectVerifierModels.Everything.self, forPrimaryKey: 5)!
        try damage(realm) { transaction in
            let tree = try collectionTree(of: object, "tags", in: transaction)
            let entry = ObjectStore.collectionEntryKey(key(object), setElement: StoreValue.string("x"))
            var payload: [UInt8] = []
            ValueCodec.append(StoreValue.string("not x"), as: .string, to: &payload)
            _ = try transaction.put(entry, payload, in: tree)
        }
        expectFinding(
            try verifyObjects(realm), "OVEverything", key: key(object), property: "tags", "set element under an entry key that does not encode it")
    }

    @Test func testMapEntryUnderTheWrongKeyIsNamed() throws {
        let realm = try makeFile()
        let object = realm.object(ofType: ObjectVerifierModels.Everything.self, forPrimaryKey: 5)!
        try damage(realm) { transaction in
            let tree = try collectionTree(of: object, "scores", in: transaction)
            var entry: [UInt8] = []
            ValueCodec.appendLE(UInt32(5), to: &entry)
            entry.append(contentsOf: "other".utf8)
            ValueCodec.appendLE(UInt64(1), to: &entry)
            _ = try transaction.put(ObjectStore.collectionEntryKey(key(object), mapKey: "a"), entry, in: tree)
        }
        expectFinding(try verifyObjects(realm), "OVEverything", key: key(object), property: "scores", "map key \"other\" under an entry key")
    }

    @Test func testEmbeddedObjectWithTwoParentsIsNamed() throws {
        let realm = try makeFile()
        let first = realm.object(ofType: ObjectVerifierModels.Everything.self, forPrimaryKey: 0)!
        let second = realm.object(ofType: ObjectVerifierModels.Everything.self, forPrimaryKey: 3)!
        let shared = first.place!
        let orphaned = second.place!
        try damage(realm) { transaction in
            var payload: [UInt8] = []
            ValueCodec.appendLE(key(shared).rawValue, to: &payload)
            try putRow(second, try row(of: second, replacing: "place", with: payload, in: transaction), in: transaction)
            // The backlinks follow, so that only the parents disagree.
            try setBacklink(from: second, "place", to: orphaned, count: nil, in: transaction)
            try setBacklink(from: second, "place", to: shared, count: 1, in: transaction)
        }
        let report = try verifyObjects(realm)
        expectFinding(report, "OVPlace", key: key(shared), "linked from 2 places; it must have exactly one parent")
        expectFinding(report, "OVPlace", key: key(orphaned), "no object links to it")
        #expect(report.findings.count == 2, "\(report.findings)")
    }

    @Test func testMissingBlobIsNamed() throws {
        let realm = try makeFile()
        let object = realm.object(ofType: ObjectVerifierModels.Everything.self, forPrimaryKey: 6)!
        try damage(realm) { transaction in
            let tree = try transaction.openTree(named: object._state!.table.blobsTree.string)
            #expect(try transaction.delete(ObjectStore.blobKey(key(object), field(object, "longText")), from: tree))
        }
        expectFinding(try verifyObjects(realm), "OVEverything", key: key(object), property: "longText", "the blob tree does not hold it")
    }

    @Test func testTreeOfNoClassIsNamed() throws {
        let realm = try makeFile()
        try damage(realm) { transaction in
            _ = try transaction.put([1], [1], in: try transaction.openTree(named: "rows/9999"))
        }
        let report = try verifyObjects(realm)
        #expect(report.findings.contains { $0.className == nil && $0.problem.contains("\"rows/9999\"") }, "\(report.findings)")
    }

    @Test func testFindingsPastTheLimitAreCounted() throws {
        let realm = try makeFile()
        let objects = Array(realm.objects(ObjectVerifierModels.Everything.self))
        try damage(realm) { transaction in
            let tree = try transaction.openTree(named: TreeName(.index, tableId(objects[0]), field: field(objects[0], "string")).string)
            for object in objects { _ = try transaction.delete(IndexKey.entry(StoreValue.string(object.string), key(object)), from: tree) }
        }
        let report = try verifyObjects(realm, limit: 2)
        #expect(report.findings.count == 2)
        #expect(report.unlistedFindings == objects.count - 2)
        #expect(!report.isSound)
    }
}
