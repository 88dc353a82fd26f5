import Burrow
import BurrowTestTraits
import Foundation
import Testing

/// The models of the collection conformance tests, stored under the names they had before they were namespaced.
enum CollectionConformanceModels {
    final class Dog: Object {
        override class func _realmObjectName() -> String? { "ConfDog" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted(indexed: true) var name = ""
        @Persisted var age = 0
        @Persisted var group = ""
        @Persisted(originProperty: "dogs") var owners: LinkingObjects<CollectionConformanceModels.Owner>
    }

    final class Owner: Object {
        override class func _realmObjectName() -> String? { "ConfOwner" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var dogs: List<CollectionConformanceModels.Dog>
        @Persisted var scores: List<Int>
        @Persisted var tags: MutableSet<String>
        @Persisted var pals: MutableSet<CollectionConformanceModels.Dog>
        @Persisted var ratings: Map<String, Int>
    }

    final class DogProjection: Projection<CollectionConformanceModels.Dog> {
        @Projected(\CollectionConformanceModels.Dog.name) var title
    }
}

// `Results` has its own `first` (an index probe before it is evaluated) and `map`; `List` and
// `MutableSet` their own `map` (one scan): the checkers reach them through these.
extension Results: OwnCollectionMembers {
    var ownFirst: Any? { first.map { $0 } }
    var ownLast: Any? { last.map { $0 } }
    var ownMapped: [Any] { map { $0 } }
}

extension List: OwnCollectionMembers {
    var ownFirst: Any? { first.map { $0 } }
    var ownLast: Any? { last.map { $0 } }
    var ownMapped: [Any] { map { $0 } }
}

extension MutableSet: OwnCollectionMembers {
    var ownFirst: Any? { first.map { $0 } }
    var ownLast: Any? { last.map { $0 } }
    var ownMapped: [Any] { map { $0 } }
}

/// Every public collection type of Burrow, run through the conformance checkers of
/// `CollectionConformance.swift`: `Results` (of a class, filtered, sorted, deduplicated, of a
/// list, in a write transaction, projected), `List`, `MutableSet` and `LinkingObjects` (managed
/// and unmanaged), `AnyRealmCollection` over each, `SectionedResults` and its sections, the
/// frozen counterparts of each, and `Map` and `FrozenMap` (which are sequences only, as
/// RealmSwift's `Map` is), each with no, one and several elements.
@Suite(.temporaryDirectory) struct CollectionConformanceTests {
    /// The dogs a test stores: `count` of them, with names out of alphabetical order, ages with
    /// repeats, and groups of one, two and four dogs.
    struct Dogs {
        static let names = ["kit", "ash", "rex", "bo", "zed", "max", "fox"]
        static let ages = [3, 1, 4, 1, 5, 9, 2]
        let count: Int
        var ids: Range<Int> { 0..<count }
        var names: [String] { Array(Self.names.prefix(count)) }
        func age(_ id: Int) -> Int { Self.ages[id] }
        func name(_ id: Int) -> String { Self.names[id] }
        func group(_ id: Int) -> String { id == 0 ? "a" : id < 3 ? "b" : "c" }
        /// The names of the dogs `ids`, in that order.
        func names(_ ids: [Int]) -> [String] { ids.map(name) }
    }

    static let sizes = [0, 1, 7]

    /// A realm of only this suite's classes, holding `dogs` and one owner (id 0) whose list and
    /// set hold every dog, the list in reverse order of id.
    private func realm(with dogs: Dogs) throws -> (Realm, CollectionConformanceModels.Owner) {
        var config = temporaryConfiguration()
        config.objectTypes = [CollectionConformanceModels.Dog.self, CollectionConformanceModels.Owner.self]
        let realm = try Realm(configuration: config)
        let owner = CollectionConformanceModels.Owner(value: ["id": 0, "name": "owner"])
        try realm.write {
            for id in dogs.ids {
                let dog = CollectionConformanceModels.Dog(value: ["id": id, "name": dogs.name(id), "age": dogs.age(id), "group": dogs.group(id)])
                try realm.add(dog)
                owner.pals.insert(dog)
            }
            try realm.add(owner)
            for id in dogs.ids.reversed() { owner.dogs.append(realm.object(ofType: CollectionConformanceModels.Dog.self, forPrimaryKey: id)!) }
            for (offset, id) in dogs.ids.enumerated() {
                owner.scores.append(dogs.age(id) * 10 + offset)
                owner.tags.insert(dogs.name(id))
                owner.ratings[dogs.name(id)] = dogs.age(id)
            }
        }
        return (realm, owner)
    }

