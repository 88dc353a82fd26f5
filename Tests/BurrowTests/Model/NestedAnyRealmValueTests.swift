import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// Models of the lists and dictionaries an `AnyRealmValue` holds.
enum NestedAnyModels {
    final class Holder: Object {
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var anyValue: AnyRealmValue
        @Persisted var anyList: List<AnyRealmValue>
        @Persisted var anyMap: Map<String, AnyRealmValue>
        @Persisted var anySet: MutableSet<AnyRealmValue>
    }

    final class Target: Object {
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted var name = ""
    }

    static let types: [ObjectBase.Type] = [Holder.self, Target.self]
}

/// Lists and dictionaries inside `AnyRealmValue`s (RealmSwift 10.51's "collections in mixed"),
/// with what RealmSwift's `MixedCollectionTest` asserts of them: they hold every value type and
/// each other, up to 100 levels; read from a managed object they are live and change the
/// property; unmanaged ones compare by contents, managed ones by identity; links inside them
/// behave as links (the linked object is added with its holder, and deleting it removes it from
/// lists and leaves nil in dictionaries).
@Suite(.temporaryDirectory) struct NestedAnyRealmValueTests {
    typealias Holder = NestedAnyModels.Holder
    typealias Target = NestedAnyModels.Target

    private func realm(_ configuration: Realm.Configuration) throws -> Realm {
        var configuration = configuration
        configuration.objectTypes = NestedAnyModels.types
        return try Realm(configuration: configuration)
    }

    private func findings(_ realm: Realm, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        let findings = try ObjectVerifier.verify(realm.storage.snapshot()).findings.map(\.description)
        if !findings.isEmpty { Issue.record("\(findings)", sourceLocation: sourceLocation) }
        return findings
    }

    private static let date = Date(timeIntervalSince1970: 1_700_000_000.25)
    private static let objectId = try! ObjectId(string: "6553f100a1b2c3d4e5f60718")
    private static let uuid = UUID(uuidString: "137DECC8-B300-4954-A233-F89909F4FD89")!

    /// One value of every scalar type, as a list.
    private static var everyScalar: [AnyRealmValue] {
        [
            .string("hello"), .bool(false), .int(234), .float(789.125), .double(12345.678901), .data(Data("a".utf8)),
            .date(date), .objectId(objectId), .uuid(uuid), .decimal128(Decimal128(567)), .none,
        ]
    }

    @Test func unmanagedListsAndDictionariesHoldEveryTypeAndChangeInPlace() {
        let holder = Holder()
        holder.anyValue = .fromArray(Self.everyScalar)
        #expect(holder.anyValue.listValue?.count == 11)
        #expect(holder.anyValue.listValue?[0].stringValue == "hello")
        #expect(holder.anyValue.listValue?[1].boolValue == false)
        #expect(holder.anyValue.listValue?[3].floatValue == 789.125)
        #expect(holder.anyValue.listValue?[4].doubleValue == 12345.678901)
        #expect(holder.anyValue.listValue?[5].dataValue == Data("a".utf8))
        #expect(holder.anyValue.listValue?[6].dateValue == Self.date)
        #expect(holder.anyValue.listValue?[7].objectIdValue == Self.objectId)
        #expect(holder.anyValue.listValue?[8].uuidValue == Self.uuid)
        #expect(holder.anyValue.listValue?[9].decimal128Value == Decimal128(567))
        #expect(holder.anyValue.listValue?[10] == AnyRealmValue.none)
        // The list is a reference: changing it changes the property's value.
        holder.anyValue.listValue?[0] = .int(1)
        #expect(holder.anyValue.listValue?[0] == .int(1))

        holder.anyValue = .fromDictionary(["a": .int(1), "b": .fromArray([.string("x")])])
        holder.anyValue.dictionaryValue?["c"] = .bool(true)
        holder.anyValue.dictionaryValue?["a"] = nil
        #expect(holder.anyValue.dictionaryValue?.keys == ["b", "c"])
        #expect(holder.anyValue.dictionaryValue?["b"]?.listValue?[0] == .string("x"))
        #expect(holder.anyValue.listValue == nil)
        #expect(AnyRealmValue.int(1).listValue == nil && AnyRealmValue.int(1).dictionaryValue == nil)
    }

