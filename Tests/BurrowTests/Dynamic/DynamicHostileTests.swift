import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

// Models of the hostile pass over the dynamic API and migrations; only DynamicHostileTests use
// them. Their one-property neighbours are DynamicSmokeTests' address (DynSmokeAddress) and
// CreateCopiesTests' tag and unit (CopyTag, CopyUnit).

/// The models of `DynamicHostileTests`, stored under the names they had before they were namespaced.
enum DynamicHostileModels {
    final class Node: Object {
        override class func _realmObjectName() -> String? { "DynHostileNode" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var next: DynamicHostileModels.Node?
        @Persisted var children: List<DynamicHostileModels.Node>
        @Persisted var tags: List<Int>
        @Persisted var scores: Map<String, Int>
        @Persisted var address: DynamicSmokeModels.Address?
        @Persisted var addresses: List<DynamicSmokeModels.Address>
        /// An embedded class that embeds itself (CreateCopiesTests' unit): chains of any depth.
        @Persisted var box: CreateCopiesModels.Unit?
    }

    final class Mixed: Object {
        override class func _realmObjectName() -> String? { "DynHostileMixed" }
        @Persisted var any: AnyRealmValue
        @Persisted var kids: MutableSet<CreateCopiesModels.Tag>
        @Persisted var byName: Map<String, CreateCopiesModels.Tag?>
        @Persisted var list: List<CreateCopiesModels.Tag>
    }

    // Two releases of a person, both kept out of the default schema (so that a realm opened without
    // objectTypes knows no Swift class for "DynHosPerson" and leaves it pending).
    final class PersonV1: Object {
        override class func _realmObjectName() -> String? { "DynHosPerson" }
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var pet: DynamicHostileModels.Pet?
        @Persisted var home: DynamicHostileModels.Home?
    }

    final class PersonV2: Object {
        override class func _realmObjectName() -> String? { "DynHosPerson" }
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var fullName = ""
        @Persisted var home: DynamicHostileModels.Home?
    }

    final class Pet: Object {
        override class func _realmObjectName() -> String? { "DynHosPet" }
        @Persisted var name = ""
    }

    final class Home: EmbeddedObject {
        override class func _realmObjectName() -> String? { "DynHosHome" }
        @Persisted var street = ""
    }

    /// Release 1 only: an owner of pets, which release 2 no longer declares.
    final class Owner: Object {
        override class func _realmObjectName() -> String? { "DynHosOwner" }
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted var pet: DynamicHostileModels.Pet?
        @Persisted var pets: List<DynamicHostileModels.Pet>
    }

    /// A tag that release 2 embeds in the object that links to it.
    final class TagV1: Object {
        override class func _realmObjectName() -> String? { "DynHosTag" }
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted var text = ""
    }

    final class TagV2: EmbeddedObject {
        override class func _realmObjectName() -> String? { "DynHosTag" }
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted var text = ""
    }

    final class TaggedV1: Object {
        override class func _realmObjectName() -> String? { "DynHosTagged" }
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted var tag: DynamicHostileModels.TagV1?
    }

    final class TaggedV2: Object {
        override class func _realmObjectName() -> String? { "DynHosTagged" }
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted var tag: DynamicHostileModels.TagV2?
    }
}

/// A realm on an actor of its own, for writes from two domains at once.
actor DynHostileStore {
    let realm: Realm

    init(configuration: Realm.Configuration) async throws {
        realm = try await Realm.open(configuration: configuration)
    }

    /// Creates node `id` dynamically; false if another writer created it first.
    func create(_ id: Int) throws -> Bool {
        do {
            try realm.write { _ = try realm.dynamicCreate("DynHostileNode", value: ["id": id, "name": "n\(id)"]) }
            return true
        } catch let error as RealmError where error.code == .primaryKeyExists {
            return false
        }
    }
}

/// What migration blocks record, read after the open returned. Not a `LockedBox`: it keeps the
/// migration's `DynamicObject`s, which are not `Sendable`; the test reads them on the thread that
/// opened the realm, after the block ran there.
final class DynHosRecord: @unchecked Sendable {
    // Every access holds `lock`.
    private let lock = NSLock()
    private var _calls = 0
    private var _old: DynamicObject?
    private var _new: DynamicObject?

    var calls: Int { lock.withLock { _calls } }
    var old: DynamicObject? { lock.withLock { _old } }
    var new: DynamicObject? { lock.withLock { _new } }
    func called() { lock.withLock { _calls += 1 } }
    func keep(_ old: DynamicObject?, _ new: DynamicObject?) { lock.withLock { (_old, _new) = (old, new) } }
}

/// A hostile user's pass over the dynamic API and migrations: values of every size and shape,
/// objects of other realms, frozen and deleted objects, migration blocks that keep their objects
/// or trap, and files migrated by two realms at once or by another realm while objects are held.
@Suite(.temporaryDirectory) struct DynamicHostileTests {
    private func nodeRealm(_ name: String = #function) throws -> Realm {
        var config = temporaryConfiguration(name)
        config.objectTypes = [
            DynamicHostileModels.Node.self, DynamicSmokeModels.Address.self, CreateCopiesModels.Unit.self, CreateCopiesModels.Tag.self,
            DynamicHostileModels.Mixed.self,
        ]
        return try Realm(configuration: config)
    }

