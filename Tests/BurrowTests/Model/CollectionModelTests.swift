import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// The model of `CollectionModelTests`.
enum CollectionModels {
    final class Playlist: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var tracks: List<Int>
        @Persisted var songs: List<CommonModels.DogToy>
        @Persisted var tags: MutableSet<String>
        @Persisted var ratings: Map<String, Int>
    }
}

/// Lists, sets and maps of managed objects checked against Swift arrays, sets and dictionaries
/// through random operations, with the file verified afterwards.
@Suite(.temporaryDirectory) struct CollectionModelTests {
    private var operations: Int { TestEnvironment.count("BURROW_COLLECTION_OPS", default: 3_000) }

    @Test func testListMatchesAnArrayThroughRandomEdits() throws {
        let seed = TestSeed.make("CollectionModelTests.testListMatchesAnArrayThroughRandomEdits")
        var random = TestRandom(seed: seed)
        let config = temporaryConfiguration()
        let realm = try Realm(configuration: config)
        let playlist = CollectionModels.Playlist(value: ["id": 1])
        let other = CollectionModels.Playlist(value: ["id": 2, "tracks": [7, 8, 9]])
        try realm.write {
            try realm.add(playlist)
            try realm.add(other)
        }
        var model: [Int] = []
        try realm.write {
            for _ in 0..<operations {
                switch random.next(upperBound: 10) {
                case 0..<4:
                    let value = random.next(upperBound: 1_000_000)
                    playlist.tracks.append(value)
                    model.append(value)
                case 4..<6:
                    let value = random.next(upperBound: 1_000_000)
                    let index = random.next(upperBound: model.count + 1)
                    playlist.tracks.insert(value, at: index)
                    model.insert(value, at: index)
                case 6..<8 where !model.isEmpty:
                    let index = random.next(upperBound: model.count)
                    #expect(playlist.tracks.remove(at: index) == model.remove(at: index), "seed \(seed)")
                case 8 where !model.isEmpty:
                    let index = random.next(upperBound: model.count)
                    let value = random.next(upperBound: 1_000_000)
                    playlist.tracks[index] = value
                    model[index] = value
                default:
                    // Many insertions at one spot exhaust the gaps and force a renumbering.
                    for _ in 0..<30 {
                        playlist.tracks.insert(-1, at: min(1, model.count))
                        model.insert(-1, at: min(1, model.count))
                    }
                }
            }
            #expect(playlist.tracks.count == model.count, "seed \(seed)")
            for _ in 0..<200 where !model.isEmpty {
                let index = random.next(upperBound: model.count)
                #expect(playlist.tracks[index] == model[index], "seed \(seed)")
            }
        }
        #expect(Array(playlist.tracks) == model, "seed \(seed)")
        #expect(Array(other.tracks) == [7, 8, 9], "a neighbour's list is untouched, seed \(seed)")
        let reopened = try Realm(configuration: config)
        #expect(Array(reopened.object(ofType: CollectionModels.Playlist.self, forPrimaryKey: 1)!.tracks) == model, "seed \(seed)")
        _ = try realm.storage.snapshot().verify()
        let objectFindings = try ObjectVerifier.verify(realm.storage.snapshot()).findings.map(\.description)
        #expect(objectFindings == [])
    }

    @Test func testListOfObjectsKeepsBacklinksAndLosesDeletedObjects() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        let playlist = CollectionModels.Playlist(value: ["id": 1, "songs": [["name": "a"], ["name": "b"], ["name": "c"]]])
        try realm.write { try realm.add(playlist) }
        let b = playlist.songs[1]
        try realm.write {
            playlist.songs.append(b)  // twice in one list
            playlist.songs.move(from: 0, to: 3)
        }
        #expect(playlist.songs.map(\.name) == ["b", "c", "b", "a"])
        try realm.write { try realm.delete(b) }
        #expect(playlist.songs.map(\.name) == ["c", "a"])
        try realm.write { playlist.songs.swapAt(0, 1) }
        #expect(playlist.songs.map(\.name) == ["a", "c"])
        try realm.write { playlist.songs.removeAll() }
        #expect(playlist.songs.isEmpty)
        #expect(realm.objects(CommonModels.DogToy.self).count == 2, "removing from a list does not delete the object")
        _ = try realm.storage.snapshot().verify()
        let objectFindings = try ObjectVerifier.verify(realm.storage.snapshot()).findings.map(\.description)
        #expect(objectFindings == [])
    }

    @Test func testSetAndMapMatchSwiftCollections() throws {
        let seed = TestSeed.make("CollectionModelTests.testSetAndMapMatchSwiftCollections")
        var random = TestRandom(seed: seed)
        let realm = try Realm(configuration: temporaryConfiguration())
        let playlist = CollectionModels.Playlist(value: ["id": 1])
        try realm.write { try realm.add(playlist) }
        var tags = Set<String>()
        var ratings: [String: Int] = [:]
        try realm.write {
            for _ in 0..<operations {
                let key = "k\(random.next(upperBound: 300))"
                switch random.next(upperBound: 4) {
                case 0:
                    playlist.tags.insert(key)
                    tags.insert(key)
                case 1:
                    playlist.tags.remove(key)
                    tags.remove(key)
                case 2:
                    let value = random.next(upperBound: 100)
                    playlist.ratings[key] = value
                    ratings[key] = value
                default:
                    playlist.ratings.removeObject(for: key)
                    ratings[key] = nil
                }
            }
        }
        #expect(playlist.tags.count == tags.count, "seed \(seed)")
        #expect(Set(playlist.tags) == tags, "seed \(seed)")
        #expect(tags.allSatisfy { playlist.tags.contains($0) }, "seed \(seed)")
        #expect(playlist.ratings.count == ratings.count, "seed \(seed)")
        #expect(Dictionary(uniqueKeysWithValues: playlist.ratings.map { ($0.key, $0.value) }) == ratings, "seed \(seed)")
        #expect(playlist.ratings.keys == ratings.keys.sorted(), "seed \(seed)")
        _ = try realm.storage.snapshot().verify()
        let objectFindings = try ObjectVerifier.verify(realm.storage.snapshot()).findings.map(\.description)
        #expect(objectFindings == [])
    }
}

@Suite(.temporaryDirectory) struct ListKeyValueCodingTests {
    @Test func testSetValueOnAListUpdatesEveryObjectInIt() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        let playlist = CollectionModels.Playlist(value: ["id": 1, "songs": [["name": "a"], ["name": "b"]]])
        let outside = CommonModels.DogToy(value: ["name": "c"])
        try realm.write {
            try realm.add(playlist)
            try realm.add(outside)
            playlist.songs.setValue("same", forKey: "name")
        }
        #expect(playlist.songs.map(\.name) == ["same", "same"])
        #expect(outside.name == "c", "objects outside the list are untouched")
    }
}
