import BurrowStorage
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// The next release of the fixtures' app: `Dog` loses `big` and gains `nickname`.
enum FormatFixtureV1 {
    final class Address: EmbeddedObject {
        override class func _realmObjectName() -> String? { "Address" }
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted var street = ""
        @Persisted var number: Int?
    }

    final class Owner: Object {
        override class func _realmObjectName() -> String? { "Owner" }
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var dogs: List<Dog>
        @Persisted var address: Address?
    }

    final class Dog: Object {
        override class func _realmObjectName() -> String? { "Dog" }
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted(primaryKey: true) var _id: ObjectId
        @Persisted(indexed: true) var name = ""
        @Persisted var nickname = ""
        @Persisted var age = 0
        @Persisted var optionalAge: Int?
        @Persisted(indexed: true) var chip: Int?
        @Persisted var scores: List<Int>
        @Persisted var counts: Map<String, Int>
        @Persisted var friend: Dog?
    }
}

/// A file of an older format opened by a release whose schema changed: the migration runs in
/// the first write transaction, after the upgrade has rewritten the rows.
@Suite(.temporaryDirectory) struct FormatMigrationTests {
    @Test(arguments: FormatUpgradeTests.formats)
    func aMigrationOfAnOlderFileReadsAndWritesItsRows(_ fileFormat: UInt32) throws {
        var config = temporaryConfiguration(#function + "-\(fileFormat)")
        try FileManager.default.copyItem(at: FormatUpgradeTests.fixtures(fileFormat).appendingPathComponent("dogs.burrow"), to: config.fileURL!)
        config.objectTypes = [FormatFixtureV1.Address.self, FormatFixtureV1.Owner.self, FormatFixtureV1.Dog.self]
        config.schemaVersion = 1
        config.migrationBlock = { migration, oldSchemaVersion in
            guard oldSchemaVersion < 1 else { return }
            migration.enumerateObjects(ofType: "Dog") { old, new in
                new!["nickname"] = "\(old!["name"] as! String) (\(old!["big"] as! Int))"
            }
        }
        let realm = try Realm(configuration: config)
        #expect(try realm.storage.snapshot().format == Meta.formatVersion)
        let kept = (0..<FormatFixture.dogCount).filter { !FormatFixture.deletedDogs.contains($0) }
        #expect(realm.objects(FormatFixtureV1.Dog.self).count == kept.count)
        var differing: [Int] = []
        for i in kept {
            let expected = FormatFixture.dog(i)
            guard let dog = realm.object(ofType: FormatFixtureV1.Dog.self, forPrimaryKey: FormatFixture.id(i)) else {
                differing.append(i)
                continue
            }
            let friend = i > 0 && !FormatFixture.deletedDogs.contains(i / 2) ? FormatFixture.id(i / 2) : nil
            if dog.name != expected.name || dog.nickname != "\(expected.name) (\(expected.big))" || dog.age != expected.age
                || dog.optionalAge != expected.optionalAge || dog.chip != expected.chip || Array(dog.scores) != Array(expected.scores)
                || Dictionary(uniqueKeysWithValues: dog.counts.map { ($0.key, $0.value) })
                    != Dictionary(uniqueKeysWithValues: expected.counts.map { ($0.key, $0.value) })
                || dog.friend?._id != friend
            {
                differing.append(i)
            }
        }
        #expect(differing == [])
        // The indexes still find the dogs.
        #expect(realm.objects(FormatFixtureV1.Dog.self).where { $0.chip == 1_000_001 }.first?._id == FormatFixture.id(1))
        #expect(realm.objects(FormatFixtureV1.Dog.self).where { $0.name == FormatFixture.dog(7).name }.count == 1)
        #expect(realm.objects(FormatFixtureV1.Owner.self).count == FormatFixture.dogCount / 10)
        let report = try ObjectVerifier.verify(realm.storage.snapshot())
        #expect(report.isSound, "\(report.findings)")
    }
}
