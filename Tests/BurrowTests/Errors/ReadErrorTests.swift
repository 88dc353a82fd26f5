import BurrowStore
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow
@testable import BurrowStorage

/// The models of `ReadErrorTests`, stored under the names they had before they were namespaced.
enum ReadErrorModels {
    final class Dog: Object {
        override class func _realmObjectName() -> String? { "REDog" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
    }

    final class Note: Object {
        override class func _realmObjectName() -> String? { "RENote" }
        @Persisted var text = ""
    }

    final class Bag: Object {
        override class func _realmObjectName() -> String? { "REBag" }
        @Persisted var counts: Map<String, Int>
    }
}

/// A file whose newest commits are intact but one page of `REDog`'s rows (a leaf of the tree,
/// written by an older commit), or of the entries of `REBag`'s maps, has a flipped byte: what
/// damage to a page no open checks looks like when a read meets it.
struct DamagedRowsFile: Sendable {
    enum Target { case dogRows, bagMaps }

    let path: String
    let page: UInt32
    /// A dog whose row lies on the damaged page, and its object key.
    let damagedId: Int
    let damagedKey: UInt64
    /// A dog whose row lies on another page.
    let intactId: Int

    static let dogs = 300

    static func make(damaging target: Target = .dogRows) throws -> DamagedRowsFile {
        let configuration = temporaryConfiguration()
        let path = configuration.fileURL!.path
        var keys: [ObjectKey: Int] = [:]
        let page: UInt32
        let firstKeyOnPage: ObjectKey
        let pageSize: Int
        do {
            let realm = try Realm(configuration: configuration)
            try realm.write {
                for id in 0..<dogs {
                    let dog = try realm.create(ReadErrorModels.Dog.self, value: ["id": id, "name": "dog \(id) " + String(repeating: "x", count: 80)])
                    keys[dog._state!.key] = id
                    let bag = ReadErrorModels.Bag()
                    bag.counts["a"] = 1
                    bag.counts["padding \(id) " + String(repeating: "y", count: 60)] = id
                    try realm.add(bag)
                }
            }
            // A second commit that leaves the dogs' rows alone: the damaged page is not one
            // the newest commit wrote.
            try realm.write { try realm.add(ReadErrorModels.Note(value: ["text": "later"])) }
            let treeName: String
            switch target {
            case .dogRows:
                treeName = try #require(try realm.table(for: ReadErrorModels.Dog.self, creating: false)).rowsTree.string
            case .bagMaps:
                let table = try #require(try realm.table(for: ReadErrorModels.Bag.self, creating: false))
                let property = try #require(table.info.propertyIndex["counts"])
                let field = try #require(table.fieldOf[property])
                treeName = try #require(table.collectionTrees[field]).string
            }
            let snapshot = realm.store.snapshotReader.snapshot
            let tree = try #require(try snapshot.tree(named: treeName))
            var number = tree.state.root
            var p = try snapshot.page(number)
            while !PageHeader.isLeaf(p) {
                number = PageHeader.child(p, PageHeader.count(p) / 2)
                p = try snapshot.page(number)
            }
            page = number
            firstKeyOnPage = PageHeader.withLeafKey(p, 0) { ObjectKey.read($0) }
            pageSize = snapshot.meta.pageSize
            #expect(tree.state.root != page, "the rows tree must have more than one page")
        }
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        let offset = UInt64(Int(page) * pageSize + pageSize / 2)
        try handle.seek(toOffset: offset)
        let byte = try #require(try handle.read(upToCount: 1)).first!
        try handle.seek(toOffset: offset)
        try handle.write(contentsOf: Data([byte ^ 0xFF]))
        try handle.close()
        guard target == .dogRows else { return DamagedRowsFile(path: path, page: page, damagedId: -1, damagedKey: 0, intactId: -1) }
        let damagedId = try #require(keys[firstKeyOnPage])
        let intactId = try #require(keys.first { $0.key != firstKeyOnPage && $0.key.rawValue < firstKeyOnPage.rawValue }?.value)
        return DamagedRowsFile(path: path, page: page, damagedId: damagedId, damagedKey: firstKeyOnPage.rawValue, intactId: intactId)
    }

