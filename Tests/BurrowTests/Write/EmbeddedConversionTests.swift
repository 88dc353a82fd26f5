import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// The models of `EmbeddedConversionTests`, stored under the names they had before they were namespaced.
enum EmbeddedConversionModels {
    final class Inner: EmbeddedObject {
        override class func _realmObjectName() -> String? { "ShareInner" }
        @Persisted var n = 0
    }

    /// Release 1's tag: an object of its own, which several holders may link to.
    final class TagV1: Object {
        override class func _realmObjectName() -> String? { "ShareTag" }
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted var name = ""
        @Persisted var inner: EmbeddedConversionModels.Inner?
        @Persisted var inners: List<EmbeddedConversionModels.Inner>
        @Persisted var innerMap: Map<String, EmbeddedConversionModels.Inner?>
    }

    final class HolderV1: Object {
        override class func _realmObjectName() -> String? { "ShareHolder" }
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var tag: EmbeddedConversionModels.TagV1?
        @Persisted var tags: List<EmbeddedConversionModels.TagV1>
    }

    /// Release 2's tag: embedded in its holder.
    final class TagV2: EmbeddedObject {
        override class func _realmObjectName() -> String? { "ShareTag" }
        @Persisted var name = ""
        @Persisted var inner: EmbeddedConversionModels.Inner?
        @Persisted var inners: List<EmbeddedConversionModels.Inner>
        @Persisted var innerMap: Map<String, EmbeddedConversionModels.Inner?>
    }

    final class HolderV2: Object {
        override class func _realmObjectName() -> String? { "ShareHolder" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var tag: EmbeddedConversionModels.TagV2?
        @Persisted var tags: List<EmbeddedConversionModels.TagV2>
    }

    final class MapHolder: Object {
        override class func _realmObjectName() -> String? { "MapEmbedHolder" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var rooms: Map<String, EmbeddedConversionModels.Inner?>
    }
}

/// A class a migration makes embedded, as RealmSwift converts it: each object gets exactly one
/// parent.
@Suite(.temporaryDirectory) struct EmbeddedConversionTests {
    @Test func anObjectSeveralPlacesLinkToIsCopiedIntoEachWithWhatItEmbeds() throws {
        var v1 = temporaryConfiguration()
        v1.objectTypes = [EmbeddedConversionModels.HolderV1.self, EmbeddedConversionModels.TagV1.self, EmbeddedConversionModels.Inner.self]
        do {
            let realm = try Realm(configuration: v1)
            try realm.write {
                let tag = EmbeddedConversionModels.TagV1(value: [
                    "name": "shared", "inner": ["n": 1], "inners": [["n": 2], ["n": 3]], "innerMap": ["k": ["n": 4]],
                ])
                try realm.add(EmbeddedConversionModels.HolderV1(value: ["id": 1, "tag": tag]))
                try realm.add(
                    EmbeddedConversionModels.HolderV1(value: [
                        "id": 2, "tag": tag, "tags": [tag, EmbeddedConversionModels.TagV1(value: ["name": "own"])],
                    ]))
                try realm.add(EmbeddedConversionModels.TagV1(value: ["name": "nobody's"]))
            }
        }
        var v2 = v1
        v2.objectTypes = [EmbeddedConversionModels.HolderV2.self, EmbeddedConversionModels.TagV2.self, EmbeddedConversionModels.Inner.self]
        v2.schemaVersion = 1
        let realm = try Realm(configuration: v2)
        let holders = realm.objects(EmbeddedConversionModels.HolderV2.self).sorted(byKeyPath: "id")
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

/// An embedded object in a map lives only there: replacing or removing it deletes it.
@Suite(.temporaryDirectory) struct EmbeddedInMapTests {
    @Test func anEmbeddedObjectReplacedOrRemovedInAMapIsDeleted() throws {
        var config = temporaryConfiguration()
        config.objectTypes = [EmbeddedConversionModels.MapHolder.self, EmbeddedConversionModels.Inner.self]
        let realm = try Realm(configuration: config)
        let holder = EmbeddedConversionModels.MapHolder(value: ["id": 1, "rooms": ["a": ["n": 1], "b": ["n": 2]]])
        try realm.write { try realm.add(holder) }
        try realm.write {
            holder.rooms["a"] = EmbeddedConversionModels.Inner(value: ["n": 10])
            holder.rooms.removeObject(for: "b")
        }
        #expect(holder.rooms["a"]??.n == 10 && holder.rooms.count == 1)
        #expect(realm.dynamicObjects("ShareInner").count == 1, "the replaced and the removed one went")
        let findings = try ObjectVerifier.verify(realm.storage.snapshot()).findings.map(\.description)
        #expect(findings == [])
    }
}
