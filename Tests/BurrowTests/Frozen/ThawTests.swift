import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// `Frozen.thaw()` and `Realm.thaw()` without a realm argument: the live realm of the file for
/// the caller's isolation, the same one for every thaw there, so that thawed objects can be
/// changed together in one write. The tests run on the main actor, an isolation domain with one
/// realm of each file (nonisolated code in a task has none: each thaw there opens its own).
@MainActor
@Suite(.temporaryDirectory) struct ThawTests {
    /// A file with one person who has one dog, and a frozen view of the person.
    private func fixture() throws -> (Realm.Configuration, Frozen<CommonModels.Person>) {
        let configuration = temporaryConfiguration()
        let realm = try Realm(configuration: configuration)
        let person = CommonModels.Person(value: ["id": 1, "name": "Ali", "dogs": [["_id": ObjectId.generate(), "name": "Rex"]]])
        try realm.write { try realm.add(person) }
        return (configuration, try person.freeze())
    }

    @Test func testThawingTwiceOnOneThreadGivesObjectsOfOneRealmThatOneWriteChanges() throws {
        let (_, frozen) = try fixture()
        let realm = try frozen.realm!.thaw()
        let person = try #require(try frozen.thaw())
        let again = try #require(try frozen.thaw())
        #expect(!realm.isFrozen)
        #expect(person.realm === realm && again.realm === realm)
        #expect(try frozen.frozenObject.realm!.thaw() === realm)
        try realm.write {
            person.name = "Alice"
            person.dogs.first!.age = 4
        }
        #expect(again.name == "Alice")
        #expect(frozen.name == "Ali", "the frozen value still shows its version")
    }

    @Test func testALiveRealmThawsToItself() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        #expect(try realm.thaw() === realm)
    }

    @Test func testThawingAnObjectDeletedSinceGivesNil() throws {
        let (configuration, frozen) = try fixture()
        let realm = try Realm(configuration: configuration)
        try realm.write { try realm.delete(realm.objects(CommonModels.Person.self)) }
        #expect(try frozen.thaw() == nil)
        #expect(!frozen.isInvalidated, "the frozen value still reads its version")
    }

    @Test func testAThawedRealmOpenedEarlierMovesUpToTheFrozenVersion() throws {
        let (configuration, frozen) = try fixture()
        let thawedRealm = try frozen.realm!.thaw()
        let newer = try onAnotherThread {
            let writer = try Realm(configuration: configuration)
            try writer.write { try writer.add(CommonModels.Person(value: ["id": 2, "name": "Bo"])) }
            return try writer.object(ofType: CommonModels.Person.self, forPrimaryKey: 2)!.freeze()
        }
        // `thawedRealm` still reads the older version; thawing the newer value moves it up.
        #expect(thawedRealm.object(ofType: CommonModels.Person.self, forPrimaryKey: 2) == nil)
        let bo = try #require(try newer.thaw())
        #expect(bo.realm === thawedRealm && bo.name == "Bo")
    }

    @Test func testEachActorThawsIntoItsOwnRealm() async throws {
        let (_, frozen) = try fixture()
        let first = ThawingActor()
        let second = ThawingActor()
        let a = try await first.thawTwiceAndRename(frozen, to: "from first")
        let b = try await second.thawTwiceAndRename(frozen, to: "from second")
        #expect(a.sameRealm && b.sameRealm, "two thaws in one actor share a realm")
        #expect(a.realm != b.realm, "actors do not share realms")
        let realm = try Realm(configuration: frozen.frozenObject.realm!.configuration)
        #expect(realm.object(ofType: CommonModels.Person.self, forPrimaryKey: 1)?.name == "from second")
    }
}

/// Thaws in its own isolation and reports what it saw.
private actor ThawingActor {
    private var kept: [CommonModels.Person] = []

    func thawTwiceAndRename(_ frozen: Frozen<CommonModels.Person>, to name: String) throws -> (sameRealm: Bool, realm: ObjectIdentifier) {
        let person = try #require(try frozen.thaw())
        let realm = try frozen.realm!.thaw()
        let thawedAgain = try frozen.thaw()
        let sameRealm = person.realm === realm && thawedAgain?.realm === realm
        try realm.write { person.name = name }
        kept.append(person)  // keeps the realm alive until the actor goes
        return (sameRealm, ObjectIdentifier(realm))
    }
}