    var configuration: Realm.Configuration {
        Realm.Configuration(
            fileURL: URL(fileURLWithPath: path), objectTypes: [ReadErrorModels.Dog.self, ReadErrorModels.Note.self, ReadErrorModels.Bag.self])
    }

    /// Whether `error` is the report of this damage: `.corruptFile`, naming the file and the page
    /// in its message and as values.
    func isReport(_ error: RealmError) -> Bool {
        error.code == .corruptFile && error.description.contains(path) && error.description.contains("page \(page) ")
            && error.fileURL?.path == path && error.page == page
    }
}

/// The read-error policy (Architecture.md, "Read errors"): APIs that can throw report a damaged
/// page as a `RealmError`; getters that cannot throw trap with a message naming the file and the
/// page; nothing turns damage into nil, empty or zero.
@Suite(.temporaryDirectory) struct ReadErrorTests {
    // MARK: APIs that throw

    @Test func actorObjectsThrowsInsteadOfReturningEmpty() async throws {
        let file = try DamagedRowsFile.make()
        let db = try await RealmActor(configuration: file.configuration)
        do {
            let dogs = try await db.objects(ReadErrorModels.Dog.self)
            Issue.record("read \(dogs.count) dogs from a damaged table")
        } catch {
            #expect(file.isReport(error), "\(error)")
        }
        do {
            let dogs = try await db.objects(ReadErrorModels.Dog.self, where: { $0.name.starts(with: "dog") })
            Issue.record("read \(dogs.count) dogs from a damaged table")
        } catch {
            #expect(file.isReport(error), "\(error)")
        }
        // The other class of the file reads as it was.
        #expect(try await db.objects(ReadErrorModels.Note.self).count == 1)
    }

    @Test func actorObjectByPrimaryKeyThrowsInsteadOfReturningNil() async throws {
        let file = try DamagedRowsFile.make()
        let db = try await RealmActor(configuration: file.configuration)
        do {
            let dog = try await db.object(ofType: ReadErrorModels.Dog.self, forPrimaryKey: file.damagedId)
            Issue.record("looked up \(String(describing: dog)) on a damaged page")
        } catch {
            #expect(file.isReport(error), "\(error)")
        }
        #expect(try await db.object(ofType: ReadErrorModels.Dog.self, forPrimaryKey: file.intactId)?.id == file.intactId)
    }