    // MARK: Results

    @Test(arguments: sizes) func results(count: Int) throws {
        let dogs = Dogs(count: count)
        let (realm, owner) = try realm(with: dogs)
        let all = Array(dogs.ids)
        let byName = all.sorted { dogs.name($0) < dogs.name($1) }
        let byAgeDescending = all.sorted { (dogs.age($0), dogs.name($1)) > (dogs.age($1), dogs.name($0)) }
        let olderThanTwo = all.filter { dogs.age($0) > 2 }
        var seenAges: Set<Int> = []
        let distinctAgesByName = byName.filter { seenAges.insert(dogs.age($0)).inserted }

        func checkEach() throws {
            checkRandomAccessCollection(realm.objects(CollectionConformanceModels.Dog.self), expectedContents: dogs.names(all), by: \.name)
            checkRandomAccessCollection(
                realm.objects(CollectionConformanceModels.Dog.self).sorted(byKeyPath: "name"), expectedContents: dogs.names(byName), by: \.name)
            checkRandomAccessCollection(
                realm.objects(CollectionConformanceModels.Dog.self).sorted(by: [
                    SortDescriptor(keyPath: "age", ascending: false), SortDescriptor(keyPath: "name"),
                ]),
                expectedContents: dogs.names(byAgeDescending), by: \.name)
            try checkRandomAccessCollection(
                try realm.objects(CollectionConformanceModels.Dog.self).filter("age > 2"), expectedContents: dogs.names(olderThanTwo), by: \.name)
            checkRandomAccessCollection(
                realm.objects(CollectionConformanceModels.Dog.self).sorted(byKeyPath: "name").distinct(by: ["age"]),
                expectedContents: dogs.names(distinctAgesByName),
                by: \.name
            )
            try checkRandomAccessCollection(try owner.dogs.filter("age >= 0"), expectedContents: dogs.names(all.reversed()), by: \.name)
            checkRandomAccessCollection(
                AnyRealmCollection(realm.objects(CollectionConformanceModels.Dog.self).sorted(byKeyPath: "name")),
                expectedContents: dogs.names(byName), by: \.name)
            checkRandomAccessCollection(realm.objects(CollectionConformanceModels.DogProjection.self), expectedContents: dogs.names(all), by: \.title)
            checkRandomAccessCollection(realm.dynamicObjects("ConfDog"), expectedContents: dogs.names(all), by: { $0["name"] as? String })
            try checkRandomAccessCollection(try owner.pals.filter("age >= 0"), expectedContents: dogs.names(all), by: \.name)
            try checkRandomAccessCollection(
                try realm.objects(CollectionConformanceModels.Dog.self).filter("age >= 0 SORT(name ASC) LIMIT(3)"),
                expectedContents: dogs.names(Array(byName.prefix(3))),
                by: \.name)
        }
        try checkEach()
        // In a write transaction results read no cached rows: the same checks, the other path.
        try realm.write { try checkEach() }
    }

    /// Results filtered by `==` on an indexed property answer `first` by probing the index
    /// before they are evaluated: the probe must find the object the evaluation puts first,
    /// among several with the value, and nothing when none has it.
    @Test func resultsFirstByIndexProbe() throws {
        let dogs = Dogs(count: 7)
        let (realm, _) = try realm(with: dogs)
        try realm.write {
            for id in [20, 12, 16] { try realm.add(CollectionConformanceModels.Dog(value: ["id": id, "name": "twin", "age": id])) }
        }
        // Unsorted results keep the order of the class's objects, whatever the order of adding.
        let twins = realm.objects(CollectionConformanceModels.Dog.self).map(\.id).filter { [20, 12, 16].contains($0) }
        #expect(Set(twins) == [20, 12, 16])
        try checkRandomAccessCollection(
            try realm.objects(CollectionConformanceModels.Dog.self).filter("name == 'twin'"), expectedContents: twins, by: \.id)
        try checkRandomAccessCollection(
            try realm.objects(CollectionConformanceModels.Dog.self).filter("name == %@", "rex"), expectedContents: [2], by: \.id)
        try checkRandomAccessCollection(
            try realm.objects(CollectionConformanceModels.Dog.self).filter("name == 'none'"), expectedContents: [], by: \.id)
        try checkRandomAccessCollection(try realm.objects(CollectionConformanceModels.Dog.self).filter("id == 16"), expectedContents: [16], by: \.id)
    }

