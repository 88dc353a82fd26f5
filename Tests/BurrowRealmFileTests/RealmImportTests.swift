import Burrow
import BurrowTestSupport
import Foundation
import Testing

@testable import BurrowRealmFile

/// `Realm.importRealmFile`: a RealmSwift app's `.realm` file becomes a new Burrow file.
@MainActor
struct RealmImportTests {
    /// realm-core's `class_Table` of `client_schema_version_011.realm`, as an app declares it.
    final class ImportedTable: Object {
        @Persisted(primaryKey: true) var label = ""
        @Persisted var value = 0
        override class func _realmObjectName() -> String? { "Table" }
        override class func shouldIncludeInDefaultSchema() -> Bool { false }  // test only
    }

    @Test func aFileBecomesANewBurrowFileWithItsClasses() throws {
        let directory = try TemporaryDirectory()
        let configuration = Realm.Configuration(fileURL: directory.fileURL("imported.burrow"))
        let report = try Realm.importRealmFile(
            at: RealmFileFixtures.directory.appendingPathComponent("client_schema_version_011.realm"), configuration: configuration)
        #expect(report.fileFormatVersion == 22)
        #expect(report.importedClasses.map { "\($0.className) \($0.objectCount)" } == ["Table 3"])
        #expect(report.omissions.isEmpty)
        let realm = try Realm(configuration: configuration)
        let rows = realm.dynamicObjects("Table").map { ($0["label"] as? String ?? "?", $0["value"] as? Int ?? -1) }
        #expect(Dictionary(uniqueKeysWithValues: rows) == ["Banach": 88, "Hausdorff": 66, "Hilbert": 77])
        #expect(realm.dynamicObject(ofType: "Table", forPrimaryKey: "Hilbert")?["value"] as? Int == 77)
    }

    @Test func theAppsModelClassesReceiveTheObjects() throws {
        let directory = try TemporaryDirectory()
        let configuration = Realm.Configuration(fileURL: directory.fileURL("typed.burrow"), objectTypes: [ImportedTable.self])
        let report = try Realm.importRealmFile(
            at: RealmFileFixtures.directory.appendingPathComponent("client_schema_version_011.realm"), configuration: configuration)
        #expect(report.objectCount == 3)
        let realm = try Realm(configuration: configuration)
        #expect(realm.object(ofType: ImportedTable.self, forPrimaryKey: "Banach")?.value == 88)
        #expect(realm.objects(ImportedTable.self).sorted(byKeyPath: "value").map(\.label) == ["Hausdorff", "Hilbert", "Banach"])
    }

    /// The same class, its properties named otherwise in Swift and mapped to the file's
    /// columns with `propertiesMapping()`.
    final class RenamedTable: Object {
        @Persisted(primaryKey: true) var name = ""
        @Persisted var score = 0
        override class func _realmObjectName() -> String? { "Table" }
        override class func propertiesMapping() -> [String: String] { ["name": "label", "score": "value"] }
        override class func shouldIncludeInDefaultSchema() -> Bool { false }  // test only
    }

    @Test func aModelWithAPropertiesMappingReceivesTheColumnsItNames() throws {
        let directory = try TemporaryDirectory()
        let configuration = Realm.Configuration(fileURL: directory.fileURL("mapped.burrow"), objectTypes: [RenamedTable.self])
        let report = try Realm.importRealmFile(
            at: RealmFileFixtures.directory.appendingPathComponent("client_schema_version_011.realm"), configuration: configuration)
        #expect(report.objectCount == 3)
        #expect(report.omissions.isEmpty)
        let realm = try Realm(configuration: configuration)
        #expect(realm.object(ofType: RenamedTable.self, forPrimaryKey: "Banach")?.score == 88)
        #expect(try realm.objects(RenamedTable.self).filter("score > 70").count == 2)
    }