    /// Release 1's file: Ada (with her pet Rex and her home) and Alan; an owner linking to Rex.
    static func releaseOne(_ path: String? = nil) throws -> Realm.Configuration {
        var config = path.map { Realm.Configuration(fileURL: URL(fileURLWithPath: $0)) } ?? temporaryConfiguration()
        config.objectTypes = [
            DynamicHostileModels.PersonV1.self, DynamicHostileModels.Pet.self, DynamicHostileModels.Home.self, DynamicHostileModels.Owner.self,
        ]
        config.schemaVersion = 1
        let realm = try Realm(configuration: config)
        try realm.write {
            let rex = try realm.create(DynamicHostileModels.Pet.self, value: ["name": "Rex"])
            try realm.create(DynamicHostileModels.PersonV1.self, value: ["id": 1, "name": "Ada", "pet": rex, "home": ["street": "Main"]])
            try realm.create(DynamicHostileModels.PersonV1.self, value: ["id": 2, "name": "Alan"])
            try realm.create(DynamicHostileModels.Owner.self, value: ["pet": rex, "pets": [rex]])
        }
        return config
    }

    /// Release 2 of `v1`'s file: `name` becomes `fullName`, `DynHosOwner` is gone.
    static func releaseTwo(_ v1: Realm.Configuration, _ block: MigrationBlock? = nil) -> Realm.Configuration {
        var v2 = v1
        v2.objectTypes = [DynamicHostileModels.PersonV2.self, DynamicHostileModels.Pet.self, DynamicHostileModels.Home.self]
        v2.schemaVersion = 2
        v2.migrationBlock = block
        return v2
    }

    /// A new file's path in the test's directory.
    private static func temporaryPath() throws -> String {
        try testDirectory().file("hostile.burrow")
    }

    /// How many rounds the race tests run (`BURROW_HOSTILE_ROUNDS`, default 40).
    private static var rounds: Int { TestEnvironment.count("BURROW_HOSTILE_ROUNDS", default: 40) }

    // MARK: Values of every size and shape

    @Test func aDynamicObjectLinksToItselfByNameAndInAList() throws {
        let realm = try nodeRealm()
        try realm.write {
            let node = try realm.dynamicCreate("DynHostileNode", value: ["id": 1])
            node["next"] = node
            node.children = [node, node]
        }
        let node = try #require(realm.dynamicObject(ofType: "DynHostileNode", forPrimaryKey: 1))
        #expect(((node["next"] as? DynamicObject)?["next"] as? DynamicObject)?["id"] as? Int == 1)
        #expect((node["children"] as? List<DynamicObject>)?.map { $0["id"] as? Int } == [1, 1])
        #expect(realm.objects(DynamicHostileModels.Node.self).count == 1)
    }

    @Test func anAnyRealmValueHoldsItsOwnObject() throws {
        let realm = try nodeRealm()
        try realm.write {
            let mixed = try realm.dynamicCreate("DynHostileMixed")
            mixed["any"] = mixed
        }
        let mixed = try #require(realm.dynamicObjects("DynHostileMixed").first)
        let inner = try #require(mixed["any"] as? DynamicObject)
        #expect(inner["any"] is DynamicObject)
        #expect(realm.objects(DynamicHostileModels.Mixed.self).count == 1)
    }

    /// A cycle of unmanaged objects with primary keys given as the value: the second visit of
    /// the first object is a duplicate key, and nothing is written.
    @Test func anUnmanagedCycleGivenAsTheValueWritesNothingWhenItFails() throws {
        let realm = try nodeRealm()
        let a = DynamicHostileModels.Node(value: ["id": 1])
        let b = DynamicHostileModels.Node(value: ["id": 2])
        a.next = b
        b.next = a
        do {
            try realm.write { _ = try realm.dynamicCreate("DynHostileNode", value: a) }
            #expect(realm.objects(DynamicHostileModels.Node.self).count == 2)
        } catch {
            #expect(realm.objects(DynamicHostileModels.Node.self).isEmpty, "a failed create leaves nothing behind")
        }
    }

