import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

@Suite(.temporaryDirectory) struct FrozenTests {
    // MARK: Reading from many tasks

    @Test func testAFrozenObjectIsReadableFromManyDetachedTasksAtOnceWhileTheRealmWrites() async throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        let live = RTFixture.full(id: "frozen")
        try realm.write { try realm.add(live) }
        let frozen = try live.freeze()

        let readers = 16
        let rounds = 20
        let failures = LockedBox(0)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<readers {
                group.addTask {
                    for _ in 0..<rounds {
                        let o = frozen.frozenObject
                        let ok =
                            o.id == "frozen" && o.int64 == .max && o.string == RTFixture.string && o.data == RTFixture.bigData
                            && o.optDate == RTFixture.otherDate && Array(o.ints) == [3, -1, 3, Int.max]
                            && o.link?.label == "one" && o.targets.map(\.id) == [2, 3] && o.place?.street == "1 Main Street"
                            && o.places.count == 2 && o.any == .string("mixed") && o.link?.linkedFrom.count == 1
                            && frozen.decimal == RTFixture.decimal && frozen.color == .blue
                        if !ok { failures.withLock { $0 += 1 } }
                    }
                }
            }
            // Meanwhile the live object changes, in new versions.
            for i in 0..<10 {
                try? realm.write {
                    live.string = "changed \(i)"
                    live.ints.append(i)
                    live.link?.label = "relabelled \(i)"
                    live.place = ObjectSuiteModels.RTPlace(value: ["street": "Street \(i)"])
                }
            }
            await group.waitForAll()
        }
        #expect(failures.withLock { $0 } == 0)
        RTFixture.expectFull(frozen.frozenObject, id: "frozen")
        #expect(live.string == "changed 9")
    }

    @Test func testFrozenResultsAreReadableFromManyDetachedTasksAtOnce() async throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        try realm.write {
            for i in 0..<200 {
                let node = ObjectSuiteModels.RTNode(value: ["name": "n\(i)", "weight": i])
                if i > 0 { node.next = ObjectSuiteModels.RTNode(value: ["name": "link\(i)", "weight": -i]) }
                try realm.add(node)
            }
        }
        let results = try realm.objects(ObjectSuiteModels.RTNode.self).freeze()
        let sums = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<12 {
                group.addTask {
                    results.reduce(0) { $0 + $1.weight + ($1.next?.weight ?? 0) }
                }
            }
            var all: [Int] = []
            for await sum in group { all.append(sum) }
            return all
        }
        // The "link…" nodes are results too: each weight w > 0 is cancelled by its link's -w.
        #expect(sums.count == 12)
        #expect(Set(sums) == [0 + (1..<200).reduce(0) { $0 - $1 }])
    }

    // MARK: Identity

    @Test func testFrozenValuesAreEqualAndHashAlikeExactlyForTheSameObjectAtTheSameVersion() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        let a = ObjectSuiteModels.RTNode(value: ["name": "a"])
        let b = ObjectSuiteModels.RTNode(value: ["name": "b"])
        try realm.write { try realm.add([a, b]) }
        let a1 = try a.freeze()
        let a2 = try a.freeze()
        let aFromLookup = try #require(realm.object(ofType: ObjectSuiteModels.RTNode.self, forPrimaryKey: "a")).freeze()
        let aFromResults = try #require(try realm.objects(ObjectSuiteModels.RTNode.self).freeze().first { $0.name == "a" })
        let b1 = try b.freeze()
        #expect(a1 == a2)
        #expect(a1.hashValue == a2.hashValue)
        #expect(a1 == aFromLookup)
        #expect(a1 == aFromResults)
        #expect(a1.hashValue == aFromResults.hashValue)
        #expect(a1 != b1)
        #expect(Set([a1, a2, aFromLookup, aFromResults, b1]).count == 2)

        try realm.write { a.weight = 1 }
        let a3 = try a.freeze()
        #expect(a3 != a1, "a new version is a different snapshot")
        #expect(a3.weight == 1)
        #expect(a1.weight == 0)
        let byValue: [Frozen<ObjectSuiteModels.RTNode>: String] = [a1: "old", a3: "new"]
        #expect(byValue[a2] == "old")
        #expect(byValue[a3] == "new")
    }

    @Test func testFrozenValuesOfTheSameKeyInDifferentFilesDiffer() throws {
        let first = try Realm(configuration: temporaryConfiguration())
        let second = try Realm(configuration: temporaryConfiguration())
        let x = ObjectSuiteModels.RTNote(value: ["text": "x"])
        let y = ObjectSuiteModels.RTNote(value: ["text": "y"])
        try first.write { try first.add(x) }
        try second.write { try second.add(y) }
        let fx = try x.freeze()
        let fy = try y.freeze()
        #expect(fx.versionNumber == fy.versionNumber)
        #expect(fx != fy)
    }

    @Test func testFreezingAFrozenObjectKeepsItsVersionAndFreezingIsIdempotent() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        let node = ObjectSuiteModels.RTNode(value: ["name": "n", "weight": 1])
        try realm.write { try realm.add(node) }
        let frozen = try node.freeze()
        try realm.write { node.weight = 2 }
        let refrozen = try frozen.frozenObject.freeze()
        #expect(refrozen == frozen)
        #expect(refrozen.weight == 1)
        #expect(frozen.frozenObject.isFrozen)
        #expect(frozen.frozenObject.realm?.isFrozen == true)
        #expect(frozen.frozenObject.realm?.version == frozen.versionNumber)
        #expect(!frozen.isInvalidated)
    }

    // MARK: FrozenResults

    @Test func testFrozenResultsKeepTheirVersionsObjectsAfterAddsDeletesAndChanges() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        try realm.write {
            for i in 0..<5 { try realm.add(ObjectSuiteModels.RTNode(value: ["name": "n\(i)", "weight": i])) }
        }
        let frozen = try realm.objects(ObjectSuiteModels.RTNode.self).freeze()
        let version = frozen.versionNumber
        #expect(version == realm.version)
        try realm.write {
            try realm.delete(realm.objects(ObjectSuiteModels.RTNode.self).filter { $0.weight % 2 == 0 })
            realm.object(ofType: ObjectSuiteModels.RTNode.self, forPrimaryKey: "n1")!.weight = 100
            try realm.add(ObjectSuiteModels.RTNode(value: ["name": "late", "weight": 9]))
        }
        #expect(realm.objects(ObjectSuiteModels.RTNode.self).count == 3)
        #expect(frozen.count == 5)
        // ObjectSuiteModels.RTNode has a String primary key: unsorted results come in key order, not insertion order.
        #expect(frozen.map(\.name).sorted() == ["n0", "n1", "n2", "n3", "n4"])
        #expect(frozen.allSatisfy { $0.name == "n\($0.weight)" })
        #expect(frozen.allSatisfy { $0.versionNumber == version })
        #expect(frozen.allSatisfy { $0.frozenObject.isFrozen })
        #expect(frozen.versionNumber == version)
        let fresh = try realm.objects(ObjectSuiteModels.RTNode.self).freeze()
        #expect(fresh.map(\.weight).sorted() == [3, 9, 100])
        #expect(fresh.versionNumber > version)
    }

    @Test func testFrozenResultsOfAClassWithNoObjectsAreEmpty() async throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        #expect(try realm.objects(ObjectSuiteModels.RTNote.self).freeze().isEmpty)
        let db = try await RealmActor(configuration: temporaryConfiguration())
        #expect(try await db.objects(ObjectSuiteModels.RTNote.self).isEmpty)
    }

    @Test func testFrozenResultsFromARealmActorCrossToOtherTasks() async throws {
        let db = try await RealmActor(configuration: temporaryConfiguration())
        try await db.asyncWrite { realm in
            for i in 0..<10 { try realm.add(ObjectSuiteModels.RTTarget(value: ["id": i, "label": "t\(i)"])) }
        }
        let targets = try await db.objects(ObjectSuiteModels.RTTarget.self)
        try await db.asyncWrite { realm in try realm.delete(realm.objects(ObjectSuiteModels.RTTarget.self)) }
        let labels = await Task.detached { targets.map(\.label) }.value
        #expect(labels == (0..<10).map { "t\($0)" })
        #expect(try await db.objects(ObjectSuiteModels.RTTarget.self).isEmpty)
    }

    @Test func testFreezingInsideAWriteTransactionThrows() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        let node = ObjectSuiteModels.RTNode(value: ["name": "n"])
        try realm.write { try realm.add(node) }
        try realm.write {
            expectRealmError(.wrongState, mentioning: ["write transaction"]) { _ = try node.freeze() }
            expectRealmError(.wrongState, mentioning: ["write transaction"]) { _ = try realm.objects(ObjectSuiteModels.RTNode.self).freeze() }
            expectRealmError(.wrongState, mentioning: ["write transaction"]) { _ = try realm.freeze() }
        }
        expectRealmError(.invalidObject, mentioning: ["RTNode", "managed"]) { _ = try ObjectSuiteModels.RTNode().freeze() }
    }

    // MARK: thaw

    @Test func testThawReturnsTheLiveObjectWithCurrentValuesOrNilAfterDelete() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        let node = ObjectSuiteModels.RTNode(value: ["name": "n", "weight": 1])
        try realm.write { try realm.add(node) }
        let frozen = try node.freeze()
        try realm.write { node.weight = 2 }
        let thawed = try #require(realm.thaw(frozen))
        #expect(!thawed.isFrozen)
        #expect(thawed.realm === realm)
        #expect(thawed.weight == 2)
        try realm.write { thawed.weight = 3 }
        #expect(node.weight == 3)
        #expect(frozen.weight == 1)

        try realm.write { try realm.delete(node) }
        #expect(realm.thaw(frozen) == nil)
        #expect(frozen.weight == 1, "the frozen value still reads its version")
        // An object of a class with a primary key is identified by that key: a new object with
        // the same primary key is what the frozen value thaws to.
        try realm.write { try realm.add(ObjectSuiteModels.RTNode(value: ["name": "n", "weight": 4])) }
        #expect(realm.thaw(frozen)?.weight == 4)
    }

    @Test func testThawIntoARealmOfAnotherFileDoesNotReturnThatFilesObject() throws {
        let first = try Realm(configuration: temporaryConfiguration())
        let second = try Realm(configuration: temporaryConfiguration())
        let a = ObjectSuiteModels.RTNote(value: ["text": "from the first file"])
        let b = ObjectSuiteModels.RTNote(value: ["text": "from the second file"])
        try first.write { try first.add(a) }
        try second.write { try second.add(b) }
        let frozen = try a.freeze()
        // Same class id and object key in both files: only the file tells them apart.
        let thawed = second.thaw(frozen)
        #expect(thawed == nil || thawed?.text == "from the first file", "thawed \(thawed?.text ?? "nil")")
        #expect(thawed?.realm !== second || thawed == nil)
    }

    @Test func testFreezingADeletedObjectThrows() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        let node = ObjectSuiteModels.RTNode(value: ["name": "gone"])
        try realm.write { try realm.add(node) }
        try realm.write { try realm.delete(node) }
        expectRealmError(.invalidObject, mentioning: ["RTNode", "deleted"]) { _ = try node.freeze() }
    }

    @Test func testThawInAnotherActorsRealmOfTheSameFile() async throws {
        let config = temporaryConfiguration()
        let writer = try await RealmActor(configuration: config)
        let frozen = try await writer.create(ObjectSuiteModels.RTNode.self, value: ["name": "n", "weight": 1])
        let other = try await RealmActor(configuration: config)
        let weight = try await other.asyncWrite { realm -> Int in
            guard let live = realm.thaw(frozen) else { return -1 }
            live.weight += 10
            return live.weight
        }
        #expect(weight == 11)
        #expect(frozen.weight == 1)
        #expect(try await writer.object(ofType: ObjectSuiteModels.RTNode.self, forPrimaryKey: "n")?.weight == 11)
        try await writer.asyncWrite { realm in try realm.delete(realm.objects(ObjectSuiteModels.RTNode.self)) }
        #expect(try await other.read { realm in realm.thaw(frozen) == nil })
    }

    // MARK: Links

    @Test func testFrozenLinksAreFrozenObjectsOfTheSameVersion() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        let a = ObjectSuiteModels.RTNode(value: ["name": "a", "weight": 1, "next": ["name": "b", "weight": 2], "home": ["street": "Home"]])
        try realm.write { try realm.add(a) }
        try realm.write { a.children.append(objectsIn: [a.next!, ObjectSuiteModels.RTNode(value: ["name": "c", "weight": 3])]) }
        let frozen = try a.freeze()
        let b = try #require(a.next)
        try realm.write {
            b.weight = 20
            a.home?.street = "Moved"
            try realm.delete(realm.object(ofType: ObjectSuiteModels.RTNode.self, forPrimaryKey: "c")!)
        }
        let next = try #require(frozen.next)
        #expect(next.isFrozen)
        #expect(next.weight == 2, "the linked object reads the frozen version")
        #expect(next.realm?.version == frozen.versionNumber)
        #expect(frozen.home?.street == "Home")
        #expect(frozen.home?.isFrozen == true)
        #expect(frozen.children.map(\.name) == ["b", "c"], "a list of links keeps its version's elements")
        #expect(frozen.children.allSatisfy { $0.isFrozen })
        #expect(frozen.children.isFrozen)
        #expect(next.previous.map(\.name) == ["a"])
        #expect(next.previous.allSatisfy { $0.isFrozen })
        let frozenNext = try next.freeze()
        #expect(frozenNext.versionNumber == frozen.versionNumber)
        // The live objects moved on.
        #expect(b.weight == 20)
        #expect(a.children.map(\.name) == ["b"])
    }

    @Test func testFrozenAnyRealmValueLinksAreFrozen() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        let mixed = ObjectSuiteModels.RTMixed(value: [
            "id": 1, "value": AnyRealmValue.object(ObjectSuiteModels.RTTarget(value: ["id": 9, "label": "nine"])),
        ])
        try realm.write { try realm.add(mixed) }
        let frozen = try mixed.freeze()
        try realm.write { realm.object(ofType: ObjectSuiteModels.RTTarget.self, forPrimaryKey: 9)!.label = "changed" }
        let target = try #require(frozen.value.object(ObjectSuiteModels.RTTarget.self))
        #expect(target.isFrozen)
        #expect(target.label == "nine")
    }

    // MARK: Version pinning

    @Test func testAFrozenRealmKeepsReadingItsVersionAfterNewWrites() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        try realm.write {
            for i in 0..<20 { try realm.add(ObjectSuiteModels.RTNode(value: ["name": "n\(i)", "weight": i])) }
        }
        let frozenRealm = try realm.freeze()
        let version = frozenRealm.version
        #expect(frozenRealm.isFrozen)
        // Enough writes to replace and reuse pages many times over.
        for round in 0..<30 {
            try realm.write {
                for node in realm.objects(ObjectSuiteModels.RTNode.self) { node.weight += 1000 }
                try realm.add(ObjectSuiteModels.RTNode(value: ["name": "round\(round)", "weight": -1]))
                if let first = realm.objects(ObjectSuiteModels.RTNode.self).first { try realm.delete(first) }
            }
        }
        #expect(realm.version > version)
        #expect(frozenRealm.version == version)
        let nodes = frozenRealm.objects(ObjectSuiteModels.RTNode.self)
        #expect(nodes.count == 20)
        #expect(nodes.map(\.weight).sorted() == Array(0..<20))
        #expect(nodes.allSatisfy { $0.name == "n\($0.weight)" })
        #expect(nodes.allSatisfy { $0.isFrozen })
        #expect(frozenRealm.object(ofType: ObjectSuiteModels.RTNode.self, forPrimaryKey: "n0")?.weight == 0)
        #expect(frozenRealm.object(ofType: ObjectSuiteModels.RTNode.self, forPrimaryKey: "round0") == nil)
        #expect(!frozenRealm.refresh(), "a frozen realm never moves")
        #expect(frozenRealm.version == version)
        #expect(realm.objects(ObjectSuiteModels.RTNode.self).count == 20)
        #expect(realm.object(ofType: ObjectSuiteModels.RTNode.self, forPrimaryKey: "n0") == nil)
    }

    @Test func testAFrozenValuePinsItsVersionOnlyUntilItIsReleased() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        try realm.write { try realm.add(ObjectSuiteModels.RTNote(value: ["text": "v1"])) }
        let baseline = realm.pinnedVersionCount
        var frozen: Frozen<ObjectSuiteModels.RTNote>? = try realm.objects(ObjectSuiteModels.RTNote.self).first!.freeze()
        var frozenRealm: Realm? = try realm.freeze()
        try realm.write { realm.objects(ObjectSuiteModels.RTNote.self).first!.text = "v2" }
        #expect(realm.pinnedVersionCount == baseline + 1, "the frozen values' version and the realm's new one")
        #expect(frozen?.text == "v1")
        #expect(frozenRealm?.objects(ObjectSuiteModels.RTNote.self).first?.text == "v1")
        frozen = nil
        #expect(realm.pinnedVersionCount == baseline + 1, "the frozen realm still holds it")
        frozenRealm = nil
        #expect(realm.pinnedVersionCount == baseline)
        #expect(frozen == nil && frozenRealm == nil)
    }

    @Test func testResultsOfAFrozenRealmFreezeAtItsVersion() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        try realm.write { try realm.add(ObjectSuiteModels.RTNote(value: ["text": "a"])) }
        let frozenRealm = try realm.freeze()
        try realm.write { try realm.add(ObjectSuiteModels.RTNote(value: ["text": "b"])) }
        let results = try frozenRealm.objects(ObjectSuiteModels.RTNote.self).freeze()
        #expect(results.versionNumber == frozenRealm.version)
        #expect(results.map(\.text) == ["a"])
        let object = try #require(frozenRealm.objects(ObjectSuiteModels.RTNote.self).first)
        #expect(try object.freeze().versionNumber == frozenRealm.version)
    }

    @Test func testAFrozenValueOutlivesItsRealm() async throws {
        let config = temporaryConfiguration()
        var frozen: Frozen<ObjectSuiteModels.RTEverything>?
        do {
            let realm = try Realm(configuration: config)
            let o = RTFixture.full(id: "outlives")
            try realm.write { try realm.add(o) }
            frozen = try o.freeze()
        }
        let survivor = try #require(frozen)
        let string = await Task.detached { survivor.string }.value
        #expect(string == RTFixture.string)
        RTFixture.expectFull(survivor.frozenObject, id: "outlives")
        // The file is still usable by a new realm meanwhile.
        let realm = try Realm(configuration: config)
        try realm.write { realm.object(ofType: ObjectSuiteModels.RTEverything.self, forPrimaryKey: "outlives")!.string = "new" }
        #expect(survivor.string == RTFixture.string)
    }

    @Test func testALiveRealmStaysOnItsVersionUntilItRefreshesOrWrites() throws {
        let config = temporaryConfiguration()
        let reader = try Realm(configuration: config)
        try onAnotherThread {
            let writer = try Realm(configuration: config)
            try writer.write { try writer.add(ObjectSuiteModels.RTNote(value: ["text": "one"])) }
        }
        let version = reader.version
        #expect(reader.objects(ObjectSuiteModels.RTNote.self).isEmpty, "the reader has not moved")
        #expect(reader.refresh())
        #expect(reader.version > version)
        #expect(reader.objects(ObjectSuiteModels.RTNote.self).map(\.text) == ["one"])
        try onAnotherThread {
            let writer = try Realm(configuration: config)
            try writer.write { try writer.add(ObjectSuiteModels.RTNote(value: ["text": "two"])) }
        }
        #expect(reader.objects(ObjectSuiteModels.RTNote.self).count == 1)
        try reader.write { #expect(reader.objects(ObjectSuiteModels.RTNote.self).count == 2, "a write moves to the newest version") }
    }
}