    @Test func addedValuesReadBackLiveAfterAddAndAfterReopening() throws {
        let configuration = temporaryConfiguration()
        do {
            let realm = try realm(configuration)
            let holder = Holder()
            holder.anyValue = .fromDictionary(["list": .fromArray(Self.everyScalar), "empty": .fromArray([]), "map": .fromDictionary([:])])
            try realm.write { try realm.add(holder) }
            // The same instance reads the managed value now.
            #expect(holder.anyValue.dictionaryValue?.realm === realm)
            #expect(holder.anyValue.dictionaryValue?["list"]?.listValue?.count == 11)
            #expect(Array(holder.anyValue.dictionaryValue!["list"]!.listValue!) == Self.everyScalar)
        }
        let realm = try realm(configuration)
        let holder = try #require(realm.object(ofType: Holder.self, forPrimaryKey: 0))
        let map = try #require(holder.anyValue.dictionaryValue)
        #expect(map.keys == ["empty", "list", "map"], "keys in order")
        #expect(Array(try #require(map["list"]?.listValue)) == Self.everyScalar)
        #expect(map["empty"]?.listValue?.isEmpty == true)
        #expect(map["map"]?.dictionaryValue?.isEmpty == true)
        #expect(try findings(realm).isEmpty)
    }

    @Test func changesThroughManagedCollectionsWriteTheProperty() throws {
        let configuration = temporaryConfiguration()
        let realm = try realm(configuration)
        let holder = Holder()
        holder.anyValue = .fromArray([.string("hello"), .bool(false), .int(234)])
        try realm.write { try realm.add(holder) }
        let list = try #require(holder.anyValue.listValue)
        try realm.write {
            list[0] = .double(12345.678901)
            list[1] = .float(789.125)
            list.append(.fromDictionary(["k": .int(1)]))
            list.insert(.string("first"), at: 0)
        }
        #expect(Array(list) == [.string("first"), .double(12345.678901), .float(789.125), .int(234), list[4]])
        #expect(list[4].dictionaryValue?["k"] == .int(1))
        try realm.write {
            list.remove(at: 0)
            list.move(from: 0, to: 2)
            list.swapAt(0, 1)
        }
        #expect(Array(list.prefix(3)) == [.int(234), .float(789.125), .double(12345.678901)])
        // A nested collection read from the list changes its element.
        try realm.write {
            list[3].dictionaryValue?["k"] = .string("changed")
            list[3].dictionaryValue?["new"] = .fromArray([.int(7)])
        }
        #expect(list[3].dictionaryValue?["k"] == .string("changed"))
        #expect(list[3].dictionaryValue?["new"]?.listValue?.first == .int(7))
        try realm.write { list[3].dictionaryValue?.removeAll() }
        #expect(list[3].dictionaryValue?.isEmpty == true)
        try realm.write { list.removeAll() }
        #expect(list.isEmpty)

        // Another realm's object for the same row sees every change.
        let other = try self.realm(configuration)
        #expect(other.object(ofType: Holder.self, forPrimaryKey: 0)?.anyValue.listValue?.isEmpty == true)
        #expect(try findings(realm).isEmpty)
    }