    @Test func aHundredThousandElementListAndATenThousandKeyMapSetToThemselves() throws {
        let realm = try nodeRealm()
        let count = 100_000
        var scores: [String: Int] = [:]
        for i in 0..<10_000 { scores["k\(i)"] = i }
        try realm.write {
            _ = try realm.dynamicCreate("DynHostileNode", value: ["id": 1, "tags": Array(0..<count), "scores": scores])
        }
        let node = try #require(realm.object(ofType: DynamicHostileModels.Node.self, forPrimaryKey: 1))
        #expect(node.tags.count == count && node.tags.last == count - 1)
        #expect(node.scores.count == 10_000 && node.scores["k9999"] == 9999)
        try realm.write {
            let dynamic = try #require(realm.dynamicObject(ofType: "DynHostileNode", forPrimaryKey: 1))
            dynamic["tags"] = dynamic["tags"]
            dynamic["scores"] = dynamic["scores"]
        }
        #expect(node.tags.count == count && node.tags.last == count - 1)
        #expect(node.scores.count == 10_000 && node.scores["k9999"] == 9999)
    }

    @Test func aChainOfTwentyThousandNestedDictionaries() throws {
        let realm = try nodeRealm()
        let depth = 20_000
        var value: [String: Any] = ["id": depth]
        for id in stride(from: depth - 1, through: 1, by: -1) { value = ["id": id, "next": value] }
        try realm.write { _ = try realm.dynamicCreate("DynHostileNode", value: value) }
        #expect(realm.objects(DynamicHostileModels.Node.self).count == depth)
        #expect(realm.object(ofType: DynamicHostileModels.Node.self, forPrimaryKey: depth - 1)?.next?.id == depth)
    }

    @Test func aChainOfTwentyThousandEmbeddedObjectsIsReplacedAndDeleted() throws {
        let realm = try nodeRealm()
        let depth = 20_000
        var value: [String: Any] = ["number": depth]
        for n in stride(from: depth - 1, through: 1, by: -1) { value = ["number": n, "inner": value] }
        try realm.write { _ = try realm.dynamicCreate("DynHostileNode", value: ["id": 1, "box": value]) }
        #expect(realm.objects(CreateCopiesModels.Unit.self).count == depth)
        try realm.write { try #require(realm.dynamicObject(ofType: "DynHostileNode", forPrimaryKey: 1))["box"] = nil }
        #expect(realm.objects(CreateCopiesModels.Unit.self).isEmpty)
        try realm.write { _ = try realm.dynamicCreate("DynHostileNode", value: ["id": 2, "box": value]) }
        try realm.write { try realm.delete(realm.dynamicObjects("DynHostileNode")) }
        #expect(realm.objects(CreateCopiesModels.Unit.self).isEmpty)
    }

    @Test func namesThatAreNoPropertiesReadNilAndFailTheirWrite() throws {
        let realm = try nodeRealm()
        try realm.write { _ = try realm.dynamicCreate("DynHostileNode", value: ["id": 1]) }
        let node = try #require(realm.dynamicObject(ofType: "DynHostileNode", forPrimaryKey: 1))
        #expect(node[""] == nil && node["id\0"] == nil && node["no such"] == nil)
        #expect(throws: RealmError.self) {
            try realm.write { _ = try realm.dynamicCreate("DynHostileNode", value: ["id": 2, "nope": 1]) }
        }
        #expect(throws: RealmError.self) {
            try realm.write {
                node["name"] = "changed"
                node[""] = 1
            }
        }
        #expect(node["name"] as? String == "", "the failed write kept nothing")
        #expect(throws: RealmError.self) { try realm.write { _ = try realm.dynamicCreate("", value: [:]) } }
        #expect(realm.objects(DynamicHostileModels.Node.self).count == 1)
    }

    // MARK: Objects that cannot be linked

    @Test func anObjectOfAnotherFileIsRefusedEverywhere() throws {
        let realmA = try nodeRealm("a")
        let realmB = try nodeRealm("b")
        try realmA.write { _ = try realmA.dynamicCreate("DynHostileNode", value: ["id": 1, "name": "A"]) }
        try realmB.write {
            _ = try realmB.dynamicCreate("DynHostileNode", value: ["id": 1, "name": "B"])
            _ = try realmB.dynamicCreate("DynHostileMixed")
        }
        let a = try #require(realmA.dynamicObject(ofType: "DynHostileNode", forPrimaryKey: 1))
        let b = try #require(realmB.dynamicObject(ofType: "DynHostileNode", forPrimaryKey: 1))
        let mixed = try #require(realmB.dynamicObjects("DynHostileMixed").first)
        #expect(throws: RealmError.self) { try realmB.write { b["next"] = a } }
        #expect(throws: RealmError.self) { try realmB.write { b["children"] = [a] } }
        #expect(throws: RealmError.self) { try realmB.write { (b["children"] as! List<DynamicObject>).append(a) } }
        #expect(throws: RealmError.self) { try realmB.write { mixed["any"] = a } }
        #expect(throws: RealmError.self) { try realmB.write { _ = try realmB.dynamicCreate("DynHostileNode", value: ["id": 2, "next": a]) } }
        #expect(b["next"] == nil && (b["children"] as? List<DynamicObject>)?.isEmpty == true && mixed["any"] == nil)
        #expect(realmB.objects(DynamicHostileModels.Node.self).count == 1)
    }

