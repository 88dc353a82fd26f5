import BurrowStore
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow
@testable import BurrowStorage

/// The models of `CLIRecoverTests`, stored under the names they had before they were namespaced.
enum CLIRecoverModels {
    final class Item: Object {
        override class func _realmObjectName() -> String? { "CLIRecoverItem" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var tags: List<String>
        @Persisted var friend: CLIRecoverModels.Item?
        @Persisted var note: CLIRecoverModels.Note?
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
    }

    /// A class without a primary key, in a file of its own pages.
    final class Note: Object {
        override class func _realmObjectName() -> String? { "CLIRecoverNote" }
        @Persisted var text = ""
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
    }
}

/// `burrow recover`, `export --salvage` and `verify` on files with pages damaged on disk: the
/// objects on sound pages come out whole, links to lost ones become null, the damaged file is
/// never changed, and every damaged page is listed.
@Suite(.temporaryDirectory, .ownThread) struct CLIRecoverTests {
    static let itemCount = 600

    static func configuration(_ path: String) -> Realm.Configuration {
        Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [CLIRecoverModels.Item.self, CLIRecoverModels.Note.self])
    }

    /// Writes 600 items, each linking to the next and to a note, then one more commit that
    /// touches only the notes, so that the items' pages are not among those the newest commit
    /// wrote (damage to those makes opening fall back a version instead).
    static func writeFile(_ path: String) throws {
        let realm = try Realm(configuration: configuration(path))
        try realm.write {
            var previous: CLIRecoverModels.Item?
            for i in (0..<itemCount).reversed() {
                let item = CLIRecoverModels.Item()
                item.id = i
                item.name = "item \(i) " + String(repeating: "x", count: 40)
                item.tags.append(objectsIn: ["t\(i)", "u\(i)"])
                item.friend = previous
                let note = CLIRecoverModels.Note()
                note.text = "note \(i)"
                item.note = note
                try realm.add(item)
                previous = item
            }
        }
        try realm.write { try realm.add(CLIRecoverModels.Note(value: ["text": "last"])) }
    }

    /// The leaf pages of tree `name`, and the keys each holds, read through the engine.
    static func leaves(of name: String, in path: String) throws -> (pageSize: Int, leaves: [(page: PageNumber, keys: [[UInt8]])]) {
        let storage = try Storage.open(path: path, options: StorageOptions(readOnly: true, create: false, sharing: .shared))
        defer { storage.close() }
        let snapshot = try storage.snapshot()
        let tree = try #require(try snapshot.tree(named: name))
        var leaves: [(page: PageNumber, keys: [[UInt8]])] = []
        var pending = [tree.state.root]
        while let number = pending.popLast() {
            let p = try snapshot.page(number)
            if PageHeader.isLeaf(p) {
                leaves.append((number, (0..<PageHeader.count(p)).map { PageHeader.leafKeyBytes(p, $0) }))
            } else {
                pending += (0..<PageHeader.count(p)).reversed().map { PageHeader.child(p, $0) }
            }
        }
        return (snapshot.layout.pageSize, leaves)
    }

    /// Flips a byte inside each of `pages` of the file at `path`.
    static func damage(_ pages: [PageNumber], pageSize: Int, in path: String) throws {
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        for page in pages { bytes[Int(page) * pageSize + 200] ^= 0x5a }
        try bytes.write(to: URL(fileURLWithPath: path))
    }

    /// The ids of the items whose rows lie on `leaves`.
    static func ids(onLeaves leaves: [(page: PageNumber, keys: [[UInt8]])], of path: String) throws -> Set<Int> {
        let realm = try Realm(configuration: configuration(path))
        let keys = Set(leaves.flatMap(\.keys))
        return Set(realm.objects(CLIRecoverModels.Item.self).filter { keys.contains($0._state!.key.bytes) }.map(\.id))
    }

