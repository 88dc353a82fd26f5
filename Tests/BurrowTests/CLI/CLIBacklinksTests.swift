import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// Backlinks in the `burrow` tool: the `LinkingObjects` properties a file records are shown by
/// `schema`, `objects` (every format) and `dump`, left out of `export`, and usable in
/// `--where` with `@links`, as in RealmSwift's query language. Each run is of the real tool on
/// a file written with Swift classes.
@Suite(.temporaryDirectory, .ownThread) struct CLIBacklinksTests {
    /// The objects `objects --format json` printed.
    static func objects(_ run: CLITool.Run) throws -> [[String: Any]] {
        #expect(run.status == 0, "\(run.errors)")
        return try #require(try CLITool.json(run.output) as? [[String: Any]])
    }

    /// The names of the hounds `--where query` chooses, in name order.
    static func hounds(_ tool: CLITool, where query: String) throws -> [String] {
        let run = try tool.run(["objects", "kennel.burrow", "CLIHound", "--where", query, "--sort", "name", "--format", "json"])
        return try objects(run).map { $0["name"] as? String ?? "?" }
    }

    @Test func objectsListTheLinkingObjectsOfEachObjectByKey() throws {
        let tool = try CLITool()
        let keys = try CLIKennel.write(to: tool.path("kennel.burrow"))
        let hounds = try Self.objects(try tool.run(["objects", "kennel.burrow", "CLIHound", "--format", "json", "--sort", "name"]))
        #expect(hounds.map { $0["name"] as? String } == ["Fido", "Rex", "Spot"])
        // Keepers by primary key, in the order the file keeps them; collars, which have no
        // primary key, by object key, as links to them are shown.
        #expect(hounds.map { $0["keepers"] as? [String] } == [["Ali", "Bo"], ["Ali"], []])
        let collars = hounds.map { ($0["collars"] as? [[String: Int]])?.compactMap { $0["$key"] } }
        #expect(collars == [[], [keys.red, keys.blue], []])
        #expect(hounds.map { Array($0.keys).sorted() } == Array(repeating: ["collars", "keepers", "name"], count: 3))

        let table = try tool.run(["objects", "kennel.burrow", "CLIHound", "--sort", "name"])
        #expect(table.status == 0, "\(table.errors)")
        let rows = table.lines.map(CLIReadingTests.words)
        #expect(rows.contains("| name | keepers | collars |"))
        #expect(rows.contains("| Fido | [\"Ali\",\"Bo\"] | [] |"))
        #expect(rows.contains("| Rex | [\"Ali\"] | [{\"$key\":\(keys.red)},{\"$key\":\(keys.blue)}] |"))
        #expect(rows.contains("| Spot | [] | [] |"))

        let csv = try tool.run(["objects", "kennel.burrow", "CLIHound", "--sort", "name", "--format", "csv"])
        #expect(csv.output.hasPrefix("name,keepers,collars\r\nFido,\"[\"\"Ali\"\",\"\"Bo\"\"]\",[]\r\n"))
    }

    @Test func whereFollowsLinkingObjectsAndLinksBack() throws {
        let tool = try CLITool()
        try CLIKennel.write(to: tool.path("kennel.burrow"))
        let cases: [(String, [String])] = [
            ("keepers.@count > 0", ["Fido", "Rex"]),
            ("keepers.@count == 0", ["Spot"]),
            ("ANY keepers.name == 'Bo'", ["Fido"]),
            ("ALL keepers.age > 30", ["Rex", "Spot"]),
            ("keepers.@sum.age > 50", ["Fido"]),
            ("SUBQUERY(keepers, $k, $k.age < 30).@count > 0", ["Fido"]),
            ("@links.CLIKeeper.dogs.@count > 1", ["Fido"]),
            ("@links.CLIKeeper.favorite.@count > 0", ["Rex", "Spot"]),
            ("ANY @links.CLIKeeper.favorite.name == 'Bo'", ["Spot"]),
            ("@links.CLICollar.hound.@count == 2", ["Rex"]),
            // Rex: Ali's dog and favourite, and two collars; Fido: two keepers' dog.
            ("@links.@count == 4", ["Rex"]),
            ("@links.@count == 2", ["Fido"]),
            ("@links.@count == 1", ["Spot"]),
        ]
        for (query, expected) in cases {
            #expect(try Self.hounds(tool, where: query) == expected, "\(query)")
        }
    }

    @Test func badBacklinkPathsAreUsageErrorsNamingWhatIsMissing() throws {
        let tool = try CLITool()
        try CLIKennel.write(to: tool.path("kennel.burrow"))
        let cases: [(String, String)] = [
            ("@links.CLIKeepr.dogs.@count > 0", "there is no class named CLIKeepr"),
            ("@links.CLIKeeper.dog.@count > 0", "CLIKeeper has no property 'dog' (its links to CLIHound: dogs, favorite)"),
            ("@links.CLIKeeper.age.@count > 0", "property 'age' of CLIKeeper is int, not a link to CLIHound"),
            ("keepers.nme == 'Ali'", "CLIKeeper has no property 'nme'"),
            ("@links.@sum > 0", "a class name (@links.Class.property) or @count after @links."),
        ]
        for (query, message) in cases {
            let run = try tool.run(["objects", "kennel.burrow", "CLIHound", "--where", query])
            #expect(run.status == 2, "\(query)")
            #expect(run.output.isEmpty, "\(query)")
            #expect(run.errors.contains(message), "\(query): \(run.errors)")
        }
    }