    @Test func anObjectOfAnotherClassIsRefusedInEveryCollection() throws {
        let realm = try nodeRealm()
        try realm.write {
            _ = try realm.dynamicCreate("DynHostileNode", value: ["id": 1])
            _ = try realm.dynamicCreate("DynHostileMixed")
        }
        let node = try #require(realm.dynamicObject(ofType: "DynHostileNode", forPrimaryKey: 1))
        let mixed = try #require(realm.dynamicObjects("DynHostileMixed").first)
        #expect(throws: RealmError.self) { try realm.write { (mixed["list"] as! List<DynamicObject>).append(node) } }
        #expect(throws: RealmError.self) { try realm.write { mixed.dynamicList("list").append(node) } }
        #expect(throws: RealmError.self) { try realm.write { (mixed["kids"] as! MutableSet<DynamicObject>).insert(node) } }
        #expect(throws: RealmError.self) { try realm.write { (mixed["byName"] as! Map<String, DynamicObject?>)["x"] = node } }
        #expect(throws: RealmError.self) { try realm.write { mixed["list"] = [DynamicObject()] } }
        #expect(throws: RealmError.self) { try realm.write { mixed["any"] = DynamicObject() } }
        let typed = try #require(realm.objects(DynamicHostileModels.Mixed.self).first)
        #expect(typed.list.isEmpty && typed.kids.isEmpty && typed.byName.isEmpty)
    }

    @Test func frozenAndDeletedObjectsAreRefusedAsLinks() throws {
        let realm = try nodeRealm()
        try realm.write {
            _ = try realm.dynamicCreate("DynHostileNode", value: ["id": 1])
            _ = try realm.dynamicCreate("DynHostileNode", value: ["id": 2])
            _ = try realm.dynamicCreate("DynHostileNode", value: ["id": 3])
        }
        let node = try #require(realm.dynamicObject(ofType: "DynHostileNode", forPrimaryKey: 1))
        let frozen = try #require(try realm.freeze().dynamicObject(ofType: "DynHostileNode", forPrimaryKey: 2))
        #expect(throws: RealmError.self) { try realm.write { node["next"] = frozen } }
        #expect(throws: RealmError.self) { try realm.write { node["children"] = [frozen] } }
        let gone = try #require(realm.dynamicObject(ofType: "DynHostileNode", forPrimaryKey: 3))
        try realm.write { try realm.delete(gone) }
        #expect(gone.isInvalidated)
        #expect(throws: RealmError.self) { try realm.write { node["next"] = gone } }
        #expect(throws: RealmError.self) { try realm.write { node["children"] = [gone] } }
        #expect(throws: RealmError.self) { try realm.write { _ = try realm.dynamicCreate("DynHostileNode", value: ["id": 4, "next": gone]) } }
        #expect(node["next"] == nil && (node["children"] as? List<DynamicObject>)?.isEmpty == true)
        #expect(realm.objects(DynamicHostileModels.Node.self).count == 2)
    }

    @Test func anEmbeddedObjectOfAnotherParentIsRefusedAndStaysWithItsParent() throws {
        let realm = try nodeRealm()
        try realm.write {
            _ = try realm.dynamicCreate(
                "DynHostileNode", value: ["id": 1, "address": ["city": "Oslo"], "addresses": [["city": "x"], ["city": "y"]]])
            _ = try realm.dynamicCreate("DynHostileNode", value: ["id": 2])
        }
        let one = try #require(realm.dynamicObject(ofType: "DynHostileNode", forPrimaryKey: 1))
        let two = try #require(realm.dynamicObject(ofType: "DynHostileNode", forPrimaryKey: 2))
        #expect(throws: RealmError.self) { try realm.write { two["address"] = one["address"] } }
        #expect(throws: RealmError.self) { try realm.write { two["addresses"] = one["addresses"] } }
        #expect((one["address"] as? DynamicObject)?["city"] as? String == "Oslo")
        #expect((one["addresses"] as? List<DynamicObject>)?.map { $0["city"] as? String } == ["x", "y"])
        #expect(two["address"] == nil && (two["addresses"] as? List<DynamicObject>)?.isEmpty == true)
        #expect(realm.objects(DynamicSmokeModels.Address.self).count == 3)
    }

