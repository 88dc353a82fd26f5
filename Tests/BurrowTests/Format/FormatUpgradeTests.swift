import BurrowStorage
import BurrowStore
import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// Files of formats 4 and 5, as the code of each format wrote them (`Fixtures/format4`,
/// `Fixtures/format5`): opened and read as they are, upgraded to the current format by their
/// first write transaction, and left as they are by everything else.
@Suite(.temporaryDirectory) struct FormatUpgradeTests {
    /// The older formats the fixtures hold.
    static let formats: [UInt32] = [4, 5, 6]

    /// The folder of the fixtures of `format`.
    static func fixtures(_ format: UInt32) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/format\(format)")
    }

    /// A configuration for a copy of fixture `name` of `format` in the test's directory.
    private func copy(_ name: String, of format: UInt32, readOnly: Bool = false, function: String = #function) throws -> Realm.Configuration {
        var config = temporaryConfiguration(function + "-\(format)")
        try FileManager.default.copyItem(at: Self.fixtures(format).appendingPathComponent(name), to: config.fileURL!)
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

    @Test(arguments: formats, ["dogs.burrow", "compacted.burrow"])
    func anOlderFileReadsAsItWasWritten(_ fileFormat: UInt32, _ fixture: String) throws {
        for readOnly in [true, false] {
            let config = try copy(fixture, of: fileFormat, readOnly: readOnly, function: "\(fixture)-\(readOnly)")
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
            #expect(try format(config.fileURL!) == fileFormat)
            // The object check reads rows of the older format as they are, and finds them sound.
            let report = try verify(config.fileURL!)
            #expect(report.isSound, "\(report.findings)")
            #expect(report.objects > 0)
        }
    }

    @Test(arguments: formats)
    func theFirstWriteUpgradesEveryRowAndKeepsEveryObject(_ fileFormat: UInt32) throws {
        let config = try copy("dogs.burrow", of: fileFormat)
        do {
            let realm = try Realm(configuration: config)
            let dog = realm.object(ofType: FormatFixture.Dog.self, forPrimaryKey: FormatFixture.id(10))!
            #expect(try realm.storage.snapshot().format == fileFormat)
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
        let old =
            try FileManager.default.attributesOfItem(atPath: Self.fixtures(fileFormat).appendingPathComponent("compacted.burrow").path)[.size] as! Int
        let new = try FileManager.default.attributesOfItem(atPath: compacted.path)[.size] as! Int
        #expect(new < old, "\(new) bytes upgraded against \(old)")
        // The copy of the upgraded file is of the current format, every leaf of it compact.
        let storage = try Storage.open(path: compacted.path, options: StorageOptions(readOnly: true))
        defer { storage.close() }
        let snapshot = try storage.snapshot()
        #expect(snapshot.format == Meta.formatVersion)
        var leaves = (compact: 0, first: 0)
        for name in try snapshot.treeNames() {
            let forms = try #require(try snapshot.tree(named: name)).leafForms()
            leaves = (leaves.compact + forms.compact, leaves.first + forms.first)
        }
        #expect(leaves.compact > 0 && leaves.first == 0, "\(leaves)")
    }

    @Test(arguments: formats)
    func aCancelledFirstWriteLeavesTheFileAsItWas(_ fileFormat: UInt32) throws {
        let config = try copy("dogs.burrow", of: fileFormat)
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
        #expect(try format(config.fileURL!) == fileFormat)
        #expect(try Data(contentsOf: config.fileURL!) == before)
    }

    @Test(arguments: formats)
    func theUpgradeIsNoChangeToObserversAndFrozenValues(_ fileFormat: UInt32) async throws {
        let config = try copy("dogs.burrow", of: fileFormat)
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

    @Test(arguments: formats)
    func anEmptyOlderFileOpensAndUpgrades(_ fileFormat: UInt32) throws {
        let config = try copy("empty.burrow", of: fileFormat)
        let realm = try Realm(configuration: config)
        #expect(realm.objects(FormatFixture.Dog.self).isEmpty)
        try FormatFixture.fill(realm, dogs: 30)
        #expect(try realm.storage.snapshot().format == Meta.formatVersion)
        #expect(realm.objects(FormatFixture.Dog.self).count == 30)
        #expect(try ObjectVerifier.verify(realm.storage.snapshot()).isSound)
    }

    @Test(arguments: formats)
    func aProcessKilledDuringItsFirstWriteLeavesAFileOfEitherFormatWithEveryObject(_ fileFormat: UInt32) throws {
        let seed = TestSeed.make("FormatUpgradeTests.killedDuringTheFirstWrite")
        var random = TestRandom(seed: seed)
        for round in 0..<TestEnvironment.count("BURROW_CRASH_ITERATIONS", default: 6) {
            let config = try copy("dogs.burrow", of: fileFormat, function: "killed\(round)")
            let directory = config.fileURL!.deletingLastPathComponent().path
            // The worker's first write adds its classes to the schema, which upgrades the file,
            // then it adds an item: killed before, during or after either.
            let worker = try sharedRealmWorker(["add", config.fileURL!.path, "1"], in: directory, label: "upgrade\(round)")
            usleep(UInt32(random.int(0..<40_000)))  // The worker takes about 35 ms in all.
            worker.kill()
            let format = try format(config.fileURL!)
            #expect(format == fileFormat || format == Meta.formatVersion, "seed \(seed) round \(round)")
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
        func layout(_ row: [UInt8], format: UInt32) -> ObjectVerification.RowLayout {
            row.withUnsafeBytes { row in
                format < RowCodec.firstFormat
                    ? ObjectVerification.legacyRowLayout(row, fields: 2, kinds: [.integer, .text], format: format)
                    : ObjectVerification.rowLayout(row, fields: 2)
            }
        }
        func problem(_ layout: ObjectVerification.RowLayout) -> String? {
            if case .unreadable(let problem) = layout { return problem }
            return nil
        }
        let eight: [UInt8] = [5, 0, 0, 0, 0, 0, 0, 0]
        // A sound row of format 4: an Int in 8 bytes, a string with its length.
        let four = wide([eight, [1, 0, 0, 0, 65]])
        #expect(problem(layout(four, format: 4)) == nil)
        // Read as a later format, the same bytes are no row.
        #expect(problem(layout(four, format: 5)) != nil)
        #expect(problem(layout(four, format: 6)) != nil)
        // An Int in fewer than 8 bytes is damage in format 4, and so is a string whose length
        // does not match its bytes.
        #expect(problem(layout(wide([[5, 0, 0], [1, 0, 0, 0, 65]]), format: 4))?.contains("holds 3 bytes where an integer takes 8") == true)
        #expect(problem(layout(wide([eight, [2, 0, 0, 0, 65]]), format: 4))?.contains("says its value is 2 bytes long, but holds 1") == true)
        // Format 5: a narrow Int, a string with its length, an offset for the last field too.
        let five: [UInt8] = [2 << 2, 4, 9, 5, 1, 0, 0, 0, 65]
        #expect(problem(layout(five, format: 5)) == nil)
        #expect(problem(layout([2 << 2, 4, 8, 5, 1, 0, 0, 0, 65], format: 5))?.contains("after its last field") == true)
        #expect(problem(layout([2 << 2, 4, 8, 5, 1, 0, 0, 0], format: 5))?.contains("says its value is 1 byte long, but holds 0") == true)
        // Format 6: the string's bytes alone, no offset for the last field.
        let six = RowCodec.assemble([[5], Array("A".utf8)])
        #expect(six == [2 << 2, 3, 5, 65])
        #expect(problem(layout(six, format: 6)) == nil)
        // A row whose offsets run past it.
        #expect(problem(layout([2 << 2, 9, 5], format: 6)) != nil)
        // A string field holding the blob marker and more is damaged.
        let marked = RowCodec.assemble([[5], [0xFE, 65]])
        #expect(
            ObjectVerification.payloadProblem(
                marked.withUnsafeBytes { Array(RowCodec.field($0, 1)!) }.withUnsafeBytes { $0 }, as: .string, inRow: true) != nil)
    }

    @Test(arguments: formats)
    func anotherProcesssFirstWriteUpgradesTheFileUnderThisOnesObjects(_ fileFormat: UInt32) throws {
        let config = try copy("dogs.burrow", of: fileFormat)
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