    /// RealmSwift's `testMixedNestedCollection`: lists and dictionaries alternating, six levels
    /// deep, set unmanaged, added, assigned to a managed object, and created from Swift
    /// collections.
    @Test func alternatingNestingReadsTheSameEveryWayItIsStored() throws {
        let realm = try realm(temporaryConfiguration())
        let target = Target()
        target.name = "hello"
        let subArray2 = AnyRealmValue.fromArray([.object(target)])
        let subDict2 = AnyRealmValue.fromDictionary(["key1": subArray2])
        let subArray3 = AnyRealmValue.fromArray([subArray2, subDict2])
        let subDict3 = AnyRealmValue.fromDictionary(["key2": subArray3])
        let subArray4 = AnyRealmValue.fromArray([subDict3])
        let subDict4 = AnyRealmValue.fromDictionary(["key3": subArray4])
        let subArray5 = AnyRealmValue.fromArray([subDict4])
        let subDict5 = AnyRealmValue.fromDictionary(["key4": subArray5])
        let subArray6 = AnyRealmValue.fromArray([subDict5])
        let subDict6 = AnyRealmValue.fromDictionary(["key5": subArray6])
        let value = AnyRealmValue.fromDictionary(["key0": subDict6])

        func check(_ holder: Holder, sourceLocation: SourceLocation = #_sourceLocation) {
            let base = holder.anyValue.dictionaryValue?["key0"]?.dictionaryValue?["key5"]?.listValue?[0].dictionaryValue?["key4"]?.listValue?[0]
                .dictionaryValue?["key3"]?.listValue
            let first = base?[0].dictionaryValue?["key2"]?.listValue?[0].listValue?[0].object(Target.self)?.name
            let second = base?[0].dictionaryValue?["key2"]?.listValue?[1].dictionaryValue?["key1"]?.listValue?[0].object(Target.self)?.name
            #expect(first == "hello", sourceLocation: sourceLocation)
            #expect(second == "hello", sourceLocation: sourceLocation)
        }
        let holder = Holder()
        holder.anyValue = value
        check(holder)
        try realm.write { try realm.add(holder) }
        check(holder)
        #expect(realm.objects(Target.self).count == 1, "the linked object was added with its holder, once")
        try realm.write { holder.anyValue = value }
        check(holder)
        let created = try realm.write {
            let nested: [String: Any] = [
                "key0": ["key5": [["key4": [["key3": [["key2": [[AnyRealmValue.object(target)], ["key1": [AnyRealmValue.object(target)]]]]]]]]]]
            ]
            return try realm.create(Holder.self, value: ["id": 2, "anyValue": nested])
        }
        check(created)
        check(try #require(realm.objects(Holder.self).last))
        #expect(try findings(realm).isEmpty)
    }

    /// RealmSwift's `testMixedCollectionEquality`: unmanaged collections are equal when their
    /// contents are; managed ones when they are the same collection.
    @Test func unmanagedCollectionsCompareByContentsManagedOnesByIdentity() throws {
        let realm = try realm(temporaryConfiguration())
        let content: [String: AnyRealmValue] = ["a": .fromArray([.int(1), .fromDictionary(["b": .string("c")])])]
        #expect(AnyRealmValue.fromDictionary([:]) == .fromDictionary([:]))
        #expect(AnyRealmValue.fromArray([]) != .fromDictionary([:]))
        #expect(AnyRealmValue.fromDictionary(content) == .fromDictionary(content))
        let changed = AnyRealmValue.fromDictionary(content)
        changed.dictionaryValue?["new"] = .bool(false)
        #expect(AnyRealmValue.fromDictionary(content) != changed)
        let deeper = AnyRealmValue.fromDictionary(["a": .fromArray([.int(1), .fromDictionary(["b": .string("d")])])])
        #expect(AnyRealmValue.fromDictionary(content) != deeper, "a difference three levels down")
        #expect(AnyRealmValue.fromArray([.int(1)]).hashValue == AnyRealmValue.fromArray([.int(2)]).hashValue, "hashed by kind")

        let first = Holder()
        first.id = 1
        first.anyValue = .fromDictionary(content)
        let second = Holder()
        second.id = 2
        second.anyValue = .fromDictionary(content)
        #expect(first.anyValue == second.anyValue)
        try realm.write { try realm.add([first, second]) }
        #expect(first.anyValue == first.anyValue)
        #expect(first.anyValue == realm.object(ofType: Holder.self, forPrimaryKey: 1)?.anyValue, "the same collection read twice")
        #expect(first.anyValue != second.anyValue, "two objects' collections differ though their contents match")
        #expect(first.anyValue.dictionaryValue?["a"] != second.anyValue.dictionaryValue?["a"])
        #expect(first.anyValue != .fromDictionary(content), "a managed collection never equals an unmanaged one")
    }

    @Test func linksInsideCollectionsAreLinks() throws {
        let realm = try realm(temporaryConfiguration())
        let kept = Target()
        kept.name = "kept"
        let gone = Target()
        gone.name = "gone"
        let holder = Holder()
        holder.anyValue = .fromDictionary([
            "list": .fromArray([.object(gone), .int(1), .object(kept), .fromArray([.object(gone), .object(gone)])]),
            "direct": .object(gone), "other": .object(kept),
        ])
        try realm.write { try realm.add(holder) }
        #expect(realm.objects(Target.self).count == 2)
        #expect(try findings(realm).isEmpty, "backlinks count every link inside the value")

        // As realm-core does: a deleted object leaves lists, and dictionaries hold nil for it.
        try realm.write { try realm.delete(gone) }
        let map = try #require(holder.anyValue.dictionaryValue)
        #expect(map["direct"] == AnyRealmValue.none)
        #expect(map["other"]?.object(Target.self)?.name == "kept")
        let list = try #require(map["list"]?.listValue)
        #expect(list.count == 3)
        #expect(list[0] == .int(1))
        #expect(list[1].object(Target.self)?.name == "kept")
        #expect(list[2].listValue?.isEmpty == true)
        #expect(try findings(realm).isEmpty)

        // The same in a List<AnyRealmValue> property's nested element.
        let third = Target()
        try realm.write {
            holder.anyList.append(.fromArray([.object(third), .string("stays")]))
            holder.anyMap["m"] = .fromDictionary(["t": .object(third)])
        }
        try realm.write { try realm.delete(third) }
        #expect(holder.anyList.first?.listValue.map(Array.init) == [.string("stays")])
        #expect(holder.anyMap["m"]?.dictionaryValue?["t"] == AnyRealmValue.none)
        #expect(try findings(realm).isEmpty)
    }

    @Test func listAndMapPropertiesHoldLiveNestedCollections() throws {
        let realm = try realm(temporaryConfiguration())
        let holder = Holder()
        holder.anyList.append(objectsIn: [.int(1), .fromArray([.string("a")]), .fromDictionary(["k": .bool(true)])])
        holder.anyMap["list"] = .fromArray([.int(2)])
        try realm.write { try realm.add(holder) }
        try realm.write {
            holder.anyList[1].listValue?.append(.string("b"))
            holder.anyList[2].dictionaryValue?["k"] = .bool(false)
            holder.anyMap["list"]?.listValue?.insert(.int(1), at: 0)
        }
        #expect(holder.anyList[1].listValue.map(Array.init) == [.string("a"), .string("b")])
        #expect(holder.anyList[2].dictionaryValue?["k"] == .bool(false))
        #expect(holder.anyMap["list"]?.listValue.map(Array.init) == [.int(1), .int(2)])
        let iterated = holder.anyList.map { $0.listValue?.count ?? -1 }
        #expect(iterated == [-1, 2, -1])
        #expect(try findings(realm).isEmpty)
    }

    @Test func aSetRefusesCollectionsAndValuesNestNoDeeperThanAHundredLevels() throws {
        let realm = try realm(temporaryConfiguration())
        let holder = Holder()
        try realm.write { try realm.add(holder) }
        #expect(throws: RealmError.self) { try realm.write { holder.anySet.insert(.fromArray([.int(1)])) } }
        #expect(holder.anySet.isEmpty)

        func nested(_ depth: Int) -> AnyRealmValue {
            var value = AnyRealmValue.int(0)
            for level in 0..<depth { value = level.isMultiple(of: 2) ? .fromArray([value]) : .fromDictionary(["k": value]) }
            return value
        }
        try realm.write { holder.anyValue = nested(100) }
        var depth = 0
        var value = holder.anyValue
        while let next = value.listValue?.first ?? value.dictionaryValue?["k"] {
            depth += 1
            value = next
        }
        #expect(depth == 100)
        #expect(value == .int(0))

        let error = #expect(throws: RealmError.self) { try realm.write { holder.anyValue = nested(101) } }
        #expect(error?.description.contains("100 levels") == true)
        #expect(holder.anyValue.dictionaryValue?["k"]?.listValue != nil, "the failed write changed nothing")

        // A list that holds itself nests without end: refused, not followed forever.
        let loop = List<AnyRealmValue>()
        loop.append(.int(1))
        loop.append(.list(loop))
        loop.append(.list(loop))
        #expect(throws: RealmError.self) { try realm.write { holder.anyValue = .list(loop) } }
        #expect(AnyRealmValue.list(loop) == .list(loop))
        #expect(throws: RealmError.self) { try realm.write { holder.anyList.append(nested(101)) } }
        #expect(throws: RealmError.self) {
            var deep: Any = 0
            for _ in 0...100 { deep = [deep] }
            try realm.write { _ = try realm.create(Holder.self, value: ["id": 9, "anyValue": deep]) }
        }
        #expect(try findings(realm).isEmpty)
    }

