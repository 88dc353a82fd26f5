import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// The models of `DeepObjectGraphTests`, stored under the names they had before they were namespaced.
enum DeepObjectGraphModels {
    final class Link: Object {
        override class func _realmObjectName() -> String? { "DeepLink" }
        @Persisted var index = 0
        @Persisted var next: DeepObjectGraphModels.Link?
    }

    final class ListNode: Object {
        override class func _realmObjectName() -> String? { "DeepListNode" }
        @Persisted var index = 0
        @Persisted var children: List<DeepObjectGraphModels.ListNode>
    }

    final class Owner: Object {
        override class func _realmObjectName() -> String? { "DeepOwner" }
        @Persisted var name = ""
        @Persisted var first: DeepObjectGraphModels.Embedded?
    }

    final class Embedded: EmbeddedObject {
        override class func _realmObjectName() -> String? { "DeepEmbedded" }
        @Persisted var index = 0
        @Persisted var next: DeepObjectGraphModels.Embedded?
    }

    /// `DeepOwner` after its `first` became `start`.
    final class OwnerRenamed: Object {
        override class func _realmObjectName() -> String? { "DeepOwner" }
        @Persisted var name = ""
        @Persisted var start: DeepObjectGraphModels.Embedded?
    }
}

/// Chains of objects far deeper than any stack could recurse through: adding, reading,
/// freezing, deleting and releasing them takes constant stack depth. Each test runs in a
/// child process, so that a stack overflow fails the test instead of ending the suite.
@Suite(.temporaryDirectory) struct DeepObjectGraphTests {
    static let depth = 100_000

    /// An unmanaged chain of `depth` objects numbered `0 → 1 → … → depth - 1`, each linked
    /// to the next by `link`.
    static func chain<T: ObjectBase>(_ depth: Int, index: ReferenceWritableKeyPath<T, Int>, link: (T, T) -> Void) -> T {
        let head = T()
        var tail = head
        for number in 1..<depth {
            let next = T()
            next[keyPath: index] = number
            link(tail, next)
            tail = next
        }
        return head
    }

    /// An unmanaged chain of `depth` links.
    static func chain(_ depth: Int) -> DeepObjectGraphModels.Link {
        chain(depth, index: \.index) { $0.next = $1 }
    }

    /// An unmanaged chain of `depth` objects, each the one element of the previous one's list.
    static func listChain(_ depth: Int) -> DeepObjectGraphModels.ListNode {
        chain(depth, index: \.index) { $0.children.append($1) }
    }

    /// An unmanaged chain of `depth` embedded objects.
    static func embeddedChain(_ depth: Int) -> DeepObjectGraphModels.Embedded {
        chain(depth, index: \.index) { $0.next = $1 }
    }

    /// A file whose one owner holds a chain of `depth` embedded objects, opened with the
    /// owner's `first` renamed `start` by a migration that assigns it.
    static func migratedOwner(depth: Int) throws -> Realm {
        var v1 = temporaryConfiguration()
        v1.objectTypes = [DeepObjectGraphModels.Owner.self, DeepObjectGraphModels.Embedded.self]
        v1.schemaVersion = 1
        do {
            let realm = try Realm(configuration: v1)
            let owner = DeepObjectGraphModels.Owner()
            owner.first = embeddedChain(depth)
            try realm.write { try realm.add(owner) }
        }
        var v2 = v1
        v2.objectTypes = [DeepObjectGraphModels.OwnerRenamed.self, DeepObjectGraphModels.Embedded.self]
        v2.schemaVersion = 2
        v2.migrationBlock = { migration, _ in
            migration.enumerateObjects(ofType: "DeepOwner") { oldObject, newObject in
                newObject!["start"] = oldObject!["first"]
            }
        }
        return try Realm(configuration: v2)
    }

