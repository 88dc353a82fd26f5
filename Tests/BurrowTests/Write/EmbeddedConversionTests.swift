import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

final class ShareInner: EmbeddedObject {
    @Persisted var n = 0
}

/// Release 1's tag: an object of its own, which several holders may link to.
final class ShareTagV1: Object {
    override class func _realmObjectName() -> String? { "ShareTag" }
    override class func shouldIncludeInDefaultSchema() -> Bool { false }
    @Persisted var name = ""
    @Persisted var inner: ShareInner?
    @Persisted var inners: List<ShareInner>
    @Persisted var innerMap: Map<String, ShareInner?>
}

final class ShareHolderV1: Object {
    override class func _realmObjectName() -> String? { "ShareHolder" }
    override class func shouldIncludeInDefaultSchema() -> Bool { false }
    @Persisted(primaryKey: true) var id = 0
    @Persisted var tag: ShareTagV1?
    @Persisted var tags: List<ShareTagV1>
}

/// Release 2's tag: embedded in its holder.
final class ShareTagV2: EmbeddedObject {
    override class func _realmObjectName() -> String? { "ShareTag" }
    @Persisted var name = ""
    @Persisted var inner: ShareInner?
    @Persisted var inners: List<ShareInner>
    @Persisted var innerMap: Map<String, ShareInner?>
}

final class ShareHolderV2: Object {
    override class func _realmObjectName() -> String? { "ShareHolder" }
    @Persisted(primaryKey: true) var id = 0
    @Persisted var tag: ShareTagV2?
    @Persisted var tags: List<ShareTagV2>
}

/// A class a migration makes embedded, as RealmSwift converts it: each object gets exactly one
/// parent.
@Suite(.temporaryDirectory) struct EmbeddedConversionTests {
    @Test func anObjectSeveralPlacesLinkToIsCopiedIntoEachWithWhatItEmbeds() throws {
        var v1 = temporaryConfiguration()
        v1.objectTypes = [ShareHolderV1.self, ShareTagV1.self, ShareInner.self]
        do {
            let realm = try Realm(configuration: v1)
            try realm.write {
                let tag = ShareTagV1(value: [
                    "name": "shared", "inner": ["n": 1], "inners": [["n": 2], ["n": 3]], "innerMap": ["k": ["n": 4]],
                ])
                try realm.add(ShareHolderV1(value: ["id": 1, "tag": tag]))
                try realm.add(ShareHolderV1(value: ["id": 2, "tag": tag, "tags": [tag, ShareTagV1(value: ["name": "own"])]]))
                try realm.add(ShareTagV1(value: ["name": "nobody's"]))
            }
        }
        var v2 = v1
        v2.objectTypes = [ShareHolderV2.self, ShareTagV2.self, ShareInner.self]
        v2.schemaVersion = 1
        let realm = try Realm(configuration: v2)
        let holders = realm.objects(ShareHolderV2.self).sorted(byKeyPath: "id")
        let tags = [holders[0].tag, holders[1].tag, holders[1].tags[0]].compactMap { $0 }
        #expect(tags.count == 3)
        for tag in tags {
            #expect(tag.name == "shared" && tag.inner?.n == 1 && tag.inners.map(\.n) == [2, 3] && tag.innerMap["k"]??.n == 4)
        }
        #expect(Set(tags.map(\.objectKeyIdentity)).count == 3, "three objects, one per parent")
        #expect(holders[1].tags.map(\.name) == ["shared", "own"])
        #expect(realm.dynamicObjects("ShareTag").count == 4, "the one nobody linked to went")
        #expect(realm.dynamicObjects("ShareTag").filter { ($0["name"] as? String) == "nobody's" }.isEmpty)
        let findings = try ObjectVerifier.verify(realm.storage.snapshot()).findings.map(\.description)
        #expect(findings == [])
        // Each copy is its parent's: changing one changes no other.
        try realm.write { holders[0].tag?.inners[0].n = 20 }
        #expect(holders[1].tag?.inners[0].n == 2 && holders[1].tags[0].inners[0].n == 2)
    }
}

final class MapEmbedHolder: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var rooms: Map<String, ShareInner?>
}

/// An embedded object in a map lives only there: replacing or removing it deletes it.
@Suite(.temporaryDirectory) struct EmbeddedInMapTests {
    @Test func anEmbeddedObjectReplacedOrRemovedInAMapIsDeleted() throws {
        var config = temporaryConfiguration()
        config.objectTypes = [MapEmbedHolder.self, ShareInner.self]
        let realm = try Realm(configuration: config)
        let holder = MapEmbedHolder(value: ["id": 1, "rooms": ["a": ["n": 1], "b": ["n": 2]]])
        try realm.write { try realm.add(holder) }
        try realm.write {
            holder.rooms["a"] = ShareInner(value: ["n": 10])
            holder.rooms.removeObject(for: "b")
        }
        #expect(holder.rooms["a"]??.n == 10 && holder.rooms.count == 1)
        #expect(realm.dynamicObjects("ShareInner").count == 1, "the replaced and the removed one went")
        let findings = try ObjectVerifier.verify(realm.storage.snapshot()).findings.map(\.description)
        #expect(findings == [])
    }
}
