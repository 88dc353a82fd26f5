import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// One realm per file per isolation domain, as RealmSwift keeps one per thread: its
/// `testEquals` expects `Realm() == Realm()` on one thread and not across threads, and its
/// examples call `Realm()` in one helper after another, sharing the write transaction.
@Suite(.temporaryDirectory) struct RealmInstanceTests {
    // MARK: One instance per domain

    @MainActor
    @Test func testOpeningTwiceOnTheMainActorGivesTheSameRealm() throws {
        let config = temporaryConfiguration()
        let first = try Realm(configuration: config)
        let second = try Realm(configuration: config)
        #expect(first === second && first == second)
        #expect(try Realm(fileURL: config.fileURL!) === first, "Realm(fileURL:) names the same file")
        #expect(try first.freeze().thaw() === first, "a frozen realm thaws into the domain's realm")
        let other = try Realm(configuration: temporaryConfiguration())
        #expect(other != first, "another file is another realm")
    }

    @Test func testNonisolatedCodeInATaskOpensARealmOfItsOwnEachTime() async throws {
        let config = temporaryConfiguration()
        let first = try Realm(configuration: config)
        let second = try Realm(configuration: config)
        #expect(first !== second, "a task off the main thread may move between threads and hand its realm on")
        #expect(first != second)
    }

    @Test func testAnotherThreadHasARealmOfItsOwn() throws {
        let config = temporaryConfiguration()
        let mine = try Realm(configuration: config)
        let (sameThere, differs) = try onAnotherThread {
            let a = try Realm(configuration: config)
            let b = try Realm(configuration: config)
            return (a === b, ObjectIdentifier(a))
        }
        #expect(sameThere, "a thread's own code has one realm of the file")
        #expect(differs != ObjectIdentifier(mine))
    }

    @MainActor
    @Test func testHelpersThatOpenTheRealmShareItsWriteTransaction() throws {
        let config = temporaryConfiguration()
        func addNote(_ text: String) throws {
            let realm = try Realm(configuration: config)
            try realm.add(ObjectSuiteModels.RTNote(value: ["text": text]))
        }
        func noteCount() throws -> Int { try Realm(configuration: config).objects(ObjectSuiteModels.RTNote.self).count }

        let realm = try Realm(configuration: config)
        try realm.beginWrite()
        try addNote("one")
        try addNote("two")
        #expect(try noteCount() == 2, "the helpers' realm is the one in the write transaction")
        try realm.commitWrite()
        let stored = try onAnotherThread { try Realm(configuration: config).objects(ObjectSuiteModels.RTNote.self).count }
        #expect(stored == 2)
    }

    @MainActor
    @Test func testAWriteBegunOnATemporaryRealmOfTheMainActorIsFinishedThroughTheNext() throws {
        let config = temporaryConfiguration()
        weak var writing: Realm?
        do {
            let realm = try Realm(configuration: config)
            writing = realm
            try realm.beginWrite()
        }
        #expect(writing != nil, "a realm in a write stays alive though nothing holds it")
        #expect(try Realm(configuration: config).isInWriteTransaction, "and stays the main actor's realm")
        _ = try Realm(configuration: config).create(ObjectSuiteModels.RTNote.self, value: ["text": "kept"])
        try Realm(configuration: config).commitWrite()
        #expect(writing == nil, "with its write ended, nothing holds it")
        #expect(try Realm(configuration: config).objects(ObjectSuiteModels.RTNote.self).map(\.text) == ["kept"])
    }