    @Test func schemaAndDumpShowLinkingObjects() throws {
        let tool = try CLITool()
        let keys = try CLIKennel.write(to: tool.path("kennel.burrow"))
        let schema = try tool.run(["schema", "kennel.burrow"])
        #expect(schema.status == 0, "\(schema.errors)")
        let lines = schema.lines.map(CLIReadingTests.words)
        #expect(lines.contains("keepers LinkingObjects<CLIKeeper> computed from CLIKeeper.dogs"))
        #expect(lines.contains("collars LinkingObjects<CLICollar> computed from CLICollar.hound"))

        let json = try tool.run(["schema", "kennel.burrow", "--format", "json"])
        let document = try #require(try CLITool.json(json.output) as? [String: Any])
        let classes = try #require(document["classes"] as? [[String: Any]])
        let hound = try #require(classes.first { $0["name"] as? String == "CLIHound" })
        #expect((hound["properties"] as? [[String: Any]])?.map { $0["name"] as? String } == ["name"])
        let linking = try #require(hound["linkingObjects"] as? [[String: String]])
        #expect(
            linking == [
                ["name": "keepers", "objectClass": "CLIKeeper", "property": "dogs"],
                ["name": "collars", "objectClass": "CLICollar", "property": "hound"],
            ])

        let dump = try tool.run(["dump", "kennel.burrow"])
        #expect(dump.status == 0, "\(dump.errors)")
        let rex = try #require(dump.lines.first { $0.contains("\"name\":\"Rex\"") })
        #expect(
            rex.trimmingCharacters(in: .whitespaces)
                == "{\"name\":\"Rex\",\"keepers\":[\"Ali\"],\"collars\":[{\"$key\":\(keys.red)},{\"$key\":\(keys.blue)}]}")
    }

    @Test func exportDeclaresLinkingObjectsWithoutTheirObjectsAndImportRecordsThem() throws {
        let tool = try CLITool()
        try CLIKennel.write(to: tool.path("kennel.burrow"))
        let export = try tool.run(["export", "kennel.burrow", "--output", "kennel.json"])
        #expect(export.status == 0, "\(export.errors)")
        let document = try #require(try CLITool.json(String(contentsOfFile: tool.path("kennel.json"), encoding: .utf8)) as? [String: Any])
        let objects = try #require(document["objects"] as? [String: [[String: Any]]])
        #expect(objects["CLIHound"]?.map { Array($0.keys).sorted() } == Array(repeating: ["name"], count: 3))
        let classes = try #require(document["classes"] as? [[String: Any]])
        let hound = try #require(classes.first { $0["name"] as? String == "CLIHound" })
        #expect((hound["linkingObjects"] as? [[String: String]])?.map { $0["name"] } == ["keepers", "collars"])

        let imported = try tool.run(["import", "copy.burrow", "kennel.json"])
        #expect(imported.status == 0, "\(imported.errors)")
        // The links came back, and with them what follows them back.
        let run = try tool.run(["objects", "copy.burrow", "CLIHound", "--where", "keepers.@count > 1", "--format", "json"])
        #expect(try Self.objects(run).map { $0["keepers"] as? [String] } == [["Ali", "Bo"]])
        let links = try tool.run(["objects", "copy.burrow", "CLIHound", "--where", "@links.CLICollar.hound.@count > 0", "--format", "json"])
        #expect(try Self.objects(links).map { $0["name"] as? String } == ["Rex"])
    }

    @Test func anImportedLinkingObjectsPropertyMustFollowALinkToItsClass() throws {
        let tool = try CLITool()
        try CLIKennel.write(to: tool.path("kennel.burrow"))
        #expect(try tool.run(["export", "kennel.burrow", "--output", "kennel.json"]).status == 0)
        let text = try String(contentsOfFile: tool.path("kennel.json"), encoding: .utf8)
        let wrong = text.replacingOccurrences(of: "\"property\":\"dogs\"", with: "\"property\":\"age\"")
        #expect(wrong != text)
        try wrong.write(toFile: tool.path("wrong.json"), atomically: true, encoding: .utf8)
        let run = try tool.run(["import", "wrong.burrow", "wrong.json"])
        #expect(run.status != 0)
        #expect(run.errors.contains("LinkingObjects property 'keepers' follows CLIKeeper.age, which is not a link to CLIHound"), "\(run.errors)")
    }

    @Test func aClassStoredWithoutItsLinkingObjectsRecordsThemAtTheProgramsNextWrite() throws {
        let tool = try CLITool()
        try CLIKennel.write(to: tool.path("kennel.burrow"))
        // An export that declares no LinkingObjects imports as classes that record none.
        #expect(try tool.run(["export", "kennel.burrow", "--output", "kennel.json"]).status == 0)
        var document = try #require(try CLITool.json(String(contentsOfFile: tool.path("kennel.json"), encoding: .utf8)) as? [String: Any])
        let classes = try #require(document["classes"] as? [[String: Any]])
        document["classes"] = classes.map { $0.filter { $0.key != "linkingObjects" } }
        try JSONSerialization.data(withJSONObject: document).write(to: URL(fileURLWithPath: tool.path("plain.json")))
        let imported = try tool.run(["import", "copy.burrow", "plain.json"])
        #expect(imported.status == 0, "\(imported.errors)")
        let unknown = try tool.run(["objects", "copy.burrow", "CLIHound", "--where", "keepers.@count > 0"])
        #expect(unknown.status == 2)
        #expect(unknown.errors.contains("CLIHound has no property 'keepers' (its properties: name)"), "\(unknown.errors)")
        let before = try Self.objects(try tool.run(["objects", "copy.burrow", "CLIHound", "--format", "json"]))
        #expect(before.map { $0.keys.sorted() } == Array(repeating: ["name"], count: 3))

        // The program that declares them, adding a hound, records them; no migration is needed.
        do {
            let realm = try Realm(configuration: CLIKennel.configuration(tool.path("copy.burrow")))
            // Reading first makes the class's table before any write.
            #expect(realm.objects(CLIKennel.Hound.self).first { $0.name == "Fido" }?.keepers.count == 2)
            try realm.write { _ = try realm.create(CLIKennel.Hound.self, value: ["name": "Zed"]) }
            #expect(realm.schema["CLIHound"]?.computedProperties.map(\.name) == ["keepers", "collars"])
        }
        let run = try tool.run(["objects", "copy.burrow", "CLIHound", "--where", "keepers.@count > 0", "--sort", "name", "--format", "json"])
        #expect(try Self.objects(run).map { $0["keepers"] as? [String] } == [["Ali", "Bo"], ["Ali"]])
        let after = try Self.objects(try tool.run(["objects", "copy.burrow", "CLIHound", "--format", "json", "--sort", "name"]))
        #expect(after.map { $0.keys.sorted() } == Array(repeating: ["collars", "keepers", "name"], count: 4))
    }
}