    @Test func listsSetToThemselvesToAnotherObjectsAndToFrozenOnes() throws {
        let realm = try nodeRealm()
        try realm.write {
            _ = try realm.dynamicCreate("DynHostileNode", value: ["id": 1, "tags": [1, 2, 3], "children": [["id": 10], ["id": 11]]])
            _ = try realm.dynamicCreate("DynHostileNode", value: ["id": 2, "tags": [9]])
        }
        let one = try #require(realm.dynamicObject(ofType: "DynHostileNode", forPrimaryKey: 1))
        let two = try #require(realm.dynamicObject(ofType: "DynHostileNode", forPrimaryKey: 2))
        try realm.write {
            one["tags"] = one["tags"]
            one["children"] = one["children"]
        }
        #expect((one["tags"] as? List<Int>).map(Array.init) == [1, 2, 3])
        #expect((one["children"] as? List<DynamicObject>)?.map { $0["id"] as? Int } == [10, 11])
        try realm.write {
            two["tags"] = one["tags"]
            two["children"] = one["children"]
        }
        #expect((two["tags"] as? List<Int>).map(Array.init) == [1, 2, 3])
        #expect((two["children"] as? List<DynamicObject>)?.map { $0["id"] as? Int } == [10, 11])
        let frozenOne = try #require(try realm.freeze().dynamicObject(ofType: "DynHostileNode", forPrimaryKey: 1))
        try realm.write {
            one["tags"] = [7]
            two["tags"] = frozenOne["tags"]
        }
        #expect((two["tags"] as? List<Int>).map(Array.init) == [1, 2, 3], "a frozen list of values gives its elements")
        #expect(throws: RealmError.self) { try realm.write { two["children"] = frozenOne["children"] } }
        #expect((two["children"] as? List<DynamicObject>)?.map { $0["id"] as? Int } == [10, 11])
    }

    @Test func twoActorsCreateTheSameObjectsAtOnce() async throws {
        var config = temporaryConfiguration()
        config.objectTypes = [
            DynamicHostileModels.Node.self, DynamicSmokeModels.Address.self, CreateCopiesModels.Unit.self, CreateCopiesModels.Tag.self,
            DynamicHostileModels.Mixed.self,
        ]
        let a = try await DynHostileStore(configuration: config)
        let b = try await DynHostileStore(configuration: config)
        for id in 0..<50 {
            async let x = a.create(id)
            async let y = b.create(id)
            let (madeByA, madeByB) = try await (x, y)
            #expect(madeByA != madeByB, "exactly one actor creates \(id)")
        }
        let realm = try Realm(configuration: config)
        #expect(realm.objects(DynamicHostileModels.Node.self).count == 50)
    }

    // MARK: Migrations

    @Test func objectsAMigrationBlockKeepsStayUsableAfterItsCommitAndClose() throws {
        let record = DynHosRecord()
        let v2 = Self.releaseTwo(try Self.releaseOne()) { migration, _ in
            migration.enumerateObjects(ofType: "DynHosPerson") { old, new in
                new!["fullName"] = old!["name"]
                record.keep(old, new)
            }
        }
        do {
            let realm = try Realm(configuration: v2)
            #expect(realm.objects(DynamicHostileModels.PersonV2.self).map(\.fullName).sorted() == ["Ada", "Alan"])
            #expect(record.old?["name"] as? String == "Alan" && record.old?.isFrozen == true)
            #expect(record.new?["fullName"] as? String == "Alan" && record.new?.isInvalidated == false)
            try realm.write { record.new?["fullName"] = "Alan T" }
            #expect(realm.objects(DynamicHostileModels.PersonV2.self).filter { $0.id == 2 }.first?.fullName == "Alan T")
        }
        #expect(record.old?["name"] as? String == "Alan", "the old version stays readable")
        #expect(record.new?["fullName"] as? String == "Alan T")
    }

    @Test func creatingAnEmbeddedObjectInAMigrationFailsTheOpenAndKeepsTheFile() throws {
        let v1 = try Self.releaseOne()
        let v2 = Self.releaseTwo(v1) { migration, _ in
            let made = migration.create("DynHosHome", value: ["street": "x"])
            made["street"] = "y"
        }
        #expect(throws: RealmError.self) { _ = try Realm(configuration: v2) }
        let realm = try Realm(configuration: v1)
        #expect(realm.objects(DynamicHostileModels.PersonV1.self).map(\.name).sorted() == ["Ada", "Alan"])
        #expect(try schemaVersionAtURL(v1.fileURL!) == 1)
    }

    @Test func aRenamedPropertySetInEnumerateAndNestedEnumerationsThatDelete() throws {
        let v2 = Self.releaseTwo(try Self.releaseOne()) { migration, _ in
            migration.enumerateObjects(ofType: "DynHosPerson") { _, new in new!["fullName"] = "set first" }
            migration.renameProperty(onType: "DynHosPerson", from: "name", to: "fullName")
            migration.enumerateObjects(ofType: "DynHosPerson") { _, new in
                migration.enumerateObjects(ofType: "DynHosPerson") { _, inner in
                    if let inner, inner["id"] as? Int == 2 { migration.delete(inner) }
                }
                if let new { new["fullName"] = "\(new["fullName"] as! String)!" }
            }
        }
        let realm = try Realm(configuration: v2)
        #expect(realm.objects(DynamicHostileModels.PersonV2.self).map(\.fullName) == ["Ada!"])
    }