    /// Live collections read before a change and held across it answer as collections of what
    /// the realm holds after it: inside the write transaction that made the change, and after
    /// its commit. A stale evaluation behind one requirement (`count`, `endIndex`, a subscript,
    /// iteration) and not another would show here.
    @Test func liveValuesHeldAcrossAChange() throws {
        let dogs = Dogs(count: 7)
        let (realm, owner) = try realm(with: dogs)
        let all = realm.objects(CollectionConformanceModels.Dog.self)
        let olderThanTwo = try all.filter("age > 2")
        let byName = all.sorted(byKeyPath: "name")
        let erased = AnyRealmCollection(byName)
        let sectioned = all.sectioned(by: \.group, sortDescriptors: [SortDescriptor(keyPath: "group"), SortDescriptor(keyPath: "name")])
        let groupB = sectioned[1]
        let groupC = sectioned[2]
        let amyByName = try all.filter("name == 'amy'")
        let firstThreeByName = try all.filter("TRUEPREDICATE SORT(name ASC) LIMIT(3)")
        let list = owner.dogs
        let listResults = try owner.dogs.filter("age > 0")
        let tags = owner.tags
        let pals = owner.pals
        let rexByName = try all.filter("name == 'rex'")
        let rexById = try all.filter("id == 2")
        let projected = realm.objects(CollectionConformanceModels.DogProjection.self)
        // Read each before the change, so that each holds what the change makes stale.
        _ = [
            all.count, olderThanTwo.count, byName.count, erased.count, sectioned.count, groupB.count, groupC.count, list.count, listResults.count,
            tags.count,
        ]
        _ = [amyByName.count, firstThreeByName.count, pals.count, rexByName.count, rexById.count]
        _ = [all.last?.name, olderThanTwo.last?.name, byName.last?.name, groupC.last?.name, list.last?.name, projected.last?.title]

        // The change: "rex" (2) deleted, "amy" (7) added, "ash" (1) older and moved to group c;
        // the list loses its first dog and gains "amy"; the tags lose "kit" and gain "amy".
        var model = dogs.ids.map { (id: $0, name: dogs.name($0), age: dogs.age($0), group: dogs.group($0)) }
        var listed = Array(dogs.ids.reversed())
        var tagged = Set(dogs.names)
        func checkHeld(sourceLocation: SourceLocation = #_sourceLocation) {
            let byId = model.sorted { $0.id < $1.id }
            let names = { (dogs: [(id: Int, name: String, age: Int, group: String)]) in dogs.map(\.name) }
            checkRandomAccessCollection(all, expectedContents: names(byId), by: \.name, sourceLocation: sourceLocation)
            checkRandomAccessCollection(olderThanTwo, expectedContents: names(byId.filter { $0.age > 2 }), by: \.name, sourceLocation: sourceLocation)
            checkRandomAccessCollection(byName, expectedContents: names(byId).sorted(), by: \.name, sourceLocation: sourceLocation)
            checkRandomAccessCollection(erased, expectedContents: names(byId).sorted(), by: \.name, sourceLocation: sourceLocation)
            checkRandomAccessCollection(projected, expectedContents: names(byId), by: \.title, sourceLocation: sourceLocation)
            let groups = Array(Set(model.map(\.group))).sorted()
            let sections = groups.map { group in "\(group): \(names(byId.filter { $0.group == group }).sorted())" }
            checkRandomAccessCollection(sectioned, expectedContents: sections, by: { "\($0.key): \($0.map(\.name))" }, sourceLocation: sourceLocation)
            checkRandomAccessCollection(
                groupC, expectedContents: names(byId.filter { $0.group == "c" }).sorted(), by: \.name, sourceLocation: sourceLocation)
            // The section of a key no object has any more is empty.
            checkRandomAccessCollection(
                groupB, expectedContents: names(byId.filter { $0.group == "b" }).sorted(), by: \.name, sourceLocation: sourceLocation)
            checkRandomAccessCollection(
                amyByName, expectedContents: names(byId.filter { $0.name == "amy" }), by: \.name, sourceLocation: sourceLocation)
            checkRandomAccessCollection(
                firstThreeByName, expectedContents: Array(names(byId).sorted().prefix(3)), by: \.name, sourceLocation: sourceLocation)
            let listedNames = listed.map { id in model.first { $0.id == id }!.name }
            checkRandomAccessCollection(list, expectedContents: listedNames, by: \.name, sourceLocation: sourceLocation)
            checkRandomAccessCollection(listResults, expectedContents: listedNames, by: \.name, sourceLocation: sourceLocation)
            checkRandomAccessCollection(tags, expectedContents: tagged.sorted(), sourceLocation: sourceLocation)
            checkRandomAccessCollection(pals, expectedContents: names(byId.filter { $0.id < 7 }), by: \.name, sourceLocation: sourceLocation)
            checkRandomAccessCollection(
                rexByName, expectedContents: names(byId.filter { $0.name == "rex" }), by: \.name, sourceLocation: sourceLocation)
            checkRandomAccessCollection(rexById, expectedContents: names(byId.filter { $0.id == 2 }), by: \.name, sourceLocation: sourceLocation)
        }
        checkHeld()
        try realm.write {
            try realm.delete(realm.object(ofType: CollectionConformanceModels.Dog.self, forPrimaryKey: 2)!)
            model.removeAll { $0.id == 2 }
            listed.removeAll { $0 == 2 }
            let amy = CollectionConformanceModels.Dog(value: ["id": 7, "name": "amy", "age": 6, "group": "a"])
            try realm.add(amy)
            model.append((7, "amy", 6, "a"))
            let ash = realm.object(ofType: CollectionConformanceModels.Dog.self, forPrimaryKey: 1)!
            ash.age = 8
            ash.group = "c"
            model[model.firstIndex { $0.id == 1 }!].age = 8
            model[model.firstIndex { $0.id == 1 }!].group = "c"
            owner.dogs.remove(at: 0)
            listed.removeFirst()
            owner.dogs.append(amy)
            listed.append(7)
            owner.tags.remove("kit")
            owner.tags.insert("amy")
            tagged.remove("kit")
            tagged.insert("amy")
            checkHeld()
        }
        checkHeld()
        // Frozen now: the section of the key no object has is empty, the others as they are.
        try checkRandomAccessCollection(try groupB.freeze(), expectedContents: [String](), by: { $0.name })
        try checkRandomAccessCollection(
            try groupC.freeze(), expectedContents: model.filter { $0.group == "c" }.map(\.name).sorted(), by: { $0.name })
    }