    @Test func linksListsAndSetsComeAcross() throws {
        let directory = try TemporaryDirectory()
        let configuration = Realm.Configuration(fileURL: directory.fileURL("metadata.burrow"))
        let source = RealmFileFixtures.directory.appendingPathComponent("sync-metadata-v6.realm")
        let report = try Realm.importRealmFile(at: source, configuration: configuration)
        #expect(report.realmSchemaVersion == 6)
        let counts = Dictionary(uniqueKeysWithValues: report.importedClasses.map { ($0.className, $0.objectCount) })
        #expect(counts["UserMetadata"] == 13)
        #expect(counts["UserIdentity"] == 3)
        let realm = try Realm(configuration: configuration)
        let users = realm.dynamicObjects("UserMetadata")
        #expect(users.count == 13)
        // As many links and paths as the .realm file holds, read by the reader itself.
        let file = try RealmFileContents(RealmFile(path: source.path))
        let userClass = try #require(file.classes.first { $0.name == "UserMetadata" })
        let identitiesColumn = try #require(userClass.table.columns.firstIndex { $0.name == "identities" })
        let pathsColumn = try #require(userClass.table.columns.firstIndex { $0.name == "local_realm_paths" })
        func count(_ value: RealmValue) -> Int {
            switch value {
            case .list(let values), .set(let values): values.count
            default: 0
            }
        }
        var listed = 0
        var paths = 0
        for user in users {
            guard let list = user["identities"] as? List<DynamicObject>, let set = user["local_realm_paths"] as? MutableSet<String> else {
                Issue.record("identities or local_realm_paths is not a collection")
                continue
            }
            listed += list.count
            paths += set.count
            #expect(list.allSatisfy { $0.objectSchema.className == "UserIdentity" })
        }
        #expect(listed == userClass.objects.reduce(0) { $0 + count($1.values[identitiesColumn]) })
        #expect(paths == userClass.objects.reduce(0) { $0 + count($1.values[pathsColumn]) })
        #expect(listed > 0)
    }

    @Test func anImportNeverWritesOverAFileOrLeavesOneBehindWhenItFails() throws {
        let directory = try TemporaryDirectory()
        let existing = Realm.Configuration(fileURL: directory.fileURL("existing.burrow"))
        _ = try Realm(configuration: existing)
        let before = try Data(contentsOf: directory.fileURL("existing.burrow"))
        #expect {
            try Realm.importRealmFile(
                at: RealmFileFixtures.directory.appendingPathComponent("client_schema_version_011.realm"), configuration: existing)
        } throws: { error in
            (error as? RealmError)?.code == .fileExists
        }
        #expect(try Data(contentsOf: directory.fileURL("existing.burrow")) == before)

        let fresh = Realm.Configuration(fileURL: directory.fileURL("fresh.burrow"))
        let failures: [(String, Data?, RealmError.Code)] = [
            ("test_upgrade_database_11.realm", nil, .unsupportedFileFormatVersion),
            ("test_shared_decrypt_4k_page.realm", nil, .invalidFile),
            ("test_shared_decrypt_4k_page.realm", Data(repeating: 7, count: 64), .invalidFile),
            ("README.md", nil, .invalidFile),
        ]
        for (name, key, code) in failures {
            #expect {
                try Realm.importRealmFile(at: RealmFileFixtures.directory.appendingPathComponent(name), encryptionKey: key, configuration: fresh)
            } throws: { error in
                guard let error = error as? RealmError else { return false }
                return error.code == code && error.description.contains(name)
            }
            #expect(!FileManager.default.fileExists(atPath: directory.fileURL("fresh.burrow").path), "\(name)")
        }
    }

    @Test func aClassTheModelLacksIsReportedNotImported() throws {
        let directory = try TemporaryDirectory()
        let configuration = Realm.Configuration(fileURL: directory.fileURL("partial.burrow"), objectTypes: [ImportedTable.self])
        let report = try Realm.importRealmFile(
            at: RealmFileFixtures.directory.appendingPathComponent("sync-metadata-v6.realm"), configuration: configuration)
        #expect(report.importedClasses.isEmpty)
        #expect(report.omissions.contains { $0.what == "class UserMetadata" && $0.reason.contains("objectTypes") })
    }
}

/// Format 24's every property type, imported into the app's model as it ports it.
@MainActor
struct RealmImportAllTypesTests {
    typealias AllTypes = ImportedModel.AllTypes
    typealias Owner = ImportedModel.Owner

