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
    }

    static let types: [ObjectBase.Type] = [Node.self, Parent.self]
}

/// `add(_:update: .all)` of an object whose key is taken gives the stored object the new
/// embedded tree, as RealmSwift's `ObjectCreationTests.testAddAndUpdateEmbedded` asserts: the
/// old embedded objects are deleted (invalidated), the new ones stored, and the added instance
/// is the stored object.
@Suite(.temporaryDirectory) struct AddUpdateEmbeddedTests {
    typealias Node = AddUpdateEmbeddedModels.Node
    typealias Parent = AddUpdateEmbeddedModels.Parent

    @Test func updatingReplacesTheEmbeddedTree() throws {
        var made: [Node] = []
        func node() -> Node {
            let node = Node(value: ["value": made.count])
            made.append(node)
            return node
        }
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
        let parent = tree()
        let parent2 = tree()

        var configuration = temporaryConfiguration()
        configuration.objectTypes = AddUpdateEmbeddedModels.types
        let realm = try Realm(configuration: configuration)
        try realm.write {
            try realm.add(parent)
            try realm.add(parent2, update: .all)
            for (i, object) in made.enumerated() {
                #expect(object.realm != nil, "node \(i)")
                if i < 6 {
                    // `.all` deletes the old embedded objects and stores the new ones.
                    #expect(object.isInvalidated, "node \(i)")
                } else {
                    #expect(object.value == i)
                }
            }
            #expect(parent.isSameObject(as: parent2))
            #expect(parent.object?.value == 6)
            #expect(parent.object?.child?.value == 7)
            #expect(parent.object?.children.map(\.value) == [8, 9])
            #expect(parent.array.map(\.value) == [10, 11])
        }
        #expect(realm.objects(Node.self).count == 6)
    }
}