    @Test func aCollectionWhosePlaceWasReplacedIsInvalidated() throws {
        let realm = try realm(temporaryConfiguration())
        let holder = Holder()
        holder.anyValue = .fromArray([.fromArray([.int(1)])])
        try realm.write { try realm.add(holder) }
        let inner = try #require(holder.anyValue.listValue?[0].listValue)
        #expect(!inner.isInvalidated)
        try realm.write { holder.anyValue = .string("no longer a list") }
        #expect(inner.isInvalidated)
        #expect(inner.isEmpty)
        let error = #expect(throws: RealmError.self) { try realm.write { inner.append(.int(2)) } }
        #expect(error?.description.contains("no longer exists") == true)
        #expect(holder.anyValue == .string("no longer a list"))
    }

    @Test func aLargeValueIsKeptOutsideItsRowAndReadsBack() throws {
        let configuration = temporaryConfiguration()
        let strings = (0..<5_000).map { AnyRealmValue.string("element \($0) of a long list") }
        do {
            let realm = try realm(configuration)
            let holder = Holder()
            holder.anyValue = .fromDictionary(["long": .fromArray(strings)])
            try realm.write { try realm.add(holder) }
            try realm.write { holder.anyValue.dictionaryValue?["long"]?.listValue?.append(.string("one more")) }
        }
        let realm = try realm(configuration)
        let list = try #require(realm.objects(Holder.self).first?.anyValue.dictionaryValue?["long"]?.listValue)
        #expect(Array(list) == strings + [.string("one more")])
        #expect(try findings(realm).isEmpty)
    }