    @Test func freezingResultsOrAnObjectThrows() throws {
        let file = try DamagedRowsFile.make()
        let realm = try Realm(configuration: file.configuration)
        #expect { try realm.objects(ReadErrorModels.Dog.self).freeze() } throws: { error in
            (error as? RealmError).map(file.isReport) ?? false
        }
        #expect { try realm.objects(ReadErrorModels.Dog.self).sorted(byKeyPath: "name").freeze() } throws: { error in
            (error as? RealmError).map(file.isReport) ?? false
        }
        // An object whose row is on the damaged page (made without reading it).
        let table = try #require(try realm.table(for: ReadErrorModels.Dog.self, creating: false))
        let dog = try #require(realm.object(table, ObjectKey(file.damagedKey)) as? ReadErrorModels.Dog)
        #expect { try dog.freeze() } throws: { error in
            (error as? RealmError).map(file.isReport) ?? false
        }
    }

    @Test func aQueryThroughADamagedMapThrowsInsteadOfSkippingObjects() async throws {
        let file = try DamagedRowsFile.make(damaging: .bagMaps)
        let realm = try Realm(configuration: file.configuration)
        #expect { try realm.objects(ReadErrorModels.Bag.self).filter("counts['a'] == 1").freeze() } throws: { error in
            (error as? RealmError).map(file.isReport) ?? false
        }
        let db = try await RealmActor(configuration: file.configuration)
        do {
            let bags = try await db.objects(ReadErrorModels.Bag.self, where: { $0.counts["a"] == 1 })
            Issue.record("found \(bags.count) of \(DamagedRowsFile.dogs) bags through a damaged map")
        } catch {
            #expect(file.isReport(error), "\(error)")
        }
    }

    @Test func addAndCreateThrowWhenTheirPrimaryKeyLookupMeetsDamage() throws {
        let file = try DamagedRowsFile.make()
        let realm = try Realm(configuration: file.configuration)
        #expect {
            try realm.write { try realm.add(ReadErrorModels.Dog(value: ["id": file.damagedId, "name": "again"]), update: .modified) }
        } throws: { error in
            (error as? RealmError).map(file.isReport) ?? false
        }
        #expect {
            try realm.write { _ = try realm.create(ReadErrorModels.Dog.self, value: ["id": file.damagedId, "name": "again"], update: .modified) }
        } throws: { error in
            (error as? RealmError).map(file.isReport) ?? false
        }
        #expect(realm.objects(ReadErrorModels.Note.self).count == 1)
    }

    // MARK: Getters that cannot throw

    @Test func iteratingResultsTrapsNamingFileAndPage() async throws {
        let file = try DamagedRowsFile.make()
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [path = file.path as String] in
            let realm = try Realm(
                configuration: Realm.Configuration(
                    fileURL: URL(fileURLWithPath: path), objectTypes: [ReadErrorModels.Dog.self, ReadErrorModels.Note.self, ReadErrorModels.Bag.self])
            )
            var names = 0
            for dog in realm.objects(ReadErrorModels.Dog.self) where !dog.name.isEmpty { names += 1 }
            print(names)
        }
        let message = standardError(of: result)
        #expect(message.contains(file.path) && message.contains("page \(file.page) fails its checksum"), "\(message)")
    }

    @Test func countingFilteredResultsTrapsNamingFileAndPage() async throws {
        let file = try DamagedRowsFile.make()
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [path = file.path as String] in
            let realm = try Realm(
                configuration: Realm.Configuration(
                    fileURL: URL(fileURLWithPath: path), objectTypes: [ReadErrorModels.Dog.self, ReadErrorModels.Note.self, ReadErrorModels.Bag.self])
            )
            print(try realm.objects(ReadErrorModels.Dog.self).filter("name BEGINSWITH 'dog'").count)
        }
        let message = standardError(of: result)
        #expect(message.contains(file.path) && message.contains("page \(file.page) fails its checksum"), "\(message)")
    }

    @Test func subscriptingSortedResultsTrapsNamingFileAndPage() async throws {
        let file = try DamagedRowsFile.make()
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [path = file.path as String] in
            let realm = try Realm(
                configuration: Realm.Configuration(
                    fileURL: URL(fileURLWithPath: path), objectTypes: [ReadErrorModels.Dog.self, ReadErrorModels.Note.self, ReadErrorModels.Bag.self])
            )
            print(realm.objects(ReadErrorModels.Dog.self).sorted(byKeyPath: "name")[0].name)
        }
        let message = standardError(of: result)
        #expect(message.contains(file.path) && message.contains("page \(file.page) fails its checksum"), "\(message)")
    }

    @Test func lookingUpAnObjectOnTheDamagedPageTraps() async throws {
        let file = try DamagedRowsFile.make()
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            [path = file.path as String, id = file.damagedId as Int] in
            let realm = try Realm(
                configuration: Realm.Configuration(
                    fileURL: URL(fileURLWithPath: path), objectTypes: [ReadErrorModels.Dog.self, ReadErrorModels.Note.self, ReadErrorModels.Bag.self])
            )
            print(realm.object(ofType: ReadErrorModels.Dog.self, forPrimaryKey: id)?.name ?? "none")
        }
        let message = standardError(of: result)
        #expect(message.contains(file.path) && message.contains("page \(file.page) fails its checksum"), "\(message)")
    }

    @Test func readingIntactPagesOfTheSameFileExitsCleanly() async throws {
        let file = try DamagedRowsFile.make()
        await #expect(processExitsWith: .success) { [path = file.path as String, id = file.intactId as Int] in
            let realm = try Realm(
                configuration: Realm.Configuration(
                    fileURL: URL(fileURLWithPath: path), objectTypes: [ReadErrorModels.Dog.self, ReadErrorModels.Note.self, ReadErrorModels.Bag.self])
            )
            guard realm.object(ofType: ReadErrorModels.Dog.self, forPrimaryKey: id)?.id == id else { exit(2) }
            guard realm.objects(ReadErrorModels.Note.self).first?.text == "later" else { exit(3) }
            // Counting every object reads the tree's count, not the damaged page.
            guard realm.objects(ReadErrorModels.Dog.self).count == DamagedRowsFile.dogs else { exit(4) }
        }
    }
}