    @Test(arguments: sizes) func frozenResults(count: Int) throws {
        let dogs = Dogs(count: count)
        let (realm, owner) = try realm(with: dogs)
        let all = Array(dogs.ids)
        let byName = all.sorted { dogs.name($0) < dogs.name($1) }
        let frozen = try realm.objects(CollectionConformanceModels.Dog.self).freeze()
        checkRandomAccessCollection(frozen, expectedContents: dogs.names(all), by: { $0.name })
        checkRandomAccessCollection(frozen.sorted(byKeyPath: "name"), expectedContents: dogs.names(byName), by: { $0.name })
        try checkRandomAccessCollection(try frozen.filter("age > 2"), expectedContents: dogs.names(all.filter { dogs.age($0) > 2 }), by: { $0.name })
        try checkRandomAccessCollection(
            try realm.objects(CollectionConformanceModels.Dog.self).sorted(byKeyPath: "name").freeze(), expectedContents: dogs.names(byName),
            by: { $0.name })
        try checkRandomAccessCollection(try owner.dogs.filter("age >= 0").freeze(), expectedContents: dogs.names(all.reversed()), by: { $0.name })
    }

    // MARK: List

    @Test(arguments: sizes) func list(count: Int) throws {
        let dogs = Dogs(count: count)
        let (realm, owner) = try realm(with: dogs)
        let listed = Array(dogs.ids.reversed())
        let scores = Array(owner.scores)
        #expect(scores == dogs.ids.enumerated().map { dogs.age($0.element) * 10 + $0.offset })

        try realm.write {
            checkMutableCollection(
                owner.dogs, expectedContents: dogs.names(listed), replacement: CollectionConformanceModels.Dog(value: ["id": 100, "name": "new"]),
                by: \.name)
            checkMutableCollection(owner.scores, expectedContents: scores, replacement: -1)
        }
        // The replacement dog was added by the first check; nothing else changed.
        #expect(realm.objects(CollectionConformanceModels.Dog.self).count == count + (count > 0 ? 1 : 0))
        checkRandomAccessCollection(owner.dogs, expectedContents: dogs.names(listed), by: \.name)
        checkRandomAccessCollection(AnyRealmCollection(owner.dogs), expectedContents: dogs.names(listed), by: \.name)
        checkRandomAccessCollection(AnyRealmCollection(owner.scores), expectedContents: scores)

        let unmanagedDogs = List<CollectionConformanceModels.Dog>()
        unmanagedDogs.append(objectsIn: listed.map { CollectionConformanceModels.Dog(value: ["id": $0, "name": dogs.name($0)]) })
        checkMutableCollection(
            unmanagedDogs, expectedContents: dogs.names(listed), replacement: CollectionConformanceModels.Dog(value: ["name": "new"]), by: \.name)
        let unmanagedScores = List<Int>()
        unmanagedScores.append(objectsIn: scores)
        checkMutableCollection(unmanagedScores, expectedContents: scores, replacement: -1)
        checkRandomAccessCollection(AnyRealmCollection(unmanagedScores), expectedContents: scores)
    }