    @MainActor
    @Test func testCancellingAWriteInvalidatesWhatCreateMadeAndUnmanagesWhatAddAdded() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        try realm.beginWrite()
        let created = try realm.create(ObjectSuiteModels.RTNote.self, value: ["text": "made"])
        let added = ObjectSuiteModels.RTNote(value: ["text": "given"])
        try realm.add(added)
        try realm.cancelWrite()
        #expect(created.isInvalidated, "RealmSwift: an object create made in a cancelled write is invalidated")
        #expect(!added.isInvalidated && added.realm == nil && added.text == "given", "the caller's own instance is unmanaged again")
        #expect(realm.objects(ObjectSuiteModels.RTNote.self).isEmpty)
    }

    @Test func testAWriteBegunWhileOneIsOpenThrowsAndDoesNotWait() throws {
        let config = temporaryConfiguration()
        let first = try Realm(configuration: config)
        try first.beginWrite()
        let second = try Realm(configuration: config)
        let error = #expect(throws: RealmError.self) { try second.write { try second.add(ObjectSuiteModels.RTNote()) } }
        #expect(error?.code == .wrongState)
        #expect(error?.description.contains("already open here") == true, "\(error?.description ?? "")")
        #expect(first.isInWriteTransaction, "the open transaction is untouched")
        try first.commitWrite()
    }

    @Test func testAnActorsRealmIsTheSameEveryWayItIsOpened() async throws {
        let config = temporaryConfiguration()
        let db = try await RealmActor(configuration: config)
        try await db.asyncWrite { realm in try realm.add(ObjectSuiteModels.RTIntKey(value: ["id": 1])) }
        let frozen = try #require(try await db.object(ofType: ObjectSuiteModels.RTIntKey.self, forPrimaryKey: 1))
        #expect(try await Self.allTheSame(in: db, config, frozen))
        let other = try await RealmActor(configuration: config)
        let (mine, theirs) = (await Self.identity(in: db), await Self.identity(in: other))
        #expect(mine != theirs, "each actor has its own realm")
    }

    private static func allTheSame(in db: isolated RealmActor, _ config: Realm.Configuration, _ frozen: Frozen<ObjectSuiteModels.RTIntKey>)
        async throws -> Bool
    {
        let opened = try Realm(configuration: config)
        let awaited = try await Realm.open(configuration: config)
        let thawed = try frozen.thaw()
        return opened === db.realm && awaited === db.realm && thawed?.realm === db.realm && db.thaw(frozen)?.realm === db.realm
    }

    private static func identity(in db: isolated RealmActor) -> ObjectIdentifier { ObjectIdentifier(db.realm) }

    @Test func testANonisolatedHelperCalledFromAnActorCannotWaitForTheActorsWrite() async throws {
        let store = try await NoteStore(configuration: temporaryConfiguration())
        let outcome = try await store.writeThroughHelperInsideOwnWrite()
        #expect(outcome.contains("already open here"), "the helper's realm is its own, and throws rather than wait: \(outcome)")
    }

    @MainActor
    @Test func testARealmLivesOnlyWhileSomethingHoldsIt() throws {
        let config = temporaryConfiguration()
        weak var released: Realm?
        var note: ObjectSuiteModels.RTNote?
        do {
            let realm = try Realm(configuration: config)
            released = realm
            let added = ObjectSuiteModels.RTNote(value: ["text": "kept"])
            try realm.write { try realm.add(added) }
            note = added
        }
        #expect(released != nil, "its object keeps the realm")
        #expect(try Realm(configuration: config) === released)
        note = nil
        #expect(released == nil, "nothing holds it: the domain's entry does not")
        _ = note
    }

    @Test func testManyActorsOpeningAtOnceEachGetTheirOwnRealm() async throws {
        let config = temporaryConfiguration()
        let count = TestEnvironment.count("BURROW_STRESS_ITERATIONS", default: 40)
        let identities = try await withThrowingTaskGroup(of: [ObjectIdentifier].self) { group in
            for index in 0..<count {
                group.addTask {
                    let store = try await NoteStore(configuration: config)
                    return try await store.openTwiceAndWrite(index)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(identities.allSatisfy { $0.count == 2 && $0[0] == $0[1] }, "within an actor, one realm")
        let stored = try onAnotherThread { try Realm(configuration: config).objects(ObjectSuiteModels.RTIntKey.self).count }
        #expect(stored == count, "every actor's write landed")
    }

    // MARK: Configurations that cannot share

    @MainActor
    @Test func testAnotherSchemaVersionInTheSameDomainThrows() throws {
        var config = temporaryConfiguration()
        config.objectTypes = [ObjectSuiteModels.RTNote.self]
        let realm = try Realm(configuration: config)
        var higher = config
        higher.schemaVersion = 3
        let error = #expect(throws: RealmError.self) { _ = try Realm(configuration: higher) }
        #expect(error?.code == .schemaMismatch)
        #expect(error?.description.contains("schema version 0, not 3") == true, "\(error?.description ?? "")")
        _ = realm
    }

    @MainActor
    @Test func testObjectTypesBeyondTheOpenRealmsThrow() throws {
        var config = temporaryConfiguration()
        config.objectTypes = [ObjectSuiteModels.RTNote.self]
        let realm = try Realm(configuration: config)
        var wider = config
        wider.objectTypes = [ObjectSuiteModels.RTNote.self, ObjectSuiteModels.RTIntKey.self]
        let error = #expect(throws: RealmError.self) { _ = try Realm(configuration: wider) }
        #expect(error?.code == .wrongState)
        #expect(error?.description.contains("RTIntKey") == true, "\(error?.description ?? "")")
        var none = config
        none.objectTypes = nil
        #expect(try Realm(configuration: none) === realm, "no objectTypes asks for nothing more")
    }

    @MainActor
    @Test func testReadOnlyAgainstReadWriteThrows() throws {
        let config = temporaryConfiguration()
        let realm = try Realm(configuration: config)
        var readOnly = config
        readOnly.readOnly = true
        let error = #expect(throws: RealmError.self) { _ = try Realm(configuration: readOnly) }
        #expect(error?.code == .wrongState)
        _ = realm
    }

    // MARK: Equality

    @MainActor
    @Test func testRealmsAreEqualAndHashAsTheirIdentity() throws {
        let config = temporaryConfiguration()
        let realm = try Realm(configuration: config)
        try realm.write { try realm.add(ObjectSuiteModels.RTNote()) }
        let frozen = try realm.freeze()
        let frozenAgain = try realm.freeze()
        #expect(frozen == frozenAgain && frozen.hashValue == frozenAgain.hashValue, "frozen at one version")
        #expect(frozen != realm)
        try realm.write { try realm.add(ObjectSuiteModels.RTNote()) }
        #expect(try realm.freeze() != frozen, "another version")
        #expect(Set([realm, try Realm(configuration: config), frozen, frozenAgain]).count == 2)
    }

    // MARK: Invalidate and refresh

    @Test func testInvalidateInvalidatesObjectsAndTheRealmKeepsWorking() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        let note = ObjectSuiteModels.RTNote(value: ["text": "first"])
        try realm.write { try realm.add(note) }
        let before = realm.objects(ObjectSuiteModels.RTNote.self)
        realm.invalidate()
        #expect(note.isInvalidated)
        #expect(before.isInvalidated && before.where({ $0.text == "first" }).isInvalidated, "results made before, and results derived from them")
        #expect(!realm.objects(ObjectSuiteModels.RTNote.self).isInvalidated)
        try realm.write { try realm.add(ObjectSuiteModels.RTNote(value: ["text": "second"])) }
        #expect(realm.objects(ObjectSuiteModels.RTNote.self).count == 2)
        #expect(note.isInvalidated, "still invalidated after the realm is used again")
        #expect(realm.objects(ObjectSuiteModels.RTNote.self).first?.isInvalidated == false)
    }

    @Test func testInvalidateReadsTheNewestVersionNextAndCancelsAnOpenWrite() throws {
        let config = temporaryConfiguration()
        let realm = try Realm(configuration: config)
        #expect(realm.objects(ObjectSuiteModels.RTNote.self).isEmpty)
        try onAnotherThread {
            let other = try Realm(configuration: config)
            try other.write { try other.add(ObjectSuiteModels.RTNote(value: ["text": "elsewhere"])) }
        }
        realm.invalidate()
        #expect(realm.objects(ObjectSuiteModels.RTNote.self).map(\.text) == ["elsewhere"])

        try realm.beginWrite()
        let pending = ObjectSuiteModels.RTNote(value: ["text": "never"])
        try realm.add(pending)
        realm.invalidate()
        #expect(!realm.isInWriteTransaction && !pending.isInvalidated && pending.realm == nil, "the write was cancelled")
        #expect(realm.objects(ObjectSuiteModels.RTNote.self).count == 1)
    }

    @Test func testReadingAnInvalidatedObjectTraps() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "trap-invalidated-read"))
            let note = ObjectSuiteModels.RTNote(value: ["text": "gone"])
            try realm.write { try realm.add(note) }
            realm.invalidate()
            _ = note.text
        }
        let stderr = standardError(of: result)
        #expect(stderr.contains("invalidate()"), "\(stderr)")
    }

    @Test func testReadingAnObjectFetchedAfterInvalidateExitsCleanly() async throws {
        await #expect(processExitsWith: .success) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "no-trap-invalidated-read"))
            try realm.write { try realm.add(ObjectSuiteModels.RTNote(value: ["text": "kept"])) }
            realm.invalidate()
            guard realm.objects(ObjectSuiteModels.RTNote.self).first?.text == "kept" else { exit(3) }
        }
    }

    @Test func testAsyncRefreshMovesToTheNewestVersion() async throws {
        let config = temporaryConfiguration()
        let realm = try Realm(configuration: config)
        let notes = realm.objects(ObjectSuiteModels.RTNote.self)
        #expect(notes.isEmpty)
        #expect(await realm.asyncRefresh() == false, "nothing new")
        let db = try await RealmActor(configuration: config)
        try await db.asyncWrite { realm in try realm.add(ObjectSuiteModels.RTNote()) }
        #expect(notes.isEmpty, "the realm reads its version until told")
        #expect(await realm.asyncRefresh())
        #expect(notes.count == 1)
    }
}