    @Test func aFrozenObjectReadsItsCollections() throws {
        let realm = try realm(temporaryConfiguration())
        let holder = Holder()
        holder.anyValue = .fromDictionary(["a": .fromArray([.int(1), .int(2)])])
        try realm.write { try realm.add(holder) }
        let frozen = try holder.freeze()
        try realm.write { holder.anyValue.dictionaryValue?["a"]?.listValue?.append(.int(3)) }
        #expect(frozen.anyValue.dictionaryValue?["a"]?.listValue.map(Array.init) == [.int(1), .int(2)])
        #expect(frozen.anyValue.dictionaryValue?.isFrozen == true)
        #expect(holder.anyValue.dictionaryValue?["a"]?.listValue?.count == 3)
    }

    @Test func aChangeInsideANestedCollectionChangesItsObjectsProperty() async throws {
        let realm = try realm(temporaryConfiguration())
        let holder = Holder()
        holder.anyValue = .fromDictionary(["key0": .fromDictionary(["key1": .fromArray([.fromArray([.int(3)])])])])
        try realm.write { try realm.add(holder) }
        var changes = holder.changes().makeAsyncIterator()  // no initial element, as in RealmSwift
        try realm.write { holder.anyValue.dictionaryValue?["key0"]?.dictionaryValue?["key1"]?.listValue?[0].listValue?[0] = .bool(true) }
        guard case .change(_, let properties)? = await changes.next() else {
            Issue.record("expected a change")
            return
        }
        #expect(properties.map(\.name) == ["anyValue"])
    }

