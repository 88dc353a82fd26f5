import BurrowStorage
import BurrowStore
import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// Files of format 4, as the code of that format wrote them (`Fixtures/format4`): opened and
/// read as they are, upgraded to the current format by their first write transaction, and left
/// as they are by everything else.
@Suite(.temporaryDirectory) struct FormatUpgradeTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/format4")

    /// A configuration for a copy of fixture `name` in the test's directory.
    private func copy(_ name: String, readOnly: Bool = false, function: String = #function) throws -> Realm.Configuration {
        var config = temporaryConfiguration(function)
        try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent(name), to: config.fileURL!)
        config.objectTypes = FormatFixture.objectTypes
        config.readOnly = readOnly
        return config
    }

    /// The format of the newest version of the file at `url`.
    private func format(_ url: URL) throws -> UInt32 {
        let storage = try Storage.open(path: url.path, options: StorageOptions(readOnly: true))
        defer { storage.close() }
        return try storage.snapshot().format
    }

    /// What the object check finds in the newest version of the file at `url`.
    private func verify(_ url: URL) throws -> ObjectVerifyReport {
        let storage = try Storage.open(path: url.path, options: StorageOptions(readOnly: true))
        defer { storage.close() }
        return try ObjectVerifier.verify(storage.snapshot())
    }

    @Test(arguments: ["dogs.burrow", "compacted.burrow"])
    func aFormat4FileReadsAsItWasWritten(_ fixture: String) throws {
        for readOnly in [true, false] {
            let config = try copy(fixture, readOnly: readOnly)
            let before = try Data(contentsOf: config.fileURL!)
            do {
                let realm = try Realm(configuration: config)
                #expect(FormatFixture.differences(in: realm) == [])
                #expect(try FormatFixture.queryDifferences(in: realm) == [])
                // Frozen objects and results read the same rows.
                let frozen = try realm.objects(FormatFixture.Dog.self).sorted(byKeyPath: "big").freeze()
                #expect(frozen.map(\.big) == realm.objects(FormatFixture.Dog.self).sorted(byKeyPath: "big").map(\.big))
                #expect(frozen.first?.friend?.name == realm.objects(FormatFixture.Dog.self).sorted(byKeyPath: "big").first?.friend?.name)
            }
            #expect(try Data(contentsOf: config.fileURL!) == before, "reading changed the file (read-only: \(readOnly))")
            #expect(try format(config.fileURL!) == 4)
            // The object check reads rows of format 4 as they are, and finds them sound.
            let report = try verify(config.fileURL!)
            #expect(report.isSound, "\(report.findings)")
            #expect(report.objects > 0)
        }
    }

    @Test func theFirstWriteUpgradesEveryRowAndKeepsEveryObject() throws {
        let config = try copy("dogs.burrow")
        do {
            let realm = try Realm(configuration: config)
            let dog = realm.object(ofType: FormatFixture.Dog.self, forPrimaryKey: FormatFixture.id(10))!
            #expect(try realm.storage.snapshot().format == 4)
            try realm.write { dog.age = 7 }
            #expect(try realm.storage.snapshot().format == Meta.formatVersion)
            try realm.write { dog.age = FormatFixture.dog(10).age }
            #expect(FormatFixture.differences(in: realm) == [])
            #expect(try FormatFixture.queryDifferences(in: realm) == [])
        }
        let report = try verify(config.fileURL!)
        #expect(report.isSound, "\(report.findings)")
        let reopened = try Realm(configuration: config)
        #expect(FormatFixture.differences(in: reopened) == [])
        // Rows take fewer bytes: the upgraded file, compacted, is smaller than the fixture's
        // compacted copy.
        let compacted = config.fileURL!.deletingLastPathComponent().appendingPathComponent("compacted.burrow")
        try reopened.writeCopy(toFile: compacted)
        let old = try FileManager.default.attributesOfItem(atPath: Self.fixtures.appendingPathComponent("compacted.burrow").path)[.size] as! Int
        let new = try FileManager.default.attributesOfItem(atPath: compacted.path)[.size] as! Int
        #expect(new < old, "\(new) bytes upgraded against \(old)")
    }

    @Test func aCancelledFirstWriteLeavesTheFileAsItWas() throws {
        let config = try copy("dogs.burrow")
        let before = try Data(contentsOf: config.fileURL!)
        do {
            let realm = try Realm(configuration: config)
            try realm.beginWrite()
            realm.object(ofType: FormatFixture.Dog.self, forPrimaryKey: FormatFixture.id(10))!.age = 99
            try realm.cancelWrite()
            // A write whose block throws is cancelled too.
            struct Stop: Error {}
            #expect(throws: Stop.self) { try realm.write { throw Stop() } }
            #expect(realm.object(ofType: FormatFixture.Dog.self, forPrimaryKey: FormatFixture.id(10))!.age == FormatFixture.dog(10).age)
        }
        #expect(try format(config.fileURL!) == 4)
        #expect(try Data(contentsOf: config.fileURL!) == before)
    }

    @Test func theUpgradeIsNoChangeToObserversAndFrozenValues() async throws {
        let config = try copy("dogs.burrow")
        let realm = try Realm(configuration: config)
        let dogs = realm.objects(FormatFixture.Dog.self).sorted(byKeyPath: "_id")
        let frozen = try dogs.freeze()
        let changes = dogs.changes().makeAsyncIterator()
        guard case .initial = await next(changes) else {
            Issue.record("no initial element")
            return
        }
        let dog = realm.object(ofType: FormatFixture.Dog.self, forPrimaryKey: FormatFixture.id(10))!
        let position = dogs.index(of: dog)!
        try realm.write { dog.name = "renamed" }
        guard case .update(_, let deletions, let insertions, let modifications) = await next(changes) else {
            Issue.record("no update")
            return
        }
        #expect(deletions == [] && insertions == [])
        #expect(modifications == [position], "only the renamed dog changed")
        // Values frozen before the upgrade read the version they froze.
        #expect(frozen.count == FormatFixture.dogCount - FormatFixture.deletedDogs.count)
        #expect(frozen[position].name == FormatFixture.dog(10).name)
        #expect(frozen.map(\.big) == dogs.map(\.big))
    }

    @Test func anEmptyFormat4FileOpensAndUpgrades() throws {
        let config = try copy("empty.burrow")
        let realm = try Realm(configuration: config)
        #expect(realm.objects(FormatFixture.Dog.self).isEmpty)
        try FormatFixture.fill(realm, dogs: 30)
        #expect(try realm.storage.snapshot().format == Meta.formatVersion)
        #expect(realm.objects(FormatFixture.Dog.self).count == 30)
        #expect(try ObjectVerifier.verify(realm.storage.snapshot()).isSound)
    }

    @Test func aProcessKilledDuringItsFirstWriteLeavesAFileOfEitherFormatWithEveryObject() throws {
        let seed = TestSeed.make("FormatUpgradeTests.killedDuringTheFirstWrite")
        var random = TestRandom(seed: seed)
        for round in 0..<TestEnvironment.count("BURROW_CRASH_ITERATIONS", default: 6) {
            let config = try copy("dogs.burrow")
            let directory = config.fileURL!.deletingLastPathComponent().path
            // The worker's first write adds its classes to the schema, which upgrades the file,
            // then it adds an item: killed before, during or after either.
            let worker = try sharedRealmWorker(["add", config.fileURL!.path, "1"], in: directory, label: "upgrade\(round)")
            usleep(UInt32(random.int(0..<40_000)))  // The worker takes about 35 ms in all.
            worker.kill()
            let format = try format(config.fileURL!)
            #expect(format == 4 || format == Meta.formatVersion, "seed \(seed) round \(round)")
            let report = try verify(config.fileURL!)
            #expect(report.isSound, "seed \(seed) round \(round): \(report.findings)")
            let realm = try Realm(configuration: config)
            #expect(FormatFixture.differences(in: realm) == [], "seed \(seed) round \(round), format \(format)")
        }
    }

    @Test func theObjectCheckReadsEachFormatsRowLayout() {
        func wide(_ payloads: [[UInt8]?]) -> [UInt8] {
            var row = [UInt8](repeating: 0, count: 4 + 4 * payloads.count)
            RowCodec.store(UInt32(payloads.count), at: 0, in: &row)
            for (field, payload) in payloads.enumerated() where payload != nil {
                RowCodec.store(UInt32(row.count), at: 4 + 4 * field, in: &row)
                row += payload!
            }
            return row
        }
        let eight: [UInt8] = [5, 0, 0, 0, 0, 0, 0, 0]
        // A sound row of format 4: an Int in 8 bytes, a string.
        wide([eight, [1, 0, 0, 0, 65]]).withUnsafeBytes { row in
            guard case .fields = ObjectVerification.wideRowLayout(row, fields: 2, narrowInts: [true, false]) else {
                Issue.record("a sound row of format 4 was judged unreadable")
                return
            }
            // Read as format 5, the same bytes are no row.
            guard case .unreadable = ObjectVerification.rowLayout(row, fields: 2) else {
                Issue.record("a row of format 4 passed as one of format 5")
                return
            }
        }
        // An Int in fewer than 8 bytes is damage in format 4.
        wide([[5, 0, 0], [1, 0, 0, 0, 65]]).withUnsafeBytes { row in
            guard case .unreadable(let problem) = ObjectVerification.wideRowLayout(row, fields: 2, narrowInts: [true, false]) else {
                Issue.record("a 3-byte integer in a row of format 4 passed")
                return
            }
            #expect(problem.contains("holds 3 bytes where an integer takes 8"), "\(problem)")
        }
        // A sound row of format 5, and one whose last field ends before the row does.
        let narrow = RowCodec.assemble([[5], [1, 0, 0, 0, 65]])
        narrow.withUnsafeBytes { row in
            guard case .fields = ObjectVerification.rowLayout(row, fields: 2) else {
                Issue.record("a sound row of format 5 was judged unreadable")
                return
            }
        }
        (narrow + [0]).withUnsafeBytes { row in
            guard case .unreadable(let problem) = ObjectVerification.rowLayout(row, fields: 2) else {
                Issue.record("a row with a byte after its last field passed")
                return
            }
            #expect(problem.contains("after its last field"), "\(problem)")
        }
    }

    @Test func anotherProcesssFirstWriteUpgradesTheFileUnderThisOnesObjects() throws {
        let config = try copy("dogs.burrow")
        let realm = try Realm(configuration: config)
        let dogs = realm.objects(FormatFixture.Dog.self).sorted(byKeyPath: "_id")
        let dog = realm.object(ofType: FormatFixture.Dog.self, forPrimaryKey: FormatFixture.id(10))!
        let frozen = try dog.freeze()
        #expect(dog.name == FormatFixture.dog(10).name && dogs.count == FormatFixture.dogCount - FormatFixture.deletedDogs.count)
        // The worker's first write adds its classes and upgrades the file; then it adds an item.
        let directory = config.fileURL!.deletingLastPathComponent().path
        try sharedRealmWorker(["add", config.fileURL!.path, "1"], in: directory, label: "upgrader").expectSuccess()
        realm.refresh()
        #expect(try realm.storage.snapshot().format == Meta.formatVersion)
        // Live objects and results read the upgraded rows; the frozen one its own version.
        #expect(dog.name == FormatFixture.dog(10).name && dog.big == FormatFixture.dog(10).big)
        #expect(frozen.big == FormatFixture.dog(10).big && frozen.friend?._id == FormatFixture.id(5))
        #expect(FormatFixture.differences(in: realm) == [])
        #expect(try FormatFixture.queryDifferences(in: realm) == [])
        try realm.write { dog.age = 3 }
        #expect(dogs.where { $0.age == 3 }.contains(dog))
    }
}
