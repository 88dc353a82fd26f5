import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// The models of `BulkSetValueTests`, stored under the names they had before they were namespaced.
enum BulkSetValueModels {
    final class Item: Object {
        override class func _realmObjectName() -> String? { "BulkItem" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted(indexed: true) var name = ""
        @Persisted var age = 0
        @Persisted var note: String?
        @Persisted var payload = Data()
        @Persisted var score: Double?
    }

    final class Owner: Object {
        override class func _realmObjectName() -> String? { "BulkOwner" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var items: List<BulkSetValueModels.Item>
    }
}

/// `setValue(_:forKey:)` on `Results` and `List` (the bulk path, `ObjectStore.setPayloads`)
/// against the same change made through each object's own setter (`setPayload`), and the
/// behaviour RealmSwift's tests ask of it.
@Suite(.temporaryDirectory) struct BulkSetValueTests {
    /// Every item's fields, by id, as plain values.
    private func contents(_ realm: Realm) -> [Int: String] {
        var all: [Int: String] = [:]
        for item in realm.objects(BulkSetValueModels.Item.self) {
            all[item.id] =
                "\(item.name)|\(item.age)|\(item.note ?? "nil")|\(item.payload.count):\(item.payload.first ?? 0)|\(item.score.map { "\($0)" } ?? "nil")"
        }
        return all
    }

    private func randomValue(_ key: String, _ random: inout TestRandom) -> Any? {
        switch key {
        case "name": return random.element(["", "Rex", "Bella", String(repeating: "n", count: random.int(1...40))])
        case "age": return random.int(0...6)
        case "note":
            switch random.int(0..<4) {
            case 0: return nil
            case 1: return String(repeating: "long", count: random.int(260...600))
            default: return random.element(["a", "bb", "Toronto", "Vancouver"])
            }
        case "payload": return Data(repeating: UInt8(random.int(0...255)), count: random.element([0, 3, 900, 1_500]))
        default: return random.chance(30) ? nil : Double(random.int(0...4)) / 2
        }
    }

    private func fill(_ realm: Realm, seed: UInt64) throws {
        var random = TestRandom(seed: seed)
        try realm.write {
            var items: [BulkSetValueModels.Item] = []
            for id in 0..<random.int(0...300) {
                let item = BulkSetValueModels.Item()
                item.id = id * 3
                item.name = random.element(["Rex", "Bella", "Luna"])
                item.age = random.int(0...6)
                item.note = randomValue("note", &random) as? String
                item.payload = randomValue("payload", &random) as! Data
                item.score = randomValue("score", &random) as? Double
                try realm.add(item)
                items.append(item)
            }
            let owner = BulkSetValueModels.Owner()
            owner.id = 1
            // A list in its own order, with duplicates.
            if !items.isEmpty {
                for _ in 0..<random.int(0...120) { owner.items.append(random.element(items)) }
            }
            try realm.add(owner)
            let sentinel = BulkSetValueModels.Item()
            sentinel.id = -1
            try realm.add(sentinel)
        }
    }