    /// A damaged copy of the file, with two leaves of the items' rows damaged; returns the ids
    /// of the items on them.
    static func damagedFile(_ tool: CLITool) throws -> (lost: Set<Int>, pages: [PageNumber], ranges: [ClosedRange<Int>]) {
        let path = tool.path("items.burrow")
        try writeFile(path)
        let rowsTree = try Realm(configuration: configuration(path)).objects(CLIRecoverModels.Item.self).first!._state!.table.rowsTree.string
        let (pageSize, leaves) = try leaves(of: rowsTree, in: path)
        #expect(leaves.count >= 4, "the items fill several pages")
        let chosen = [leaves[1], leaves[leaves.count - 2]]
        let lost = try ids(onLeaves: chosen, of: path)
        let ranges = try chosen.map { leaf in
            let ids = try Self.ids(onLeaves: [leaf], of: path)
            return ids.min()!...ids.max()!
        }
        try FileManager.default.copyItem(atPath: path, toPath: tool.path("damaged.burrow"))
        try damage(chosen.map(\.page), pageSize: pageSize, in: tool.path("damaged.burrow"))
        return (lost, chosen.map(\.page), ranges)
    }

    @Test func verifyListsEveryDamagedPage() throws {
        let tool = try CLITool()
        let (_, pages, _) = try Self.damagedFile(tool)
        let verify = try tool.run(["verify", "damaged.burrow"])
        #expect(verify.status == 1)
        for page in pages { #expect(verify.output.contains("page \(page) ("), "\(verify.output)") }
        #expect(verify.output.contains("objects of CLIRecoverItem"), "\(verify.output)")
        #expect(!verify.output.contains("burrow verify") && !verify.errors.contains("burrow verify"))
        #expect(verify.output.contains("burrow recover damaged.burrow"))
    }

    @Test func recoverWritesTheSoundObjectsIntoANewFileAndChangesNothing() throws {
        let tool = try CLITool()
        let (lost, pages, ranges) = try Self.damagedFile(tool)
        let before = try Data(contentsOf: URL(fileURLWithPath: tool.path("damaged.burrow")))
        let run = try tool.run(["recover", "damaged.burrow", "recovered.burrow"])
        #expect(run.status == 1, "\(run.errors)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: tool.path("damaged.burrow"))) == before, "the damaged file is unchanged")
        for page in pages { #expect(run.errors.contains("page \(page) ("), "\(run.errors)") }
        let kept = Self.itemCount - lost.count
        #expect(run.errors.contains("CLIRecoverItem: \(kept) of \(Self.itemCount) objects recovered, \(lost.count) lost"), "\(run.errors)")
        // The items' keys derive from their Int primary key, in order: the lost ids are named.
        for range in ranges { #expect(run.errors.contains("id \(range.lowerBound) to \(range.upperBound)"), "\(run.errors)") }
        #expect(run.errors.contains("recovered.burrow was written with the \(kept + Self.itemCount + 1) objects that could be read"), "\(run.errors)")
        #expect(run.output.contains("into recovered.burrow"), "\(run.output)")
        #expect(try tool.run(["verify", "recovered.burrow"]).status == 0)

        let realm = try Realm(configuration: Self.configuration(tool.path("recovered.burrow")))
        let items = realm.objects(CLIRecoverModels.Item.self)
        #expect(Set(items.map(\.id)) == Set(0..<Self.itemCount).subtracting(lost))
        for item in items {
            #expect(item.name.hasPrefix("item \(item.id) ") && Array(item.tags) == ["t\(item.id)", "u\(item.id)"])
            #expect(item.note?.text == "note \(item.id)")
            // A link to an item that was lost is null; any other is kept.
            let next = item.id + 1
            if next < Self.itemCount, !lost.contains(next) {
                #expect(item.friend?.id == next)
            } else {
                #expect(item.friend == nil)
            }
        }
        let droppedLinks = lost.filter { $0 > 0 && !lost.contains($0 - 1) }.count
        #expect(run.errors.contains("\(droppedLinks) links to objects that were lost were set to null"), "\(run.errors)")

        let again = try tool.run(["recover", "damaged.burrow", "recovered.burrow"])
        #expect(again.status == 1 && again.errors.contains("recovered.burrow exists already"), "\(again.errors)")
    }

    @Test func exportSalvageWritesAnExportThatImports() throws {
        let tool = try CLITool()
        let (lost, _, _) = try Self.damagedFile(tool)
        let before = try Data(contentsOf: URL(fileURLWithPath: tool.path("damaged.burrow")))
        let export = try tool.run(["export", "damaged.burrow", "--salvage", "--output", "salvaged.json"])
        #expect(export.status == 1, "\(export.errors)")
        #expect(export.errors.contains("the export to salvaged.json holds the"), "\(export.errors)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: tool.path("damaged.burrow"))) == before)
        let imported = try tool.run(["import", "copy.burrow", "salvaged.json"])
        #expect(imported.status == 0, "\(imported.errors)")
        let realm = try Realm(configuration: Self.configuration(tool.path("copy.burrow")))
        #expect(Set(realm.objects(CLIRecoverModels.Item.self).map(\.id)) == Set(0..<Self.itemCount).subtracting(lost))

        // A sound file salvages whole, with status 0 and the document `export` writes.
        let sound = try tool.run(["export", "items.burrow", "--salvage"])
        #expect(sound.status == 0 && sound.errors.isEmpty, "\(sound.errors)")
        #expect(sound.output == (try tool.run(["export", "items.burrow"])).output)
        let whole = try tool.run(["recover", "items.burrow", "whole.burrow"])
        #expect(whole.status == 0 && whole.errors.isEmpty, "\(whole.errors)")
    }

    @Test func linksToLostObjectsBecomeNullInEmbeddedObjectsListsSetsAndMaps() throws {
        let tool = try CLITool()
        let path = tool.path("shop.burrow")
        try CLIShop.write(to: path)
        // A later commit that does not touch the pets' rows, so that their page is not one the
        // newest commit wrote.
        let rowsTree: String
        do {
            let realm = try Realm(configuration: CLIShop.configuration(path))
            try realm.write { _ = try realm.create(CLIModels.Values.self, value: ["id": 3]) }
            rowsTree = try #require(realm.objects(CLIModels.Pet.self).first)._state!.table.rowsTree.string
        }
        let (pageSize, leaves) = try Self.leaves(of: rowsTree, in: path)
        #expect(leaves.count == 1)
        // Sound, the shop salvages to the very document `export` writes: every type, `any` tags,
        // links by primary key and by `$key`, embedded objects at every depth.
        let whole = try tool.run(["export", "shop.burrow", "--salvage"])
        #expect(whole.status == 0 && whole.errors.isEmpty, "\(whole.errors)")
        #expect(whole.output == (try tool.run(["export", "shop.burrow"])).output)
        try FileManager.default.copyItem(atPath: path, toPath: tool.path("damaged.burrow"))
        try Self.damage(leaves.map(\.page), pageSize: pageSize, in: tool.path("damaged.burrow"))

        let run = try tool.run(["recover", "damaged.burrow", "recovered.burrow"])
        #expect(run.status == 1, "\(run.errors)")
        #expect(!run.errors.contains("did not open whole"), "\(run.errors)")
        #expect(run.errors.contains("CLIPet: 0 of 3 objects recovered, 3 lost"), "\(run.errors)")
        #expect(run.errors.contains("CLIOwner: 3 of 3 objects recovered\n"), "\(run.errors)")
        #expect(run.errors.contains("CLIAddress: 7 of 7 objects recovered\n"), "\(run.errors)")
        // Ann's two pets, Bo's one, two residents of Ann's addresses, gold's pet; and in the
        // values: any, pet, two set elements, a map value, an any in a map, two residents, and
        // one in a list inside an any.
        #expect(run.errors.contains("15 links to objects that were lost were set to null"), "\(run.errors)")

        let copy = try Realm(configuration: CLIShop.configuration(tool.path("recovered.burrow")))
        #expect(
            copy.objects(CLIModels.Pet.self).isEmpty && copy.objects(CLIModels.Owner.self).count == 3 && copy.objects(CLIModels.Badge.self).count == 2
        )
        let ann = try #require(copy.object(ofType: CLIModels.Owner.self, forPrimaryKey: "Ann"))
        #expect(ann.pets.isEmpty && ann.badge?.label == "silver")
        #expect(ann.home?.street == "1 Main St" && ann.home?.resident == nil && ann.home?.badge?.label == "gold")
        #expect(ann.home?.previous?.street == "2 Old Rd" && ann.home?.previous?.resident == nil)
        #expect(ann.home?.previous?.previous?.street == "3 First Ln")
        let values = try #require(copy.object(ofType: CLIModels.Values.self, forPrimaryKey: 1))
        #expect(values.any == .none && values.pet == nil && values.petSet.isEmpty && values.badges.map(\.label) == ["silver", "gold"])
        #expect(values.petMap.keys.sorted() == ["best", "none"] && values.petMap["best"] == .some(nil))
        #expect(values.anyMap["p"] == AnyRealmValue.none && values.anyMap["i"] == .int(1))
        #expect(values.addresses.map(\.street) == ["4 List St", "5 List St"] && values.addresses[0].resident == nil)
        #expect(copy.objects(CLIModels.Values.self).count == 3)
        // A list inside an AnyRealmValue leaves out the lost link, as it does a deleted one.
        let second = try #require(copy.object(ofType: CLIModels.Values.self, forPrimaryKey: 2))
        #expect(second.any.dictionaryValue?["pets"]?.listValue.map { $0.count } == 2)
        #expect(second.any.dictionaryValue?["deep"]?.dictionaryValue?["n"] == .int(-1))
    }

    @Test func anObjectWhoseListElementsAreOnADamagedPageIsLostWhole() throws {
        let tool = try CLITool()
        let path = tool.path("items.burrow")
        try Self.writeFile(path)
        let (listTree, ids): (String, [UInt64: Int])
        do {
            let realm = try Realm(configuration: Self.configuration(path))
            let table = try #require(realm.objects(CLIRecoverModels.Item.self).first)._state!.table
            let field = try #require(table.stored.fieldIndex(of: "tags"))
            listTree = try #require(Table.collectionTreeName(table.stored.id, field, .list)).string
            ids = Dictionary(uniqueKeysWithValues: realm.objects(CLIRecoverModels.Item.self).map { ($0._state!.key.rawValue, $0.id) })
        }
        let (pageSize, leaves) = try Self.leaves(of: listTree, in: path)
        #expect(leaves.count >= 3)
        let leaf = leaves[1]
        // Every item with an element on the leaf loses its list, and so is lost whole.
        let lost = Set(leaf.keys.map { key in key.withUnsafeBytes { ids[ObjectKey.read($0).rawValue]! } })
        try FileManager.default.copyItem(atPath: path, toPath: tool.path("damaged.burrow"))
        try Self.damage([leaf.page], pageSize: pageSize, in: tool.path("damaged.burrow"))

        let run = try tool.run(["recover", "damaged.burrow", "recovered.burrow"])
        #expect(run.status == 1, "\(run.errors)")
        #expect(run.errors.contains("page \(leaf.page) (tree \"\(listTree)\", elements of the lists CLIRecoverItem.tags)"), "\(run.errors)")
        #expect(
            run.errors.contains(
                "CLIRecoverItem: \(Self.itemCount - lost.count) of \(Self.itemCount) objects recovered, \(lost.count) lost (\(lost.count) objects whose long values or collection elements were on damaged pages)"
            ), "\(run.errors)")
        let realm = try Realm(configuration: Self.configuration(tool.path("recovered.burrow")))
        #expect(Set(realm.objects(CLIRecoverModels.Item.self).map(\.id)) == Set(0..<Self.itemCount).subtracting(lost))
        #expect(realm.objects(CLIRecoverModels.Item.self).allSatisfy { Array($0.tags) == ["t\($0.id)", "u\($0.id)"] })
    }

    @Test func aFileNoVersionOfWhichOpensWholeIsReadAtItsNewestVersion() throws {
        let tool = try CLITool()
        let path = tool.path("items.burrow")
        try Self.writeFile(path)
        // The newest meta lists the pages its commit (the last note) wrote: damage a leaf of the
        // notes among them, and the other meta page, so that no version opens whole.
        let notesTree = try Realm(configuration: Self.configuration(path)).objects(CLIRecoverModels.Note.self).first!._state!.table.rowsTree.string
        let (pageSize, leaves) = try Self.leaves(of: notesTree, in: path)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let metas = bytes.withUnsafeBytes { raw in
            (0..<2).map { slot -> (version: UInt64, listed: [PageNumber])? in
                let page = UnsafeRawBufferPointer(rebasing: raw[(slot * pageSize)...])
                guard case .valid(let meta, let written) = Meta.read(page, slot: slot) else { return nil }
                return (meta.version, written.entries.map(\.page))
            }
        }
        let newest = try #require(metas[0]).version > (try #require(metas[1])).version ? 0 : 1
        let listed = Set(try #require(metas[newest]).listed)
        let leaf = try #require(leaves.first { listed.contains($0.page) }, "the newest commit wrote a leaf of the notes")
        bytes[Int(leaf.page) * pageSize + 200] ^= 0x5a
        bytes[(1 - newest) * pageSize + 200] ^= 0x5a
        try bytes.write(to: URL(fileURLWithPath: tool.path("damaged.burrow")))

        // Opening refuses the file, with the reason; recovering reads the newest version as it
        // is, and writes every object on a sound page: every item, the notes off that leaf.
        let open = try tool.run(["info", "damaged.burrow"])
        #expect(open.status == 1)
        #expect(open.errors.contains("page \(leaf.page)") && open.errors.contains("fails its checksum"), "\(open.errors)")
        let run = try tool.run(["recover", "damaged.burrow", "recovered.burrow"])
        #expect(run.status == 1, "\(run.errors)")
        #expect(run.errors.contains("did not open whole: no version opens whole: page \(leaf.page)"), "\(run.errors)")
        let realm = try Realm(configuration: Self.configuration(tool.path("recovered.burrow")))
        #expect(Set(realm.objects(CLIRecoverModels.Item.self).map(\.id)) == Set(0..<Self.itemCount))
        let notes = realm.objects(CLIRecoverModels.Note.self).count
        #expect(notes > 0 && notes < Self.itemCount + 1 - leaf.keys.count + 1, "\(notes) notes recovered")
    }

    @Test func aFileWhosePagesAreAllDamagedGivesAReason() throws {
        let tool = try CLITool()
        let path = tool.path("items.burrow")
        try Self.writeFile(path)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let pageSize = try Self.leaves(of: "schema", in: path).pageSize
        for offset in stride(from: 2 * pageSize + 100, to: bytes.count, by: pageSize) { bytes[offset] ^= 0x5a }
        try bytes.write(to: URL(fileURLWithPath: tool.path("garbage.burrow")))
        let run = try tool.run(["recover", "garbage.burrow", "out.burrow"])
        #expect(run.status == 1)
        #expect(run.errors.contains("burrow: nothing could be read from garbage.burrow: "), "\(run.errors)")
        #expect(!FileManager.default.fileExists(atPath: tool.path("out.burrow")))
        let verify = try tool.run(["verify", "garbage.burrow"])
        #expect(verify.status == 1)
    }
}
