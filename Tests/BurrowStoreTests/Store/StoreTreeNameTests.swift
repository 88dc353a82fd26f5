import BurrowStore
import BurrowTestTraits
import Testing

/// The names of the object store's trees: each family's name reads back as itself, and names the
/// store never makes read back as nothing.
@Suite("StoreTreeName", .temporaryDirectory)
struct StoreTreeNameTests {
    @Test("every family's tree name reads back as the same tree")
    func namesRoundTrip() {
        for family in StoreTreeName.Family.allCases {
            let name = StoreTreeName(family, 7, field: family.isPerField ? 3 : nil)
            #expect(StoreTreeName(parsing: name.string) == name, "\(name.string)")
        }
        #expect(StoreTreeName(.rows, 12).string == "rows/12")
        #expect(StoreTreeName(.primaryKey, 12).string == "pk/12")
        #expect(StoreTreeName(.backlinks, 12).string == "links/12")
        #expect(StoreTreeName(.index, 12, field: 0).string == "index/12/0")
        #expect(Table.collectionTreeName(12, 4, .map)?.string == "map/12/4")
        #expect(Table.collectionTreeName(12, 4, .single)?.string == nil)
    }

    @Test("names the store never makes are not taken for its trees")
    func foreignNamesDoNotParse() {
        for name in [
            "rows", "rows/", "rows/x", "rows/1/2", "index/1", "index/1/x", "index/1/-1", "list/1/2/3", "other/1", "schema", "/1", "pk/4294967296",
        ] {
            #expect(StoreTreeName(parsing: name) == nil, "\(name)")
        }
    }

    @Test("every tree the object layer names reads back as itself, and no other name does")
    func treeNamesRoundTrip() {
        let names: [TreeName] = [.schema, .sequences] + StoreTreeName.Family.allCases.map { TreeName($0, 3, field: $0.isPerField ? 1 : nil) }
        for name in names {
            #expect(TreeName(parsing: name.string) == name, "\(name)")
        }
        #expect(TreeName.schema.string == "schema")
        #expect(TreeName.sequences.string == "sequences")
        #expect(TreeName(.rows, 3).storeTree == StoreTreeName(.rows, 3))
        #expect(TreeName.schema.storeTree == nil)
        for name in ["Schema", "sequence", "schema/1", "rows/x", "", "other"] {
            #expect(TreeName(parsing: name) == nil, "\(name)")
        }
    }
}