    @Test func bulkSetValueMatchesEachObjectsSetter() async throws {
        let seed = TestSeed.make("BulkSetValueTests.bulkSetValueMatchesEachObjectsSetter")
        var random = TestRandom(seed: seed)
        let bulk = try Realm(configuration: temporaryConfiguration("bulk"))
        let single = try Realm(configuration: temporaryConfiguration("single"))
        try fill(bulk, seed: seed)
        try fill(single, seed: seed)
        let bulkChanges = bulk.objects(BulkSetValueModels.Item.self).changes().makeAsyncIterator()
        let singleChanges = single.objects(BulkSetValueModels.Item.self).changes().makeAsyncIterator()
        _ = await next(bulkChanges)
        _ = await next(singleChanges)
        for round in 0..<TestEnvironment.count("BURROW_MODEL_OPS", default: 60) {
            let key = random.element(["name", "age", "note", "payload", "score"])
            let value = randomValue(key, &random)
            let target = random.int(0..<5)
            let limit = random.int(0...6)
            let deleted = random.chance(20) ? random.int(0...300) * 3 : nil
            let added = random.chance(20) ? 1_000 + round : nil
            for realm in [bulk, single] {
                try realm.write {
                    if let deleted, let item = realm.object(ofType: BulkSetValueModels.Item.self, forPrimaryKey: deleted) { try realm.delete(item) }
                    if let added { _ = try realm.create(BulkSetValueModels.Item.self, value: ["id": added, "name": "new", "age": limit]) }
                    let owner = realm.object(ofType: BulkSetValueModels.Owner.self, forPrimaryKey: 1)!
                    let all = realm.objects(BulkSetValueModels.Item.self)
                    let filtered = try all.filter("age < %@", limit)
                    // A condition on text, some of it long enough to live outside the row.
                    let byNote = try all.filter("note != %@ AND age <= %@", "bb", limit)
                    if realm === bulk {
                        switch target {
                        case 0: all.setValue(value, forKey: key)
                        case 1: filtered.setValue(value, forKey: key)
                        case 2: owner.items.setValue(value, forKey: key)
                        case 3: byNote.setValue(value, forKey: key)
                        default: all.where { $0.id >= 0 }.setValue(value, forKey: key)
                        }
                    } else {
                        let objects: [BulkSetValueModels.Item] =
                            switch target {
                            case 0: Array(all)
                            case 1: Array(filtered)
                            case 2: Array(owner.items)
                            case 3: Array(byNote)
                            default: Array(all.where { $0.id >= 0 })
                            }
                        for object in objects { object.setValue(value, forKey: key) }
                    }
                    // One change in every write, so that each stream gets an element.
                    realm.object(ofType: BulkSetValueModels.Item.self, forPrimaryKey: -1)!.age = 1_000_000 + round
                }
            }
            let label = "seed \(seed) round \(round): \(key) = \(String(describing: value).prefix(40)), target \(target)"
            #expect(contents(bulk) == contents(single), "\(label)")
            guard case .update(_, let bulkDeletions, let bulkInsertions, let bulkModifications) = await next(bulkChanges),
                case .update(_, let singleDeletions, let singleInsertions, let singleModifications) = await next(singleChanges)
            else {
                Issue.record("\(label): no update")
                return
            }
            #expect(bulkDeletions == singleDeletions, "\(label)")
            #expect(bulkInsertions == singleInsertions, "\(label)")
            #expect(bulkModifications == singleModifications, "\(label)")
            // The name index answers as the rows do.
            for name in ["", "Rex", "Bella", "new"] {
                let byIndex = Set(bulk.objects(BulkSetValueModels.Item.self).where { $0.name == name }.map(\.id))
                let byScan = Set(bulk.objects(BulkSetValueModels.Item.self).filter { $0.name == name }.map(\.id))
                #expect(byIndex == byScan, "\(label): name \(name)")
            }
            if contents(bulk) != contents(single) { return }
        }
        #expect(try ObjectVerifier.verify(bulk.storage.snapshot()).findings.map(\.description) == [])
    }

    @Test func setValueChangesEveryObjectOfTheCollection() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        try realm.write {
            for id in 0..<10 { _ = try realm.create(BulkSetValueModels.Item.self, value: ["id": id, "age": id % 2, "score": Double(id)]) }
            let owner = try realm.create(BulkSetValueModels.Owner.self, value: ["id": 1])
            for id in [7, 2, 7, 5] { owner.items.append(realm.object(ofType: BulkSetValueModels.Item.self, forPrimaryKey: id)!) }
        }
        let all = realm.objects(BulkSetValueModels.Item.self)
        try realm.write { all.setValue(25, forKey: "age") }
        #expect(all.map(\.age) == Array(repeating: 25, count: 10))
        // A filter on the property being set: every object it matched when called changes.
        try realm.write { try all.filter("score > 4").setValue(10, forKey: "age") }
        #expect(all.map(\.age) == [25, 25, 25, 25, 25, 10, 10, 10, 10, 10])
        try realm.write { try all.filter("age != 5").setValue(5, forKey: "age") }
        #expect(all.map(\.age) == Array(repeating: 5, count: 10))
        // A list in its own order, with a duplicate: each of its objects once changed.
        let owner = realm.object(ofType: BulkSetValueModels.Owner.self, forPrimaryKey: 1)!
        try realm.write { owner.items.setValue("listed", forKey: "note") }
        #expect(all.filter { $0.note == "listed" }.map(\.id) == [2, 5, 7])
        #expect(owner.items.map(\.id) == [7, 2, 7, 5])
        // Null and a value long enough to live outside the row, and back.
        let long = String(repeating: "x", count: 5_000)
        try realm.write { all.setValue(long, forKey: "note") }
        #expect(all.allSatisfy { $0.note == long })
        try realm.write { owner.items.setValue(nil, forKey: "note") }
        #expect(all.filter { $0.note == nil }.map(\.id) == [2, 5, 7])
        try realm.write { all.setValue("short", forKey: "note") }
        #expect(all.allSatisfy { $0.note == "short" })
        #expect(try ObjectVerifier.verify(realm.storage.snapshot()).findings.map(\.description) == [])
    }

