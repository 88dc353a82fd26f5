import Burrow
import BurrowTestTraits
import Foundation
import Testing

/// Models of RealmSwift's `testAddAndUpdateEmbedded`: a parent with a primary key holding a
/// tree of embedded objects.
enum AddUpdateEmbeddedModels {
    final class Node: EmbeddedObject {
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted var value = 0
        @Persisted var child: Node?
        @Persisted var children: List<Node>
    }

    final class Parent: Object {
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var object: Node?
        @Persisted var array: List<Node>
        @Persisted var byName: Map<String, Node?>
        @Persisted var tags: MutableSet<String>
        @Persisted var scores: Map<String, Int>
    }

    static let types: [ObjectBase.Type] = [Node.self, Parent.self]
}

/// An update by primary key of an object holding embedded objects, as RealmSwift's
/// `ObjectCreationTests.testAddAndUpdateEmbedded` and `testAddAndUpdateChangedEmbedded` assert:
/// `.all` replaces the embedded tree (the old embedded objects are deleted, so invalidated),
/// `.modified` updates the stored embedded objects in place (the old instances stay valid and
/// show the new values; the new instances become them). Either way the added instance is the
/// stored object.
@Suite(.temporaryDirectory) struct AddUpdateEmbeddedTests {
    typealias Node = AddUpdateEmbeddedModels.Node
    typealias Parent = AddUpdateEmbeddedModels.Parent

    /// Makes embedded objects numbered in the order they are made, as RealmSwift's
    /// `EmbeddedObjectFactory` does.
    final class Factory {
        var made: [Node] = []

        func node() -> Node {
            let node = Node(value: ["value": made.count])
            made.append(node)
            return node
        }

        /// A parent with key 0 holding six new nodes: `object`, its `child`, two `children`,
        /// and two in `array`.
        func tree() -> Parent {
            let parent = Parent()
            parent.object = node()
            parent.object!.child = node()
            parent.object!.children.append(node())
            parent.object!.children.append(node())
            parent.array.append(node())
            parent.array.append(node())
            return parent
        }
    }

    private func realm() throws -> Realm {
        var configuration = temporaryConfiguration()
        configuration.objectTypes = AddUpdateEmbeddedModels.types
        return try Realm(configuration: configuration)
    }