/// An actor whose method opens a write and then calls a nonisolated helper that writes through
/// its own `Realm()`: the same task, waiting for its own lock.
private actor NoteStore {
    // Declared `Realm!`, so that the actor is initialized (and `#isolation` names it) before
    // the realm is opened: the realm is then the actor's.
    var realm: Realm!

    init(configuration: Realm.Configuration) async throws {
        realm = try await Realm.open(configuration: configuration)
    }

    func openTwiceAndWrite(_ id: Int) async throws -> [ObjectIdentifier] {
        let again = try Realm(configuration: realm.configuration)
        try await again.asyncWrite { try again.add(ObjectSuiteModels.RTIntKey(value: ["id": id])) }
        return [ObjectIdentifier(realm), ObjectIdentifier(again)]
    }

    func writeThroughHelperInsideOwnWrite() throws -> String {
        let configuration = realm.configuration
        try realm.beginWrite()
        defer { try? realm.cancelWrite() }
        do {
            try Self.helper(configuration)
            return "the helper wrote"
        } catch {
            return "\(error)"
        }
    }

    nonisolated static func helper(_ configuration: Realm.Configuration) throws {
        let realm = try Realm(configuration: configuration)
        try realm.write { try realm.add(ObjectSuiteModels.RTNote()) }
    }
}