    /// A list that holds one object more than once, and values more than once.
    @Test func listWithRepeatedElements() throws {
        let dogs = Dogs(count: 3)
        let (realm, owner) = try realm(with: dogs)
        let kit = realm.object(ofType: CollectionConformanceModels.Dog.self, forPrimaryKey: 0)!
        let ash = realm.object(ofType: CollectionConformanceModels.Dog.self, forPrimaryKey: 1)!
        try realm.write {
            owner.dogs.removeAll()
            owner.dogs.append(objectsIn: [kit, ash, kit, kit])
            owner.scores.removeAll()
            owner.scores.append(objectsIn: [5, 5, 1, 5])
            checkMutableCollection(
                owner.dogs, expectedContents: ["kit", "ash", "kit", "kit"],
                replacement: CollectionConformanceModels.Dog(value: ["id": 100, "name": "new"]), by: \.name)
            checkMutableCollection(owner.scores, expectedContents: [5, 5, 1, 5], replacement: -1)
        }
        try checkRandomAccessCollection(try owner.dogs.freeze(), expectedContents: ["kit", "ash", "kit", "kit"], by: \.name)
        try checkRandomAccessCollection(try owner.dogs.filter("age >= 0"), expectedContents: ["kit", "ash", "kit", "kit"], by: \.name)
    }

    @Test(arguments: sizes) func frozenList(count: Int) throws {
        let dogs = Dogs(count: count)
        let (_, owner) = try realm(with: dogs)
        let frozenDogs = try owner.dogs.freeze()
        let frozenScores = try owner.scores.freeze()
        checkRandomAccessCollection(frozenDogs, expectedContents: dogs.names(dogs.ids.reversed()), by: \.name)
        checkRandomAccessCollection(frozenScores, expectedContents: Array(owner.scores))
    }

    /// The frozen collections, each checked from several tasks at once: what a frozen value is
    /// for.
    @Test func frozenCollectionsFromConcurrentTasks() async throws {
        let dogs = Dogs(count: 7)
        let (realm, owner) = try realm(with: dogs)
        let kit = realm.object(ofType: CollectionConformanceModels.Dog.self, forPrimaryKey: 0)!
        try realm.write {
            for id in 1...3 { try realm.add(CollectionConformanceModels.Owner(value: ["id": id, "name": "owner\(id)", "dogs": [kit]])) }
        }
        let results = try realm.objects(CollectionConformanceModels.Dog.self).sorted(byKeyPath: "name").freeze()
        let list = try owner.dogs.freeze()
        let scores = try owner.scores.freeze()
        let tags = try owner.tags.freeze()
        let pals = try owner.pals.freeze()
        let owners = try kit.owners.freeze()
        let ratings = try owner.ratings.freeze()
        let sectioned = try realm.objects(CollectionConformanceModels.Dog.self).sectioned(
            by: \.group, sortDescriptors: [SortDescriptor(keyPath: "group"), SortDescriptor(keyPath: "name")]
        ).freeze()
        let expectedScores = Array(owner.scores)
        let byName = dogs.names.sorted()
        let entries = byName.map { name in "\(name)=\(dogs.age(dogs.names.firstIndex(of: name)!))" }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask { checkRandomAccessCollection(results, expectedContents: byName, by: { $0.name }) }
                group.addTask { checkRandomAccessCollection(list, expectedContents: dogs.names(dogs.ids.reversed()), by: \.name) }
                group.addTask { checkRandomAccessCollection(scores, expectedContents: expectedScores) }
                group.addTask { checkRandomAccessCollection(tags, expectedContents: byName) }
                group.addTask { checkRandomAccessCollection(pals, expectedContents: dogs.names, by: \.name) }
                group.addTask { checkRandomAccessCollection(owners, expectedContents: ["owner", "owner1", "owner2", "owner3"], by: \.name) }
                group.addTask { checkSequence(ratings, expectedContents: entries, by: { "\($0.key)=\($0.value)" }) }
                group.addTask {
                    checkRandomAccessCollection(
                        sectioned, expectedContents: ["a: [\"kit\"]", "b: [\"ash\", \"rex\"]", "c: [\"bo\", \"fox\", \"max\", \"zed\"]"],
                        by: { "\($0.key): \($0.map(\.name))" })
                }
            }
        }
    }

