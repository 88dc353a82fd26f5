import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// The model of `DeepNestedValueTests`, stored under the name it had before it was namespaced.
enum DeepNestedValueModels {
    final class KeyedLink: Object {
        override class func _realmObjectName() -> String? { "DeepKeyedLink" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var label = ""
        @Persisted var next: DeepNestedValueModels.KeyedLink?
    }
}

/// Objects built from values nested far deeper than any stack could recurse through:
/// `create(_:value:)` and `init(value:)` fill nested dictionaries and arrays from a worklist.
/// Each deep test runs in a child process, so that a stack overflow fails the test instead of
/// ending the suite.
@Suite(.temporaryDirectory) struct DeepNestedValueTests {
    static let depth = 100_000

    /// A value nested `depth` levels: level `i` is `make(i, level i + 1)`, the last one
    /// `make(depth - 1, nil)`. The value is kept alive for the rest of the process: Swift
    /// itself releases a nested dictionary recursively, so dropping one this deep would
    /// overflow the stack in Swift's own code.
    static func nested(_ depth: Int, _ make: (Int, Any?) -> [String: Any]) -> [String: Any] {
        var value = make(depth - 1, nil)
        for index in stride(from: depth - 2, through: 0, by: -1) { value = make(index, value) }
        _ = Unmanaged.passRetained(Box(value))
        return value
    }

    final class Box {
        let value: Any
        init(_ value: Any) { self.value = value }
    }

    /// `["index": i, "next": …]` nested `depth` levels.
    static func links(_ depth: Int) -> [String: Any] {
        nested(depth) { index, next in next.map { ["index": index, "next": $0] } ?? ["index": index] }
    }

    /// `["index": i, "children": [ … ]]`: each level the one element of the previous one's list.
    static func lists(_ depth: Int) -> [String: Any] {
        nested(depth) { index, next in ["index": index, "children": next.map { [$0] } ?? []] }
    }

    /// The number of links from `head` to the chain's tail, checking each index on the way.
    static func walk(_ head: DeepObjectGraphModels.Link) -> Int? {
        var current = head
        var steps = 0
        while let next = current.next {
            guard next.index == current.index + 1 else { return nil }
            current = next
            steps += 1
        }
        return steps
    }

