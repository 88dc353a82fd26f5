import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// `freeze()` of `List`, `MutableSet`, `Map` and `LinkingObjects`: each frozen collection is
/// checked against a Swift model of what the live collection held when it was frozen, after
/// later writes changed the live one, and from detached tasks.
@Suite(.temporaryDirectory) struct FrozenCollectionTests {
    /// A new file with every class these tests use. Naming them keeps each stored class name
    /// bound to these classes: other suites store other classes under "Dog" and "Person".
    private func configuration() -> Realm.Configuration {
        var config = temporaryConfiguration()
        config.objectTypes = [
            CollectionModels.Playlist.self, CommonModels.DogToy.self, CommonModels.Dog.self, CommonModels.Person.self, CommonModels.Address.self,
            QueryTestModels.Tag.self, QueryTestModels.Shelf.self, QueryMapOfObjectsModels.TagMap.self, QueryTestModels.Item.self,
        ]
        return config
    }

    private var rounds: Int { max(10, TestEnvironment.count("BURROW_COLLECTION_OPS", default: 3_000) / 50) }

    /// What a frozen snapshot must hold: the model's contents when it was taken.
    private struct Snapshot: Sendable {
        let tracks: FrozenList<Int>
        let songs: FrozenList<CommonModels.DogToy>
        let tags: FrozenMutableSet<String>
        let ratings: FrozenMap<String, Int>
        let expectedTracks: [Int]
        let expectedSongs: [String]
        let expectedTags: Set<String>
        let expectedRatings: [String: Int]

        /// Everything that differs from the model, described (empty if the snapshot matches).
        func mismatches() -> [String] {
            var found: [String] = []
            if Array(tracks) != expectedTracks { found.append("tracks \(Array(tracks)) != \(expectedTracks)") }
            if tracks.count != expectedTracks.count { found.append("tracks.count \(tracks.count)") }
            for (i, value) in expectedTracks.enumerated() where tracks[i] != value { found.append("tracks[\(i)]") }
            if songs.map(\.name) != expectedSongs { found.append("songs \(songs.map(\.name)) != \(expectedSongs)") }
            if !songs.allSatisfy(\.isFrozen) { found.append("a song is not frozen") }
            if Set(tags) != expectedTags || tags.count != expectedTags.count { found.append("tags \(Array(tags)) != \(expectedTags)") }
            for tag in expectedTags where !tags.contains(tag) { found.append("tags lacks \(tag)") }
            if tags.contains("never") { found.append("tags contains a tag never inserted") }
            if Dictionary(uniqueKeysWithValues: ratings.map { ($0.key, $0.value) }) != expectedRatings || ratings.count != expectedRatings.count {
                found.append("ratings \(Array(ratings)) != \(expectedRatings)")
            }
            for (key, value) in expectedRatings where ratings[key] != value { found.append("ratings[\(key)]") }
            if ratings.keys != expectedRatings.keys.sorted() { found.append("ratings.keys out of order") }
            if !(tracks.isFrozen && songs.isFrozen && tags.isFrozen && ratings.isFrozen) { found.append("isFrozen") }
            return found
        }
    }