    // MARK: MutableSet

    @Test(arguments: sizes) func mutableSet(count: Int) throws {
        let dogs = Dogs(count: count)
        let (_, owner) = try realm(with: dogs)
        // A managed set iterates in its stored order, by value.
        checkRandomAccessCollection(owner.tags, expectedContents: dogs.names.sorted())
        checkRandomAccessCollection(AnyRealmCollection(owner.tags), expectedContents: dogs.names.sorted())
        // A set of objects: in the order of the objects' keys, which follow the order of adding.
        checkRandomAccessCollection(owner.pals, expectedContents: dogs.names, by: \.name)
        checkRandomAccessCollection(AnyRealmCollection(owner.pals), expectedContents: dogs.names, by: \.name)

        // An unmanaged set keeps the order of inserting.
        let unmanaged = MutableSet<String>()
        unmanaged.insert(objectsIn: dogs.names + dogs.names)
        checkRandomAccessCollection(unmanaged, expectedContents: dogs.names)
        checkRandomAccessCollection(AnyRealmCollection(unmanaged), expectedContents: dogs.names)
    }

    /// A set's subscript reads the element at its position in a set of many elements (a
    /// positional read of the set's tree, as RealmSwift's is; what it costs is the benchmark's
    /// to measure, not a test's).
    @Test func setSubscriptReadsTheElementAtItsPosition() throws {
        var config = temporaryConfiguration()
        config.objectTypes = [CollectionConformanceModels.Dog.self, CollectionConformanceModels.Owner.self]
        let realm = try Realm(configuration: config)
        let owner = CollectionConformanceModels.Owner(value: ["id": 0])
        let size = 5_000
        try realm.write {
            try realm.add(owner)
            owner.tags.insert(objectsIn: (0..<size).map { String(format: "tag%05d", $0) })
        }
        func check<S: RandomAccessCollection>(_ set: S, sourceLocation: SourceLocation = #_sourceLocation) where S.Element == String, S.Index == Int {
            #expect(set.count == size, sourceLocation: sourceLocation)
            let positions = Array(stride(from: 0, to: size, by: 37)) + [size - 1]
            #expect(positions.map { set[$0] } == positions.map { String(format: "tag%05d", $0) }, sourceLocation: sourceLocation)
        }
        check(owner.tags)
        check(try owner.tags.freeze())
    }

    @Test(arguments: sizes) func frozenMutableSet(count: Int) throws {
        let dogs = Dogs(count: count)
        let (_, owner) = try realm(with: dogs)
        try checkRandomAccessCollection(try owner.tags.freeze(), expectedContents: dogs.names.sorted())
        try checkRandomAccessCollection(try owner.pals.freeze(), expectedContents: dogs.names, by: \.name)
    }

    // MARK: LinkingObjects

