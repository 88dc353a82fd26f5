import Burrow
import BurrowTestTraits
import Foundation
import Testing

/// Models whose collections RealmSwift's description tests print.
enum DescriptionModels {
    final class Item: Object {
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted var name = ""
        @Persisted var next: Item?
        @Persisted var items: List<Item>
    }

    final class Holder: Object {
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted var ints: List<Int>
        @Persisted var optionalStrings: MutableSet<String?>
        @Persisted var itemMap: Map<String, Item?>
    }

    static let types: [ObjectBase.Type] = [Item.self, Holder.self]
}

/// Collections describe themselves as RealmSwift's do (`RLMDescriptionWithMaxDepth` and
/// `RLMDictionaryDescriptionWithMaxDepth`), and objects nest those descriptions.
@Suite(.temporaryDirectory) struct CollectionDescriptionTests {
    typealias Item = DescriptionModels.Item
    typealias Holder = DescriptionModels.Holder

    /// `description` with the instance's address, which varies, replaced by `<ADDRESS>`.
    private func normalized(_ description: String) -> String {
        description.replacing(/<0x[0-9a-f]+>/, with: "<ADDRESS>")
    }

    /// Runs `body` on an unmanaged holder, then on a managed one.
    private func onBothHolders(_ body: (Holder) throws -> Void) throws {
        try body(Holder())
        var configuration = temporaryConfiguration()
        configuration.objectTypes = DescriptionModels.types
        let realm = try Realm(configuration: configuration)
        let holder = Holder()
        try realm.write {
            try realm.add(holder)
            try body(holder)
        }
    }

    @Test func aMapPrintsEachKeyAndValue() throws {
        // MapTests.testMapDescription.
        try onBothHolders { holder in
            for i in 0...5 { holder.itemMap["key\(i)"] = Item(value: ["name": String(i)]) }
            let description = holder.itemMap.description
            #expect(description.hasPrefix("Map<string, Item> <0x"), "\(description)")
            #expect(description.contains("[key3]: Item {\n\t\tname = 3;\n\t\tnext = nil;\n\t\titems = List<Item> <0x"), "\(description)")
        }
    }

    @Test func aListPrintsOneElementALine() throws {
        try onBothHolders { holder in
            #expect(normalized(holder.ints.description) == "List<int> <ADDRESS> (\n\n)")
            holder.ints.append(objectsIn: [1, 2])
            #expect(normalized(holder.ints.description) == "List<int> <ADDRESS> (\n\t[0] 1,\n\t[1] 2\n)")
            holder.optionalStrings.insert(nil)
            #expect(normalized(holder.optionalStrings.description) == "MutableSet<string> <ADDRESS> (\n\t[0] <null>\n)")
            #expect(normalized(holder.description).contains("\tints = List<int> <ADDRESS> (\n\t\t[0] 1,\n\t\t[1] 2\n\t);"), "\(holder)")
        }
    }

    @Test func aLongCollectionListsItsFirstHundred() throws {
        try onBothHolders { holder in
            holder.ints.append(objectsIn: Array(0..<150))
            let description = holder.ints.description
            #expect(!description.contains("[100]"))
            #expect(description.hasSuffix("\t[98] 98,\n\t[99] 99\n\t... 50 objects skipped.\n)"), "\(description.suffix(80))")
        }
    }

    @Test func resultsPrintTheirObjects() throws {
        var configuration = temporaryConfiguration()
        configuration.objectTypes = DescriptionModels.types
        let realm = try Realm(configuration: configuration)
        try realm.write { try realm.add(Item(value: ["name": "a"])) }
        let description = normalized(realm.objects(Item.self).description)
        #expect(
            description.hasPrefix(
                "Results<Item> <ADDRESS> (\n\t[0] Item {\n\t\tname = a;\n\t\tnext = nil;\n\t\titems = List<Item> <ADDRESS> (\n\t\t\n\t\t);\n\t}\n)"),
            "\(description)")
    }

    @Test func aCycleThroughCollectionsStopsAtTheMaximumDepth() throws {
        // An object in its own list: RealmSwift prints five levels, then
        // `<Maximum depth exceeded>`.
        try onBothHolders { holder in
            let item = Item(value: ["name": "loop"])
            holder.itemMap["self"] = item
            let managed = holder.itemMap["self"]!!
            managed.items.append(managed)
            managed.next = managed
            let description = managed.description
            #expect(description.contains("<Maximum depth exceeded>"), "\(description)")
            #expect(description.count < 100_000)
        }
    }
}