    /// The changes of the next commit, as a stream of `collection`, made before `write`, sees
    /// them (`.initial` skipped).
    private func listUpdate(
        of list: List<AnyRealmValue>?, _ realm: Realm, _ write: () throws -> Void
    ) async throws -> (deletions: [Int], insertions: [Int], modifications: [Int])? {
        var changes = try #require(list).changes().makeAsyncIterator()
        guard case .initial? = await changes.next() else { return nil }
        try realm.write { try write() }
        guard case .update(_, let deletions, let insertions, let modifications)? = await changes.next() else { return nil }
        return (deletions, insertions, modifications)
    }

    private func mapUpdate(
        of map: Map<String, AnyRealmValue>?, _ realm: Realm, _ write: () throws -> Void
    ) async throws -> (deletions: [String], insertions: [String], modifications: [String])? {
        var changes = try #require(map).changes().makeAsyncIterator()
        guard case .initial? = await changes.next() else { return nil }
        try realm.write { try write() }
        guard case .update(_, let deletions, let insertions, let modifications)? = await changes.next() else { return nil }
        return (deletions, insertions, modifications)
    }

    @Test func aNestedDictionaryReportsItsKeysChanges() async throws {
        let realm = try realm(temporaryConfiguration())
        let inner: AnyRealmValue = .fromDictionary(["key1": .fromDictionary(["key5": .float(43)])])
        let value: [String: AnyRealmValue] = ["key0": inner, "key3": .decimal128(Decimal128(1))]
        let holder = Holder()
        holder.anyValue = .fromDictionary(value)
        try realm.write { try realm.add(holder) }
        var outer: Map<String, AnyRealmValue>? { holder.anyValue.dictionaryValue }

        var update = try await mapUpdate(of: outer, realm) { outer?["key2"] = .fromDictionary(value) }
        #expect(update?.insertions == ["key2"] && update?.deletions == [] && update?.modifications == [])
        update = try await mapUpdate(of: outer?["key2"]?.dictionaryValue, realm) { outer?["key2"]?.dictionaryValue?["key0"] = .string("new") }
        #expect(update?.modifications == ["key0"] && update?.insertions == [] && update?.deletions == [])
        update = try await mapUpdate(of: outer, realm) { outer?["key3"] = nil }
        #expect(update?.deletions == ["key3"] && update?.insertions == [])
        let deepest = outer?["key0"]?.dictionaryValue?["key1"]?.dictionaryValue
        update = try await mapUpdate(of: deepest, realm) { deepest?["key6"] = .date(Self.date) }
        #expect(update?.insertions == ["key6"])
        update = try await mapUpdate(of: deepest, realm) { deepest?.removeAll() }
        #expect(update?.deletions == ["key5", "key6"] && update?.insertions == [])
    }