    /// The first dog's owners: `count` owners (in the order they were added) whose lists hold it.
    @Test(arguments: sizes) func linkingObjects(count: Int) throws {
        var config = temporaryConfiguration()
        config.objectTypes = [CollectionConformanceModels.Dog.self, CollectionConformanceModels.Owner.self]
        let realm = try Realm(configuration: config)
        let dog = CollectionConformanceModels.Dog(value: ["id": 0, "name": "kit"])
        let ownerNames = (0..<count).map { "owner\($0)" }
        try realm.write {
            try realm.add(dog)
            try realm.add(CollectionConformanceModels.Dog(value: ["id": 1, "name": "ash"]))
            for (id, name) in ownerNames.enumerated() {
                // Every other owner also lists another dog first, which must not matter.
                let owner = CollectionConformanceModels.Owner(value: ["id": id, "name": name])
                if id % 2 == 1 { owner.dogs.append(realm.object(ofType: CollectionConformanceModels.Dog.self, forPrimaryKey: 1)!) }
                owner.dogs.append(dog)
                try realm.add(owner)
            }
        }
        checkRandomAccessCollection(dog.owners, expectedContents: ownerNames, by: \.name)
        checkRandomAccessCollection(AnyRealmCollection(dog.owners), expectedContents: ownerNames, by: \.name)
        try checkRandomAccessCollection(try dog.owners.freeze(), expectedContents: ownerNames, by: \.name)
        try checkRandomAccessCollection(try dog.owners.filter("name != ''"), expectedContents: ownerNames, by: \.name)
        // An unmanaged object's linking objects are empty.
        checkRandomAccessCollection(CollectionConformanceModels.Dog().owners, expectedContents: [String](), by: \.name)
    }

    // MARK: SectionedResults

    /// The dogs sectioned by group (sections of one, two and four dogs), each section sorted by
    /// name; live and frozen, the sectioned results and each section.
    @Test(arguments: sizes) func sectionedResults(count: Int) throws {
        let dogs = Dogs(count: count)
        let (realm, _) = try realm(with: dogs)
        let groups = Array(Set(dogs.ids.map(dogs.group))).sorted()
        let sections = groups.map { group in dogs.names(dogs.ids.filter { dogs.group($0) == group }).sorted() }
        let expected = zip(groups, sections).map { "\($0.0): \($0.1)" }
        let sectioned = realm.objects(CollectionConformanceModels.Dog.self).sectioned(
            by: \.group, sortDescriptors: [SortDescriptor(keyPath: "group"), SortDescriptor(keyPath: "name")])

        checkRandomAccessCollection(sectioned, expectedContents: expected, by: { "\($0.key): \($0.map(\.name))" })
        for (position, names) in sections.enumerated() {
            checkRandomAccessCollection(sectioned[position], expectedContents: names, by: \.name)
        }
        let frozen = try sectioned.freeze()
        checkRandomAccessCollection(frozen, expectedContents: expected, by: { "\($0.key): \($0.map(\.name))" })
        for (position, names) in sections.enumerated() {
            checkRandomAccessCollection(frozen[position], expectedContents: names, by: { $0.name })
            try checkRandomAccessCollection(try sectioned[position].freeze(), expectedContents: names, by: { $0.name })
        }
        // Sectioned results that could not be made (no sort descriptors) have no sections.
        let failed = realm.objects(CollectionConformanceModels.Dog.self).sectioned(sortDescriptors: []) { $0.group }
        checkRandomAccessCollection(failed, expectedContents: [String](), by: { "\($0.key)" })
    }

    // MARK: Map

    /// `Map` and `FrozenMap` are sequences of entries in key order, not collections (as
    /// RealmSwift's `Map` is not one); their own `count` and `isEmpty` agree with iteration.
    @Test(arguments: sizes) func map(count: Int) throws {
        let dogs = Dogs(count: count)
        let (_, owner) = try realm(with: dogs)
        let expected = dogs.ids.sorted { dogs.name($0) < dogs.name($1) }.map { "\(dogs.name($0))=\(dogs.age($0))" }
        let entry: (SingleMapEntry<String, Int>) -> String = { "\($0.key)=\($0.value)" }

        checkSequence(owner.ratings, expectedContents: expected, by: entry)
        #expect(owner.ratings.count == count && owner.ratings.isEmpty == (count == 0))
        let frozen = try owner.ratings.freeze()
        checkSequence(frozen, expectedContents: expected, by: entry)
        #expect(frozen.count == count && frozen.isEmpty == (count == 0))

        let unmanaged = Map<String, Int>()
        for id in dogs.ids.reversed() { unmanaged[dogs.name(id)] = dogs.age(id) }
        checkSequence(unmanaged, expectedContents: expected, by: entry)
        #expect(unmanaged.count == count && unmanaged.isEmpty == (count == 0))
    }
}