/// A realm opened by a thread's own code belongs to that thread, as RealmSwift's do: used on
/// another thread it refuses to write (a thrown error) and traps where it reads.
@Suite(.temporaryDirectory) struct ThreadConfinementTests {
    /// Opens a realm on a thread of its own, outside tasks, and hands it out: the misuse that
    /// Swift lets through, since nonisolated code's values can be sent on.
    private final class Handoff: @unchecked Sendable {
        // Written by the opening thread before it signals, read after the wait.
        var realm: Realm?
    }

    private static func realmOfAnotherThread(_ config: Realm.Configuration) throws -> Realm {
        let handoff = Handoff()
        try onAnotherThread { handoff.realm = try Realm(configuration: config) }
        return handoff.realm!
    }

    @Test func testWritingThroughAnotherThreadsRealmThrows() throws {
        let theirs = try Self.realmOfAnotherThread(temporaryConfiguration())
        let error = #expect(throws: RealmError.self) { try theirs.write {} }
        #expect(error?.code == .wrongState)
        #expect(error?.description.contains("incorrect thread") == true, "\(error?.description ?? "")")
    }

    @Test func testReadingThroughAnotherThreadsRealmTraps() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let theirs = try Self.realmOfAnotherThread(Realm.Configuration(inMemoryIdentifier: "trap-other-thread"))
            _ = theirs.objects(ObjectSuiteModels.RTNote.self)
        }
        let stderr = standardError(of: result)
        #expect(stderr.contains("incorrect thread"), "\(stderr)")
    }

    @Test func testReadingThroughTheThreadsOwnRealmExitsCleanly() async throws {
        await #expect(processExitsWith: .success) {
            let count = try onAnotherThread {
                let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "no-trap-own-thread"))
                try realm.write { try realm.add(ObjectSuiteModels.RTNote()) }
                return realm.objects(ObjectSuiteModels.RTNote.self).count
            }
            guard count == 1 else { exit(3) }
        }
    }
}