    @Test func aNestedListReportsItsIndicesChanges() async throws {
        let realm = try realm(temporaryConfiguration())
        let innermost: AnyRealmValue = .fromArray([.float(43), .string("lunch"), .double(12.34)])
        let array: [AnyRealmValue] = [.fromArray([innermost, .bool(false)]), .decimal128(Decimal128(1))]
        let holder = Holder()
        holder.anyValue = .fromArray(array)
        try realm.write { try realm.add(holder) }
        var outer: List<AnyRealmValue>? { holder.anyValue.listValue }

        var update = try await listUpdate(of: outer, realm) { outer?.append(.fromArray(array)) }
        #expect(update?.insertions == [2] && update?.deletions == [] && update?.modifications == [])
        // A value replaced in place is deleted and inserted at its index, as in a List property.
        update = try await listUpdate(of: outer?[0].listValue, realm) { outer?[0].listValue?[1] = .objectId(Self.objectId) }
        #expect(update?.deletions == [1] && update?.insertions == [1])
        let deepest = outer?[0].listValue?[0].listValue
        update = try await listUpdate(of: deepest, realm) { deepest?.removeLast() }
        #expect(update?.deletions == [2] && update?.insertions == [])
        update = try await listUpdate(of: deepest, realm) { deepest?.removeAll() }
        #expect(update?.deletions == [0, 1] && update?.insertions == [])
        // An object inside it is modified when the object changes.
        let target = Target()
        try realm.write { deepest?.append(.object(target)) }
        update = try await listUpdate(of: deepest, realm) { target.name = "renamed" }
        #expect(update?.modifications == [0] && update?.deletions == [])
    }

    @Test func aStreamEndsWhenItsPlaceNoLongerHoldsItsCollection() async throws {
        let realm = try realm(temporaryConfiguration())
        let holder = Holder()
        holder.anyValue = .fromDictionary(["list": .fromArray([.int(1), .int(2)])])
        try realm.write { try realm.add(holder) }
        let list = try #require(holder.anyValue.dictionaryValue?["list"]?.listValue)
        var changes = list.changes().makeAsyncIterator()
        _ = await changes.next()
        try realm.write { holder.anyValue.dictionaryValue?["list"] = .string("no longer a list") }
        guard case .update(_, let deletions, _, _)? = await changes.next() else {
            Issue.record("expected the elements deleted")
            return
        }
        #expect(deletions == [0, 1])
        #expect(await changes.next() == nil)
        // One made after that has nothing to observe.
        var late = list.changes().makeAsyncIterator()
        guard case .error(let error)? = await late.next() else {
            Issue.record("expected .error")
            return
        }
        #expect(error.code == .invalidObject && error.description.contains("no longer exists"))
    }

    @Test func aNestedCollectionFreezesAndThaws() throws {
        let realm = try realm(temporaryConfiguration())
        let holder = Holder()
        holder.anyValue = .fromDictionary(["list": .fromArray([.int(1)])])
        try realm.write { try realm.add(holder) }
        let dictionary = try #require(holder.anyValue.dictionaryValue)
        let list = try #require(dictionary["list"]?.listValue)
        let frozenList = try list.freeze()
        let frozenDictionary = try dictionary.freeze()
        try realm.write { list.append(.int(2)) }
        #expect(Array(frozenList) == [.int(1)])
        #expect(frozenDictionary["list"]?.listValue.map(Array.init) == [.int(1)])
        #expect(frozenDictionary["list"]?.listValue?.isFrozen == true)
        let thawed = try #require(realm.thaw(frozenList))
        #expect(Array(thawed) == [.int(1), .int(2)], "the live list at the same place")
        try realm.write { thawed.append(.int(3)) }
        #expect(list.count == 3)
        // Once its place holds something else, it is not frozen.
        try realm.write { holder.anyValue = .none }
        let error = #expect(throws: RealmError.self) { try list.freeze() }
        #expect(error?.code == .invalidObject)
    }

