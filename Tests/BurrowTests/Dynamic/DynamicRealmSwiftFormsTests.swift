import Burrow
import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

/// Models of the dynamic reads and writes RealmSwift's `RealmTests` and `MigrationTests` make.
enum DynamicFormsModels {
    final class Thing: Object {
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted var flag = true
        @Persisted var count = 0
        @Persisted var optionalName: String?
        @Persisted var any: AnyRealmValue
        @Persisted var link: Thing?
    }

    final class Other: Object {
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted var name = ""
    }

    static let types: [ObjectBase.Type] = [Thing.self, Other.self]
}

/// The dynamic API as RealmSwift's tests use it: `dynamicObjects` of a class with no objects
/// yet, reads that give the plain value (nil for nil and for an empty `AnyRealmValue`, the value
/// an `AnyRealmValue` holds otherwise), subscript and `setValue` writes, and the same reads in
/// a migration's `enumerateObjects`.
@Suite(.temporaryDirectory) struct DynamicRealmSwiftFormsTests {
    typealias Thing = DynamicFormsModels.Thing

    @Test func dynamicReadsGiveThePlainValue() throws {
        // RealmTests.testDynamicObjects and testDynamicObjectProperties.
        var configuration = temporaryConfiguration()
        configuration.objectTypes = DynamicFormsModels.types
        let realm = try Realm(configuration: configuration)
        #expect(realm.dynamicObjects("Other").count == 0)
        try realm.write { try realm.add(Thing()) }
        let thing = try #require(realm.dynamicObjects("Thing").first)
        #expect(thing["flag"] as? NSNumber == NSNumber(value: true))
        #expect(thing["count"] as? Int == 0)
        #expect(thing["optionalName"] == nil)
        #expect(thing.optionalName == nil)
        #expect(thing["any"] == nil)
        #expect(thing["link"] == nil)
        try realm.write {
            thing["any"] = AnyRealmValue.int(3)
            thing.optionalName = "Rex"
            thing.setValue(4, forKey: "count")
            thing["link"] = thing
        }
        #expect(thing.any is Int)
        #expect(thing["optionalName"] as? String == "Rex")
        #expect(realm.objects(Thing.self).first?.count == 4)
        #expect(thing["link"] is DynamicObject)

        let other = try realm.write { try realm.dynamicCreate("Other", value: ["name": "n"]) }
        try realm.write { other["name"] = "m" }
        #expect(realm.objects(DynamicFormsModels.Other.self).first?.name == "m")
    }

    @Test func aMigrationReadsOldAndNewObjectsTheSameWay() throws {
        // MigrationTests.testAnyInEnumerate and the optional reads of testOptionalsInEnumerate.
        var configuration = temporaryConfiguration()
        configuration.objectTypes = DynamicFormsModels.types
        try autoreleasepool {
            let realm = try Realm(configuration: configuration)
            try realm.write { try realm.add(Thing(value: ["any": AnyRealmValue.bool(true)])) }
        }
        configuration.schemaVersion = 1
        let seen = LockedBox<[String]>([])
        configuration.migrationBlock = { migration, _ in
            try migration.enumerateObjects(ofType: "Thing") { oldObject, newObject in
                let old = try #require(oldObject)
                let new = try #require(newObject)
                seen.withLock {
                    $0.append("\(old.any is Bool) \(new.any is Bool) \(old.optionalName == nil) \(new.optionalName == nil) \(old.flag is Bool)")
                }
            }
        }
        _ = try Realm(configuration: configuration)
        #expect(seen.withLock { $0 } == ["true true true true true"])
    }
}