/// A kennel: keepers (with a primary key) keep hounds in a list and have a favourite; collars
/// (without one) belong to a hound; each hound declares both inverses. The classes are stored
/// under the names they had before they were namespaced, which the tool's output shows.
enum CLIKennel {
    final class Keeper: Object {
        override class func _realmObjectName() -> String? { "CLIKeeper" }
        @Persisted(primaryKey: true) var name = ""
        @Persisted var age = 0
        @Persisted var dogs: List<CLIKennel.Hound>
        @Persisted var favorite: CLIKennel.Hound?
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
    }

    final class Hound: Object {
        override class func _realmObjectName() -> String? { "CLIHound" }
        @Persisted(primaryKey: true) var name = ""
        @Persisted(originProperty: "dogs") var keepers: LinkingObjects<CLIKennel.Keeper>
        @Persisted(originProperty: "hound") var collars: LinkingObjects<CLIKennel.Collar>
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
    }

    final class Collar: Object, ObjectKeyIdentifiable {
        override class func _realmObjectName() -> String? { "CLICollar" }
        @Persisted var color = ""
        @Persisted var hound: CLIKennel.Hound?
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
    }

    static func configuration(_ path: String) -> Realm.Configuration {
        var configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: path))
        configuration.objectTypes = [CLIKennel.Keeper.self, CLIKennel.Hound.self, CLIKennel.Collar.self]
        return configuration
    }

    /// The object keys of the collars written.
    struct Keys {
        let red: Int
        let blue: Int
    }

    /// Writes the kennel to a new file at `path` and closes it: Ali keeps Fido and Rex (her
    /// favourite), Bo keeps Fido and favours Spot, Rex wears a red and a blue collar.
    @discardableResult
    static func write(to path: String) throws -> Keys {
        let realm = try Realm(configuration: configuration(path))
        var keys = Keys(red: 0, blue: 0)
        try realm.write {
            let fido = try realm.create(CLIKennel.Hound.self, value: ["name": "Fido"])
            let rex = try realm.create(CLIKennel.Hound.self, value: ["name": "Rex"])
            let spot = try realm.create(CLIKennel.Hound.self, value: ["name": "Spot"])
            try realm.create(CLIKennel.Keeper.self, value: ["name": "Ali", "age": 41, "dogs": [fido, rex], "favorite": rex])
            try realm.create(CLIKennel.Keeper.self, value: ["name": "Bo", "age": 23, "dogs": [fido], "favorite": spot])
            let red = try realm.create(CLIKennel.Collar.self, value: ["color": "red", "hound": rex])
            let blue = try realm.create(CLIKennel.Collar.self, value: ["color": "blue", "hound": rex])
            keys = Keys(red: Int(red.id), blue: Int(blue.id))
        }
        return keys
    }
}