    @Test func theDynamicAPIReadsAndCopiesNestedCollections() throws {
        var configuration = temporaryConfiguration()
        do {
            let realm = try realm(configuration)
            try realm.write {
                _ = try realm.create(Holder.self, value: ["id": 1, "anyValue": AnyRealmValue.fromDictionary(["l": .fromArray([.int(1)])])])
            }
        }
        do {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: configuration.fileURL))
            let first = try #require(realm.dynamicObject(ofType: "Holder", forPrimaryKey: 1))
            let map = try #require(first["anyValue"] as? Map<String, AnyRealmValue>, "the live dictionary")
            #expect(map["l"]?.listValue.map(Array.init) == [.int(1)])
            let copy = try realm.write { try realm.dynamicCreate("Holder", value: ["id": 2, "anyValue": first["anyValue"]!]) }
            try realm.write { (copy["anyValue"] as? Map<String, AnyRealmValue>)?["l"]?.listValue?.append(.int(2)) }
            #expect((copy["anyValue"] as? Map<String, AnyRealmValue>)?["l"]?.listValue?.count == 2)
            #expect(map["l"]?.listValue?.count == 1, "the copy holds its own values")
        }
        // A migration copies one through the old and new objects.
        configuration.schemaVersion = 1
        configuration.migrationBlock = { migration, _ in
            migration.enumerateObjects(ofType: "Holder") { oldObject, newObject in
                newObject!["anyList"] = [oldObject!["anyValue"]!]
            }
        }
        let realm = try realm(configuration)
        let migrated = try #require(realm.object(ofType: Holder.self, forPrimaryKey: 2))
        #expect(migrated.anyList.first?.dictionaryValue?["l"]?.listValue.map(Array.init) == [.int(1), .int(2)])
        #expect(try findings(realm).isEmpty)
    }

    @Test func aViewWhosePlaceNowHoldsTheOtherKindOfCollectionIsGone() async throws {
        let realm = try realm(temporaryConfiguration())
        let holder = Holder()
        holder.anyValue = .fromDictionary(["a": .int(1)])
        try realm.write { try realm.add(holder) }
        let dictionary = try #require(holder.anyValue.dictionaryValue)
        var changes = dictionary.changes().makeAsyncIterator()
        _ = await changes.next()
        try realm.write { holder.anyValue = .fromArray([.int(1), .int(2), .int(3)]) }
        #expect(dictionary.isInvalidated && dictionary.isEmpty)
        // Its stream reports its keys removed and ends.
        guard case .update(_, let deletions, let insertions, _)? = await changes.next() else {
            Issue.record("expected the keys removed")
            return
        }
        #expect(deletions == ["a"] && insertions == [])
        #expect(await changes.next() == nil)
        // A change through it changes nothing, and says why.
        let error = #expect(throws: RealmError.self) { try realm.write { dictionary.removeAll() } }
        #expect(error?.description.contains("dictionary inside an AnyRealmValue no longer exists") == true)
        #expect(holder.anyValue.listValue.map(Array.init) == [.int(1), .int(2), .int(3)])
        #expect(throws: RealmError.self) { try dictionary.freeze() }

        let list = try #require(holder.anyValue.listValue)
        try realm.write { holder.anyValue = .fromDictionary(["b": .int(2)]) }
        #expect(list.isInvalidated)
        #expect(throws: RealmError.self) { try realm.write { list.append(.int(4)) } }
        #expect(holder.anyValue.dictionaryValue?["b"] == .int(2))
    }

    @Test func anObjectWhoseValueLinksToItselfIsDeleted() throws {
        let realm = try realm(temporaryConfiguration())
        for (id, padding) in [(1, 10), (2, 1000), (3, 5000)] {
            let holder = Holder()
            holder.id = id
            try realm.write {
                try realm.add(holder)
                // Long enough with the link to be kept outside the row, and short enough without it not to be.
                holder.anyValue = .fromArray([.object(holder), .string(String(repeating: "x", count: padding))])
                holder.anyMap["me"] = .fromDictionary(["me": .object(holder)])
                holder.anyList.append(.fromArray([.object(holder)]))
            }
            try realm.write { try realm.delete(holder) }
            #expect(holder.isInvalidated)
        }
        #expect(realm.objects(Holder.self).isEmpty)
        #expect(try findings(realm).isEmpty)
    }
}