    @Test func testFrozenCollectionsKeepTheirVersionThroughRandomWrites() async throws {
        let seed = TestSeed.make("FrozenCollectionTests")
        var random = TestRandom(seed: seed)
        let realm = try Realm(configuration: configuration())
        let playlist = CollectionModels.Playlist(value: ["id": 1])
        try realm.write { try realm.add(playlist) }
        var tracks: [Int] = []
        var songs: [String] = []
        var tags: Set<String> = []
        var ratings: [String: Int] = [:]
        var snapshots: [Snapshot] = []
        for round in 0..<rounds {
            try realm.write {
                for _ in 0..<(1 + random.next(upperBound: 6)) {
                    let operation = random.next(upperBound: 9)
                    switch operation {
                    case 0:
                        let value = random.next(upperBound: 1000)
                        let index = random.next(upperBound: tracks.count + 1)
                        playlist.tracks.insert(value, at: index)
                        tracks.insert(value, at: index)
                    case 1, 2:
                        randomlyRemoveOrMove(in: playlist.tracks, mirror: &tracks, moving: operation == 2, random: &random)
                    case 3:
                        let name = "song \(round)-\(random.next(upperBound: 100))"
                        let index = random.next(upperBound: songs.count + 1)
                        playlist.songs.insert(CommonModels.DogToy(value: ["name": name]), at: index)
                        songs.insert(name, at: index)
                    case 4 where !songs.isEmpty:
                        let index = random.next(upperBound: songs.count)
                        playlist.songs.remove(at: index)
                        songs.remove(at: index)
                    case 5 where !songs.isEmpty:
                        // A song renamed: the frozen lists keep the old name.
                        let index = random.next(upperBound: songs.count)
                        playlist.songs[index].name += "'"
                        songs[index] += "'"
                    case 6:
                        let tag = "t\(random.next(upperBound: 20))"
                        if random.next(upperBound: 2) == 0 {
                            playlist.tags.insert(tag)
                            tags.insert(tag)
                        } else {
                            playlist.tags.remove(tag)
                            tags.remove(tag)
                        }
                    case 7:
                        let key = "k\(random.next(upperBound: 20))"
                        let value = random.next(upperBound: 5)
                        playlist.ratings[key] = value
                        ratings[key] = value
                    default:
                        let key = "k\(random.next(upperBound: 20))"
                        playlist.ratings.removeObject(for: key)
                        ratings[key] = nil
                    }
                }
            }
            snapshots.append(
                Snapshot(
                    tracks: try playlist.tracks.freeze(), songs: try playlist.songs.freeze(), tags: try playlist.tags.freeze(),
                    ratings: try playlist.ratings.freeze(),
                    expectedTracks: tracks, expectedSongs: songs, expectedTags: tags, expectedRatings: ratings))
        }
        // Every snapshot still holds its own version after all the later writes…
        for (round, snapshot) in snapshots.enumerated() {
            #expect(snapshot.mismatches() == [], "round \(round), seed \(seed)")
        }
        #expect(snapshots.map(\.tracks.versionNumber) == snapshots.map(\.tracks.versionNumber).sorted())
        // …and reads the same from detached tasks, while the live collections keep changing.
        let frozen = snapshots
        let readers = (0..<4).map { _ in Task.detached { frozen.flatMap { $0.mismatches() } } }
        for i in 0..<10 {
            try realm.write {
                playlist.tracks.removeAll()
                playlist.songs.append(CommonModels.DogToy(value: ["name": "late \(i)"]))
                playlist.tags.removeAll()
                playlist.ratings["late"] = i
            }
        }
        for reader in readers {
            #expect(await reader.value == [], "seed \(seed)")
        }
        #expect(Array(playlist.tracks) == [] && playlist.ratings["late"] == 9, "the live collections moved on")
        _ = try realm.storage.snapshot().verify()
    }

    @Test func testFrozenLinkingObjectsKeepTheirVersion() async throws {
        let realm = try Realm(configuration: configuration())
        let rex = CommonModels.Dog(value: ["name": "Rex"])
        try realm.write { try realm.add(CommonModels.Person(value: ["id": 1, "name": "Ali", "dogs": [rex]])) }
        let owners: FrozenLinkingObjects<CommonModels.Person> = try rex.owners.freeze()
        try realm.write {
            try realm.add(CommonModels.Person(value: ["id": 2, "name": "Bo", "dogs": [rex]]))
            realm.object(ofType: CommonModels.Person.self, forPrimaryKey: 1)!.name = "Ali II"
        }
        #expect(owners.map(\.name) == ["Ali"] && owners.count == 1 && owners.isFrozen)
        #expect(owners.propertyName == "dogs" && owners[0].isFrozen)
        #expect(await Task.detached { owners.map(\.name) }.value == ["Ali"])
        #expect(rex.owners.map(\.name).sorted() == ["Ali II", "Bo"])
        let later = try rex.owners.freeze()
        #expect(later.map(\.name).sorted() == ["Ali II", "Bo"] && later.versionNumber > owners.versionNumber)
    }

