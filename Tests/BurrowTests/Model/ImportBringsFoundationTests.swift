import Burrow
import BurrowTestTraits
import Testing

// This file imports only Burrow (and Testing): `Date`, `Data`, `UUID` and `URL` come into
// scope through `import Burrow`, as Foundation does through `import RealmSwift`.

/// The model of `ImportBringsFoundationTests`, stored under the name it had before it was namespaced.
enum ImportBringsFoundationModels {
    final class Values: Object {
        override class func _realmObjectName() -> String? { "FoundationValues" }
        @Persisted(primaryKey: true) var id: UUID
        @Persisted var created = Date(timeIntervalSince1970: 0)
        @Persisted var payload = Data()
        @Persisted var link = ""
    }
}

@Suite(.temporaryDirectory) struct ImportBringsFoundationTests {
    @Test func testFoundationTypesNeedNoImportOfTheirOwn() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        let id = UUID()
        let site = URL(string: "https://example.com/a")!
        let value = ImportBringsFoundationModels.Values(value: [
            "id": id, "created": Date(timeIntervalSince1970: 1_000), "payload": Data([1, 2, 3]), "link": site.absoluteString,
        ])
        try realm.write { try realm.add(value) }
        let read = try #require(realm.object(ofType: ImportBringsFoundationModels.Values.self, forPrimaryKey: id))
        #expect(read.created == Date(timeIntervalSince1970: 1_000))
        #expect(read.payload == Data([1, 2, 3]))
        #expect(URL(string: read.link) == site)
        #expect(realm.configuration.fileURL?.lastPathComponent == "test.burrow")
    }
}