    /// A migration block that traps, in a child process: the file is byte for byte as it was,
    /// and release 1 opens it with every object.
    @Test func aMigrationBlockThatTrapsLeavesTheFileAsItWas() async throws {
        let path = try Self.temporaryPath()
        _ = try Self.releaseOne(path)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        await #expect(processExitsWith: .failure) { [path = path as String] in
            let v2 = DynamicHostileTests.releaseTwo(Realm.Configuration(fileURL: URL(fileURLWithPath: path))) { migration, _ in
                migration.enumerateObjects(ofType: "DynHosPerson") { old, new in new!["fullName"] = old!["name"] }
                migration.deleteData(forType: "DynHosOwner")
                migration.create("DynHosPerson", value: ["id": 3, "fullName": "Grace"])
                fatalError("the block trapped")
            }
            _ = try Realm(configuration: v2)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        var v1 = Realm.Configuration(fileURL: URL(fileURLWithPath: path))
        v1.objectTypes = [
            DynamicHostileModels.PersonV1.self, DynamicHostileModels.Pet.self, DynamicHostileModels.Home.self, DynamicHostileModels.Owner.self,
        ]
        v1.schemaVersion = 1
        let realm = try Realm(configuration: v1)
        #expect(realm.objects(DynamicHostileModels.PersonV1.self).map(\.name).sorted() == ["Ada", "Alan"])
        #expect(realm.object(ofType: DynamicHostileModels.PersonV1.self, forPrimaryKey: 1)?.home?.street == "Main")
        #expect(realm.objects(DynamicHostileModels.Owner.self).first?.pets.first?.name == "Rex")
    }

    @Test func aFileOfANewerReleaseIsRefusedByAnOlderOne() throws {
        let v1 = try Self.releaseOne()
        var v5 = Self.releaseTwo(v1)
        v5.schemaVersion = 5
        _ = try Realm(configuration: v5)
        var older = v1
        older.objectTypes = nil
        for version: UInt64 in [0, 3] {
            older.schemaVersion = version
            #expect(throws: RealmError.self) { _ = try Realm(configuration: older) }
        }
        #expect(throws: RealmError.self) { _ = try Realm(configuration: v1) }
        #expect(try schemaVersionAtURL(v1.fileURL!) == 5)
    }

    @Test func aFileWithPendingClassesOpensReadOnlyWithoutObjectTypes() throws {
        var config = try Self.releaseOne()
        config.objectTypes = nil
        config.schemaVersion = 2
        do {
            let realm = try Realm(configuration: config)
            #expect(realm.currentFileSchema.info.pendingClasses == ["DynHosOwner", "DynHosPerson"])
        }
        config.readOnly = true
        let realm = try Realm(configuration: config)
        #expect(realm.dynamicObjects("DynHosPerson").map { $0["name"] as? String }.sorted { ($0 ?? "") < ($1 ?? "") } == ["Ada", "Alan"])
    }

    // MARK: Known issues

    /// Two realms opening release 1's file with release 2's configuration at the same moment:
    /// the migration runs once. An opener decides whether to migrate from the schema it read
    /// before taking the write lock, and decides again if another opener changed it meanwhile.
    @Test(arguments: [true, false]) func twoRealmsOpeningARaisedVersionAtOnceMigrateOnce(withObjectTypes: Bool) async throws {
        var failures: [String] = []
        for _ in 0..<Self.rounds {
            let record = DynHosRecord()
            var v2 = Self.releaseTwo(try Self.releaseOne()) { migration, _ in
                record.called()
                migration.enumerateObjects(ofType: "DynHosPet") { _, new in new!["name"] = "\(new!["name"] as! String)!" }
                if migration.newSchema["DynHosPerson"]?["fullName"] != nil {
                    migration.enumerateObjects(ofType: "DynHosPerson") { old, new in new!["fullName"] = old!["name"] }
                }
            }
            if !withObjectTypes { v2.objectTypes = nil }
            let config = v2
            @Sendable func open() async throws -> [String] {
                let actor = try await RealmActor(configuration: config)
                return try await actor.read { realm in realm.dynamicObjects("DynHosPet").map { $0["name"] as! String } }
            }
            async let a = Task.detached { try await open() }.value
            async let b = Task.detached { try await open() }.value
            do {
                let (x, y) = try await (a, b)
                if record.calls != 1 || x != ["Rex!"] || y != ["Rex!"] { failures.append("block ran \(record.calls) times; pets \(x), \(y)") }
            } catch {
                failures.append("an open failed: \(error)")
            }
        }
        #expect(failures.isEmpty, "\(failures.count) of \(Self.rounds) rounds: \(Set(failures).sorted())")
    }