    @Test func testAFrozenListOfObjectsYieldsFrozenObjectsOfItsVersion() throws {
        let realm = try Realm(configuration: configuration())
        let ali = CommonModels.Person(value: [
            "id": 1, "dogs": [["name": "Rex", "age": 1], ["name": "Fido", "age": 2], ["name": "Rex", "age": 3]],
        ])
        try realm.write { try realm.add(ali) }
        let dogs = try ali.dogs.freeze()
        try realm.write {
            ali.dogs.swapAt(0, 2)
            ali.dogs[1].age = 20
        }
        #expect(dogs.map(\.age) == [1, 2, 3], "order and values of the frozen version")
        let second: Frozen<CommonModels.Dog> = try dogs[1].freeze()
        #expect(second.age == 2 && second.versionNumber == dogs.versionNumber, "an element freezes to its own version")
        #expect(dogs.description.hasPrefix("FrozenList<Dog> <0x"), "\(dogs.description)")
        #expect(dogs.description.contains("[2] Dog {\n\t\t_id = "), "\(dogs.description)")
        // A list read through a frozen owner freezes at that owner's version.
        let frozenAli = try ali.freeze()
        try realm.write { ali.dogs.removeAll() }
        let viaOwner = try frozenAli.dogs.freeze()
        #expect(viaOwner.versionNumber == frozenAli.versionNumber && viaOwner.map(\.age) == [3, 20, 1])
    }

    // MARK: Queries

    @Test func testQueriesOnFrozenCollectionsOfObjectsRunInTheirVersion() throws {
        let realm = try Realm(configuration: configuration())
        let ali = CommonModels.Person(value: [
            "id": 1, "dogs": [["name": "Rex", "age": 1], ["name": "Ace", "age": 4], ["name": "Fido", "age": 2]],
        ])
        let red = QueryTestModels.Tag(value: ["id": 1, "label": "red", "weight": 3])
        let blue = QueryTestModels.Tag(value: ["id": 2, "label": "blue", "weight": 1])
        let shelf = QueryTestModels.Shelf(value: ["tags": [red, blue]])
        let map = QueryMapOfObjectsModels.TagMap(value: ["id": 1, "byName": ["r": red, "b": blue]])
        let item = QueryTestModels.Item(value: ["id": 1, "name": "item", "links": [red]])
        try realm.write {
            try realm.add(ali)
            try realm.add(shelf)
            try realm.add(map)
            map.byName.updateValue(nil, forKey: "none")
            try realm.add(item)
        }
        let dogs = try ali.dogs.freeze()
        let tags = try shelf.tags.freeze()
        let byName = try map.byName.freeze()
        let redOwners = try red.owners.freeze()
        try realm.write {
            for dog in ali.dogs { dog.age += 10 }
            ali.dogs.removeAll()
            red.weight = 0
            shelf.tags.remove(blue)
            map.byName["b"] = nil
            try realm.add(QueryTestModels.Item(value: ["id": 2, "name": "later", "links": [red]]))
        }
        // Each query sees the collection, and its objects, as they were when it was frozen.
        #expect(dogs.where { $0.age < 3 }.map(\.name) == ["Rex", "Fido"], "in list order")
        #expect(try dogs.filter("age > %@", 1).map(\.name) == ["Ace", "Fido"])
        #expect(dogs.sorted(byKeyPath: "age", ascending: false).map(\.name) == ["Ace", "Fido", "Rex"])
        #expect(dogs.sum(ofProperty: "age") as Int == 7 && dogs.max(ofProperty: "age") as Int? == 4)
        #expect(dogs.distinct(by: ["age"]).count == 3)
        #expect(dogs.where { $0.age < 3 }.versionNumber == dogs.versionNumber)
        #expect(tags.where { $0.weight > 2 }.map(\.label) == ["red"] && tags.sum(ofProperty: "weight") as Int == 4)
        #expect(byName.sorted(byKeyPath: "weight").map(\.label) == ["blue", "red"], "nil values left out")
        #expect(try redOwners.where { $0.name == "item" }.count == 1 && redOwners.filter("name == 'later'").isEmpty)
        // The live collections have moved on.
        #expect(ali.dogs.where { $0.age < 3 }.isEmpty && shelf.tags.where { $0.weight > 2 }.isEmpty)
        let badQuery = #expect(throws: RealmError.self) { _ = try dogs.filter("agee > 1") }
        #expect(badQuery?.code == .invalidArgument)
    }

    // MARK: Thawing