    @Test func setValueAmongRowsStoredOutsideTheirLeaves() throws {
        // Every ninth row is long enough to live in an overflow run; the others grow when
        // their name is set, so the rows of their leaves move along into the next ones.
        let realm = try Realm(configuration: temporaryConfiguration())
        try realm.write {
            for id in 0..<3_000 {
                let long = id % 9 == 4
                _ = try realm.create(
                    BulkSetValueModels.Item.self,
                    value: ["id": id, "name": long ? "Rex" : "", "payload": Data(repeating: 1, count: long ? 1_000 : 4)])
            }
        }
        try realm.write { realm.objects(BulkSetValueModels.Item.self).setValue("Rex", forKey: "name") }
        let items = realm.objects(BulkSetValueModels.Item.self)
        #expect(items.count == 3_000 && items.allSatisfy { $0.name == "Rex" })
        #expect(items.allSatisfy { $0.payload.count == ($0.id % 9 == 4 ? 1_000 : 4) })
        #expect(try ObjectVerifier.verify(realm.storage.snapshot()).findings.map(\.description) == [])
    }

    @Test func setValueOnAnEmptyCollectionChangesNothing() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        try realm.write { _ = try realm.create(BulkSetValueModels.Owner.self, value: ["id": 1]) }
        let owner = realm.object(ofType: BulkSetValueModels.Owner.self, forPrimaryKey: 1)!
        try realm.write {
            realm.objects(BulkSetValueModels.Item.self).setValue(3, forKey: "age")
            owner.items.setValue(3, forKey: "age")
        }
        #expect(realm.objects(BulkSetValueModels.Item.self).isEmpty)
        // An unmanaged list sets each of its objects.
        let unmanaged = List<BulkSetValueModels.Item>()
        unmanaged.append(BulkSetValueModels.Item())
        unmanaged.append(BulkSetValueModels.Item())
        unmanaged.setValue(4, forKey: "age")
        #expect(unmanaged.map(\.age) == [4, 4])
    }

    @Test func anUnknownPropertyOrThePrimaryKeyFailsTheWriteAndKeepsNothing() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        try realm.write {
            for id in 0..<5 { _ = try realm.create(BulkSetValueModels.Item.self, value: ["id": id, "age": 1]) }
            let owner = try realm.create(BulkSetValueModels.Owner.self, value: ["id": 1])
            owner.items.append(realm.object(ofType: BulkSetValueModels.Item.self, forPrimaryKey: 3)!)
        }
        let all = realm.objects(BulkSetValueModels.Item.self)
        let owner = realm.object(ofType: BulkSetValueModels.Owner.self, forPrimaryKey: 1)!
        for change in [
            { all.setValue(2, forKey: "noSuchProperty") },
            { owner.items.setValue(2, forKey: "noSuchProperty") },
            { all.setValue("text", forKey: "age") },
            { owner.items.setValue(nil, forKey: "age") },
        ] {
            let error = #expect(throws: RealmError.self) {
                try realm.write {
                    all.setValue(9, forKey: "age")
                    change()
                }
            }
            #expect(error?.code == .invalidArgument)
            #expect(all.map(\.age) == [1, 1, 1, 1, 1])
        }
        for change in [{ all.setValue(7, forKey: "id") }, { owner.items.setValue(7, forKey: "id") }] {
            let error = #expect(throws: RealmError.self) {
                try realm.write {
                    all.setValue(9, forKey: "age")
                    change()
                }
            }
            #expect(error?.description.contains("Primary key can't be changed") == true)
            #expect(all.map(\.id) == [0, 1, 2, 3, 4])
            #expect(all.map(\.age) == [1, 1, 1, 1, 1])
        }
    }

    @Test func setValueOutsideAWriteTraps() async throws {
        let configuration = temporaryConfiguration()
        let realm = try Realm(configuration: configuration)
        try realm.write {
            let owner = try realm.create(BulkSetValueModels.Owner.self, value: ["id": 1])
            owner.items.append(try realm.create(BulkSetValueModels.Item.self, value: ["id": 1]))
        }
        let path = configuration.fileURL!.path
        for useList in [false, true] {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                [path = path as String, useList = useList as Bool] in
                let realm = try Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: path)))
                if useList {
                    realm.object(ofType: BulkSetValueModels.Owner.self, forPrimaryKey: 1)!.items.setValue(3, forKey: "age")
                } else {
                    realm.objects(BulkSetValueModels.Item.self).setValue(3, forKey: "age")
                }
            }
            let message = standardError(of: result)
            #expect(message.contains("outside of a write transaction"), "\(message)")
        }
    }
}
