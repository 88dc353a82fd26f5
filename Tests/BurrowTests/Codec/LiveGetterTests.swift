import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// The model of `LiveGetterTests`, stored under the name it had before it was namespaced.
enum LiveGetterModels {
    final class Item: Object {
        override class func _realmObjectName() -> String? { "RowReadItem" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var title = ""
        @Persisted var small: Int8 = 0
        @Persisted var count = 0
    }
}

/// The getters of integers and strings, which decode a live object's row directly, agree with
/// the general path wherever it is taken instead, and follow the realm's version and its writes.
@Suite(.temporaryDirectory) struct LiveGetterTests {
    @Test func liveGettersFollowTheRealmsVersionAndItsWrites() throws {
        let config = temporaryConfiguration()
        let realm = try Realm(configuration: config)
        let long = String(repeating: "long title ", count: 1_000)
        try realm.write {
            try realm.add(LiveGetterModels.Item(value: ["id": 1, "title": "first", "small": -3, "count": 10]))
            try realm.add(LiveGetterModels.Item(value: ["id": 2, "title": long, "small": 127, "count": Int.min]))
        }
        let item = try #require(realm.object(ofType: LiveGetterModels.Item.self, forPrimaryKey: 1))
        let other = try #require(realm.object(ofType: LiveGetterModels.Item.self, forPrimaryKey: 2))
        #expect(item.title == "first" && item.small == -3 && item.count == 10)
        #expect(other.title == long, "a string kept in the blob tree is read through the general path")
        #expect(other.small == 127 && other.count == Int.min)

        // In a write transaction the getters see the transaction's own changes.
        try realm.write {
            item.title = "second"
            item.count += 1
            #expect(item.title == "second" && item.count == 11)
        }
        #expect(item.title == "second" && item.count == 11)

        // A change made by another realm is seen once this realm moves to it.
        try onAnotherThread {
            let writer = try Realm(configuration: config)
            try writer.write {
                let same = try #require(writer.object(ofType: LiveGetterModels.Item.self, forPrimaryKey: 1))
                same.title = "from elsewhere"
                same.small = 5
            }
        }
        #expect(item.title == "second", "the realm still reads its version")
        realm.refresh()
        #expect(item.title == "from elsewhere" && item.small == 5 && item.count == 11)

        let frozen = try item.freeze()
        try realm.write { item.title = "after the freeze" }
        #expect(frozen.title == "from elsewhere" && frozen.count == 11)
        #expect(item.title == "after the freeze")

        try realm.write { try realm.delete(other) }
        #expect(other.isInvalidated)
    }
}