    @Test func testAddingADeepChainOfLinksAddsEveryObject() async {
        await #expect(processExitsWith: .success) {
            let depth = DeepObjectGraphTests.depth
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "deep-add"))
            try realm.write { try realm.add(DeepObjectGraphTests.chain(depth)) }
            guard realm.objects(DeepObjectGraphModels.Link.self).count == depth else { exit(3) }
            // Read the chain to its tail, through the managed links.
            var current = try #require(realm.objects(DeepObjectGraphModels.Link.self).first(where: { $0.index == 0 }))
            var steps = 0
            while let next = current.next {
                current = next
                steps += 1
            }
            guard steps == depth - 1, current.index == depth - 1 else { exit(4) }
        }
    }

    @Test func testAFrozenDeepChainIsWalkedToItsTail() async {
        await #expect(processExitsWith: .success) {
            let depth = DeepObjectGraphTests.depth
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "deep-freeze"))
            let head = DeepObjectGraphTests.chain(depth)
            try realm.write { try realm.add(head) }
            var frozen = try head.freeze()
            var steps = 0
            while let next = frozen.next {
                frozen = try next.freeze()
                steps += 1
            }
            guard steps == depth - 1, frozen.index == depth - 1 else { exit(3) }
        }
    }

    @Test func testADeepChainIsDeletedAndReleased() async {
        await #expect(processExitsWith: .success) {
            let depth = DeepObjectGraphTests.depth
            do {
                let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "deep-delete"))
                try realm.write { try realm.add(DeepObjectGraphTests.chain(depth)) }
                try realm.write { try realm.delete(realm.objects(DeepObjectGraphModels.Link.self)) }
                guard realm.objects(DeepObjectGraphModels.Link.self).isEmpty else { exit(3) }
            }
            // The chains, the realm and its objects are all released by now.
        }
    }

    @Test func testAnUnmanagedDeepChainIsReleased() async {
        await #expect(processExitsWith: .success) {
            // The chain is the app's own object graph, freed by Swift when the app drops it.
            var head: DeepObjectGraphModels.Link? = DeepObjectGraphTests.chain(DeepObjectGraphTests.depth)
            guard head?.next?.index == 1 else { exit(3) }
            head = nil
            // And a chain through lists.
            var first: DeepObjectGraphModels.ListNode? = DeepObjectGraphTests.listChain(DeepObjectGraphTests.depth)
            guard first?.children.first?.index == 1 else { exit(4) }
            first = nil
        }
    }

    @Test func testAChainOfACancelledAddIsReleased() async {
        await #expect(processExitsWith: .success) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "deep-cancel"))
            var head: DeepObjectGraphModels.Link? = DeepObjectGraphTests.chain(DeepObjectGraphTests.depth)
            try realm.beginWrite()
            try realm.add(head!)
            try realm.cancelWrite()
            // Unmanaged again, with the links it was given.
            guard head?.realm == nil, head?.next?.next?.index == 2, realm.objects(DeepObjectGraphModels.Link.self).isEmpty else { exit(3) }
            head = nil
        }
    }

    @Test func testTheDescriptionOfADeepChainStopsAtFiveLevels() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "deep-description"))
        let head = Self.chain(1_000)
        let text = head.description
        #expect(text.components(separatedBy: "DeepLink {").count - 1 == ObjectBase.descriptionMaxDepth, "\(text)")
        #expect(text.contains("next = <Maximum depth exceeded>;"), "\(text)")
        #expect(text.contains("\t\tindex = 2;"), "nested objects are indented: \(text)")
        try realm.write { try realm.add(head) }
        #expect(head.description.contains("next = <Maximum depth exceeded>;"))
    }

    @Test func testAManagedHeadNoLongerHoldsTheChainItWasGiven() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "deep-drop-values"))
        let head = Self.chain(3)
        weak let second = head.next
        try realm.write { try realm.add(head) }
        // The realm reads the links now; the unmanaged objects given go with the transaction.
        #expect(second == nil)
        #expect(head.next?.next?.index == 2)
    }

    @Test func testAChainThroughListsIsAddedAndDeleted() async {
        await #expect(processExitsWith: .success) {
            // Far deeper than recursion could go; lists cost more per object than links.
            let depth = DeepObjectGraphTests.depth / 4
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "deep-list"))
            let head = DeepObjectGraphTests.listChain(depth)
            try realm.write { try realm.add(head) }
            guard realm.objects(DeepObjectGraphModels.ListNode.self).count == depth else { exit(3) }
            var current = head
            while let next = current.children.first { current = next }
            guard current.index == depth - 1 else { exit(4) }
            try realm.write { try realm.delete(realm.objects(DeepObjectGraphModels.ListNode.self)) }
            guard realm.objects(DeepObjectGraphModels.ListNode.self).isEmpty else { exit(5) }
        }
    }

    @Test func testAMigrationCopiesADeepChainOfEmbeddedObjects() async {
        await #expect(processExitsWith: .success) {
            // The child process runs outside the test, so it makes its own directory.
            try await TemporaryDirectory.withNew("deep-migration") {
                // Far deeper than recursion could go; a migration reads each old object by name.
                let depth = DeepObjectGraphTests.depth / 5
                let realm = try DeepObjectGraphTests.migratedOwner(depth: depth)
                var current = try #require(realm.objects(DeepObjectGraphModels.OwnerRenamed.self).first?.start)
                var steps = 0
                while let next = current.next {
                    current = next
                    steps += 1
                }
                guard steps == depth - 1, current.index == depth - 1 else { exit(3) }
                guard realm.objects(DeepObjectGraphModels.Embedded.self).count == depth else { exit(4) }
            }
        }
    }

    @Test func testAMigrationCopiesAnEmbeddedObjectWhoseLinkIsNil() throws {
        let realm = try Self.migratedOwner(depth: 2)
        let start = try #require(realm.objects(DeepObjectGraphModels.OwnerRenamed.self).first?.start)
        #expect(start.next?.index == 1)
        #expect(start.next?.next == nil)
    }

    @Test func testADeepChainOfEmbeddedObjectsIsAddedAndDeletedWithItsOwner() async {
        await #expect(processExitsWith: .success) {
            let depth = DeepObjectGraphTests.depth
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "deep-embedded"))
            let owner = DeepObjectGraphModels.Owner()
            owner.first = DeepObjectGraphTests.embeddedChain(depth)
            try realm.write { try realm.add(owner) }
            guard realm.objects(DeepObjectGraphModels.Embedded.self).count == depth else { exit(3) }
            var current = try #require(owner.first)
            while let next = current.next { current = next }
            guard current.index == depth - 1 else { exit(4) }
            try realm.write { try realm.delete(owner) }
            guard realm.objects(DeepObjectGraphModels.Embedded.self).isEmpty else { exit(5) }
        }
    }
}