    @Test func testThawGivesTheLiveCollectionOrNilOnceItsObjectIsDeleted() async throws {
        let realm = try Realm(configuration: configuration())
        let playlist = CollectionModels.Playlist(value: ["id": 1, "tracks": [1, 2], "tags": ["a"], "ratings": ["x": 1]])
        let rex = CommonModels.Dog(value: ["name": "Rex"])
        try realm.write {
            try realm.add(playlist)
            try realm.add(CommonModels.Person(value: ["id": 1, "dogs": [rex]]))
        }
        let tracks = try playlist.tracks.freeze()
        let tags = try playlist.tags.freeze()
        let ratings = try playlist.ratings.freeze()
        let owners = try rex.owners.freeze()
        try realm.write {
            playlist.tracks.append(3)
            playlist.tags.insert("b")
            playlist.ratings["y"] = 2
        }
        let liveTracks = try #require(realm.thaw(tracks))
        #expect(Array(liveTracks) == [1, 2, 3] && !liveTracks.isFrozen && liveTracks.realm === realm)
        #expect(realm.thaw(tags).map { Set($0) } == ["a", "b"])
        #expect(realm.thaw(ratings)?.keys == ["x", "y"])
        #expect(realm.thaw(owners)?.count == 1)
        try realm.write { realm.thaw(tracks)?.append(4) }
        #expect(Array(playlist.tracks) == [1, 2, 3, 4], "the thawed list is the live one")
        // thaw() picks the realm of the caller's isolation (here, a detached task's thread).
        let thawed = await Task.detached { try? tracks.thaw().map { Array($0) } }.value
        #expect(thawed == [1, 2, 3, 4])
        #expect(try tags.thaw()?.count == 2 && ratings.thaw()?["y"] == 2 && owners.thaw()?.first?.isFrozen == false)
        // Another file's realm has no such list.
        #expect(try Realm(configuration: temporaryConfiguration()).thaw(tracks) == nil)
        try realm.write {
            try realm.delete(playlist)
            try realm.deleteAll()
        }
        #expect(realm.thaw(tracks) == nil && realm.thaw(tags) == nil && realm.thaw(ratings) == nil && realm.thaw(owners) == nil)
        #expect(Array(tracks) == [1, 2] && tags.count == 1, "the frozen values still read their version")
    }

    // MARK: What cannot be frozen

    @Test func testFreezingAnUnmanagedDeletedOrUncommittedCollectionThrows() throws {
        let unmanaged = #expect(throws: RealmError.self) { _ = try List<Int>().freeze() }
        #expect(unmanaged?.code == .invalidObject && unmanaged?.description.contains("managed object") == true)
        #expect((#expect(throws: RealmError.self) { _ = try MutableSet<Int>().freeze() })?.code == .invalidObject)
        #expect((#expect(throws: RealmError.self) { _ = try Map<String, Int>().freeze() })?.code == .invalidObject)
        #expect((#expect(throws: RealmError.self) { _ = try CommonModels.Dog().owners.freeze() })?.code == .invalidObject)
        #expect((#expect(throws: RealmError.self) { _ = try CollectionModels.Playlist().tracks.freeze() })?.code == .invalidObject)

        let realm = try Realm(configuration: configuration())
        let playlist = CollectionModels.Playlist(value: ["id": 1, "tracks": [1]])
        try realm.write {
            try realm.add(playlist)
            let inWrite = #expect(throws: RealmError.self) { _ = try playlist.tracks.freeze() }
            #expect(inWrite?.code == .wrongState)
        }
        let tracks = playlist.tracks
        try realm.write { try realm.delete(playlist) }
        let deleted = #expect(throws: RealmError.self) { _ = try tracks.freeze() }
        #expect(deleted?.code == .invalidObject && deleted?.description.contains("deleted") == true)
    }

    // MARK: Identifiable

    @Test func testFrozenObjectKeyIdentifiableObjectsAreIdentifiableAcrossVersions() throws {
        let realm = try Realm(configuration: configuration())
        let rex = CommonModels.Dog(value: ["name": "Rex"])
        let fido = CommonModels.Dog(value: ["name": "Fido"])
        try realm.write {
            try realm.add(rex)
            try realm.add(fido)
        }
        let before = try realm.objects(CommonModels.Dog.self).freeze()
        try realm.write { rex.age = 5 }
        let after = try realm.objects(CommonModels.Dog.self).freeze()
        func ids<C: Collection>(_ items: C) -> [C.Element.ID] where C.Element: Identifiable { items.map(\.id) }
        #expect(ids(before) == [rex.id, fido.id], "the object's own id")
        #expect(ids(after) == ids(before), "the same at every version")
        #expect(before[0] != after[0], "while equality tells the versions apart")
        #expect(Set(ids(before)).count == 2)
    }
}