    @Test func testCreateBuildsADeepChainFromNestedDictionaries() async {
        await #expect(processExitsWith: .success) {
            let depth = DeepNestedValueTests.depth
            let value = DeepNestedValueTests.links(depth)
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "deep-create"))
            let head = try realm.write { try realm.create(DeepObjectGraphModels.Link.self, value: value) }
            guard realm.objects(DeepObjectGraphModels.Link.self).count == depth else { exit(3) }
            guard head.index == 0, DeepNestedValueTests.walk(head) == depth - 1 else { exit(4) }
        }
    }

    @Test func testInitWithValueBuildsADeepUnmanagedChain() async {
        await #expect(processExitsWith: .success) {
            let depth = DeepNestedValueTests.depth
            let value = DeepNestedValueTests.links(depth)
            var head: DeepObjectGraphModels.Link? = DeepObjectGraphModels.Link(value: value)
            guard head?._pendingError == nil, DeepNestedValueTests.walk(head!) == depth - 1 else { exit(3) }
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "deep-init"))
            try realm.write { try realm.add(head!) }
            guard realm.objects(DeepObjectGraphModels.Link.self).count == depth else { exit(4) }
            // An unmanaged chain made from values is released without recursion too.
            head = DeepObjectGraphModels.Link(value: value)
            head = nil
        }
    }

    @Test func testNestedArraysFillDeepChainsOfLists() async {
        await #expect(processExitsWith: .success) {
            // Lists cost more per object than links.
            let depth = DeepNestedValueTests.depth / 4
            let value = DeepNestedValueTests.lists(depth)
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "deep-create-lists"))
            let head = try realm.write { try realm.create(DeepObjectGraphModels.ListNode.self, value: value) }
            guard realm.objects(DeepObjectGraphModels.ListNode.self).count == depth else { exit(3) }
            var current = head
            while let next = current.children.first { current = next }
            guard current.index == depth - 1 else { exit(4) }
            // The same through init(value:), and an array in declaration order at the top.
            var unmanaged: DeepObjectGraphModels.ListNode? = DeepObjectGraphModels.ListNode(value: [-1, [value]])
            var steps = 0
            var node = unmanaged
            while let next = node?.children.first {
                node = next
                steps += 1
            }
            guard unmanaged?._pendingError == nil, steps == depth, node?.index == depth - 1 else { exit(5) }
            node = nil
            unmanaged = nil
        }
    }

    @Test func testCreateBuildsADeepChainOfEmbeddedObjects() async {
        await #expect(processExitsWith: .success) {
            let depth = DeepNestedValueTests.depth
            let embedded = DeepNestedValueTests.links(depth)
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "deep-create-embedded"))
            let owner = try realm.write { try realm.create(DeepObjectGraphModels.Owner.self, value: ["name": "owner", "first": embedded]) }
            var current = try #require(owner.first)
            var steps = 0
            while let next = current.next {
                guard next.index == current.index + 1 else { exit(3) }
                current = next
                steps += 1
            }
            guard steps == depth - 1 else { exit(4) }
            guard DeepObjectGraphModels.Owner(value: ["name": "unmanaged", "first": embedded])._pendingError == nil else { exit(5) }
        }
    }

    @Test func testCreateWithUpdateUpsertsEveryLevelOfADeepValue() async {
        await #expect(processExitsWith: .success) {
            let depth = DeepNestedValueTests.depth
            func keyed(_ label: String) -> [String: Any] {
                DeepNestedValueTests.nested(depth) { id, next in
                    next.map { ["id": id, "label": label, "next": $0] } ?? ["id": id, "label": label]
                }
            }
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "deep-upsert"))
            try realm.write { _ = try realm.create(DeepNestedValueModels.KeyedLink.self, value: keyed("first")) }
            try realm.write { _ = try realm.create(DeepNestedValueModels.KeyedLink.self, value: keyed("second"), update: .modified) }
            let all = realm.objects(DeepNestedValueModels.KeyedLink.self)
            guard all.count == depth else { exit(3) }
            guard all.allSatisfy({ $0.label == "second" }) else { exit(4) }
            // Without update, the existing key at the top fails and changes nothing.
            do {
                try realm.write { _ = try realm.create(DeepNestedValueModels.KeyedLink.self, value: keyed("third")) }
                exit(5)
            } catch let error as RealmError where error.code == .primaryKeyExists {
            }
            guard all.count == depth, all.allSatisfy({ $0.label == "second" }) else { exit(6) }
        }
    }

    @Test func testABadValueAtTheBottomOfADeepValueThrowsAndChangesNothing() async {
        await #expect(processExitsWith: .success) {
            let depth = DeepNestedValueTests.depth
            let value = DeepNestedValueTests.nested(depth) { index, next in
                next.map { ["index": index, "next": $0] } ?? ["index": "not a number"]
            }
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "deep-bad-value"))
            do {
                try realm.write { _ = try realm.create(DeepObjectGraphModels.Link.self, value: value) }
                exit(3)
            } catch let error as RealmError {
                guard error.description.contains("'index'"), error.description.contains("not a number") else { exit(4) }
            }
            guard realm.objects(DeepObjectGraphModels.Link.self).isEmpty else { exit(5) }
            guard let pending = DeepObjectGraphModels.Link(value: value)._pendingError, pending.description.contains("'index'") else { exit(6) }
            // A deep value where an Int belongs is described by its size, not walked.
            do {
                try realm.write { _ = try realm.create(DeepObjectGraphModels.Link.self, value: ["index": value]) }
                exit(7)
            } catch let error as RealmError {
                guard error.description.contains("entries") else { exit(8) }
            }
            // And where an AnyRealmValue belongs, whose dictionaries nest at most 100 levels.
            do {
                try realm.write { _ = try realm.create(ObjectSuiteModels.RTMixed.self, value: ["id": 1, "value": value]) }
                exit(9)
            } catch let error as RealmError {
                guard error.description.contains("'value'"), error.description.contains("more than 100 levels deep") else { exit(10) }
            }
            guard realm.objects(ObjectSuiteModels.RTMixed.self).isEmpty else { exit(11) }
        }
    }

    @Test func testTenThousandLevelsTakeLittleTime() async {
        await #expect(processExitsWith: .success) {
            // Not a timed assertion: the test stays short only if building is linear.
            let depth = 10_000
            let value = DeepNestedValueTests.links(depth)
            let start = Date()
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "deep-ten-thousand"))
            let head = try realm.write { try realm.create(DeepObjectGraphModels.Link.self, value: value) }
            let unmanaged = DeepObjectGraphModels.Link(value: value)
            print("10,000 nested levels: create and init(value:) in \(Date().timeIntervalSince(start)) s")
            guard DeepNestedValueTests.walk(head) == depth - 1, DeepNestedValueTests.walk(unmanaged) == depth - 1 else { exit(3) }
        }
    }

    @Test func testAThousandNestedLevelsInProcess() throws {
        let value = Self.links(1_000)
        let start = Date()
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "deep-thousand"))
        let head = try realm.write { try realm.create(DeepObjectGraphModels.Link.self, value: value) }
        let unmanaged = DeepObjectGraphModels.Link(value: value)
        print("1,000 nested levels: create and init(value:) in \(Date().timeIntervalSince(start)) s")
        #expect(Self.walk(head) == 999)
        #expect(Self.walk(unmanaged) == 999)
        #expect(unmanaged.next?.next?.index == 2)
    }
}