    /// `.all` deletes the old embedded objects (invalidated) and stores the new ones;
    /// `.modified` gives the stored ones (the first six nodes) the second tree's values, and
    /// the second six become those same stored objects. Either way the parent shows the second
    /// tree and is the object the second parent became.
    @Test(arguments: [UpdatePolicy.all, .modified]) func updatingTheEmbeddedTree(policy: UpdatePolicy) throws {
        let factory = Factory()
        let parent = factory.tree()
        let parent2 = factory.tree()
        let made = factory.made
        let realm = try realm()
        try realm.write {
            try realm.add(parent)
            try realm.add(parent2, update: policy)
            for (i, object) in made.enumerated() {
                #expect(object.realm != nil, "node \(i)")
                if policy == .all, i < 6 {
                    #expect(object.isInvalidated, "node \(i)")
                } else {
                    #expect(!object.isInvalidated, "node \(i)")
                    #expect(object.value == (i < 6 ? i + 6 : i), "node \(i)")
                }
            }
            if policy == .modified {
                for i in 0..<6 { #expect(made[i].isSameObject(as: made[i + 6]), "node \(i)") }
            }
            #expect(parent.isSameObject(as: parent2))
            #expect(parent.object?.value == 6)
            #expect(parent.object?.child?.value == 7)
            #expect(parent.object?.children.map(\.value) == [8, 9])
            #expect(parent.array.map(\.value) == [10, 11])
        }
        #expect(realm.objects(Node.self).map(\.value).sorted() == Array(6..<12))
    }

    /// A list of embedded objects is updated by position: the stored objects at the positions
    /// given are kept and changed, new positions gain new objects, and positions past the new
    /// end are removed (their objects deleted).
    @Test func modifiedListsUpdateByPositionAndChangeLength() throws {
        let realm = try realm()
        let stored = Parent()
        stored.array.append(objectsIn: (0..<3).map { Node(value: ["value": $0]) })
        try realm.write { try realm.add(stored) }
        let first = stored.array[0]
        let third = stored.array[2]

        let shorter = Parent()
        shorter.array.append(Node(value: ["value": 10]))
        try realm.write { try realm.add(shorter, update: .modified) }
        #expect(stored.array.map(\.value) == [10])
        #expect(first.value == 10 && !first.isInvalidated)
        #expect(third.isInvalidated)
        #expect(realm.objects(Node.self).count == 1)

        let longer = Parent()
        longer.array.append(objectsIn: [20, 21, 22].map { Node(value: ["value": $0]) })
        try realm.write { try realm.add(longer, update: .modified) }
        #expect(stored.array.map(\.value) == [20, 21, 22])
        #expect(first.value == 20 && first.isSameObject(as: stored.array[0]))
        #expect(realm.objects(Node.self).count == 3)
    }

    /// A map of embedded objects is updated by key; `.modified` keeps the keys not given, as
    /// RealmSwift's does, and so does a map of values. A set gains the elements given.
    @Test func modifiedMapsMergeAndSetsGain() throws {
        let realm = try realm()
        let stored = Parent()
        stored.byName["a"] = Node(value: ["value": 1])
        stored.byName["b"] = Node(value: ["value": 2])
        stored.scores["x"] = 1
        stored.scores["y"] = 2
        stored.tags.insert(objectsIn: ["red", "green"])
        try realm.write { try realm.add(stored) }
        let a = try #require(stored.byName["a"] ?? nil)

        let update = Parent()
        update.byName["a"] = Node(value: ["value": 10])
        update.byName["c"] = Node(value: ["value": 30])
        update.scores["y"] = 20
        update.tags.insert("blue")
        try realm.write { try realm.add(update, update: .modified) }
        #expect(a.value == 10 && !a.isInvalidated)
        #expect(stored.byName.keys.sorted() == ["a", "b", "c"])
        #expect(stored.byName["b"]??.value == 2)
        #expect(stored.byName["c"]??.value == 30)
        #expect(Dictionary(uniqueKeysWithValues: stored.scores.map { ($0.key, $0.value) }) == ["x": 1, "y": 20])
        #expect(Set(stored.tags) == ["red", "green", "blue"])

        // `.all` replaces them.
        let replacement = Parent()
        replacement.byName["d"] = Node(value: ["value": 4])
        replacement.scores["z"] = 3
        try realm.write { try realm.add(replacement, update: .all) }
        #expect(a.isInvalidated)
        #expect(stored.byName.keys.sorted() == ["d"])
        #expect(Array(stored.scores.keys) == ["z"])
        #expect(stored.tags.isEmpty)
        #expect(realm.objects(Node.self).count == 1)
    }

    /// `create(_:value:update: .modified)` from a dictionary updates the stored embedded object
    /// in place too, and a nil or a shorter value removes what it no longer holds.
    @Test func createModifiedUpdatesInPlace() throws {
        let realm = try realm()
        let stored = try realm.write {
            try realm.create(Parent.self, value: ["id": 1, "object": ["value": 1, "child": ["value": 2]]])
        }
        let object = try #require(stored.object)
        let child = try #require(object.child)
        try realm.write {
            _ = try realm.create(Parent.self, value: ["id": 1, "object": ["value": 5]], update: .modified)
        }
        #expect(object.value == 5 && !object.isInvalidated)
        // The value given for `object` holds no child: its child is now nil, and deleted.
        #expect(child.isInvalidated)
        #expect(object.child == nil)
        try realm.write {
            _ = try realm.create(Parent.self, value: ["id": 1, "object": NSNull()], update: .modified)
        }
        #expect(object.isInvalidated)
        #expect(realm.objects(Node.self).isEmpty)
    }

    /// The dynamic API's `.modified` update does the same.
    @Test func dynamicCreateModifiedUpdatesInPlace() throws {
        let realm = try realm()
        let stored = try realm.write {
            try realm.create(Parent.self, value: ["id": 1, "object": ["value": 1], "array": [["value": 2], ["value": 3]]])
        }
        let object = try #require(stored.object)
        let first = stored.array[0]
        try realm.write {
            _ = try realm.dynamicCreate("Parent", value: ["id": 1, "object": ["value": 10], "array": [["value": 20]]], update: .modified)
        }
        #expect(object.value == 10 && !object.isInvalidated)
        #expect(first.value == 20 && !first.isInvalidated)
        #expect(stored.array.count == 1)
        #expect(realm.objects(Node.self).count == 2)
    }

    /// Cancelling the write undoes an in-place update: the stored objects keep their values and
    /// the instances given are unmanaged again.
    @Test func cancellingAModifiedUpdateRestoresTheTree() throws {
        let factory = Factory()
        let parent = factory.tree()
        let parent2 = factory.tree()
        let realm = try realm()
        try realm.write { try realm.add(parent) }
        try realm.beginWrite()
        try realm.add(parent2, update: .modified)
        try realm.cancelWrite()
        #expect(parent.object?.value == 0)
        #expect(parent.array.map(\.value) == [4, 5])
        #expect(factory.made[0].value == 0)
        for node in factory.made[6...] { #expect(node.realm == nil) }
        #expect(parent2.realm == nil)
        #expect(parent2.object?.value == 6)
        #expect(parent2.array.map(\.value) == [10, 11])
    }

    /// The same new embedded object given twice cannot be stored twice: the second place finds
    /// it already managed, and the commit throws.
    @Test func theSameEmbeddedObjectTwiceIsAnError() throws {
        let realm = try realm()
        let stored = Parent()
        stored.array.append(objectsIn: [Node(), Node()])
        try realm.write { try realm.add(stored) }
        let node = Node(value: ["value": 7])
        let update = Parent()
        update.array.append(objectsIn: [node, node])
        #expect(throws: RealmError.self) {
            try realm.write { try realm.add(update, update: .modified) }
        }
        #expect(!realm.isInWriteTransaction)
        #expect(stored.array.map(\.value) == [0, 0])
    }
}