    @Test func everyPropertyTypeComesIntoTheModel() throws {
        let directory = try TemporaryDirectory()
        let configuration = Realm.Configuration(
            fileURL: directory.fileURL("ported.burrow"),
            objectTypes: [AllTypes.self, Owner.self, ImportedModel.Address.self, ImportedModel.Coordinates.self])
        let source = RealmFileFixtures.directory.appendingPathComponent("format24_all_types.realm")
        let report = try Realm.importRealmFile(at: source, configuration: configuration)
        #expect(report.fileFormatVersion == 24)
        #expect(report.realmSchemaVersion == 42)
        #expect(
            Dictionary(uniqueKeysWithValues: report.importedClasses.map { ($0.className, $0.objectCount) }) == [
                "AllTypes": 23, "Owner": 5, "Address": 5, "Coordinates": 3,
            ])
        #expect(report.omissions.isEmpty, "\(report.omissions)")

        let realm = try Realm(configuration: configuration)
        let maxima = try #require(realm.object(ofType: AllTypes.self, forPrimaryKey: try ObjectId.parse("000000000000000000000001").get()))
        #expect(maxima.int == Int.max)
        #expect(maxima.optInt == Int.min)
        #expect(maxima.float == .greatestFiniteMagnitude)
        #expect(maxima.optFloat?.isNaN == true)
        #expect(maxima.double == 0 && maxima.double.sign == .minus)
        #expect(maxima.string.utf8.count == 5000)
        #expect(maxima.optString?.utf8.count == 70_000)
        #expect(maxima.data.count == 10_000)
        #expect(maxima.optData == Data())
        #expect(maxima.optDate == Date(timeIntervalSince1970: 1_700_000_000.123456789))
        #expect(maxima.decimal == (try Decimal128.parseOrExplain("123456789012345678901234567890.1234").get()))
        #expect(maxima.optDecimal?.isNaN == true)
        #expect(maxima.any == .int(42))
        #expect(maxima.owner?.name == "alice")
        #expect(maxima.address?.city == "Cupertino")
        #expect(maxima.address?.coordinates?.lat == 37.33182)
        #expect(maxima.addressList.map(\.city) == ["Berlin", nil])
        #expect(maxima.intList.count > 0)
        #expect(maxima.stringMap.keys.sorted() == [""] + (0...8).map { "k\($0)" })
        #expect(maxima.stringMap["k1"] == "a")
        // LinkingObjects follow from the links.
        let alice = try #require(realm.object(ofType: Owner.self, forPrimaryKey: "alice"))
        #expect(alice.owned.contains(maxima))
        // The links to "eve", deleted while linked, read as nil or leave their collections.
        let links = try #require(realm.object(ofType: AllTypes.self, forPrimaryKey: try ObjectId.parse("000000000000000000000030").get()))
        #expect(links.owner == nil)
        #expect(links.ownerList.allSatisfy { $0.name != "eve (tombstoned)" })
        #expect(realm.object(ofType: Owner.self, forPrimaryKey: "eve (tombstoned)") == nil)
        #expect(realm.objects(Owner.self).count == 5)
    }

    /// The AnyRealmValues holding lists and dictionaries, nested in each other, as realm-core
    /// wrote them (`format24_all_types.expected.json`).
    @Test func anyRealmValuesHoldingCollectionsComeIntoTheModel() throws {
        let directory = try TemporaryDirectory()
        let configuration = Realm.Configuration(
            fileURL: directory.fileURL("ported.burrow"),
            objectTypes: [AllTypes.self, Owner.self, ImportedModel.Address.self, ImportedModel.Coordinates.self])
        let source = RealmFileFixtures.directory.appendingPathComponent("format24_all_types.realm")
        try Realm.importRealmFile(at: source, configuration: configuration)
        let realm = try Realm(configuration: configuration)
        func object(_ id: String) throws -> AllTypes {
            try #require(realm.object(ofType: AllTypes.self, forPrimaryKey: try ObjectId.parse(id).get()))
        }

        let list = try #require(try object("000000000000000000000020").any.listValue)
        #expect(list.count == 6)
        #expect(Array(list.prefix(3)) == [.int(1), .string("two"), .none])
        #expect(list[3].listValue.map(Array.init) == [.int(4)])
        #expect(list[4].dictionaryValue?["five"] == .double(5.5))
        #expect(list[5].object(Owner.self)?.name == "alice")
        try realm.write { try realm.delete(try #require(list[5].object(Owner.self))) }
        #expect(list.count == 5, "a link inside a list is removed with its object")

        let dictionary = try #require(try object("000000000000000000000021").any.dictionaryValue)
        #expect(dictionary.keys.sorted() == ["a", "b", "c", "d"])
        #expect(dictionary["a"] == .int(1))
        #expect(dictionary["b"] == .string(String(repeating: "ABCDEFGHIJKLMNOP", count: 4)))
        let inner = try #require(dictionary["c"]?.listValue)
        #expect(inner.first == .date(Date(timeIntervalSince1970: 1.000000001)))
        #expect(inner.last?.dictionaryValue?["deep"] == .uuid(UUID(uuidString: "3b241101-e2bb-4255-8caf-4136c566a962")!))
        #expect(dictionary["d"]?.dictionaryValue?.count == 0)

        #expect(try object("000000000000000000000022").any.listValue?.count == 0)
    }
}

/// Imports of damaged `.realm` files: each imports or throws a `RealmError`, and a failed one
/// leaves no Burrow file. `BURROW_REALM_DAMAGE_CASES` / 4 flipped files (25).
@MainActor
struct RealmImportDamageTests {
    @Test func aDamagedFileImportsOrFailsLeavingNothing() throws {
        let directory = try TemporaryDirectory()
        let seed = TestSeed.make("realm import damage")
        var random = TestRandom(seed: seed)
        let original = try RealmFileFixtures.bytes("format24_all_types.realm")
        let source = directory.fileURL("damaged.realm")
        for index in 0..<max(1, RealmFileDamageTests.cases / 4) {
            var bytes = original
            for _ in 0..<random.int(1...3) {
                let offset = random.chance(50) ? random.int(0..<bytes.count) : random.int(0..<(bytes.count / 8)) * 8 + random.int(4...7)
                bytes[offset] ^= UInt8(random.int(1...255))
            }
            try Data(bytes).write(to: source)
            let target = Realm.Configuration(fileURL: directory.fileURL("imported \(index).burrow"))
            do {
                try Realm.importRealmFile(at: source, configuration: target)
            } catch let error as RealmError {
                #expect(!error.description.isEmpty)
                #expect(!FileManager.default.fileExists(atPath: target.fileURL!.path), "case \(index): \(error)")
            }
        }
    }
}

/// Two imports into one new file at once: one makes it, the other is refused and removes
/// nothing.
struct RealmImportRaceTests {
    @Test func twoImportsIntoOneFileAtOnceLeaveOneWholeFile() async throws {
        let directory = try TemporaryDirectory()
        let source = RealmFileFixtures.directory.appendingPathComponent("format24_many.realm")
        for round in 0..<2 {
            let target = directory.fileURL("race \(round).burrow")
            let outcomes = await withTaskGroup(of: RealmError.Code?.self) { group in
                for _ in 0..<2 {
                    group.addTask {
                        do {
                            try Realm.importRealmFile(at: source, configuration: Realm.Configuration(fileURL: target))
                            return nil
                        } catch let error as RealmError {
                            return error.code
                        } catch {
                            return .fail
                        }
                    }
                }
                var outcomes: [RealmError.Code?] = []
                for await outcome in group { outcomes.append(outcome) }
                return outcomes
            }
            #expect(outcomes.filter { $0 == nil }.count == 1, "round \(round): \(outcomes)")
            #expect(outcomes.contains(.fileExists), "round \(round): \(outcomes)")
            let count = try await Task.detached {
                try Realm(configuration: Realm.Configuration(fileURL: target)).dynamicObjects("Item").count
            }.value
            #expect(count == 4286)
        }
    }
}