    /// A dynamic object held by a realm while another realm of the process would migrate its
    /// class: the held object would read and write rows of a layout it does not know, so, as
    /// in RealmSwift, the file cannot be opened at another schema version while a realm of the
    /// first (or one of its objects) is alive. Once they are let go of, it can.
    @Test func aHeldDynamicObjectAfterAnotherRealmMigratedItsClass() async throws {
        let v1 = try Self.releaseOne()
        var reader = v1
        reader.objectTypes = nil
        let realm = try Realm(configuration: reader)
        let ada = try #require(realm.dynamicObject(ofType: "DynHosPerson", forPrimaryKey: 1))
        let config = Self.releaseTwo(v1) { migration, _ in
            migration.enumerateObjects(ofType: "DynHosPerson") { old, new in new!["fullName"] = "Full \(old!["name"] as! String)" }
        }
        let migrate = { @Sendable () async throws -> Int in
            let actor = try await RealmActor(configuration: config)
            return try await actor.read { $0.objects(DynamicHostileModels.PersonV2.self).count }
        }
        let refused = await #expect(throws: RealmError.self) { _ = try await Task.detached { try await migrate() }.value }
        #expect(refused?.code == .schemaMismatch && refused?.description.contains("already open") == true, "\(String(describing: refused))")
        _ = realm.refresh()
        #expect(
            ada["name"] as? String == "Ada" && (ada["pet"] as? DynamicObject)?["name"] as? String == "Rex", "the held object reads the file as it is")
        try realm.write { ada["name"] = "Ada Byron" }
        // Let go of them, and the other release opens and migrates the file.
        _ = consume ada
        _ = consume realm
        #expect(try await Task.detached { try await migrate() }.value == 2)
        let person = try Realm(configuration: config).object(ofType: DynamicHostileModels.PersonV2.self, forPrimaryKey: 1)
        #expect(person?.fullName == "Full Ada Byron")
        #expect(person?.home?.street == "Main")
    }

    /// `deleteData(forType:)` of a class that a class the file keeps (one the new release no
    /// longer declares) links to: the class cannot leave the file, since those links would
    /// point nowhere, so the migration fails and leaves the file as it was.
    @Test func deletingTheDataOfAClassAnotherStoredClassLinksTo() throws {
        let path = try Self.temporaryPath()
        let v1 = try Self.releaseOne(path)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        var v2 = Self.releaseTwo(v1) { migration, _ in migration.deleteData(forType: "DynHosPet") }
        v2.objectTypes = [DynamicHostileModels.PersonV2.self, DynamicHostileModels.Home.self]
        let error = #expect(throws: RealmError.self) { _ = try Realm(configuration: v2) }
        #expect(error?.code == .invalidArgument && error?.description.contains("DynHosOwner.pet") == true, "\(String(describing: error))")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes, "the file is as it was")
    }

    /// A class an open without objectTypes left pending (no Swift class of the program was
    /// known for it), then opened by a release that declares it, at the same schema version:
    /// the class is migrated then, since it was waiting for its migration (refusing it as a
    /// change without a raised version would push the user to raise the version, and a block
    /// would then see `oldSchemaVersion` 2 for rows still in release 1's layout).
    @Test func aPendingClassOpenedWithObjectTypesAtTheSameVersion() throws {
        var config = try Self.releaseOne()
        config.objectTypes = nil
        config.schemaVersion = 2
        _ = try Realm(configuration: config)
        config.objectTypes = [DynamicHostileModels.PersonV2.self, DynamicHostileModels.Pet.self, DynamicHostileModels.Home.self]
        let realm = try Realm(configuration: config)
        #expect(realm.objects(DynamicHostileModels.PersonV2.self).count == 2)
        #expect(realm.currentFileSchema.info.pendingClasses == ["DynHosOwner"], "the class is no longer pending")
    }

    /// A program that uses none of the file's classes unlinks an embedded object and removes
    /// one from a list, through the dynamic API: the embedded objects that lose their parent
    /// are deleted, as with the Swift classes (in a child process, which uses no class).
    @Test func embeddedObjectsUnlinkedWithoutTheSwiftClassesGoWithTheirParent() async throws {
        let path = try Self.temporaryPath()
        do {
            var config = Realm.Configuration(fileURL: URL(fileURLWithPath: path))
            config.objectTypes = [DynamicHostileModels.Node.self, DynamicSmokeModels.Address.self, CreateCopiesModels.Unit.self]
            let realm = try Realm(configuration: config)
            try realm.write {
                try realm.add(DynamicHostileModels.Node(value: ["id": 1, "address": ["city": "a"], "addresses": [["city": "b"], ["city": "c"]]]))
            }
        }
        await #expect(processExitsWith: .success) { [path = path as String] in
            let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path)))
            let node = realm.dynamicObject(ofType: "DynHostileNode", forPrimaryKey: 1)!
            try realm.write {
                node["address"] = nil
                (node["addresses"] as! List<DynamicObject>).remove(at: 0)
            }
            let findings = try ObjectVerifier.verify(realm.storage.snapshot()).findings
            guard findings.isEmpty else { exit(3) }
            guard node["address"] == nil, (node["addresses"] as! List<DynamicObject>).map({ $0["city"] as! String }) == ["c"] else { exit(4) }
        }
    }

    /// A list of embedded objects set to itself stays as it is, as in RealmSwift (replacing it
    /// would delete its elements before setting them again).
    @Test func aListOfEmbeddedObjectsSetToItself() throws {
        let realm = try nodeRealm()
        try realm.write { _ = try realm.dynamicCreate("DynHostileNode", value: ["id": 1, "addresses": [["city": "x"], ["city": "y"]]]) }
        let node = try #require(realm.dynamicObject(ofType: "DynHostileNode", forPrimaryKey: 1))
        try realm.write { node["addresses"] = node["addresses"] }
        #expect((node["addresses"] as? List<DynamicObject>)?.map { $0["city"] as? String } == ["x", "y"])
    }

    /// A typed realm of release 1 holding results while another thread of the process opens
    /// the file with release 2: that open is refused, and the first realm reads on.
    @Test func aTypedRealmReadingAfterAnotherRealmMigratedTheFile() async throws {
        let path = try Self.temporaryPath()
        _ = try Self.releaseOne(path)
        await #expect(processExitsWith: .success) { [path = path as String] in
            var reader = Realm.Configuration(fileURL: URL(fileURLWithPath: path))
            reader.objectTypes = [
                DynamicHostileModels.PersonV1.self, DynamicHostileModels.Pet.self, DynamicHostileModels.Home.self, DynamicHostileModels.Owner.self,
            ]
            reader.schemaVersion = 1
            let realm = try Realm(configuration: reader)
            let people = realm.objects(DynamicHostileModels.PersonV1.self)
            guard people.count == 2 else { exit(3) }
            let config = DynamicHostileTests.releaseTwo(Realm.Configuration(fileURL: URL(fileURLWithPath: path))) { migration, _ in
                migration.enumerateObjects(ofType: "DynHosPerson") { old, new in new!["fullName"] = old!["name"] }
            }
            let refused = LockedBox(false)
            let finished = DispatchSemaphore(value: 0)
            let thread = Thread {
                do {
                    _ = try Realm(configuration: config)
                } catch let error as RealmError where error.code == .schemaMismatch {
                    refused.withLock { $0 = true }
                } catch {}
                finished.signal()
            }
            thread.start()
            guard finished.wait(timeout: .now() + 120) == .success else { exit(5) }
            _ = realm.refresh()
            guard refused.withLock({ $0 }), people.count == 2, people.first?.name != nil else { exit(4) }
        }
    }

    /// A class that becomes embedded in a migration: as in RealmSwift, an object two parents
    /// link to is copied, so that each has its own, and the object nothing links to is
    /// deleted. Deleting one parent then leaves the other's.
    @Test func aClassBecomingEmbeddedWithASharedAndAnUnlinkedObject() throws {
        var v1 = temporaryConfiguration()
        v1.objectTypes = [DynamicHostileModels.TagV1.self, DynamicHostileModels.TaggedV1.self]
        do {
            let realm = try Realm(configuration: v1)
            try realm.write {
                let shared = DynamicHostileModels.TagV1(value: ["text": "shared"])
                try realm.add(DynamicHostileModels.TaggedV1(value: ["tag": shared]))
                try realm.add(DynamicHostileModels.TaggedV1(value: ["tag": shared]))
                try realm.add(DynamicHostileModels.TagV1(value: ["text": "unlinked"]))
            }
        }
        var v2 = v1
        v2.objectTypes = [DynamicHostileModels.TagV2.self, DynamicHostileModels.TaggedV2.self]
        v2.schemaVersion = 1
        let realm = try Realm(configuration: v2)
        let texts = realm.dynamicObjects("DynHosTag").map { $0["text"] as? String ?? "" }.sorted()
        #expect(texts == ["shared", "shared"], "one copy per parent, the unlinked one deleted")
        let findings = try ObjectVerifier.verify(realm.storage.snapshot()).findings.map(\.description)
        #expect(findings == [])
        try realm.write { try realm.delete(realm.objects(DynamicHostileModels.TaggedV2.self).first!) }
        #expect(realm.objects(DynamicHostileModels.TaggedV2.self).first?.tag?.text == "shared")
    }
}
